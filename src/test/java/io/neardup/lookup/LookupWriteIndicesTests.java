/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.action.bulk.BulkItemRequest;
import org.opensearch.action.bulk.BulkShardRequest;
import org.opensearch.action.index.IndexRequest;
import org.opensearch.action.support.WriteRequest;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.test.OpenSearchTestCase;

/** The names a bulk's lookups assumed, corrected on the bulk's shard requests (the race itself: NearDupLookupRolloverTests). */
public class LookupWriteIndicesTests extends OpenSearchTestCase {

    private static IndexRequest item(String id, Map<String, Object> dup) {
        return new IndexRequest("pages").id(id).source(Map.of("text", "x", "dup", dup));
    }

    private static BulkShardRequest shardRequest(String index, IndexRequest... requests) {
        BulkItemRequest[] items = new BulkItemRequest[requests.length];
        for (int i = 0; i < requests.length; i++) {
            items[i] = new BulkItemRequest(i, requests[i]);
        }
        return new BulkShardRequest(new ShardId(index, "_na_", 0), WriteRequest.RefreshPolicy.NONE, items);
    }

    /** A copy of {@code original}, both named in generation 1. */
    private static IndexRequest copyOf(String id, String original) {
        Map<String, Object> dup = new HashMap<>();
        dup.put("cluster", original);
        dup.put("cluster_index", ".ds-pages-000001");
        dup.put("duplicate_of", original);
        dup.put("duplicate_of_index", ".ds-pages-000001");
        dup.put("representative", false);
        return item(id, dup);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> dup(IndexRequest request) {
        return (Map<String, Object>) request.sourceAsMap().get("dup");
    }

    /**
     * An original and its copy of the same bulk, assumed to go to generation 1 and written to generation 2: both are
     * named where they went; a copy of a document found by the search (a real index) keeps its names.
     */
    public void testTheNamesAssumedAreCorrectedWhereTheWriteWentElsewhere() {
        LookupWriteIndices.Bulk bulk = new LookupWriteIndices.Bulk();
        LookupWriteIndices.Placement placement = bulk.placement("pages", ".ds-pages-000001");
        IndexRequest original =
                item("a", Map.of("cluster", "a", "cluster_index", ".ds-pages-000001", "representative", true));
        IndexRequest copy = copyOf("b", "a");
        IndexRequest copyOfOlder = copyOf("c", "z");
        bulk.record(
                0,
                placement,
                List.of(new LookupWriteIndices.Correction("dup.cluster_index", placement, ".ds-pages-000001")));
        bulk.record(
                1,
                placement,
                List.of(
                        new LookupWriteIndices.Correction("dup.cluster_index", placement, ".ds-pages-000001"),
                        new LookupWriteIndices.Correction("dup.duplicate_of_index", placement, ".ds-pages-000001")));
        bulk.record(2, placement, List.of());

        bulk.correct(shardRequest(".ds-pages-000002", original, copy, copyOfOlder));

        assertEquals(".ds-pages-000002", dup(original).get("cluster_index"));
        assertEquals(".ds-pages-000002", dup(copy).get("cluster_index"));
        assertEquals(".ds-pages-000002", dup(copy).get("duplicate_of_index"));
        assertEquals(".ds-pages-000001", dup(copyOfOlder).get("cluster_index"));
        assertEquals(".ds-pages-000001", dup(copyOfOlder).get("duplicate_of_index"));
        assertEquals("x", original.sourceAsMap().get("text"));
        assertEquals("a later lookup names the index the write went to", ".ds-pages-000002", placement.index());
    }

    /** Where the write goes where it was assumed to, or a later processor changed the answer, the source is untouched. */
    public void testNothingIsRewrittenWhereTheAssumptionHeldOrTheAnswerChanged() {
        for (String writtenTo : List.of(".ds-pages-000001", ".ds-pages-000002")) {
            LookupWriteIndices.Bulk bulk = new LookupWriteIndices.Bulk();
            LookupWriteIndices.Placement placement = bulk.placement("pages", ".ds-pages-000001");
            boolean held = writtenTo.equals(".ds-pages-000001");
            IndexRequest request =
                    item("a", Map.of("cluster", "a", "cluster_index", held ? ".ds-pages-000001" : "elsewhere"));
            bulk.record(
                    0,
                    placement,
                    List.of(new LookupWriteIndices.Correction("dup.cluster_index", placement, ".ds-pages-000001")));
            var before = request.source();

            bulk.correct(shardRequest(writtenTo, request));

            if (held) {
                assertSame("not even parsed", before, request.source());
            } else {
                assertEquals("elsewhere", dup(request).get("cluster_index"));
            }
        }
    }
}
