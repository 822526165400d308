/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.compat.LuceneApi;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.match.NodeRunBreakers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
import org.opensearch.threadpool.ThreadPool;

/**
 * The parts of a run's graph kept on the data nodes (docs/clusters.md section 8), on 3 nodes and 6 shards with
 * replicas: each shard's part on one node, holding the documents the run clustered; a run without a {@code query}
 * clusters on them and writes from their nodes what the coordinating node's graph (a run with a {@code query}) writes;
 * a node lost meanwhile fails the run cleanly; the run's release leaves nothing on any node.
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 3)
public class RunPartsTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class, MockTransportService.TestPlugin.class);
    }

    /**
     * Members are read 1,000 documents a step on a node ({@link #nodeSettings}): the run's ~4,000 clustered documents
     * take each node several steps.
     */
    @Override
    protected Settings nodeSettings(int nodeOrdinal) {
        return Settings.builder()
                .put(super.nodeSettings(nodeOrdinal))
                .put(TransportPartStepAction.MEMBERS_A_STEP.getKey(), 1_000)
                .build();
    }

    public void testASimhashRunWritesFromThePartsWhatTheCoordinatorsGraphWrites() throws Exception {
        indexSimhashChains("chains", 1_200, 7);
        Set<Integer> readSteps = ConcurrentHashMap.newKeySet();
        HeldRequests.hold(internalCluster(), PartStepAction.NAME + "[s]", request -> {
            PartStepAction.Request step = (PartStepAction.Request) request;
            if (step.step() == PartStepAction.Step.READ_MEMBERS) {
                readSteps.add(step.sequence());
            }
            return false;
        });
        assertThePartsWriteAsTheCoordinatorsGraph("chains", "\"field\": \"fp.simhash\", \"max_distance\": 1");
        assertTrue("the members are read in several steps: " + readSteps, readSteps.size() > 1);
        // And as the chains were made: each chain of two or more one cluster of its length, the loners in none.
        Map<String, Map<String, Object>> written = writtenAssignments("chains", "dup");
        Map<String, Integer> chainLengths = new HashMap<>();
        for (SearchHit hit :
                client().prepareSearch("chains").setSize(10_000).get().getHits().getHits()) {
            chainLengths.merge(chain(hit.getId()), 1, Integer::sum);
        }
        chainLengths.forEach((chain, length) -> {
            for (int i = 0; i < length; i++) {
                Map<String, Object> assignment = written.get(chain + "-" + i);
                if (length == 1) {
                    assertNull(chain + " is alone", assignment);
                } else {
                    assertNotNull(chain + "-" + i, assignment);
                    assertEquals(chain + "-" + i, (int) length, ((Number) assignment.get("size")).intValue());
                    assertEquals(chain + "-" + i, chain, chain((String) assignment.get("cluster")));
                }
            }
        });
    }

    /** The chain of a document made by {@link #indexChains}: its {@code _id} up to the dash. */
    private static String chain(String id) {
        return id.substring(0, id.indexOf('-'));
    }

    public void testAMinhashRunWritesFromThePartsWhatTheCoordinatorsGraphWrites() throws Exception {
        indexMinhashChains("signatures", 40);
        assertThePartsWriteAsTheCoordinatorsGraph("signatures", "\"field\": \"fp.minhash\", \"min_similarity\": 0.8");
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
     * A run clusters on the parts (docs/clusters.md section 8), dry or with writes, with a {@code query} or without: the
     * same answer, and the same assignments written, as the run with its graph on the coordinating node (a rolling
     * upgrade's); on both fields and both linkages.
     */
    public void testRunsOnThePartsAnswerAsTheCoordinatorsGraph() throws Exception {
        indexSimhashChains("chains", 40, 5);
        indexMinhashChains("signatures", 40);
        int target = 0;
        for (String linkage : List.of("single", "leader")) {
            for (String body : List.of(
                    "\"field\": \"fp.simhash\", \"max_distance\": 2",
                    "\"field\": \"fp.minhash\", \"min_similarity\": 0.8")) {
                String index = body.contains("simhash") ? "chains" : "signatures";
                String onParts = "dup" + target++;
                String queriedOnParts = "dup" + target++;
                String onCoordinator = "dup" + target++;
                String request = "{" + body + ", \"linkage\": \"" + linkage + "\", \"target_field\": \"";
                String everyDocument = "\", \"query\": {\"match_all\": {}}}";
                NearDupClustersResponse dry = client().execute(
                                NearDupClustersDryRunAction.INSTANCE,
                                ClusterRequests.parse(index, request + onParts + "\"}")
                                        .dryRun(true))
                        .actionGet();
                NearDupClustersResponse written = ClusterRequests.run(client(), index, request + onParts + "\"}");
                NearDupClustersResponse queried =
                        ClusterRequests.run(client(), index, request + queriedOnParts + everyDocument);
                NearDupClustersResponse graph = ClusterRequests.runWithTheGraphOnTheCoordinator(
                        client(),
                        internalCluster().getInstance(ThreadPool.class),
                        index,
                        request + onCoordinator + everyDocument);
                String what = index + " " + request;
                assertTrue(what, graph.counts().clusters() > 10);
                assertTrue(what, graph.counts().coordinatorBytes() > 0);
                for (NearDupClustersResponse onThem : List.of(dry, written, queried)) {
                    assertEquals(
                            what, graph.counts().clusters(), onThem.counts().clusters());
                    // (Matches are not compared: a run with a query finds each pair from both of its documents.)
                    assertEquals(what, graph.clusteredDocuments(), onThem.clusteredDocuments());
                    assertArrayEquals(what, graph.sizeHistogram(), onThem.sizeHistogram());
                    assertEquals(what, graph.largest(), onThem.largest());
                    assertEquals(
                            what + ": no graph on the coordinating node",
                            0,
                            onThem.counts().coordinatorBytes());
                    assertTrue(what, onThem.counts().dataNodeBytes() > 0);
                }
                assertEquals(what, dry.counts().matches(), written.counts().matches());
                assertEquals(what, graph.counts().matches(), queried.counts().matches());
                for (NearDupClustersResponse onThem : List.of(written, queried)) {
                    assertEquals(what, graph.counts().updated(), onThem.counts().updated());
                }
                assertEquals(what, graph.clusteredDocuments(), written.counts().updated());
                assertEquals(what, writtenAssignments(index, onCoordinator), writtenAssignments(index, onParts));
                assertEquals(what, writtenAssignments(index, onCoordinator), writtenAssignments(index, queriedOnParts));
            }
        }
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
        });
    }

    /**
     * A run with a {@code query} (docs/clusters.md section 8, step 5) on the parts: a batch of documents, copies of
     * clustered ones and members given a fingerprint of their own, run into the assignments of an earlier full run. Its
     * parts are built in waves (the members of the earlier clusters it touches, on any shard, keep their cluster), and it
     * answers and writes what the same run with its graph on the coordinating node does; on both fields and both
     * linkages.
     */
    public void testARunWithAQueryJoinsEarlierClustersOnThePartsAsTheCoordinatorsGraph() throws Exception {
        indexSimhashChains("chains", 40, 5);
        indexMinhashChains("signatures", 40);
        ThreadPool threadPool = internalCluster().getInstance(ThreadPool.class);
        for (String linkage : List.of("single", "leader")) {
            for (String body : List.of(
                    "\"field\": \"fp.simhash\", \"max_distance\": 2",
                    "\"field\": \"fp.minhash\", \"min_similarity\": 0.8")) {
                String index = body.contains("simhash") ? "chains" : "signatures";
                String onParts = linkage + "_parts";
                String onCoordinator = linkage + "_graph";
                String request = "{" + body + ", \"linkage\": \"" + linkage + "\", \"target_field\": \"";
                String what = index + " " + request;
                ClusterRequests.run(client(), index, request + onParts + "\"}");
                ClusterRequests.run(client(), index, request + onCoordinator + "\"}");
                Map<String, Map<String, Object>> before = writtenAssignments(index, onParts);
                assertEquals(what, writtenAssignments(index, onCoordinator), before);
                Set<String> leaving = addABatch(index, linkage, before.keySet());

                String batch = "\", \"query\": {\"term\": {\"batch\": \"" + linkage + "\"}}}";
                NearDupClustersResponse parts = ClusterRequests.run(client(), index, request + onParts + batch);
                NearDupClustersResponse graph = ClusterRequests.runWithTheGraphOnTheCoordinator(
                        client(), threadPool, index, request + onCoordinator + batch);
                assertTrue(what, graph.counts().coordinatorBytes() > 0);
                assertEquals(
                        what + ": no graph on the coordinating node",
                        0,
                        parts.counts().coordinatorBytes());
                assertTrue(what, parts.counts().dataNodeBytes() > 0);
                assertEquals(what, graph.counts().scanned(), parts.counts().scanned());
                assertEquals(what, graph.counts().matches(), parts.counts().matches());
                assertEquals(what, graph.counts().clusters(), parts.counts().clusters());
                assertEquals(what, graph.clusteredDocuments(), parts.clusteredDocuments());
                assertArrayEquals(what, graph.sizeHistogram(), parts.sizeHistogram());
                assertEquals(what, graph.largest(), parts.largest());
                assertEquals(what, graph.counts().updated(), parts.counts().updated());
                Map<String, Map<String, Object>> after = writtenAssignments(index, onParts);
                assertEquals(what, writtenAssignments(index, onCoordinator), after);
                // Members the batch did not touch, rewritten as their earlier cluster grew or lost a member: found by
                // the
                // waves, on whichever shard they are.
                long kept = after.entrySet().stream()
                        .filter(e -> before.containsKey(e.getKey()) && leaving.contains(e.getKey()) == false)
                        .filter(e -> e.getValue().equals(before.get(e.getKey())) == false)
                        .count();
                assertTrue(what + ": " + kept + " kept members rewritten", kept > 0);
            }
        }
        assertBusy(() -> {
            for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
                assertEquals("a run's parts left on a node", 0, onNode.runs());
            }
        });
    }

    /**
     * A batch {@code batch} in {@code index}: 20 copies of its clustered documents (of {@code clustered}), and 8 of
     * those given a fingerprint of their own, which leaves their cluster (returned); each with {@code batch: <batch>}.
     */
    private Set<String> addABatch(String index, String batch, Set<String> clustered) {
        List<String> members = new ArrayList<>(new TreeSet<>(clustered));
        Collections.shuffle(members, random());
        Map<String, Object> fingerprints = new HashMap<>();
        for (SearchHit hit :
                client().prepareSearch(index).setSize(10_000).get().getHits().getHits()) {
            fingerprints.put(hit.getId(), hit.getSourceAsMap().get("fp"));
        }
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int i = 0; i < 20; i++) {
            bulk.add(client().prepareIndex(index)
                    .setId(batch + "-copy-" + i)
                    .setSource(Map.of("fp", fingerprints.get(members.get(i)), "batch", batch)));
        }
        Set<String> leaving = new HashSet<>(members.subList(20, 28));
        for (String id : leaving) {
            Object own = index.equals("chains")
                    ? SimhashCodec.toHex(random().nextLong())
                    : Map.of(
                            "value",
                            SignatureCodec.encode(
                                    random().ints(128).toArray(), 0x5eed, FingerprintFormat.NEW_INDEX_DEFAULT));
            String type = index.equals("chains") ? "simhash" : "minhash";
            bulk.add(client().prepareUpdate(index, id).setDoc(Map.of("fp", Map.of(type, own), "batch", batch)));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        return leaving;
    }

    /**
     * A node that keeps parts lost while a dry run clusters on them: the run fails with a reason, a 503 (the shard's part
     * is gone with its node: another copy cannot stand in for it), and the other nodes give their parts back.
     */
    public void testANodeLostWhileADryRunClustersFailsTheRunAndLeavesNoParts() throws Exception {
        indexSimhashChains("chains", 40, 3);
        List<String> dataNodes = twoDataNodesButTheClusterManager();
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
     * A node lost while a run with a {@code query} and writes scans on the parts' nodes: the run fails with a 503 (the
     * shards' parts and scans there are gone with it) before anything is written, and no part is left on any node.
     */
    public void testANodeLostWhileAQueryRunScansFailsTheRunAndWritesNothing() throws Exception {
        indexSimhashChains("chains", 40, 3);
        List<String> dataNodes = twoDataNodesButTheClusterManager();
        String coordinator = dataNodes.get(0);
        String lost = dataNodes.get(1);
        HeldRequests scans = HeldRequests.hold(
                internalCluster(),
                PartStepAction.NAME + "[s]",
                request -> ((PartStepAction.Request) request).step() == PartStepAction.Step.SCAN);
        NearDupClustersRequest request = ClusterRequests.parse(
                        "chains",
                        "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\","
                                + " \"query\": {\"match_all\": {}}}")
                .scrollSize(10);
        ActionFuture<NearDupClustersResponse> running =
                internalCluster().client(coordinator).execute(NearDupClustersAction.INSTANCE, request);
        assertBusy(() -> assertTrue(scans.waiting() > 0));
        internalCluster().stopRandomNode(InternalTestCluster.nameFilter(lost));
        scans.stopHolding();
        scans.letGo();
        Exception e = expectThrows(Exception.class, () -> running.actionGet(60, TimeUnit.SECONDS));
        assertEquals(e.toString(), RestStatus.SERVICE_UNAVAILABLE, ExceptionsHelper.status(e));
        ensureGreen("chains");
        assertEquals(
                "nothing written",
                0,
                LuceneApi.count(client().prepareSearch("chains")
                        .setQuery(org.opensearch.index.query.QueryBuilders.existsQuery("dup.cluster"))
                        .get()
                        .getHits()
                        .getTotalHits()));
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
     * A node that keeps parts lost while the writes go from the parts: the writes stop and the run reports the failure,
     * a 503 that names the node, with what it wrote; every document holds either no assignment or a whole one (each is
     * one atomic update), and no part is left on any node.
     */
    public void testANodeLostWhileThePartsWriteStopsTheWritesAndHalfWritesNoDocument() throws Exception {
        indexSimhashChains("chains", 40, 3);
        String clusterManager = internalCluster().getClusterManagerName();
        String coordinator = randomFrom(internalCluster().getDataNodeNames().stream()
                .filter(name -> name.equals(clusterManager) == false)
                .toList());
        Map<String, String> nameOfNode = new HashMap<>();
        for (String name : internalCluster().getNodeNames()) {
            nameOfNode.put(internalCluster().clusterService(name).localNode().getId(), name);
        }
        HeldRequests writes = HeldRequests.hold(
                internalCluster(),
                PartStepAction.NAME + "[s]",
                request -> ((PartStepAction.Request) request).step() == PartStepAction.Step.WRITE);
        ActionFuture<NearDupClustersResponse> running = internalCluster()
                .client(coordinator)
                .execute(
                        NearDupClustersAction.INSTANCE,
                        ClusterRequests.parse(
                                        "chains",
                                        "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"target_field\": \"dup\"}")
                                .slices(NearDupClustersRequest.AUTO_SLICES));
        // Each of the 6 shards' first bulk is asked for (slices: one lane a shard).
        assertBusy(() -> assertEquals(6, writes.waiting()));
        List<String> writers = writes.seen().stream()
                .map(request -> nameOfNode.get(((PartStepAction.Request) request).node()))
                .filter(name -> name.equals(clusterManager) == false && name.equals(coordinator) == false)
                .toList();
        assumeFalse("a node besides the coordinating node and the cluster manager writes", writers.isEmpty());
        String lost = writers.get(0);
        internalCluster().stopRandomNode(InternalTestCluster.nameFilter(lost));
        writes.stopHolding();
        writes.letGo();
        NearDupClustersResponse response = running.actionGet(60, TimeUnit.SECONDS);
        // As a bulk's items to a lost shard are: the writes stop, and the failure is reported with what was written.
        assertTrue(
                response.failures().toString(),
                response.failures().stream()
                        .anyMatch(failure -> failure.id() == null
                                && failure.status() == RestStatus.SERVICE_UNAVAILABLE.getStatus()
                                && failure.reason().contains("left or lost its copies during the run")));
        assertTrue(response.counts().toString(), response.counts().updated() < response.clusteredDocuments());

        client().admin().indices().prepareRefresh("chains").get();
        int whole = 0;
        for (SearchHit hit :
                client().prepareSearch("chains").setSize(10_000).get().getHits().getHits()) {
            Object assignment = hit.getSourceAsMap().get("dup");
            if (assignment != null) {
                Map<?, ?> written = (Map<?, ?>) assignment;
                assertTrue(hit.getId() + ": " + written, written.get("cluster") instanceof String);
                assertTrue(hit.getId() + ": " + written, ((Number) written.get("size")).intValue() >= 2);
                assertTrue(hit.getId() + ": " + written, written.get("representative") instanceof Boolean);
                whole++;
            }
        }
        assertTrue(
                "what is written was counted: " + whole + " vs " + response.counts(),
                whole <= response.counts().updated());
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

    /**
     * The run with writes on the parts: each shard's part on one node, the parts hold exactly the documents it clustered,
     * each seen at a sequence number (by its own part's pairs or, told in the run's seen step, by another's); then it
     * wrote what the same run with a {@code query} matching every document (the coordinating node's graph) writes.
     */
    private void assertThePartsWriteAsTheCoordinatorsGraph(String index, String field) throws Exception {
        HeldRequests heldReleases = holdReleases();
        NearDupClustersResponse response =
                ClusterRequests.run(client(), index, "{" + field + ", \"target_field\": \"dup\"}");
        assertTrue(response.toString(), response.counts().clusters() > 0);
        assertEquals(0, response.counts().coordinatorBytes());
        assertBusy(() ->
                assertEquals("every node is asked to release", internalCluster().size(), heldReleases.waiting()));
        TaskId run = ((ReleaseRunPartsAction.NodeRequest) heldReleases.seen().get(0)).run();
        Map<Integer, ShardPart> parts = new TreeMap<>();
        for (RunParts onNode : internalCluster().getInstances(RunParts.class)) {
            onNode.parts(run)
                    .forEach((number, part) -> assertNull("part " + number + " on two nodes", parts.put(number, part)));
        }
        Map<String, Map<String, Object>> written = writtenAssignments(index, "dup");
        List<String> inParts = new ArrayList<>();
        parts.values().forEach(part -> {
            for (String id : part.graph().nodeIds()) {
                inParts.add(id);
                Long seen = part.seenSeqNo(id);
                assertTrue(id + " was seen at a sequence number: " + seen, seen != null && seen >= 0);
            }
        });
        assertEquals("the parts hold the clustered documents", written.keySet(), new HashSet<>(inParts));
        assertEquals("each in one part", inParts.size(), new HashSet<>(inParts).size());
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

        NearDupClustersResponse graph = ClusterRequests.runWithTheGraphOnTheCoordinator(
                client(),
                internalCluster().getInstance(ThreadPool.class),
                index,
                "{" + field + ", \"target_field\": \"dup_q\", \"query\": {\"match_all\": {}}}");
        assertEquals(graph.counts().updated(), response.counts().updated());
        assertEquals(writtenAssignments(index, "dup_q"), written);

        // Into a new index as records, written from the parts' nodes: the same assignments, each with the version of
        // its document that was clustered.
        Map<String, Long> seqNos = new HashMap<>();
        for (SearchHit hit : client().prepareSearch(index)
                .setSize(10_000)
                .seqNoAndPrimaryTerm(true)
                .get()
                .getHits()) {
            seqNos.put(hit.getId(), hit.getSeqNo());
        }
        NearDupClustersResponse recorded =
                ClusterRequests.run(client(), index, "{" + field + ", \"dest\": {\"index\": \"records\"}}");
        assertEquals(response.counts().updated(), recorded.counts().updated());
        assertEquals(0, recorded.counts().coordinatorBytes());
        Map<String, Map<String, Object>> records = new HashMap<>();
        for (SearchHit hit :
                client().prepareSearch("records").setSize(10_000).get().getHits()) {
            Map<String, Object> record = new HashMap<>(hit.getSourceAsMap());
            assertEquals(index, record.remove("index"));
            assertEquals(hit.getId(), record.remove("id"));
            assertEquals(hit.getId(), (long) seqNos.get(hit.getId()), ((Number) record.remove("seq_no")).longValue());
            record.remove("primary_term");
            records.put(hit.getId(), record);
        }
        assertEquals(written, records);
    }

    /** Two data nodes besides the cluster manager: a run's coordinating node, then the node a test loses. */
    private static List<String> twoDataNodesButTheClusterManager() {
        String clusterManager = internalCluster().getClusterManagerName();
        List<String> dataNodes = internalCluster().getDataNodeNames().stream()
                .filter(name -> name.equals(clusterManager) == false)
                .toList();
        assumeTrue("two data nodes besides the cluster manager", dataNodes.size() >= 2);
        return dataNodes.subList(0, 2);
    }

    /** Each clustered document's {@code target} object, by {@code _id}. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> writtenAssignments(String index, String target) {
        SearchResponse search = client().prepareSearch(index)
                .setSize(10_000)
                .setQuery(org.opensearch.index.query.QueryBuilders.existsQuery(target + ".cluster"))
                .get();
        Map<String, Map<String, Object>> written = new HashMap<>();
        for (SearchHit hit : search.getHits().getHits()) {
            written.put(hit.getId(), (Map<String, Object>) hit.getSourceAsMap().get(target));
        }
        return written;
    }

    /** Holds every node's release of a run's parts. */
    private static HeldRequests holdReleases() {
        return HeldRequests.hold(internalCluster(), ReleaseRunPartsAction.NAME + "[n]");
    }
}
