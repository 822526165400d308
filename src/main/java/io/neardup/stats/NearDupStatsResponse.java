/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import java.io.IOException;
import java.util.List;
import org.opensearch.action.FailedNodeException;
import org.opensearch.action.support.nodes.BaseNodesResponse;
import org.opensearch.cluster.ClusterName;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

/** Every node's counters, keyed by node id. */
public final class NearDupStatsResponse extends BaseNodesResponse<NearDupNodeStats> implements ToXContentFragment {

    public NearDupStatsResponse(
            ClusterName clusterName, List<NearDupNodeStats> nodes, List<FailedNodeException> failures) {
        super(clusterName, nodes, failures);
    }

    public NearDupStatsResponse(StreamInput in) throws IOException {
        super(in);
    }

    @Override
    protected List<NearDupNodeStats> readNodesFrom(StreamInput in) throws IOException {
        return in.readList(NearDupNodeStats::new);
    }

    @Override
    protected void writeNodesTo(StreamOutput out, List<NearDupNodeStats> nodes) throws IOException {
        out.writeList(nodes);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject("nodes");
        for (NearDupNodeStats node : getNodes()) {
            node.toXContent(builder, params);
        }
        return builder.endObject();
    }
}
