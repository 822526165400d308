/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/**
 * A node (at random the elected cluster manager, or another) stops while documents are indexed
 * through the pipeline and {@code near_duplicate} queries run on a 3-node cluster with replicas: no acknowledged document is lost, and afterwards exact mode equals brute force over
 * the fingerprints the cluster holds.
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 3, supportsDedicatedMasters = false)
public class NearDuplicateFaultTests extends OpenSearchIntegTestCase {

    /** Longer than a node's departure takes to be noticed, so that a request never waits forever on it. */
    private static final TimeValue WAIT = TimeValue.timeValueSeconds(30);

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    private static String exactQuery(String id, int maxDistance) {
        return "{\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": {\"_id\": \"" + id
                + "\"}, \"max_distance\": " + maxDistance + ", \"mode\": \"exact\"}}";
    }

    @SuppressWarnings("unchecked")
    public void testNodeStopDuringIndexingAndQueriesLosesNothing() throws Exception {
        boolean stopsTheClusterManager = randomBoolean();
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": "
                                + "{\"field\": \"text\", \"outputs\": [\"simhash\"]}}]}"),
                        XContentType.JSON)
                .get();
        assertAcked(prepareCreate("docs")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 3)
                        .put("index.number_of_replicas", 1)
                        .put("index.default_pipeline", "fp"))
                .setMapping(
                        "{\"properties\": {\"text\": {\"type\": \"text\", \"index\": false}, \"text_fp\": {\"properties\": {"
                                + "\"simhash\": {\"type\": \"simhash\"}}}}}"));
        ensureGreen("docs");

        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger queries = new AtomicInteger();
        Random seeded = new Random(random().nextLong());
        Thread indexer = new Thread(
                () -> {
                    Random random = new Random(seeded.nextLong());
                    for (int batch = 0; stop.get() == false; batch++) {
                        BulkRequestBuilder bulk = client().prepareBulk();
                        for (int i = 0; i < 20; i++) {
                            String text = NearDuplicateClusterTests.text(random, 60);
                            bulk.add(client().prepareIndex("docs")
                                    .setId("b" + batch + "-" + i)
                                    .setSource(Map.of("text", text)));
                            // A near-duplicate of it: one word changed.
                            bulk.add(client().prepareIndex("docs")
                                    .setId("b" + batch + "-" + i + "v")
                                    .setSource(Map.of("text", text.replaceFirst("w\\d+ ", "changed "))));
                        }
                        try {
                            BulkResponse response = bulk.get(WAIT);
                            for (BulkItemResponse item : response.getItems()) {
                                if (item.isFailed() == false) {
                                    acknowledged.add(item.getId());
                                }
                            }
                        } catch (Exception e) {
                            // Not acknowledged: nothing is promised about it.
                        }
                        batches.incrementAndGet();
                    }
                },
                "fault-indexer");
        Thread searcher = new Thread(
                () -> {
                    while (stop.get() == false) {
                        try {
                            client().prepareSearch("docs")
                                    .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": {\"field\": "
                                            + "\"text_fp.simhash\", \"like\": {\"simhash\": \""
                                            + io.neardup.core.SimhashCodec.toHex(seeded.nextLong())
                                            + "\"}, \"max_distance\": 8, \"mode\": \"exact\"}}"))
                                    .get(WAIT);
                            queries.incrementAndGet();
                        } catch (Exception e) {
                            // A search during the node's departure may fail; what matters is the state afterwards.
                        }
                    }
                },
                "fault-searcher");
        indexer.start();
        searcher.start();
        assertBusy(() -> assertTrue(batches.get() >= 5), 30, TimeUnit.SECONDS);
        if (stopsTheClusterManager) {
            internalCluster().stopCurrentClusterManagerNode(); // the other two elect a new one
        } else {
            internalCluster().stopRandomNodeNotCurrentClusterManager();
        }
        int batchesAtStop = batches.get();
        assertBusy(() -> assertTrue(batches.get() >= batchesAtStop + 5), 30, TimeUnit.SECONDS);
        stop.set(true);
        indexer.join();
        searcher.join();
        assertTrue("queries ran alongside: " + queries.get(), queries.get() > 0);

        ensureGreen("docs");
        refresh("docs");
        Map<String, Long> fingerprints = new HashMap<>();
        SearchResponse all = client().prepareSearch("docs")
                .setSize(10_000)
                .setFetchSource("text_fp.simhash.value", null)
                .get();
        assertEquals(0, all.getFailedShards());
        for (SearchHit hit : all.getHits()) {
            Map<String, Object> fp = (Map<String, Object>) hit.getSourceAsMap().get("text_fp");
            fingerprints.put(
                    hit.getId(),
                    Long.parseUnsignedLong((String) ((Map<String, Object>) fp.get("simhash")).get("value"), 16));
        }
        Set<String> lost = new HashSet<>(acknowledged);
        lost.removeAll(fingerprints.keySet());
        assertTrue(
                "acknowledged documents lost after stopping "
                        + (stopsTheClusterManager ? "the cluster manager" : "a data node") + ": " + lost,
                lost.isEmpty());
        assertTrue("enough was acknowledged to mean something: " + acknowledged.size(), acknowledged.size() >= 200);

        int withNeighbours = 0;
        List<String> ids = fingerprints.keySet().stream().sorted().toList();
        for (int i = 0; i < ids.size(); i += Math.max(1, ids.size() / 25)) {
            String id = ids.get(i);
            long of = fingerprints.get(id);
            Set<String> expected = new HashSet<>();
            fingerprints.forEach((other, fp) -> {
                if (other.equals(id) == false && Long.bitCount(fp ^ of) <= 6) {
                    expected.add(other);
                }
            });
            Set<String> found = new HashSet<>();
            SearchResponse response = client().prepareSearch("docs")
                    .setSize(10_000)
                    .setQuery(QueryBuilders.wrapperQuery(exactQuery(id, 6)))
                    .get();
            assertEquals(0, response.getFailedShards());
            response.getHits().forEach(hit -> found.add(hit.getId()));
            assertEquals(id, expected, found);
            withNeighbours += expected.isEmpty() ? 0 : 1;
        }
        assertTrue("the planted near-duplicates are found: " + withNeighbours, withNeighbours >= 5);
    }
}
