/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import io.neardup.index.QueryStats;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.ingest.FingerprintScratchPool;
import java.io.IOException;
import java.util.Map;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.test.OpenSearchTestCase;

public class NearDupNodeStatsTests extends OpenSearchTestCase {

    private static SegmentFingerprintCache.Stats randomStats() {
        return new SegmentFingerprintCache.Stats(
                randomNonNegativeLong(),
                randomNonNegativeLong(),
                randomNonNegativeLong(),
                new QueryStats.Snapshot(
                        randomNonNegativeLong() / 2,
                        randomNonNegativeLong(),
                        randomNonNegativeLong(),
                        randomNonNegativeLong(),
                        randomNonNegativeLong(),
                        randomNonNegativeLong() / 2,
                        randomNonNegativeLong(),
                        randomNonNegativeLong(),
                        randomNonNegativeLong()));
    }

    /** What one node sends is what the coordinating node reads: every counter, in order. */
    public void testWireRoundTrip() throws IOException {
        DiscoveryNode node =
                new DiscoveryNode("node-1", buildNewFakeTransportAddress(), org.opensearch.Version.CURRENT);
        SegmentFingerprintCache.Stats stats = randomStats();
        FingerprintScratchPool.Stats scratch = new FingerprintScratchPool.Stats(
                randomNonNegativeLong(), randomNonNegativeLong(), randomNonNegativeLong());
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            new NearDupNodeStats(node, stats, scratch).writeTo(out);
            try (StreamInput in = out.bytes().streamInput()) {
                NearDupNodeStats read = new NearDupNodeStats(in);
                assertEquals(stats, read.stats());
                assertEquals(node.getId(), read.getNode().getId());
            }
        }
    }

    @SuppressWarnings("unchecked")
    public void testJsonNamesEveryCounter() throws IOException {
        DiscoveryNode node =
                new DiscoveryNode("node-1", buildNewFakeTransportAddress(), org.opensearch.Version.CURRENT);
        SegmentFingerprintCache.Stats stats =
                new SegmentFingerprintCache.Stats(1, 2, 3, new QueryStats.Snapshot(4, 5, 6, 7, 8, 9, 10, 11, 15));
        XContentBuilder builder = XContentFactory.jsonBuilder().startObject();
        new NearDupNodeStats(node, stats, new FingerprintScratchPool.Stats(12, 13, 14))
                .toXContent(builder, ToXContent.EMPTY_PARAMS);
        builder.endObject();
        Map<String, Object> json = (Map<String, Object>) XContentHelper.convertToMap(
                        org.opensearch.core.common.bytes.BytesReference.bytes(builder), false, builder.contentType())
                .v2()
                .get("node-1");
        assertEquals(Map.of("entries", 1, "bytes", 2, "builds", 3), json.get("segment_structures"));
        assertEquals(
                Map.of("bytes", 12, "threads", 13, "dropped", 14, "max_kept_bytes_per_thread", (int)
                        FingerprintScratchPool.maxKeptBytes()),
                json.get("fingerprint_scratch"));
        assertEquals(
                Map.of(
                        "queries",
                        13,
                        "simhash_queries",
                        4,
                        "segment_searches",
                        5,
                        "lookups",
                        6,
                        "candidates_checked",
                        7,
                        "matches",
                        8,
                        "minhash_queries",
                        9,
                        "verified_exact",
                        10,
                        "verified_estimate",
                        11,
                        "minhash_segments_skipped",
                        15),
                json.get("queries"));
    }
}
