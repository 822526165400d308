/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.NearDupPlugin;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.opensearch.ExceptionsHelper;
import org.opensearch.OpenSearchStatusException;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.action.bulk.BulkAction;
import org.opensearch.action.support.PlainActionFuture;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.breaker.NoopCircuitBreaker;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchSingleNodeTestCase;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;
import org.opensearch.transport.client.FilterClient;

public class ClusterWriterTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    /**
     * A client that refuses a bulk by throwing from the call itself, rather than through its listener: the run fails
     * with that refusal's status, and nothing is written.
     */
    public void testEveryBulkRefusedByAThrowingClientFailsTheRunWithItsStatusAndWritesNothing() throws Exception {
        Exception e = runWritingWithBulksRefusedAfter(0, request -> {});
        assertEquals(e.toString(), RestStatus.FORBIDDEN, ExceptionsHelper.status(e));
        assertTrue(e.toString(), ExceptionsHelper.stackTrace(e).contains(REFUSAL));
        assertEquals(Set.of(), written());
    }

    /**
     * The same refusal of a bulk sent later, by the throttle's timer (one document a bulk, one bulk a second): the
     * run fails with its status instead of never answering (the exception lost on the timer's thread), the writes
     * stop there, as with a bulk that fails in its answer.
     */
    public void testABulkSentByTheThrottleAndRefusedByAThrowingClientFailsTheRun() throws Exception {
        Exception e = runWritingWithBulksRefusedAfter(
                1, request -> request.scrollSize(1).slices(1).requestsPerSecond(1));
        assertEquals(e.toString(), RestStatus.FORBIDDEN, ExceptionsHelper.status(e));
        assertEquals(1, written().size());
    }

    /**
     * A run whose graph is on its coordinating node (no parts: a rolling upgrade) writes with {@code dest} a record a
     * clustered document, as the parts' nodes write them, and leaves the documents as they were.
     */
    public void testTheCoordinatorsWriterRecordsIntoDest() throws Exception {
        IndexMetadata docs = ClusterRequests.threeCopies(client(), "docs");
        NearDupClustersRequest request =
                ClusterRequests.parse("docs", "{\"field\": \"fp.simhash\", \"dest\": {\"index\": \"records\"}}");
        request.refresh(true);
        client().admin()
                .indices()
                .create(AssignmentRecords.createIndex("records"))
                .actionGet();
        RunContext context = ClusterRequests.runContext(client(), getInstanceFromNode(ThreadPool.class), request, docs);
        PlainActionFuture<NearDupClustersResponse> run = new PlainActionFuture<>();
        new ClusterJob(context, new NoopCircuitBreaker("test"), true, null, () -> {}).run(run);
        NearDupClustersResponse response = run.actionGet(30, TimeUnit.SECONDS);
        assertEquals(3, response.counts().updated());
        Set<String> representatives = new HashSet<>();
        Set<String> recorded = new HashSet<>();
        for (SearchHit hit : client().prepareSearch("records").get().getHits().getHits()) {
            Map<String, Object> record = hit.getSourceAsMap();
            assertEquals("docs", record.get("index"));
            assertEquals(hit.getId(), record.get("id"));
            assertEquals(3, record.get("size"));
            recorded.add(hit.getId());
            representatives.add((String) record.get("cluster"));
        }
        assertEquals(3, recorded.size());
        assertEquals("one cluster", 1, representatives.size());
        assertEquals(Set.of(), written());
    }

    private static final String REFUSAL = "bulk refused before it was sent";

    /** A writing run on three copies of one fingerprint, its bulks after the first {@code allowed} refused. */
    private Exception runWritingWithBulksRefusedAfter(int allowed, Consumer<NearDupClustersRequest> options)
            throws Exception {
        IndexMetadata docs = ClusterRequests.threeCopies(client(), "docs");
        AtomicInteger bulks = new AtomicInteger();
        Client refusingBulks = new FilterClient(client()) {
            @Override
            protected <Request extends ActionRequest, Response extends ActionResponse> void doExecute(
                    ActionType<Response> action, Request request, ActionListener<Response> listener) {
                if (action == BulkAction.INSTANCE && bulks.incrementAndGet() > allowed) {
                    throw new OpenSearchStatusException(REFUSAL, RestStatus.FORBIDDEN);
                }
                super.doExecute(action, request, listener);
            }
        };
        NearDupClustersRequest request =
                ClusterRequests.parse("docs", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}");
        options.accept(request);
        RunContext context =
                ClusterRequests.runContext(refusingBulks, getInstanceFromNode(ThreadPool.class), request, docs);
        PlainActionFuture<NearDupClustersResponse> run = new PlainActionFuture<>();
        new ClusterJob(context, new NoopCircuitBreaker("test"), true, null, () -> {}).run(run);
        Exception e = expectThrows(Exception.class, () -> run.actionGet(30, TimeUnit.SECONDS));
        assertFalse("the run never answered", e instanceof OpenSearchTimeoutException);
        client().admin().indices().prepareRefresh("docs").get();
        return e;
    }

    /** The documents the run wrote an assignment to. */
    private Set<String> written() {
        Set<String> ids = new HashSet<>();
        for (SearchHit hit : client().prepareSearch("docs").get().getHits().getHits()) {
            if (hit.getSourceAsMap().get("dup") != null) {
                ids.add(hit.getId());
            }
        }
        return ids;
    }
}
