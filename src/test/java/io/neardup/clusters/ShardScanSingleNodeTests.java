/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.support.PlainActionFuture;
import org.opensearch.action.support.WriteRequest;
import org.opensearch.action.update.UpdateRequest;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.breaker.NoopCircuitBreaker;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.shard.ShardNotFoundException;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.ActionNotFoundTransportException;
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
                        true,
                        null,
                        () -> {})
                .run(run);
        NearDupClustersResponse response = run.actionGet(30, TimeUnit.SECONDS);
        assertTrue("the documents were updated during the scan", updated.get());
        assertEquals(3, response.clusteredDocuments());
        assertEquals(1, response.counts().clusters());
    }

    /** Near-copy groups of random texts, each copy written to a random one of {@code indices}; the texts by id. */
    private Map<String, String> nearCopiesAcross(List<String> indices) {
        ClusterRequests.putFingerprintPipeline(client());
        for (String index : indices) {
            client().admin()
                    .indices()
                    .prepareCreate(index)
                    .setSettings(
                            Settings.builder().put("index.number_of_shards", 1).put("index.default_pipeline", "fp"))
                    .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}}}}}")
                    .get();
        }
        Map<String, String> texts = new TreeMap<>();
        List<List<String>> groups = NearDupClustersTests.nearCopyGroups(30);
        for (int g = 0; g < groups.size(); g++) {
            for (int c = 0; c < groups.get(g).size(); c++) {
                String id = "g" + g + "-" + c;
                texts.put(id, groups.get(g).get(c));
                client().prepareIndex(randomFrom(indices))
                        .setId(id)
                        .setSource(Map.of("text", groups.get(g).get(c)))
                        .get();
            }
        }
        client().admin()
                .indices()
                .prepareRefresh(indices.toArray(new String[0]))
                .get();
        return texts;
    }

    /** The clustered documents and clusters of the exact components of pairs of Jaccard >= tau (without the plugin). */
    private static long[] truth(Map<String, String> texts, double tau) {
        Map<String, Set<String>> shingles = new HashMap<>();
        texts.forEach((id, text) -> shingles.put(id, ShingleTruth.shingles(text, 3)));
        Map<String, Set<String>> components = NearDupClustersTests.components(
                new ArrayList<>(texts.keySet()),
                (a, b) -> ShingleTruth.jaccard(shingles.get(a), shingles.get(b)) >= tau);
        Set<Set<String>> clusters = new HashSet<>();
        components.values().stream().filter(c -> c.size() >= 2).forEach(clusters::add);
        return new long[] {clusters.stream().mapToLong(Set::size).sum(), clusters.size()};
    }

    /** Counts the join steps a run sends, and fails its group steps with {@code groupFailure} where one is given. */
    private static final class CountingSteps extends FilterClient {
        final AtomicInteger groups = new AtomicInteger();
        final AtomicInteger within = new AtomicInteger();
        final AtomicInteger across = new AtomicInteger();
        private final Exception groupFailure;

        CountingSteps(Client in, Exception groupFailure) {
            super(in);
            this.groupFailure = groupFailure;
        }

        @Override
        protected <Request extends ActionRequest, Response extends ActionResponse> void doExecute(
                ActionType<Response> action, Request request, ActionListener<Response> listener) {
            if (action == ShardGroupJoinAction.INSTANCE) {
                groups.incrementAndGet();
                if (groupFailure != null) {
                    listener.onFailure(groupFailure);
                    return;
                }
            } else if (action == ShardJoinAction.INSTANCE) {
                boolean isAcross = ((ShardJoinRequest) request).step() instanceof ShardJoinRequest.BandsAcross;
                (isAcross ? across : within).incrementAndGet();
            }
            super.doExecute(action, request, listener);
        }
    }

    private NearDupClustersResponse dryRun(CountingSteps client, List<String> indices, double tau) throws Exception {
        NearDupClustersRequest request = ClusterRequests.parse(
                String.join(",", indices),
                "{\"field\": \"fp.minhash\", \"min_similarity\": " + tau + ", \"target_field\": \"dup\"}");
        request.dryRun(true);
        List<IndexMetadata> metadata = new ArrayList<>();
        for (String index : indices) {
            metadata.add(client().admin()
                    .cluster()
                    .prepareState()
                    .get()
                    .getState()
                    .metadata()
                    .index(index));
        }
        PlainActionFuture<NearDupClustersResponse> run = new PlainActionFuture<>();
        new ClusterJob(
                        ClusterRequests.runContext(client, getInstanceFromNode(ThreadPool.class), request, metadata),
                        new NoopCircuitBreaker("test"),
                        false,
                        null,
                        () -> {})
                .run(run);
        return run.actionGet(60, TimeUnit.SECONDS);
    }

    /**
     * The shards of four indices on one node are joined together in one step, none of them looked up in another:
     * the partition is the exact components of the documents, wherever each is.
     */
    public void testTheShardsOfOneNodeAreJoinedTogether() throws Exception {
        List<String> indices = List.of("day-1", "day-2", "day-3", "day-4");
        Map<String, String> texts = nearCopiesAcross(indices);
        double tau = randomFrom(0.7, 0.8);
        CountingSteps steps = new CountingSteps(client(), null);
        NearDupClustersResponse response = dryRun(steps, indices, tau);
        assertEquals(1, steps.groups.get());
        assertEquals(0, steps.within.get());
        assertEquals(0, steps.across.get());
        long[] truth = truth(texts, tau);
        assertTrue("the documents have near-copies", truth[0] > 0);
        assertEquals(truth[0], response.clusteredDocuments());
        assertEquals(truth[1], response.counts().clusters());
        assertEquals(texts.size(), response.counts().scanned());
    }

    /**
     * A group whose shard is not on the node any more (moved since the run planned), or a node that does not know the
     * group step (an earlier build, in a rolling upgrade): its shards are joined one by one, each by itself and each
     * pair by look-ups, and the partition is the same.
     */
    public void testAGroupThatCannotBeJoinedTogetherIsJoinedOneByOne() throws Exception {
        List<String> indices = List.of("week-1", "week-2", "week-3", "week-4");
        Map<String, String> texts = nearCopiesAcross(indices);
        double tau = randomFrom(0.7, 0.8);
        Exception notTogether = randomBoolean()
                ? new ShardNotFoundException(new ShardId("week-3", "_na_", 0))
                : new ActionNotFoundTransportException(ShardGroupJoinAction.NAME);
        CountingSteps steps = new CountingSteps(client(), notTogether);
        NearDupClustersResponse response = dryRun(steps, indices, tau);
        assertEquals(1, steps.groups.get());
        assertEquals(4, steps.within.get());
        assertEquals(4 * 3 / 2, steps.across.get());
        long[] truth = truth(texts, tau);
        assertEquals(truth[0], response.clusteredDocuments());
        assertEquals(truth[1], response.counts().clusters());
        assertEquals(texts.size(), response.counts().scanned());

        // Any other failure of the step is the run's.
        CountingSteps failing = new CountingSteps(client(), new IllegalStateException("broken"));
        Exception failed = expectThrows(Exception.class, () -> dryRun(failing, indices, tau));
        assertEquals("broken", ExceptionsHelper.unwrapCause(failed).getMessage());
        assertEquals(0, failing.within.get());
    }
}
