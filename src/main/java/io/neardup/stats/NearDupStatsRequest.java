/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import io.neardup.compat.NodeRequestBase;
import java.io.IOException;
import org.opensearch.action.support.nodes.BaseNodesRequest;
import org.opensearch.core.common.io.stream.StreamInput;

/** Which nodes to ask. */
public final class NearDupStatsRequest extends BaseNodesRequest<NearDupStatsRequest> {

    public NearDupStatsRequest(String... nodeIds) {
        super(nodeIds);
    }

    public NearDupStatsRequest(StreamInput in) throws IOException {
        super(in);
    }

    /** What one node receives: nothing beyond the question itself. */
    public static final class NodeRequest extends NodeRequestBase {
        public NodeRequest() {}

        public NodeRequest(StreamInput in) throws IOException {
            super(in);
        }
    }
}
