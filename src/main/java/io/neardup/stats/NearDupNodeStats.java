/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import io.neardup.index.QueryStats;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.ingest.FingerprintScratchPool;
import java.io.IOException;
import org.opensearch.action.support.nodes.BaseNodeResponse;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

/** One node's counters. */
public final class NearDupNodeStats extends BaseNodeResponse implements ToXContentFragment {

    private final SegmentFingerprintCache.Stats stats;
    private final FingerprintScratchPool.Stats scratch;

    public NearDupNodeStats(
            DiscoveryNode node, SegmentFingerprintCache.Stats stats, FingerprintScratchPool.Stats scratch) {
        super(node);
        this.stats = stats;
        this.scratch = scratch;
    }

    public NearDupNodeStats(StreamInput in) throws IOException {
        super(in);
        this.stats = new SegmentFingerprintCache.Stats(
                in.readVLong(), in.readVLong(), in.readVLong(), new QueryStats.Snapshot(in));
        this.scratch = new FingerprintScratchPool.Stats(in.readVLong(), in.readVLong(), in.readVLong());
    }

    public SegmentFingerprintCache.Stats stats() {
        return stats;
    }

    public FingerprintScratchPool.Stats scratch() {
        return scratch;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeVLong(stats.entries());
        out.writeVLong(stats.bytes());
        out.writeVLong(stats.builds());
        stats.queries().writeTo(out);
        out.writeVLong(scratch.bytes());
        out.writeVLong(scratch.threads());
        out.writeVLong(scratch.dropped());
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject(getNode().getId());
        builder.field("name", getNode().getName());
        builder.startObject("segment_structures");
        builder.field("entries", stats.entries());
        builder.field("bytes", stats.bytes());
        builder.field("builds", stats.builds());
        builder.endObject();
        builder.startObject("fingerprint_scratch");
        builder.field("bytes", scratch.bytes());
        builder.field("threads", scratch.threads());
        builder.field("dropped", scratch.dropped());
        builder.field("max_kept_bytes_per_thread", FingerprintScratchPool.maxKeptBytes());
        builder.endObject();
        stats.queries().toXContent(builder, params);
        return builder.endObject();
    }
}
