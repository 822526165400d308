/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.Set;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.single.shard.TransportSingleShardAction;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.routing.OperationRouting;
import org.opensearch.cluster.routing.ShardsIterator;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/** Runs a {@link OneShardRequest} on a node holding a copy (primary or replica) of its shard. */
public abstract class OneShardAction<Request extends OneShardRequest<Request>, Response extends ActionResponse>
        extends TransportSingleShardAction<Request, Response> {

    private final Writeable.Reader<Response> responseReader;

    public OneShardAction(
            String name,
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver resolver,
            Writeable.Reader<Request> requestReader,
            Writeable.Reader<Response> responseReader,
            String executor) {
        super(name, threadPool, clusterService, transportService, actionFilters, resolver, requestReader, executor);
        this.responseReader = responseReader;
    }

    @Override
    protected Writeable.Reader<Response> getResponseReader() {
        return responseReader;
    }

    @Override
    protected boolean resolveIndex(Request request) {
        return true;
    }

    /** The shard's copies, the one on the request's {@link OneShardRequest#preferredNode} first if it names one. */
    @Override
    protected ShardsIterator shards(ClusterState state, InternalRequest request) {
        ShardId shardId = new ShardId(
                state.metadata().index(request.concreteIndex()).getIndex(),
                request.request().shard());
        String node = request.request().preferredNode();
        return node == null
                ? OperationRouting.getShards(state, shardId)
                : state.getRoutingTable().shardRoutingTable(shardId).preferNodeActiveInitializingShardsIt(Set.of(node));
    }
}
