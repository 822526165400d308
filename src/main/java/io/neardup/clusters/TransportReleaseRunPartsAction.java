/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.List;
import org.opensearch.action.FailedNodeException;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.nodes.TransportNodesAction;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/** Gives back a run's parts on each node asked ({@link ReleaseRunPartsAction}). */
public final class TransportReleaseRunPartsAction
        extends TransportNodesAction<
                ReleaseRunPartsAction.Request,
                ReleaseRunPartsAction.Response,
                ReleaseRunPartsAction.NodeRequest,
                ReleaseRunPartsAction.NodeResponse> {

    private final RunParts parts;

    @Inject
    public TransportReleaseRunPartsAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            RunParts parts) {
        super(
                ReleaseRunPartsAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                ReleaseRunPartsAction.Request::new,
                ReleaseRunPartsAction.NodeRequest::new,
                ThreadPool.Names.SAME,
                ReleaseRunPartsAction.NodeResponse.class);
        this.parts = parts;
    }

    @Override
    protected ReleaseRunPartsAction.Response newResponse(
            ReleaseRunPartsAction.Request request,
            List<ReleaseRunPartsAction.NodeResponse> responses,
            List<FailedNodeException> failures) {
        return new ReleaseRunPartsAction.Response(clusterService.getClusterName(), responses, failures);
    }

    @Override
    protected ReleaseRunPartsAction.NodeRequest newNodeRequest(ReleaseRunPartsAction.Request request) {
        return new ReleaseRunPartsAction.NodeRequest(request.run());
    }

    @Override
    protected ReleaseRunPartsAction.NodeResponse newNodeResponse(StreamInput in) throws IOException {
        return new ReleaseRunPartsAction.NodeResponse(in);
    }

    @Override
    protected ReleaseRunPartsAction.NodeResponse nodeOperation(ReleaseRunPartsAction.NodeRequest request) {
        return new ReleaseRunPartsAction.NodeResponse(clusterService.localNode(), parts.release(request.run()));
    }
}
