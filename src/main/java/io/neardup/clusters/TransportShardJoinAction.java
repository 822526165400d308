/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.NodeRunBreakers;
import io.neardup.match.OneShardAction;
import io.neardup.query.QueryServices;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.lease.Releasables;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;
import org.opensearch.transport.client.Client;

/**
 * A step of the shards' self-join of {@code _near_dup_clusters}, run where a copy of the shard is,
 * on the plugin's pool: a window of a {@code simhash} field ({@link SimhashWindowJoin}) or a step of
 * a {@code minhash} field's band join ({@link MinhashBandJoin}). The searcher is held until the step
 * answers; the other shards' look-ups it sends answer through listeners, so no thread waits.
 */
public final class TransportShardJoinAction extends OneShardAction<ShardJoinRequest, ShardJoinResponse> {

    private final IndicesService indicesService;
    private final QueryServices services;
    private final Client client;
    private final StepTimeouts timeouts;
    private final NodeRunBreakers runBreakers;
    private final RunParts runParts;

    @Inject
    public TransportShardJoinAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            IndicesService indicesService,
            QueryServices services,
            Client client,
            StepTimeouts timeouts,
            NodeRunBreakers runBreakers,
            RunParts runParts) {
        super(
                ShardJoinAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                ShardJoinRequest::new,
                ShardJoinResponse::new,
                ClusterSteps.EXECUTOR);
        this.indicesService = indicesService;
        this.services = services;
        this.timeouts = timeouts;
        this.client = client;
        this.runBreakers = runBreakers;
        this.runParts = runParts;
    }

    @Override
    protected void asyncShardOperation(
            ShardJoinRequest request, ShardId shardId, ActionListener<ShardJoinResponse> listener) {
        ClusterSteps.fork(threadPool, listener, answer -> join(request, shardId, answer));
    }

    @Override
    protected ShardJoinResponse shardOperation(ShardJoinRequest request, ShardId shardId) {
        throw new UnsupportedOperationException("a join step answers through asyncShardOperation");
    }

    private void join(ShardJoinRequest request, ShardId shardId, ActionListener<ShardJoinResponse> listener)
            throws Exception {
        // The step's pairs go to the part of its shard on that node: recorded elsewhere, the part would be split.
        request.ensureOnPreferredNode(clusterService.localNode().getId(), shardId, "the join step of shard " + shardId);
        IndexService indexService = indicesService.indexServiceSafe(shardId.getIndex());
        Engine.Searcher searcher = indexService.getShard(shardId.id()).acquireSearcher("near_dup_clusters");
        NodeRunBreakers.Request run = runBreakers.open(request.getParentTask());
        // The step's pairs are kept in the run's parts here; then the answer says the most the run held here (or where
        // the step looked up) once the step's charges are all made.
        ActionListener<ShardJoinResponse> releasing = ActionListener.runAfter(
                ActionListener.map(listener, answer -> {
                    runParts.record(request.getParentTask(), request.parts(), request.keepEdges(), answer);
                    ShardJoinResponse kept =
                            request.parts().length == 0 ? answer : answer.withoutPairs(request.parts());
                    return kept.nodeBytes(run.nodeBytes());
                }),
                () -> Releasables.close(searcher, run));
        try {
            QueryShardContext context =
                    indexService.newQueryShardContext(shardId.id(), searcher, System::currentTimeMillis, null);
            ShardJoinStep step =
                    new ShardJoinStep(request, shardId, context, searcher, services, client, threadPool, timeouts, run);
            ShardJoinRequest.Step joinStep = request.step();
            if (joinStep instanceof ShardJoinRequest.Window window) {
                SimhashWindowJoin.run(step, window, releasing);
            } else if (joinStep instanceof ShardJoinRequest.BandsWithin within) {
                releasing.onResponse(MinhashBandJoin.joinWithin(step, within));
            } else if (joinStep instanceof ShardJoinRequest.BandsAcross across) {
                MinhashBandJoin.lookUpIn(step, across, releasing);
            } else {
                throw new IllegalStateException(
                        "no such join step: " + joinStep.getClass().getName()); // sealed
            }
        } catch (Exception e) {
            releasing.onFailure(e);
        }
    }
}
