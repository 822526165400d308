/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.GraphPart;
import io.neardup.core.PartitionedClusters;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.match.NodeRunBreakers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.InternalTestCluster;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;
import org.opensearch.test.transport.MockTransportService;

/**
 * The parts of a run's graph kept on the data nodes (docs/clusters.md section 8, step 2), beside the graph on the
 * coordinating node: on 3 nodes and 6 shards with replicas, the parts hold every document the run clustered, each
 * shard's part on one node, and the clustering protocol run over them ({@link PartitionedClusters}) gives exactly the
 * clusters and sizes the run wrote. The run's release then leaves nothing on any node.
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 3)
public class RunPartsTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class, MockTransportService.TestPlugin.class);
    }

    public void testASimhashRunsPartsClusterAsItsGraphDid() throws Exception {
        // Chains of values one bit apart: with max_distance 1 a chain is one cluster though its ends are further apart.
        createIndex("chains", "simhash");
        indexChains("chains", 40, length -> {
            long value = random().nextLong();
            List<Object> chain = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                chain.add(SimhashCodec.toHex(value));
                value ^= 1L << (i * 7 % 64);
            }
            return chain;
        });
        assertPartsClusterAsTheRunWrote(
                "chains", "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}");
    }

    public void testAMinhashRunsPartsClusterAsItsGraphDid() throws Exception {
        createIndex("signatures", "minhash");
        indexChains("signatures", 40, length -> {
            int[] signature = random().ints(128).toArray();
            List<Object> chain = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                chain.add(Map.of(
                        "value",
                        SignatureCodec.encode(signature.clone(), 0x5eed, FingerprintFormat.NEW_INDEX_DEFAULT)));
                for (int k = 0; k < 6; k++) {
                    signature[random().nextInt(signature.length)] = random().nextInt();
                }
            }
            return chain;
        });
        assertPartsClusterAsTheRunWrote(
                "signatures", "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"dup\"}");
    }

    /** A run's parts are released by the nodes that keep them when its coordinating node leaves before releasing them. */
    public void testTheNodesReleaseARunsPartsWhenItsCoordinatingNodeLeaves() throws Exception {
        createIndex("chains", "simhash");
        indexChains("chains", 20, length -> {
            long value = random().nextLong();
            List<Object> chain = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                chain.add(SimhashCodec.toHex(value));
                value ^= 1L << i;
            }
            return chain;
        });
        String coordinator = randomFrom(internalCluster().getDataNodeNames().stream()
                .filter(name -> name.equals(internalCluster().getClusterManagerName()) == false)
                .toList());
        HeldRequests heldReleases = holdReleases();
        NearDupClustersResponse response = ClusterRequests.run(
                internalCluster().client(coordinator),
                "chains",
                "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}");
        assertTrue(response.toString(), response.counts().clusters() > 0);
        assertBusy(() -> assertEquals(internalCluster().size(), heldReleases.waiting()));
        int keeping = 0;
        for (String node : internalCluster().getNodeNames()) {
            if (node.equals(coordinator) == false) {
                keeping += internalCluster().getInstance(RunParts.class, node).runs();
            }
        }
        assertTrue("another node keeps parts of the run", keeping > 0);
        internalCluster().stopRandomNode(InternalTestCluster.nameFilter(coordinator));
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
            for (NodeRunBreakers onNode : internalCluster().getInstances(NodeRunBreakers.class)) {
                assertEquals("a run's breaker left on a node", 0, onNode.runs());
            }
        });
        heldReleases.stopHolding();
    }

    private void createIndex(String index, String type) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder().put("index.number_of_shards", 6).put("index.number_of_replicas", 1))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"" + type + "\": {\"type\": \"" + type
                        + "\"}}}}}"));
        ensureGreen(index);
    }

    /** {@code chains} chains of 2 to 5 documents ({@code chain} gives their values in order), and 50 loners. */
    private void indexChains(String index, int chains, IntFunction<List<Object>> chain) {
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int c = 0; c < chains + 50; c++) {
            List<Object> values = chain.apply(c < chains ? 2 + random().nextInt(4) : 1);
            for (int i = 0; i < values.size(); i++) {
                String id = String.format(Locale.ROOT, "c%03d-%d", c, i);
                String type = values.get(i) instanceof String ? "simhash" : "minhash";
                bulk.add(client().prepareIndex(index).setId(id).setSource(Map.of("fp", Map.of(type, values.get(i)))));
            }
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    private void assertPartsClusterAsTheRunWrote(String index, String body) throws Exception {
        HeldRequests heldReleases = holdReleases();
        NearDupClustersResponse response = ClusterRequests.run(client(), index, body);
        assertTrue(response.toString(), response.counts().clusters() > 0);
        assertBusy(() ->
                assertEquals("every node is asked to release", internalCluster().size(), heldReleases.waiting()));
        TaskId run = ((ReleaseRunPartsAction.NodeRequest) heldReleases.seen().get(0)).run();

        // Each shard's part is on one node, and the parts hold exactly the documents the run clustered.
        Map<Integer, GraphPart<String, String>> parts = new TreeMap<>();
        Map<Integer, ShardPart> shardParts = new HashMap<>();
        for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
            onNode.parts(run).forEach((number, part) -> {
                assertNull("part " + number + " on two nodes", parts.put(number, part.graph()));
                shardParts.put(number, part);
            });
        }
        Map<String, Map<String, Object>> written = writtenAssignments(index);
        // What each part recorded of its own, before the links tell it the other ends of its edges.
        Map<Integer, List<String>> recorded = new HashMap<>();
        parts.forEach((number, part) -> recorded.put(number, part.nodeIds()));
        recorded.forEach((number, ids) -> {
            for (String id : ids) {
                Long seen = shardParts.get(number).seenSeqNo(id);
                assertTrue(id + " was seen at a sequence number: " + seen, seen != null && seen >= 0);
            }
        });

        // The protocol of PartitionedClusters over the parts, as a driver would run it: links, ranks by _id (the
        // default representative order), single-linkage rounds, sizes.
        Function<Integer, GraphPart<String, String>> partOf =
                number -> parts.computeIfAbsent(number, n -> new GraphPart<>(n, String::compareTo, false));
        Map<Integer, List<PartitionedClusters.Link<String>>> links = new HashMap<>();
        for (GraphPart<String, String> part : List.copyOf(parts.values())) {
            part.linkMessages()
                    .forEach((to, messages) ->
                            links.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        links.forEach((to, messages) -> partOf.apply(to).receiveLinks(messages));
        int nodes = 0;
        for (GraphPart<String, String> part : parts.values()) {
            for (String id : part.nodeIds()) {
                part.rank(id, id, true);
                nodes++;
            }
        }
        assertEquals("every clustered document is a node of one part", written.size(), nodes);
        boolean sent = true;
        int rounds = 0;
        while (sent) {
            Map<Integer, List<PartitionedClusters.Label<String, String>>> labels = new HashMap<>();
            for (GraphPart<String, String> part : parts.values()) {
                part.labelMessages()
                        .forEach((to, messages) -> labels.computeIfAbsent(to, t -> new ArrayList<>())
                                .addAll(messages));
            }
            sent = labels.isEmpty() == false;
            labels.forEach((to, messages) -> parts.get(to).receiveLabels(messages));
            rounds++;
        }
        Map<Integer, List<PartitionedClusters.SizeCount<String>>> counts = new HashMap<>();
        for (GraphPart<String, String> part : parts.values()) {
            part.sizeCounts(false)
                    .forEach((to, messages) ->
                            counts.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        counts.forEach((to, messages) -> parts.get(to).receiveSizeCounts(messages));
        Map<Integer, List<PartitionedClusters.SizeTotal<String>>> totals = new HashMap<>();
        for (GraphPart<String, String> part : parts.values()) {
            part.sizeTotals()
                    .forEach((to, messages) ->
                            totals.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        totals.forEach((to, messages) -> parts.get(to).receiveSizeTotals(messages));

        for (GraphPart<String, String> part : parts.values()) {
            for (String id : part.nodeIds()) {
                Map<String, Object> assignment = written.get(id);
                assertNotNull(id + " is in a part but in no cluster", assignment);
                assertEquals(
                        id + " after " + rounds + " rounds",
                        assignment.get("cluster"),
                        part.representative(id).id());
                assertEquals(id, ((Number) assignment.get("size")).longValue(), part.clusterSize(id));
            }
        }

        heldReleases.stopHolding();
        heldReleases.letGo();
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
            for (NodeRunBreakers onNode : internalCluster().getInstances(NodeRunBreakers.class)) {
                assertEquals("a run's breaker left on a node", 0, onNode.runs());
            }
        });
    }

    /** Each clustered document's {@code dup} object, by {@code _id}. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> writtenAssignments(String index) {
        SearchResponse search = client().prepareSearch(index)
                .setSize(1_000)
                .setQuery(org.opensearch.index.query.QueryBuilders.existsQuery("dup.cluster"))
                .get();
        Map<String, Map<String, Object>> written = new HashMap<>();
        for (SearchHit hit : search.getHits().getHits()) {
            written.put(hit.getId(), (Map<String, Object>) hit.getSourceAsMap().get("dup"));
        }
        return written;
    }

    /** Holds every node's release of a run's parts. */
    private static HeldRequests holdReleases() {
        return HeldRequests.hold(internalCluster(), ReleaseRunPartsAction.NAME + "[n]");
    }
}
