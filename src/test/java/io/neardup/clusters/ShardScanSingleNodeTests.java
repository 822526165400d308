/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.NearDupPlugin;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.support.PlainActionFuture;
import org.opensearch.action.support.WriteRequest;
import org.opensearch.action.update.UpdateRequest;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.breaker.NoopCircuitBreaker;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;
import org.opensearch.transport.client.FilterClient;

/** A run's scan of a shard while its documents change under it. */
public class ShardScanSingleNodeTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    /**
     * Every document updated (another run's writes, a user's) after the scan read the shard's newest sequence number
     * and before its first window: each moves past the windows, so without a second pass no window meets any of them
     * and the three copies are found in no cluster.
     */
    public void testDocumentsUpdatedBeforeTheirWindowsAreStillJoined() throws Exception {
        IndexMetadata docs = ClusterRequests.threeCopies(client(), "docs");
        AtomicBoolean updated = new AtomicBoolean();
        Client updatingFirst = new FilterClient(client()) {
            @Override
            protected <Request extends ActionRequest, Response extends ActionResponse> void doExecute(
                    ActionType<Response> action, Request request, ActionListener<Response> listener) {
                if (action == ShardJoinAction.INSTANCE && updated.compareAndSet(false, true)) {
                    BulkRequest updates = new BulkRequest().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
                    for (String id : List.of("a", "b", "c")) {
                        updates.add(new UpdateRequest("docs", id).doc(Map.of("seen", true)));
                    }
                    client().bulk(
                                    updates,
                                    ActionListener.wrap(
                                            done -> {
                                                assertFalse(done.buildFailureMessage(), done.hasFailures());
                                                super.doExecute(action, request, listener);
                                            },
                                            listener::onFailure));
                    return;
                }
                super.doExecute(action, request, listener);
            }
        };
        NearDupClustersRequest request =
                ClusterRequests.parse("docs", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}");
        request.dryRun(true);
        PlainActionFuture<NearDupClustersResponse> run = new PlainActionFuture<>();
        new ClusterJob(
                        ClusterRequests.runContext(updatingFirst, getInstanceFromNode(ThreadPool.class), request, docs),
                        new NoopCircuitBreaker("test"),
                        true)
                .run(run);
        NearDupClustersResponse response = run.actionGet(30, TimeUnit.SECONDS);
        assertTrue("the documents were updated during the scan", updated.get());
        assertEquals(3, response.clusteredDocuments());
        assertEquals(1, response.counts().clusters());
    }
}
