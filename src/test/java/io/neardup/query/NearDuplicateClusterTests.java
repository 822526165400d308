/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.stats.NearDupNodeStats;
import io.neardup.stats.NearDupStatsAction;
import io.neardup.stats.NearDupStatsRequest;
import io.neardup.stats.NearDupStatsResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/** The query across shards on two data nodes, against brute force over the indexed fingerprints. */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 2)
public class NearDuplicateClusterTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** Words drawn from a vocabulary of 2,000: unrelated texts share few 3-word shingles. */
    static String text(Random random, int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append("w").append(random.nextInt(2000)).append(' ');
        }
        return text.toString();
    }

    @SuppressWarnings("unchecked")
    public void testExactAcrossShardsEqualsBruteForceAndEveryNodeReportsStats() throws Exception {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": " + "{\"field\": \"text\"}}]}"),
                        XContentType.JSON)
                .get();
        assertAcked(prepareCreate("docs")
                .setSettings(org.opensearch.common.settings.Settings.builder()
                        .put("index.number_of_shards", 4)
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "fp"))
                .setMapping(
                        "{\"properties\": {\"text_fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        Random random = random();
        BulkRequestBuilder bulk = client().prepareBulk();
        List<String> originals = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String text = text(random, 150);
            originals.add(text);
            bulk.add(client().prepareIndex("docs").setId("d" + i).setSource(Map.of("text", text)));
            // a copy with a few words changed: a near-duplicate in a random shard
            bulk.add(client().prepareIndex("docs")
                    .setId("v" + i)
                    .setSource(Map.of("text", text.replaceFirst("w\\d+ ", "changed "))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());

        Map<String, Long> fingerprints = new HashMap<>();
        for (SearchHit hit : client().prepareSearch("docs").setSize(1000).get().getHits()) {
            Map<String, Object> fp = (Map<String, Object>) hit.getSourceAsMap().get("text_fp");
            fingerprints.put(
                    hit.getId(),
                    Long.parseUnsignedLong((String) ((Map<String, Object>) fp.get("simhash")).get("value"), 16));
        }
        assertEquals(400, fingerprints.size());
        int withNeighbours = 0;
        for (int i = 0; i < 200; i += 10) {
            String id = "d" + i;
            Set<String> expected = new HashSet<>();
            fingerprints.forEach((other, fp) -> {
                if (other.equals(id) == false && Long.bitCount(fp ^ fingerprints.get(id)) <= 4) {
                    expected.add(other);
                }
            });
            SearchResponse response = client().prepareSearch("docs")
                    .setSize(1000)
                    .setSource(new org.opensearch.search.builder.SearchSourceBuilder()
                            .size(1000)
                            .query(org.opensearch.index.query.QueryBuilders.wrapperQuery(
                                    "{\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": {\"_id\": \"" + id
                                            + "\"}, \"max_distance\": 4, " + "\"mode\": \"exact\"}}")))
                    .get();
            Set<String> found = new HashSet<>();
            response.getHits().forEach(hit -> found.add(hit.getId()));
            assertEquals(id, expected, found);
            withNeighbours += expected.isEmpty() ? 0 : 1;
        }
        assertTrue("the planted copies are within 4 bits of most originals: " + withNeighbours, withNeighbours >= 10);

        NearDupStatsResponse stats = client().execute(NearDupStatsAction.INSTANCE, new NearDupStatsRequest())
                .get();
        assertEquals(cluster().size(), stats.getNodes().size());
        long entries = 0;
        long queries = 0;
        for (NearDupNodeStats node : stats.getNodes()) {
            entries += node.stats().entries();
            queries += node.stats().queries().queries();
            assertTrue(node.stats().bytes() >= 0);
        }
        assertTrue("segments searched on the data nodes have structures: " + entries, entries > 0);
        assertTrue(queries >= 20);
    }

    /** Structures' entries and bytes, and what the breakers hold beyond the fingerprinting scratch (charged to the same breaker). */
    private static long[] structuresAndBreaker() throws Exception {
        long bytes = 0, entries = 0, used = 0;
        for (NearDupNodeStats node : client().execute(NearDupStatsAction.INSTANCE, new NearDupStatsRequest())
                .get()
                .getNodes()) {
            bytes += node.stats().bytes();
            entries += node.stats().entries();
            used -= node.scratch().bytes();
        }
        for (String node : internalCluster().getNodeNames()) {
            used += internalCluster()
                    .getInstance(org.opensearch.core.indices.breaker.CircuitBreakerService.class, node)
                    .getBreaker(NearDupPlugin.BREAKER_NAME)
                    .getUsed();
        }
        return new long[] {entries, bytes, used};
    }

    /**
     * Per-segment structures follow the segments: built by queries, charged to the breaker, given
     * back when merges retire their segments and when the index is deleted; the breaker always holds
     * exactly what the structures hold, and ends at zero.
     */
    public void testMergesAndDeletionGiveTheBreakerBack() throws Exception {
        assertAcked(prepareCreate("merges")
                .setSettings(org.opensearch.common.settings.Settings.builder()
                        .put("index.number_of_shards", 1)
                        .put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        Random random = random();
        for (int segment = 0; segment < 4; segment++) {
            BulkRequestBuilder bulk = client().prepareBulk();
            for (int i = 0; i < 50; i++) {
                bulk.add(client().prepareIndex("merges")
                        .setSource(Map.of(
                                "fp", Map.of("simhash", io.neardup.core.SimhashCodec.toHex(random.nextLong())))));
            }
            assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        }
        String query =
                "{\"near_duplicate\": {\"field\": \"fp.simhash\", \"like\": {\"simhash\": \"0000000000000000\"}, "
                        + "\"mode\": \"exact\", \"max_distance\": 8}}";
        client().prepareSearch("merges")
                .setQuery(org.opensearch.index.query.QueryBuilders.wrapperQuery(query))
                .get();
        long[] built = structuresAndBreaker();
        assertTrue("one structure per searched segment: " + built[0], built[0] >= 2);
        assertEquals("the breaker holds what the structures hold", built[1], built[2]);

        client().admin()
                .indices()
                .prepareForceMerge("merges")
                .setMaxNumSegments(1)
                .get();
        client().admin().indices().prepareRefresh("merges").get();
        client().prepareSearch("merges")
                .setQuery(org.opensearch.index.query.QueryBuilders.wrapperQuery(query))
                .get();
        assertBusy(() -> {
            long[] merged = structuresAndBreaker();
            assertEquals("the merged-away segments' structures are gone", 1, merged[0]);
            assertEquals(merged[1], merged[2]);
        });

        assertAcked(client().admin().indices().prepareDelete("merges"));
        assertBusy(() -> assertArrayEquals(new long[] {0, 0, 0}, structuresAndBreaker()));
    }
}
