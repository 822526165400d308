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
import java.util.HashMap;
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
 * More runs at once than the node's generic pool has threads (32 on 8): every run finishes with the answer it
 * gives alone, queries keep answering meanwhile (by {@code like._id} without {@code _index}, by a text through
 * the index's pipeline and through a named one), and no thread dump taken during the runs shows a thread of the
 * plugin waiting on another action's answer, or waiting at all in the plugin's code (a run's steps are
 * listeners: issue 30 measured 126 of 128 generic threads parked in the plugin when each run held threads
 * waiting for other actions; issue 40 found a search thread parked on the GET of {@code like._id}).
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 1, numClientNodes = 0, supportsDedicatedMasters = false)
public class NearDupClustersConcurrencyTests extends OpenSearchIntegTestCase {

    private static final int GENERIC_THREADS = 8;
    private static final int INDICES = 4;
    /** Per index: one run that writes, the others dry runs of either field (32 runs in all). */
    private static final int RUNS_PER_INDEX = 8;
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

    /** A frame of the plugin's main code (this test's own frames aside). */
    private static boolean isPluginFrame(StackTraceElement frame) {
        String className = frame.getClassName();
        return className.startsWith("io.neardup.")
                && className.startsWith(NearDupClustersConcurrencyTests.class.getName()) == false;
    }

    /**
     * A frame where a thread waits for another's answer: an action future's {@code actionGet}, a future's
     * {@code get} or {@code join} (OpenSearch's {@code BaseFuture}, {@code PlainActionFuture}, {@code FutureUtils},
     * the JDK's), a latch's or barrier's {@code await}.
     */
    static boolean isBlockingWait(StackTraceElement frame) {
        String className = frame.getClassName();
        String method = frame.getMethodName();
        return method.equals("actionGet")
                || ((method.equals("get") || method.equals("join"))
                        && (className.endsWith("Future")
                                || className.contains("Future$")
                                || className.equals("org.opensearch.common.util.concurrent.FutureUtils")))
                || (method.equals("await")
                        && (className.equals("java.util.concurrent.CountDownLatch")
                                || className.equals("java.util.concurrent.CyclicBarrier")));
    }

    /**
     * What is wrong with one thread's stack, or null: a blocking wait with a plugin frame below it (the plugin called
     * it, whatever the thread's state at that instant), or a waiting thread (parked, sleeping, in
     * {@code Object.wait}) with a plugin frame anywhere on its stack.
     */
    static String waitInThePlugin(Thread.State state, StackTraceElement[] stack) {
        for (int wait = 0; wait < stack.length; wait++) {
            if (isBlockingWait(stack[wait])) {
                for (int caller = wait + 1; caller < stack.length; caller++) {
                    if (isPluginFrame(stack[caller])) {
                        return "waits on an answer at " + stack[wait] + ", called from " + stack[caller];
                    }
                }
            }
        }
        if (state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING) {
            for (StackTraceElement frame : stack) {
                if (isPluginFrame(frame)) {
                    return "waits (" + state + ") in " + frame;
                }
            }
        }
        return null;
    }

