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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.action.ActionFuture;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.rest.RestStatus;
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
        indexSimhashChains("chains", 40, 7);
        assertPartsClusterAsTheRunWrote(
                "chains", "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}");
    }

    public void testAMinhashRunsPartsClusterAsItsGraphDid() throws Exception {
        indexMinhashChains("signatures", 40);
        assertPartsClusterAsTheRunWrote(
                "signatures", "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"dup\"}");
    }

    /** A run's parts are released by the nodes that keep them when its coordinating node leaves before releasing them. */
    public void testTheNodesReleaseARunsPartsWhenItsCoordinatingNodeLeaves() throws Exception {
        indexSimhashChains("chains", 20, 5);
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

    /**
     * A dry run (without a {@code query}) clusters on the parts (docs/clusters.md section 8, step 3): the same answer as
     * the same run with writes, which clusters on the coordinating node, on both fields and both linkages.
     */
    public void testADryRunOnThePartsAnswersAsTheRunWithWrites() throws Exception {
        indexSimhashChains("chains", 40, 5);
        indexMinhashChains("signatures", 40);
        int target = 0;
        for (String linkage : List.of("single", "leader")) {
            for (String body : List.of(
                    "\"field\": \"fp.simhash\", \"max_distance\": 2",
                    "\"field\": \"fp.minhash\", \"min_similarity\": 0.8")) {
                String index = body.contains("simhash") ? "chains" : "signatures";
                String request =
                        "{" + body + ", \"linkage\": \"" + linkage + "\", \"target_field\": \"dup" + target++ + "\"}";
                NearDupClustersResponse dry = client().execute(
                                NearDupClustersDryRunAction.INSTANCE,
                                ClusterRequests.parse(index, request).dryRun(true))
                        .actionGet();
                NearDupClustersResponse written = ClusterRequests.run(client(), index, request);
                String what = index + " " + request;
                assertTrue(what, written.counts().clusters() > 10);
                assertEquals(what, written.counts().clusters(), dry.counts().clusters());
                assertEquals(what, written.counts().matches(), dry.counts().matches());
                assertEquals(what, written.clusteredDocuments(), dry.clusteredDocuments());
                assertArrayEquals(what, written.sizeHistogram(), dry.sizeHistogram());
                assertEquals(what, written.largest(), dry.largest());
                assertEquals(
                        what + ": the dry run holds no graph on its coordinating node",
                        0,
                        dry.counts().coordinatorBytes());
                assertTrue(what, dry.counts().dataNodeBytes() > 0);
            }
        }
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
        });
    }

    /**
     * A node that keeps parts lost while a dry run clusters on them: the run fails with a reason, a 503 (the shard's part
     * is gone with its node: another copy cannot stand in for it), and the other nodes give their parts back.
     */
    public void testANodeLostWhileADryRunClustersFailsTheRunAndLeavesNoParts() throws Exception {
        indexSimhashChains("chains", 40, 3);
        String clusterManager = internalCluster().getClusterManagerName();
        List<String> dataNodes = internalCluster().getDataNodeNames().stream()
                .filter(name -> name.equals(clusterManager) == false)
                .toList();
        assumeTrue("two data nodes besides the cluster manager", dataNodes.size() >= 2);
        String coordinator = dataNodes.get(0);
        String lost = dataNodes.get(1);
        HeldRequests steps = HeldRequests.hold(internalCluster(), PartStepAction.NAME + "[s]");
        ActionFuture<NearDupClustersResponse> running = internalCluster()
                .client(coordinator)
                .execute(
                        NearDupClustersDryRunAction.INSTANCE,
                        ClusterRequests.parse(
                                        "chains",
                                        "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}")
                                .dryRun(true));
        assertBusy(() -> assertTrue(steps.waiting() > 0));
        assertTrue(
                "the lost node keeps parts",
                internalCluster().getInstance(RunParts.class, lost).runs() > 0);
        internalCluster().stopRandomNode(InternalTestCluster.nameFilter(lost));
        steps.stopHolding();
        steps.letGo();
        Exception e = expectThrows(Exception.class, () -> running.actionGet(60, TimeUnit.SECONDS));
        assertEquals(e.toString(), RestStatus.SERVICE_UNAVAILABLE, ExceptionsHelper.status(e));
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
            for (NodeRunBreakers onNode : internalCluster().getInstances(NodeRunBreakers.class)) {
                assertEquals("a run's breaker left on a node", 0, onNode.runs());
            }
        });
    }

    /**
     * An index of 6 shards and 1 replica of {@code chains} chains of 2 to 5 {@code simhash} values, each one bit from the
     * one before (the bits {@code bitStep} apart): with {@code max_distance} 1 a chain is one cluster though its ends
     * are further apart.
     */
    private void indexSimhashChains(String index, int chains, int bitStep) {
        createIndex(index, "simhash");
        indexChains(index, chains, length -> {
            long value = random().nextLong();
            List<Object> chain = new ArrayList<>();
            for (int i = 0; i < length; i++) {
                chain.add(SimhashCodec.toHex(value));
                value ^= 1L << (i * bitStep % 64);
            }
            return chain;
        });
    }

    /** The same with {@code minhash} signatures, each 6 values from the one before. */
    private void indexMinhashChains(String index, int chains) {
        createIndex(index, "minhash");
        indexChains(index, chains, length -> {
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
        Map<Integer, GraphPart<String, RankKey>> parts = new TreeMap<>();
        Map<Integer, ShardPart> shardParts = new HashMap<>();
        // A run with writes reads its members on the coordinating node: the parts rank as a dry run's would.
        RepresentativeOrder order = new RepresentativeOrder(ClusterRequests.parse(index, body));
        for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
            RunParts.Run onThisNode = onNode.find(run);
            if (onThisNode != null) {
                onThisNode.order.set(order);
            }
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
        Function<Integer, GraphPart<String, RankKey>> partOf =
                number -> parts.computeIfAbsent(number, n -> new GraphPart<>(n, order, false));
        Map<Integer, List<PartitionedClusters.Link<String>>> links = new HashMap<>();
        for (GraphPart<String, RankKey> part : List.copyOf(parts.values())) {
            part.linkMessages()
                    .forEach((to, messages) ->
                            links.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        links.forEach((to, messages) -> partOf.apply(to).receiveLinks(messages));
        int nodes = 0;
        for (GraphPart<String, RankKey> part : parts.values()) {
            for (String id : part.nodeIds()) {
                part.rank(id, new RankKey(true, false, new Object[0], id, 0), true);
                nodes++;
            }
        }
        assertEquals("every clustered document is a node of one part", written.size(), nodes);
        boolean sent = true;
        int rounds = 0;
        while (sent) {
            Map<Integer, List<PartitionedClusters.Label<String, RankKey>>> labels = new HashMap<>();
            for (GraphPart<String, RankKey> part : parts.values()) {
                part.labelMessages()
                        .forEach((to, messages) -> labels.computeIfAbsent(to, t -> new ArrayList<>())
                                .addAll(messages));
            }
            sent = labels.isEmpty() == false;
            labels.forEach((to, messages) -> parts.get(to).receiveLabels(messages));
            rounds++;
        }
        Map<Integer, List<PartitionedClusters.SizeCount<String>>> counts = new HashMap<>();
        for (GraphPart<String, RankKey> part : parts.values()) {
            part.sizeCounts(false)
                    .forEach((to, messages) ->
                            counts.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        counts.forEach((to, messages) -> parts.get(to).receiveSizeCounts(messages));
        Map<Integer, List<PartitionedClusters.SizeTotal<String>>> totals = new HashMap<>();
        for (GraphPart<String, RankKey> part : parts.values()) {
            part.sizeTotals()
                    .forEach((to, messages) ->
                            totals.computeIfAbsent(to, t -> new ArrayList<>()).addAll(messages));
        }
        totals.forEach((to, messages) -> parts.get(to).receiveSizeTotals(messages));

        for (GraphPart<String, RankKey> part : parts.values()) {
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
