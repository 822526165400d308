/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.compat.NodeRequestBase;
import java.io.IOException;
import java.util.List;
import org.opensearch.action.ActionType;
import org.opensearch.action.FailedNodeException;
import org.opensearch.action.IndicesRequest;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.action.support.nodes.BaseNodeResponse;
import org.opensearch.action.support.nodes.BaseNodesRequest;
import org.opensearch.action.support.nodes.BaseNodesResponse;
import org.opensearch.cluster.ClusterName;
import org.opensearch.cluster.node.DiscoveryNode;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.tasks.TaskId;

/**
 * Sent by a run as it ends, to the nodes its steps ran on: each gives back the run's {@link ShardPart}s there
 * ({@link RunParts#release}). A read action on the run's indices, as its steps are, so that whoever may run the
 * clusters may end them.
 */
public final class ReleaseRunPartsAction extends ActionType<ReleaseRunPartsAction.Response> {

    public static final String NAME = "indices:data/read/near_dup_clusters/parts/release";
    public static final ReleaseRunPartsAction INSTANCE = new ReleaseRunPartsAction();

    private ReleaseRunPartsAction() {
        super(NAME, Response::new);
    }

    /** The run (its task), the nodes that may keep parts of it, and its indices (what permits the release). */
    public static final class Request extends BaseNodesRequest<Request> implements IndicesRequest {
        private final TaskId run;
        private final String[] indices;

        public Request(TaskId run, String[] indices, String... nodeIds) {
            super(nodeIds);
            this.run = run;
            this.indices = indices;
        }

        public Request(StreamInput in) throws IOException {
            super(in);
            run = TaskId.readFromStream(in);
            indices = in.readStringArray();
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            run.writeTo(out);
            out.writeStringArray(indices);
        }

        TaskId run() {
            return run;
        }

        @Override
        public String[] indices() {
            return indices.clone();
        }

        @Override
        public IndicesOptions indicesOptions() {
            return IndicesOptions.strictExpandOpenAndForbidClosedIgnoreThrottled();
        }
    }

    /** What one node receives: the run. */
    public static final class NodeRequest extends NodeRequestBase {
        private final TaskId run;

        NodeRequest(TaskId run) {
            this.run = run;
        }

        public NodeRequest(StreamInput in) throws IOException {
            super(in);
            run = TaskId.readFromStream(in);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            run.writeTo(out);
        }

        TaskId run() {
            return run;
        }
    }

    /** One node's answer: the bytes its parts of the run gave back. */
    public static final class NodeResponse extends BaseNodeResponse {
        private final long released;

        NodeResponse(DiscoveryNode node, long released) {
            super(node);
            this.released = released;
        }

        public NodeResponse(StreamInput in) throws IOException {
            super(in);
            released = in.readVLong();
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            out.writeVLong(released);
        }

        public long released() {
            return released;
        }
    }

    public static final class Response extends BaseNodesResponse<NodeResponse> {
        public Response(ClusterName clusterName, List<NodeResponse> nodes, List<FailedNodeException> failures) {
            super(clusterName, nodes, failures);
        }

        public Response(StreamInput in) throws IOException {
            super(in);
        }

        @Override
        protected List<NodeResponse> readNodesFrom(StreamInput in) throws IOException {
            return in.readList(NodeResponse::new);
        }

        @Override
        protected void writeNodesTo(StreamOutput out, List<NodeResponse> nodes) throws IOException {
            out.writeList(nodes);
        }
    }
}
