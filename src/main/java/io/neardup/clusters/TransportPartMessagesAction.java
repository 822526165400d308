/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.OneShardAction;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/** Takes in the messages of a step for the parts of a run this node keeps, until the run's next step. */
public final class TransportPartMessagesAction
        extends OneShardAction<PartMessagesAction.Request, PartMessagesAction.Response> {

    private final RunParts runParts;

    @Inject
    public TransportPartMessagesAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            RunParts runParts) {
        super(
                PartMessagesAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                PartMessagesAction.Request::new,
                PartMessagesAction.Response::new,
                ThreadPool.Names.SAME);
        this.runParts = runParts;
    }

    @Override
    protected void asyncShardOperation(
            PartMessagesAction.Request request, ShardId shardId, ActionListener<PartMessagesAction.Response> listener) {
        ActionListener.completeWith(listener, () -> shardOperation(request, shardId));
    }

    @Override
    protected PartMessagesAction.Response shardOperation(PartMessagesAction.Request request, ShardId shardId) {
        request.ensureOnPreferredNode(
                clusterService.localNode().getId(), shardId, "messages for the parts of run [" + request.run() + "]");
        RunParts.Run run = runParts.run(request.run());
        if (run == null) {
            throw new IllegalStateException("run [" + request.run() + "] has ended");
        }
        run.deliver(request.messages());
        return new PartMessagesAction.Response();
    }
}
