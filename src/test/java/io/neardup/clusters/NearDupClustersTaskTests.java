/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.core.SimhashCodec;
import io.neardup.match.NodeRunBreakers;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.opensearch.ExceptionsHelper;
import org.opensearch.ResourceNotFoundException;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.admin.cluster.node.tasks.list.ListTasksResponse;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.common.action.ActionFuture;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.plugins.Plugin;
import org.opensearch.tasks.TaskInfo;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;
import org.opensearch.test.transport.MockTransportService;

/** A run as a task: its steps as child tasks, and {@code _rethrottle} of its writes. */
@ClusterScope(scope = Scope.TEST, numDataNodes = 1)
public class NearDupClustersTaskTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class, MockTransportService.TestPlugin.class);
    }

    /** {@code pairs} pairs of simhashes one bit apart, in a {@code shards}-shard index. */
    private void indexPairs(String index, int shards, int pairs) {
        assertAcked(prepareCreate(index)
                .setSettings(
                        Settings.builder().put("index.number_of_shards", shards).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        Random random = random();
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int p = 0; p < pairs; p++) {
            long base = random.nextLong();
            bulk.add(client().prepareIndex(index)
                    .setId("a" + p)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(base)))));
            bulk.add(client().prepareIndex(index)
                    .setId("b" + p)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(base ^ (1L << random.nextInt(64)))))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    private static NearDupClustersRequest request(String index) throws Exception {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY,
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}")) {
            return NearDupClustersRequest.parse(index, parser).refresh(true);
        }
    }

    private static TaskInfo runningRun() {
        List<TaskInfo> tasks = client().admin()
                .cluster()
                .prepareListTasks()
                .setActions(NearDupClustersAction.NAME, NearDupClustersDryRunAction.NAME)
                .setDetailed(true)
                .get()
                .getTasks();
        assertEquals(1, tasks.size());
        return tasks.get(0);
    }

    private static ListTasksResponse rethrottle(TaskId task, float requestsPerSecond) {
        NearDupClustersRethrottleAction.Request request =
                new NearDupClustersRethrottleAction.Request(requestsPerSecond);
        request.setTaskId(task);
        return client().execute(NearDupClustersRethrottleAction.INSTANCE, request)
                .actionGet();
    }

    /**
     * At one document a bulk and half a document a second, 40 documents take over a minute to write; rethrottled
     * to unlimited after the first write, the run ends long before that, with every document written.
     */
    public void testRethrottleChangesTheRateOfARunningRun() throws Exception {
        indexPairs("slow", 2, 20);
        NearDupClustersRequest request = request("slow").scrollSize(1).requestsPerSecond(0.5f);
        long started = System.nanoTime();
        ActionFuture<NearDupClustersResponse> running = client().execute(NearDupClustersAction.INSTANCE, request);
        ClusterRequests.awaitFirstWrite(client());
        TaskInfo run = runningRun();
        NearDupClustersTask.Status writing = (NearDupClustersTask.Status) run.getStatus();
        assertEquals(0.5f, writing.requestsPerSecond(), 0f);
        // While it writes, the graph of its 40 documents is in parts on the data nodes, which write from there.
        assertEquals(0, writing.coordinatorBytes());
        assertTrue(writing.toString(), writing.dataNodeBytes() > 0);

        ListTasksResponse rethrottled = rethrottle(run.getTaskId(), Float.POSITIVE_INFINITY);
        assertEquals(1, rethrottled.getTasks().size());
        assertEquals(
                Float.POSITIVE_INFINITY,
                ((NearDupClustersTask.Status) rethrottled.getTasks().get(0).getStatus()).requestsPerSecond(),
                0f);
        NearDupClustersResponse response = running.get(30, TimeUnit.SECONDS);
        assertEquals(writing.coordinatorBytes(), response.counts().coordinatorBytes());
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        assertTrue("at the first rate the writes alone take 78 s; took " + seconds + " s", seconds < 60);
        assertEquals(40, response.counts().updated());
        assertEquals(20, response.counts().clusters());
    }

    /**
     * While a step of the run is held on its way to the shard, {@code GET _tasks} shows it as a child of the run
     * with what it does; the rethrottle of a dry run, of another task, of a missing one, and a rate of 0 are refused.
     */
    public void testStepsAreChildTasksAndRethrottleRefusesWhatDoesNotApply() throws Exception {
        indexPairs("held", 2, 5);
        HeldRequests held = holdJoinSteps();
        ActionFuture<NearDupClustersResponse> running = client().execute(
                        NearDupClustersDryRunAction.INSTANCE, request("held").dryRun(true));
        try {
            awaitAHeldStep(held);
            TaskInfo run = runningRun();
            List<TaskInfo> children = client().admin()
                    .cluster()
                    .prepareListTasks()
                    .setParentTaskId(run.getTaskId())
                    .setDetailed(true)
                    .get()
                    .getTasks();
            assertFalse("the run's children: " + children, children.isEmpty());
            assertTrue(
                    children.toString(),
                    children.stream()
                            .anyMatch(child -> child.getAction().equals(ShardJoinAction.NAME)
                                    && child.getDescription().startsWith("shard [")
                                    && child.getDescription().contains("window [0, ")));

            // The REST layer answers these with the failure's status: 400, 404, 404
            // (RestNearDupClustersRethrottleAction).
            ListTasksResponse dryRun = rethrottle(run.getTaskId(), 10);
            assertTrue(dryRun.getTasks().isEmpty());
            assertTrue(
                    dryRun.getTaskFailures().toString(),
                    dryRun.getTaskFailures().get(0).getCause() instanceof IllegalArgumentException cause
                            && cause.getMessage().contains("is a dry run"));
            TaskId child = children.get(0).getTaskId();
            assertTrue(
                    ExceptionsHelper.unwrapCause(rethrottle(child, 10)
                                    .getNodeFailures()
                                    .get(0)
                                    .getCause())
                            instanceof ResourceNotFoundException);
            TaskId missing = new TaskId(run.getTaskId().getNodeId(), Long.MAX_VALUE);
            assertTrue(
                    ExceptionsHelper.unwrapCause(rethrottle(missing, 10)
                                    .getNodeFailures()
                                    .get(0)
                                    .getCause())
                            instanceof ResourceNotFoundException);
            expectThrows(ActionRequestValidationException.class, () -> rethrottle(run.getTaskId(), 0));
        } finally {
            releaseJoinSteps(held, running);
        }
        assertEquals(10, running.get().counts().matches() * 2);
    }

    /** Holds every shard join step on its way to the shard, until {@link #releaseJoinSteps}. */
    private static HeldRequests holdJoinSteps() {
        return HeldRequests.hold(internalCluster(), ShardJoinAction.NAME + "[s]");
    }

    private static void awaitAHeldStep(HeldRequests held) throws Exception {
        assertBusy(() -> assertTrue(held.waiting() > 0));
    }

    /** Lets the held steps go, and those that come after them, until the run is done. */
    private static void releaseJoinSteps(HeldRequests held, ActionFuture<?> running) throws Exception {
        held.stopHolding();
        assertBusy(() -> {
            held.letGo();
            assertTrue(running.isDone());
        });
    }

    /**
     * A run cancelled while its steps are on their way to the shard: the steps, let go after the cancellation, leave no
     * run's breaker behind on any node ({@link NodeRunBreakers}), nor any charge on the breaker.
     */
    public void testACancelledRunLeavesNothingOnTheNodes() throws Exception {
        indexPairs("cancelled", 2, 5);
        HeldRequests held = holdJoinSteps();
        ActionFuture<NearDupClustersResponse> running = client().execute(
                        NearDupClustersDryRunAction.INSTANCE,
                        request("cancelled").dryRun(true));
        try {
            awaitAHeldStep(held);
            client().admin()
                    .cluster()
                    .prepareCancelTasks()
                    .setTaskId(runningRun().getTaskId())
                    .get();
        } finally {
            releaseJoinSteps(held, running);
        }
        assertNotNull(running.get().canceled());
        NearDupClustersRunBytesTests.assertNoRunLeftOnTheNodes();
    }
}