    /** One thread dump of this JVM (every node of the test cluster): the threads {@link #waitInThePlugin} finds. */
    private static List<String> threadsWaitingInThePlugin() {
        List<String> waiting = new ArrayList<>();
        for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            String wrong = waitInThePlugin(thread.getThreadState(), thread.getStackTrace());
            if (wrong != null) {
                waiting.add(thread.getThreadName() + " " + wrong + " on " + thread.getLockInfo() + ": "
                        + Arrays.toString(
                                Arrays.copyOf(thread.getStackTrace(), Math.min(24, thread.getStackTrace().length))));
            }
        }
        return waiting;
    }

    private static ActionFuture<SearchResponse> query(String body, String... indices) {
        return client().prepareSearch(indices)
                .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": " + body + "}"))
                .execute();
    }

    /**
     * The test's own check of its check: a thread whose plugin frame waits on an action's answer is found, and so
     * is one waiting in the plugin's code; one merely running there, or waiting outside it, is not.
     */
    public void testTheThreadDumpCheckFindsAPluginFrameWaitingOnAnAnswer() {
        StackTraceElement park = new StackTraceElement("jdk.internal.misc.Unsafe", "park", null, -2);
        StackTraceElement baseFutureGet =
                new StackTraceElement("org.opensearch.common.util.concurrent.BaseFuture", "get", null, 1);
        StackTraceElement actionGet =
                new StackTraceElement("org.opensearch.action.support.PlainActionFuture", "actionGet", null, 1);
        StackTraceElement plugin = new StackTraceElement("io.neardup.query.LikeResolver", "processorFor", null, 1);
        StackTraceElement search =
                new StackTraceElement("org.opensearch.search.SearchService", "executeQueryPhase", null, 1);
        StackTraceElement pool = new StackTraceElement("java.util.concurrent.ThreadPoolExecutor", "runWorker", null, 1);
        assertNotNull(waitInThePlugin(
                Thread.State.WAITING, new StackTraceElement[] {park, baseFutureGet, actionGet, plugin, search}));
        assertNotNull(waitInThePlugin(Thread.State.RUNNABLE, new StackTraceElement[] {actionGet, plugin, search}));
        assertNotNull(waitInThePlugin(Thread.State.TIMED_WAITING, new StackTraceElement[] {park, plugin, pool}));
        assertNull(waitInThePlugin(Thread.State.RUNNABLE, new StackTraceElement[] {plugin, search, pool}));
        assertNull(waitInThePlugin(Thread.State.WAITING, new StackTraceElement[] {park, baseFutureGet, search, pool}));
        assertNull(waitInThePlugin(Thread.State.WAITING, new StackTraceElement[] {park, pool}));
    }

    public void testMoreRunsThanGenericThreadsFinishWithNoThreadWaitingInThePlugin() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        List<NearDupClustersRequest> requests = new ArrayList<>();
        // Each (index, field)'s answer alone, for the same runs at once to match.
        Map<String, Long> alone = new HashMap<>();
        for (int i = 0; i < INDICES; i++) {
            String index = "texts-" + i;
            indexTexts(index);
            for (String field : List.of("fp.minhash", "fp.simhash")) {
                alone.put(
                        index + " " + field,
                        start(run(index, field, "alone", true)).get().counts().clusters());
            }
            requests.add(run(index, "fp.minhash", "dup", false));
            for (int dry = 1; dry < RUNS_PER_INDEX; dry++) {
                requests.add(
                        dry % 2 == 0 ? run(index, "fp.minhash", "dup", true) : run(index, "fp.simhash", "near", true));
            }
        }
        assertEquals(32, requests.size());
        assertTrue(requests.size() > GENERIC_THREADS);

        List<ActionFuture<NearDupClustersResponse>> running = new ArrayList<>();
        for (NearDupClustersRequest request : requests) {
            running.add(start(request));
        }
        List<String> waiting = new ArrayList<>();
        AtomicInteger queries = new AtomicInteger();
        int dumpsDuringRuns = 0;
        while (running.stream().anyMatch(future -> future.isDone() == false)) {
            // Queries in flight while the threads are dumped: by like._id without _index (read in each index the
            // query searches, by its rewrite, where each shard once read it with a blocking GET), by a text through
            // the index's default pipeline, and through a pipeline named in the query (read by the rewrite as the
            // caller, where each shard once read it with a blocking GetPipelineAction). Where the rewrite cannot tell
            // the indices searched (OpenSearch 2.19, 3.0.x: CoordinatorRewrite), each shard still reads like._id so,
            // waiting in the plugin by design (docs/install.md): no like._id there.
            String text = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12";
            List<ActionFuture<SearchResponse>> inFlight = new ArrayList<>();
            if (CoordinatorRewrite.available()) {
                inFlight.add(query(
                        "{\"field\": \"fp.minhash\", \"min_similarity\": 0.5, \"like\": {\"_id\": \"" + LIKED + "\"}}",
                        "texts-*"));
                inFlight.add(query(
                        "{\"field\": \"fp.simhash\", \"like\": {\"_id\": \"" + LIKED + "\"}}", "texts-1", "texts-2"));
            }
            inFlight.add(query(
                    "{\"field\": \"fp.minhash\", \"min_similarity\": 0.5, \"like\": {\"text\": \"" + text + "\"}}",
                    "texts-0"));
            inFlight.add(query(
                    "{\"field\": \"fp.simhash\", \"like\": {\"text\": \"" + text + "\", \"pipeline\": \"fp\"}}",
                    "texts-*"));
            inFlight.add(query(
                    "{\"field\": \"fp.minhash\", \"min_similarity\": 0.5, \"like\": {\"text\": \"" + text
                            + "\", \"pipeline\": \"fp\"}}",
                    "texts-3"));
            // Several dumps while these queries are on their way, whatever the runs do meanwhile.
            do {
                waiting.addAll(threadsWaitingInThePlugin());
                dumpsDuringRuns++;
                Thread.sleep(10); // a dump costs a core for a moment: the runs and queries get their turn
            } while (inFlight.stream().anyMatch(future -> future.isDone() == false));
            for (ActionFuture<SearchResponse> query : inFlight) {
                SearchResponse response = query.get(10, TimeUnit.SECONDS);
                assertEquals(Arrays.toString(response.getShardFailures()), 0, response.getFailedShards());
                queries.incrementAndGet();
            }
        }
        assertTrue("thread dumps taken while runs went on: " + dumpsDuringRuns, dumpsDuringRuns >= 3);
        assertEquals("threads waiting in the plugin's code: " + waiting, List.of(), waiting);
        for (int i = 0; i < requests.size(); i++) {
            NearDupClustersRequest request = requests.get(i);
            NearDupClustersResponse response = running.get(i).get(1, TimeUnit.MINUTES);
            assertNull(response.canceled());
            assertEquals(
                    request.getDescription(),
                    alone.get(request.indices()[0] + " " + request.spec().field())
                            .longValue(),
                    response.counts().clusters());
        }
        logger.info(
                "{} runs at once on {} generic threads; {} queries answered meanwhile, {} thread dumps",
                requests.size(),
                GENERIC_THREADS,
                queries.get(),
                dumpsDuringRuns);
    }
}
