/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.match.MatchSpec;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.search.SearchHits;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/** A data node lost while a run writes: the run stops and reports the failed writes; what it wrote is whole. */
@ClusterScope(scope = Scope.TEST, numDataNodes = 3)
public class NearDupClustersNodeLossTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /**
     * Index {@code lost}: 6 shards and no replicas, so that a lost node's shards become unavailable and writes to them
     * must fail, not wait or vanish; 120 documents in 60 pairs one bit apart ({@code d2k}, {@code d2k+1}).
     */
    private void indexPairsWithoutReplicas() {
        assertAcked(prepareCreate("lost")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 6)
                        .put("index.number_of_replicas", 0)
                        .put("index.unassigned.node_left.delayed_timeout", "0"))
                .setMapping(
                        "{\"properties\": {\"fp\": {\"properties\": " + "{\"simhash\": {\"type\": \"simhash\"}}}}}"));
        ensureGreen("lost");
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int i = 0; i < 120; i++) {
            long fp = (long) (i / 2) * 0x9E3779B97F4A7C15L;
            bulk.add(client().prepareIndex("lost")
                    .setId("d" + i)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(fp ^ (i % 2))))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    /**
     * Stops a data node other than {@code coordinator} and the node of id {@code keepNodeId} while {@code running}
     * writes; its answer reports the failed writes and that it stopped before writing for every one of the 120
     * documents.
     */
    private NearDupClustersResponse loseADataNodeBut(
            String coordinator, String keepNodeId, Future<NearDupClustersResponse> running) throws Exception {
        String keep = internalCluster()
                .clusterService(coordinator)
                .state()
                .nodes()
                .get(keepNodeId)
                .getName();
        internalCluster()
                .stopRandomNode(settings -> DiscoveryNode.isDataNode(settings)
                        && coordinator.equals(settings.get("node.name")) == false
                        && keep.equals(settings.get("node.name")) == false);
        NearDupClustersResponse response = running.get(120, TimeUnit.SECONDS);
        assertFalse(
                "the failed writes are reported: " + response.counts(),
                response.failures().isEmpty());
        assertTrue(
                "the run stopped before the last write: " + response.counts(),
                response.counts().updated() < 120);
        return response;
    }

    /** Every document of {@code index} the coordinator can still read (those on a lost node's shards are gone). */
    private SearchHits hitsOf(String coordinator, String index) {
        return internalCluster()
                .client(coordinator)
                .prepareSearch(index)
                .setSize(1000)
                .setAllowPartialSearchResults(true)
                .get()
                .getHits();
    }

    @SuppressWarnings("unchecked")
    public void testANodeLostDuringTheWritesStopsTheRunAndIsReported() throws Exception {
        indexPairsWithoutReplicas();
        String coordinator = internalCluster().getNodeNames()[0];
        NearDupClustersRequest request = ClusterRequests.fullRun(
                        "lost", new MatchSpec("fp.simhash", 1, null, null, null, null))
                .scrollSize(1)
                .requestsPerSecond(10)
                .bulkTimeout(TimeValue.timeValueSeconds(2));
        Future<NearDupClustersResponse> running =
                internalCluster().client(coordinator).execute(NearDupClustersAction.INSTANCE, request);
        ClusterRequests.awaitFirstWrite(internalCluster().client(coordinator));
        // A data node other than the coordinator's (with 6 shards balanced over 3 data nodes, it holds some of the
        // index,
        // still to be written) and other than the node of a document written already, which is to be found after.
        client().admin().indices().prepareRefresh("lost").get();
        SearchHit writtenFirst = client().prepareSearch("lost")
                .setQuery(QueryBuilders.existsQuery("dup.cluster"))
                .setSize(1)
                .get()
                .getHits()
                .getAt(0);
        NearDupClustersResponse response =
                loseADataNodeBut(coordinator, writtenFirst.getShard().getNodeId(), running);
        long written = 0;
        for (SearchHit hit : hitsOf(coordinator, "lost")) {
            Map<String, Object> value =
                    (Map<String, Object>) hit.getSourceAsMap().get("dup");
            if (value != null) {
                written++;
                assertEquals(value.toString(), 3, value.size());
                assertEquals(2, value.get("size"));
            }
        }
        assertTrue(written >= 1);
        assertTrue(
                "what is written was counted: " + written + " vs " + response.counts(),
                written <= response.counts().updated());
    }

    /**
     * The same loss in a run with {@code dest}: the run stops and reports the failed writes; every record it made is
     * whole, names a document of the index in a cluster of two, and was counted; no document of the index was
     * written (README: delete the record index and run again).
     */
    public void testANodeLostDuringTheRecordsStopsTheRunAndLeavesWholeRecords() throws Exception {
        indexPairsWithoutReplicas();
        // The record index the run creates: one shard, no replica, so that the node to lose can be one without it.
        assertAcked(client().admin()
                .indices()
                .preparePutTemplate("records")
                .setPatterns(List.of("lost-records"))
                .setSettings(Settings.builder().put("index.number_of_shards", 1).put("index.number_of_replicas", 0))
                .get());
        String coordinator = internalCluster().getNodeNames()[0];
        NearDupClustersRequest request = ClusterRequests.parse(
                        "lost",
                        "{\"field\": \"fp.simhash\", \"max_distance\": 1, \"dest\": {\"index\": \"lost-records\"}}")
                .scrollSize(1)
                .requestsPerSecond(10)
                .bulkTimeout(TimeValue.timeValueSeconds(2));
        Future<NearDupClustersResponse> running =
                internalCluster().client(coordinator).execute(NearDupClustersDryRunAction.of(request), request);
        ClusterRequests.awaitFirstWrite(internalCluster().client(coordinator), NearDupClustersDryRunAction.NAME);
        String recordsNodeId = internalCluster()
                .clusterService(coordinator)
                .state()
                .routingTable()
                .index("lost-records")
                .shard(0)
                .primaryShard()
                .currentNodeId();
        NearDupClustersResponse response = loseADataNodeBut(coordinator, recordsNodeId, running);
        client().admin().indices().prepareRefresh("lost-records").get();
        long records = 0;
        for (SearchHit hit : hitsOf(coordinator, "lost-records")) {
            records++;
            Map<String, Object> record = hit.getSourceAsMap();
            assertEquals(record.toString(), "lost", record.get(AssignmentRecords.INDEX));
            assertEquals(record.toString(), hit.getId(), record.get(AssignmentRecords.ID));
            assertTrue(record.toString(), record.get(AssignmentRecords.SEQ_NO) instanceof Number);
            assertTrue(record.toString(), record.get(AssignmentRecords.PRIMARY_TERM) instanceof Number);
            assertEquals(record.toString(), 2, record.get("size"));
            String id = hit.getId();
            String other = "d" + (Integer.parseInt(id.substring(1)) ^ 1);
            assertTrue(record.toString(), List.of(id, other).contains(record.get("cluster")));
        }
        assertTrue(records >= 1);
        assertTrue(
                "what is recorded was counted: " + records + " vs " + response.counts(),
                records <= response.counts().updated());
        for (SearchHit hit : hitsOf(coordinator, "lost")) {
            assertEquals(
                    "no document is written with dest",
                    Set.of("fp"),
                    hit.getSourceAsMap().keySet());
        }
    }

    /**
     * A shard without a copy while pairs are found (the simhash self-join, or the minhash band join
     * and its look-ups across shards): the run fails with a reason (not a 500) and writes nothing.
     */
    public void testAShardWithoutACopyFailsTheRunBeforeAnyWrite() throws Exception {
        boolean minhash = randomBoolean();
        String kind = minhash ? "minhash" : "simhash";
        assertAcked(prepareCreate("red")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 6)
                        .put("index.number_of_replicas", 0)
                        .put("index.unassigned.node_left.delayed_timeout", "0"))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"" + kind + "\": {\"type\": \"" + kind
                        + "\"}}}}}"));
        ensureGreen("red");
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int i = 0; i < 60; i++) {
            Object fingerprint = minhash
                    ? Map.of(
                            "value",
                            SignatureCodec.encode(
                                    new java.util.Random(i / 2).ints(128).toArray(),
                                    0x5eed,
                                    FingerprintFormat.NEW_INDEX_DEFAULT))
                    : SimhashCodec.toHex((long) (i / 2) * 0x9E3779B97F4A7C15L);
            bulk.add(client().prepareIndex("red").setId("d" + i).setSource(Map.of("fp", Map.of(kind, fingerprint))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        String coordinator = internalCluster().getNodeNames()[0];
        internalCluster()
                .stopRandomNode(settings ->
                        DiscoveryNode.isDataNode(settings) && coordinator.equals(settings.get("node.name")) == false);
        NearDupClustersRequest request = ClusterRequests.fullRun(
                "red",
                minhash
                        ? new MatchSpec("fp.minhash", null, null, null, 0.8, null)
                        : new MatchSpec("fp.simhash", 0, null, null, null, null));
        Exception e = expectThrows(
                Exception.class,
                () -> internalCluster()
                        .client(coordinator)
                        .execute(NearDupClustersAction.INSTANCE, request)
                        .actionGet(60, TimeUnit.SECONDS));
        assertEquals(
                e.toString(),
                org.opensearch.core.rest.RestStatus.SERVICE_UNAVAILABLE,
                org.opensearch.ExceptionsHelper.status(e));
        for (SearchHit hit : internalCluster()
                .client(coordinator)
                .prepareSearch("red")
                .setAllowPartialSearchResults(true)
                .setSize(100)
                .get()
                .getHits()) {
            assertNull("nothing written: " + hit.getId(), hit.getSourceAsMap().get("dup"));
        }
    }
}
