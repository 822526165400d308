/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.compat.CoordinatorRewrite;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.action.ActionFuture;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/**
 * More runs at once than the node's generic pool has threads: every run finishes with the answer it
 * gives alone, queries keep answering meanwhile, and no thread dump taken during the runs shows a
 * thread waiting in the plugin's code (a run's steps are listeners: issue 30 measured 126 of 128
 * generic threads parked in the plugin when each run held threads waiting for other actions).
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 1, numClientNodes = 0, supportsDedicatedMasters = false)
public class NearDupClustersConcurrencyTests extends OpenSearchIntegTestCase {

    private static final int GENERIC_THREADS = 8;
    private static final int INDICES = 6;
    /** A document of every index, liked by {@code _id} without {@code _index}: each index's own is read. */
    private static final String LIKED = "liked";

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected Settings nodeSettings(int nodeOrdinal) {
        return Settings.builder()
                .put(super.nodeSettings(nodeOrdinal))
                .put("thread_pool.generic.max", GENERIC_THREADS)
                .build();
    }

    private void indexTexts(String index) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 3)
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}, "
                        + "\"simhash\": {\"type\": \"simhash\"}}}}}"));
        Random random = random();
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int group = 0; group < 40; group++) {
            StringBuilder base = new StringBuilder();
            for (int w = 0; w < 60; w++) {
                base.append("w").append(random.nextInt(5000)).append(' ');
            }
            for (int copy = 0; copy <= between(0, 3); copy++) {
                bulk.add(client().prepareIndex(index)
                        .setId(group == 0 && copy == 0 ? LIKED : null)
                        .setSource(Map.of("text", base + (copy == 0 ? "" : "copy " + copy))));
            }
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    private static NearDupClustersRequest run(String index, String field, String target, boolean dryRun)
            throws Exception {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY,
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                "{\"field\": \"" + field + "\", \"target_field\": \"" + target + "\"}")) {
            // Small pages, windows and bulks: many steps, so the runs overlap.
            return NearDupClustersRequest.parse(index, parser)
                    .scrollSize(5)
                    .slices(NearDupClustersRequest.AUTO_SLICES)
                    .dryRun(dryRun)
                    .refresh(dryRun == false);
        }
    }

    private static ActionFuture<NearDupClustersResponse> start(NearDupClustersRequest request) {
        return client().execute(
                        request.dryRun() ? NearDupClustersDryRunAction.INSTANCE : NearDupClustersAction.INSTANCE,
                        request);
    }

    /** Threads waiting (parked, sleeping, in {@code Object.wait}) with a frame of the plugin's main code on their stack. */
    private static List<String> threadsWaitingInThePlugin() {
        List<String> waiting = new ArrayList<>();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            if (thread.getThreadState() != Thread.State.WAITING
                    && thread.getThreadState() != Thread.State.TIMED_WAITING) {
                continue;
            }
            for (StackTraceElement frame : thread.getStackTrace()) {
                String className = frame.getClassName();
                if (className.startsWith("io.neardup.")
                        && className.startsWith(NearDupClustersConcurrencyTests.class.getName()) == false) {
                    waiting.add(thread.getThreadName() + " at " + frame + " on " + thread.getLockInfo() + ": "
                            + Arrays.toString(Arrays.copyOf(thread.getStackTrace(), 12)));
                    break;
                }
            }
        }
        return waiting;
    }

    public void testMoreRunsThanGenericThreadsFinishWithNoThreadWaitingInThePlugin() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        List<NearDupClustersRequest> requests = new ArrayList<>();
        for (int i = 0; i < INDICES; i++) {
            String index = "texts-" + i;
            indexTexts(index);
            requests.add(run(index, "fp.minhash", "dup", false));
            requests.add(run(index, "fp.minhash", "dup", true));
            requests.add(run(index, "fp.simhash", "near", true));
        }
        assertTrue(requests.size() > GENERIC_THREADS);
        // Each run's answer alone, for the same runs at once to match.
        List<Long> alone = new ArrayList<>();
        for (NearDupClustersRequest request : requests) {
            alone.add(start(run(request.indices()[0], request.spec().field(), "alone", true))
                    .get()
                    .counts()
                    .clusters());
        }

        List<ActionFuture<NearDupClustersResponse>> running = new ArrayList<>();
        for (NearDupClustersRequest request : requests) {
            running.add(start(request));
        }
        List<String> waiting = new ArrayList<>();
        AtomicInteger queries = new AtomicInteger();
        int dumpsDuringRuns = 0;
        while (running.stream().anyMatch(future -> future.isDone() == false)) {
            // Queries in flight while the threads are dumped: by text, and by like._id without _index (read in
            // each index the query searches, by its rewrite, where each shard once read it with a blocking GET).
            // Where the rewrite cannot tell the indices searched (OpenSearch 2.19, 3.0.x: CoordinatorRewrite),
            // each shard still reads it so, waiting in the plugin by design (docs/install.md): text only there.
            List<ActionFuture<SearchResponse>> inFlight = new ArrayList<>();
            inFlight.add(client().prepareSearch("texts-0")
                    .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": {\"field\": \"fp.minhash\", "
                            + "\"min_similarity\": 0.5, \"like\": {\"text\": \"w1 w2 w3 w4 w5 w6 w7 w8\"}}}"))
                    .execute());
            if (CoordinatorRewrite.available()) {
                inFlight.add(client().prepareSearch("texts-*")
                        .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": {\"field\": \"fp.minhash\", "
                                + "\"min_similarity\": 0.5, \"like\": {\"_id\": \"" + LIKED + "\"}}}"))
                        .execute());
                inFlight.add(client().prepareSearch("texts-1", "texts-2")
                        .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": {\"field\": \"fp.simhash\", "
                                + "\"like\": {\"_id\": \"" + LIKED + "\"}}}"))
                        .execute());
            }
            waiting.addAll(threadsWaitingInThePlugin());
            dumpsDuringRuns++;
            for (ActionFuture<SearchResponse> query : inFlight) {
                SearchResponse response = query.get(10, TimeUnit.SECONDS);
                assertEquals(Arrays.toString(response.getShardFailures()), 0, response.getFailedShards());
                queries.incrementAndGet();
            }
        }
        assertTrue("thread dumps taken while runs went on: " + dumpsDuringRuns, dumpsDuringRuns >= 3);
        assertEquals("threads waiting in the plugin's code: " + waiting, List.of(), waiting);
        for (int i = 0; i < requests.size(); i++) {
            NearDupClustersResponse response = running.get(i).get(1, TimeUnit.MINUTES);
            assertNull(response.canceled());
            assertEquals(
                    requests.get(i).getDescription(),
                    alone.get(i).longValue(),
                    response.counts().clusters());
        }
        logger.info(
                "{} runs at once on {} generic threads; {} queries answered meanwhile",
                requests.size(),
                GENERIC_THREADS,
                queries.get());
    }
}
