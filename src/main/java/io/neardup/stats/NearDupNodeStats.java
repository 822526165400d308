package io.neardup.stats;

import io.neardup.query.QueryStats;
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
        this.stats = new SegmentFingerprintCache.Stats(in.readVLong(), in.readVLong(), in.readVLong(), new QueryStats.Snapshot(in));
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
        stats.queries().writeTo(out);
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
        stats.queries().toXContent(builder, params);
        return builder.endObject();
    }
}
