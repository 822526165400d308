/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.core.ClusterGraph;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.PartitionedClusters;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.match.NodeRunBreakers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.indices.breaker.CircuitBreakerService;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;
import org.opensearch.threadpool.ThreadPool;

/**
 * What a run says it held: {@code coordinator_bytes}, the most it charged at once on its coordinating node (its graph,
 * whose charge a document and a match is known), and {@code data_node_bytes}, the most one data node held for it at
 * once; no run's breaker left on any node afterwards.
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 2)
public class NearDupClustersRunBytesTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /**
     * What the graph charges for {@code ids} (every one a document with a near-duplicate), each re-read with
     * {@code sortValues} representative sort values, and {@code edgeBytes} for its kept matches: the sum of its
     * charges, all held until the run ends, so its peak.
     */
    static long graphBytes(List<String> ids, int sortValues, long edgeBytes) {
        long bytes = edgeBytes;
        for (String id : ids) {
            bytes += MatchGraph.BYTES_PER_NODE
                    + 2L * id.length()
                    + ClusterMembers.BYTES_PER_MEMBER
                    + (long) ClusterMembers.BYTES_PER_SORT_VALUE * sortValues;
        }
        return bytes;
    }

    /** Every node's runs' breakers are gone (a step's releases may come just after its answer). */
    static void assertNoRunLeftOnTheNodes() throws Exception {
        assertBusy(() -> {
            for (NodeRunBreakers runs : internalCluster().getInstances(NodeRunBreakers.class)) {
                assertEquals("a run's breaker left on a node", 0, runs.runs());
            }
        });
    }

    /** {@code pairs} pairs of simhashes one bit apart in two shards, under ids of 12 characters; the ids. */
    private List<String> indexPairs(String index, int pairs) {
        return indexPairs(index, "simhash", pairs, () -> {
            long base = random().nextLong();
            return List.of(SimhashCodec.toHex(base), SimhashCodec.toHex(base ^ 1));
        });
    }

    /** As above on a {@code type} field {@code fp.<type>}: {@code pair} gives the two values of each pair. */
    private List<String> indexPairs(String index, String type, int pairs, Supplier<List<Object>> pair) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder().put("index.number_of_shards", 2).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"" + type + "\": {\"type\": \"" + type
                        + "\"}}}}}"));
        List<String> ids = new ArrayList<>();
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int p = 0; p < pairs; p++) {
            List<Object> values = pair.get();
            for (int copy = 0; copy < 2; copy++) {
                String id = String.format(Locale.ROOT, "doc-%04d-of-%d", p, copy);
                ids.add(id);
                bulk.add(
                        client().prepareIndex(index).setId(id).setSource(Map.of("fp", Map.of(type, values.get(copy)))));
            }
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        return ids;
    }

    /** The most the {@code neardup} breaker allows on a node: no node could have held more for a run. */
    private static long breakerLimit() {
        long limit = Long.MAX_VALUE;
        for (CircuitBreakerService service : internalCluster().getInstances(CircuitBreakerService.class)) {
            limit = Math.min(
                    limit, service.getBreaker(NearDupPlugin.BREAKER_NAME).getLimit());
        }
        return limit;
    }

    /**
     * A run with its graph on the coordinating node (a rolling upgrade's) reports the graph's charge there; the same run
     * on the parts holds nothing there, and on a data node no more than the breaker allows.
     */
    public void testTheCoordinatorBytesAreTheGraphsChargeAndTheDataNodeBytesWithinTheBreaker() throws Exception {
        List<String> ids = indexPairs("pairs", 60);
        for (String linkage : List.of("single", "leader")) {
            String body = "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup_" + linkage
                    + "\", \"linkage\": \"" + linkage + "\", \"query\": {\"match_all\": {}}}";
            NearDupClustersTask.Status onTheCoordinator = ClusterRequests.runWithTheGraphOnTheCoordinator(
                            client(), internalCluster().getInstance(ThreadPool.class), "pairs", body)
                    .counts();
            assertEquals(linkage, 60, onTheCoordinator.clusters());
            long edgeBytes = "leader".equals(linkage) ? onTheCoordinator.matches() * ClusterGraph.BYTES_PER_EDGE : 0;
            assertEquals(
                    linkage,
                    graphBytes(
                            ids,
                            ClusterRequests.parse("pairs", body)
                                    .representativeSort()
                                    .size(),
                            edgeBytes),
                    onTheCoordinator.coordinatorBytes());
            NearDupClustersTask.Status onTheParts =
                    ClusterRequests.run(client(), "pairs", body).counts();
            assertEquals(linkage, 60, onTheParts.clusters());
            assertEquals(linkage + ": " + onTheParts, 0, onTheParts.coordinatorBytes());
            assertTrue(linkage + ": " + onTheParts, onTheParts.dataNodeBytes() > 0);
            assertTrue(linkage + ": " + onTheParts, onTheParts.dataNodeBytes() <= breakerLimit());
            assertNoRunLeftOnTheNodes();
        }
    }

    /**
     * A run's coordinating node holds what the number of shards and nodes asks, not what the clustered documents do
     * (docs/clusters.md section 8), dry or with writes, with a {@code query} or without: with 10 times the clustered
     * documents, its peak is within 10%, while the data nodes hold more. The same runs with their graph on the
     * coordinating node (a rolling upgrade's) are there as a control.
     */
    public void testARunsCoordinatorHoldsAsMuchForTenTimesTheClusteredDocuments() throws Exception {
        indexPairs("few", 20);
        indexPairs("many", 200);
        NearDupClustersTask.Status[] dry = new NearDupClustersTask.Status[2];
        NearDupClustersTask.Status[] written = new NearDupClustersTask.Status[2];
        NearDupClustersTask.Status[] queried = new NearDupClustersTask.Status[2];
        NearDupClustersTask.Status[] onTheCoordinator = new NearDupClustersTask.Status[2];
        String body = "\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup";
        for (int i = 0; i < 2; i++) {
            String index = i == 0 ? "few" : "many";
            dry[i] = client().execute(
                            NearDupClustersDryRunAction.INSTANCE,
                            ClusterRequests.parse(index, "{" + body + "\"}").dryRun(true))
                    .actionGet()
                    .counts();
            written[i] =
                    ClusterRequests.run(client(), index, "{" + body + "\"}").counts();
            String everyDocument = "{" + body + "_q\", \"query\": {\"match_all\": {}}}";
            queried[i] = ClusterRequests.run(client(), index, everyDocument).counts();
            onTheCoordinator[i] = ClusterRequests.runWithTheGraphOnTheCoordinator(
                            client(), internalCluster().getInstance(ThreadPool.class), index, everyDocument)
                    .counts();
            assertEquals(index, written[i].clusters(), dry[i].clusters());
            assertEquals(index, queried[i].clusters(), dry[i].clusters());
            assertEquals(index, onTheCoordinator[i].clusters(), dry[i].clusters());
        }
        assertEquals(200, dry[1].clusters());
        for (NearDupClustersTask.Status[] runs : List.of(dry, written, queried)) {
            assertTrue(Arrays.toString(runs), runs[1].coordinatorBytes() <= runs[0].coordinatorBytes() * 1.1);
            assertTrue(Arrays.toString(runs), runs[1].dataNodeBytes() > runs[0].dataNodeBytes());
        }
        assertEquals(400, written[1].updated());
        assertTrue(
                Arrays.toString(onTheCoordinator),
                onTheCoordinator[1].coordinatorBytes() > 5 * onTheCoordinator[0].coordinatorBytes());
        assertNoRunLeftOnTheNodes();
    }

    /**
     * A run with a {@code query} reads and matches its pages from the nodes that keep its shards' parts: they say what
     * they held, parts and all, and the coordinating node holds nothing. Each shard's first pages (of 5 documents) are
     * loners, which find no pair: the step that first charges the run's breaker on a node charges nothing.
     */
    public void testARunWithAQueryHearsFromTheNodesThatScanItsShards() throws Exception {
        assertAcked(prepareCreate("queried")
                .setSettings(Settings.builder().put("index.number_of_shards", 2).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        BulkRequestBuilder loners = client().prepareBulk();
        for (int i = 0; i < 40; i++) {
            loners.add(client().prepareIndex("queried")
                    .setId("loner-" + i)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(random().nextLong())))));
        }
        assertFalse(loners.get().hasFailures());
        BulkRequestBuilder pairs = client().prepareBulk();
        for (int p = 0; p < 20; p++) {
            long base = random().nextLong();
            for (int copy = 0; copy < 2; copy++) {
                pairs.add(client().prepareIndex("queried")
                        .setId(String.format(Locale.ROOT, "doc-%04d-of-%d", p, copy))
                        .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(base ^ copy)))));
            }
        }
        assertFalse(pairs.setRefreshPolicy("true").get().hasFailures());
        NearDupClustersResponse response = client().execute(
                        NearDupClustersDryRunAction.INSTANCE,
                        ClusterRequests.parse(
                                        "queried",
                                        "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\","
                                                + " \"query\": {\"match_all\": {}}}")
                                .scrollSize(5)
                                .dryRun(true))
                .actionGet();
        assertEquals(20, response.counts().clusters());
        assertEquals(80, response.counts().scanned());
        // At least the documents of the parts on one node: half the pairs' 40, or more.
        assertTrue(
                response.counts().toString(),
                response.counts().dataNodeBytes() >= 20L * PartitionedClusters.BYTES_PER_NODE);
        assertEquals(response.counts().toString(), 0, response.counts().coordinatorBytes());
        assertNoRunLeftOnTheNodes();
    }

    /**
     * A {@code minhash} run over shards on two nodes: each node's shards joined together, and look-ups between the nodes
     * (the steps' answers carry what the nodes they asked held).
     */
    public void testABandJoinAcrossNodesSaysWhatItsNodesHeld() throws Exception {
        indexPairs("signatures", "minhash", 30, () -> {
            Map<String, Object> value = Map.of(
                    "value",
                    SignatureCodec.encode(random().ints(128).toArray(), 0x5eed, FingerprintFormat.NEW_INDEX_DEFAULT));
            return List.of(value, value);
        });
        NearDupClustersRequest request = ClusterRequests.parse(
                        "signatures", "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"dup\"}")
                .dryRun(true);
        NearDupClustersTask.Status counts = client().execute(NearDupClustersDryRunAction.INSTANCE, request)
                .actionGet()
                .counts();
        assertEquals(30, counts.clusters());
        assertEquals("the graph is in parts on the data nodes", 0, counts.coordinatorBytes());
        assertTrue(counts.toString(), counts.dataNodeBytes() > 0);
        assertTrue(counts.toString(), counts.dataNodeBytes() <= breakerLimit());
        assertNoRunLeftOnTheNodes();
    }
}
