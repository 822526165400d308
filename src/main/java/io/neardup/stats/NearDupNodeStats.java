package io.neardup.stats;

import io.neardup.query.SegmentFingerprintCache;
import org.opensearch.action.support.nodes.BaseNodeResponse;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

import java.io.IOException;

/** One node's counters. */
public final class NearDupNodeStats extends BaseNodeResponse implements ToXContentFragment {

    private final SegmentFingerprintCache.Stats stats;

    public NearDupNodeStats(DiscoveryNode node, SegmentFingerprintCache.Stats stats) {
        super(node);
        this.stats = stats;
    }

    public NearDupNodeStats(StreamInput in) throws IOException {
        super(in);
        this.stats = new SegmentFingerprintCache.Stats(in.readVLong(), in.readVLong(), in.readVLong(), in.readVLong(), in.readVLong(),
            in.readVLong(), in.readVLong(), in.readVLong());
    }

    public SegmentFingerprintCache.Stats stats() {
        return stats;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeVLong(stats.entries());
        out.writeVLong(stats.bytes());
        out.writeVLong(stats.builds());
        out.writeVLong(stats.queries());
        out.writeVLong(stats.segmentSearches());
        out.writeVLong(stats.lookups());
        out.writeVLong(stats.candidates());
        out.writeVLong(stats.matches());
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
        builder.startObject("queries");
        builder.field("queries", stats.queries());
        builder.field("segment_searches", stats.segmentSearches());
        builder.field("lookups", stats.lookups());
        builder.field("candidates_checked", stats.candidates());
        builder.field("matches", stats.matches());
        builder.endObject();
        return builder.endObject();
    }
}
