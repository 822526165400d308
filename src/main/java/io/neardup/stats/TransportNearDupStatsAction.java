/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import io.neardup.index.SegmentFingerprintCache;
import io.neardup.ingest.FingerprintScratchPool;
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

/** Collects {@link SegmentFingerprintCache#stats()} and {@link FingerprintScratchPool#stats()} from every node asked. */
public final class TransportNearDupStatsAction
        extends TransportNodesAction<
                NearDupStatsRequest, NearDupStatsResponse, NearDupStatsRequest.NodeRequest, NearDupNodeStats> {

    private final SegmentFingerprintCache cache;
    private final FingerprintScratchPool scratchPool;

    @Inject
    public TransportNearDupStatsAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            SegmentFingerprintCache cache,
            FingerprintScratchPool scratchPool) {
        super(
                NearDupStatsAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                NearDupStatsRequest::new,
                NearDupStatsRequest.NodeRequest::new,
                ThreadPool.Names.MANAGEMENT,
                NearDupNodeStats.class);
        this.cache = cache;
        this.scratchPool = scratchPool;
    }

    @Override
    protected NearDupStatsResponse newResponse(
            NearDupStatsRequest request, List<NearDupNodeStats> responses, List<FailedNodeException> failures) {
        return new NearDupStatsResponse(clusterService.getClusterName(), responses, failures);
    }

    @Override
    protected NearDupStatsRequest.NodeRequest newNodeRequest(NearDupStatsRequest request) {
        return new NearDupStatsRequest.NodeRequest();
    }

    @Override
    protected NearDupNodeStats newNodeResponse(StreamInput in) throws IOException {
        return new NearDupNodeStats(in);
    }

    @Override
    protected NearDupNodeStats nodeOperation(NearDupStatsRequest.NodeRequest request) {
        return new NearDupNodeStats(clusterService.localNode(), cache.stats(), scratchPool.stats());
    }
}
