/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.NodeRunBreakers;
import io.neardup.match.OneShardAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.search.IndexSearcher;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.routing.ShardsIterator;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.lease.Releasables;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.index.shard.IndexShardState;
import org.opensearch.index.shard.ShardNotFoundException;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/**
 * A band self-join of shards that have copies on one node ({@link ShardGroupJoinRequest}), run there on the plugin's
 * pool over one reader of theirs: every pair of their documents once, where joining them shard by shard would build
 * each one's key filter and test every other's documents against it once a pair of shards (docs/clusters.md
 * section 7). Each shard's searcher is the caller's (the Security plugin's reader wrapper applies, index by index).
 * Fails with {@link ShardNotFoundException} before any work where a shard named has no started copy here (it moved
 * since the run planned its steps): the run then joins those shards one by one ({@link ShardScan.BandJoin}).
 */
public final class TransportShardGroupJoinAction extends OneShardAction<ShardGroupJoinRequest, ShardJoinResponse> {

    private final IndicesService indicesService;
    private final NodeRunBreakers runBreakers;
    private final RunParts runParts;

    @Inject
    public TransportShardGroupJoinAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            IndicesService indicesService,
            NodeRunBreakers runBreakers,
            RunParts runParts) {
        super(
                ShardGroupJoinAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                ShardGroupJoinRequest::new,
                ShardJoinResponse::readGroup,
                ClusterSteps.EXECUTOR);
        this.indicesService = indicesService;
        this.runBreakers = runBreakers;
        this.runParts = runParts;
    }

    @Override
    protected ShardsIterator shards(ClusterState state, InternalRequest request) {
        ShardId shardId = new ShardId(
                state.metadata().index(request.concreteIndex()).getIndex(),
                request.request().shard());
        return state.getRoutingTable()
                .shardRoutingTable(shardId)
                .preferNodeActiveInitializingShardsIt(Set.of(request.request().node()));
    }

    @Override
    protected void asyncShardOperation(
            ShardGroupJoinRequest request, ShardId shardId, ActionListener<ShardJoinResponse> listener) {
        ClusterSteps.fork(threadPool, listener, answer -> {
            try (NodeRunBreakers.Request run = runBreakers.open(request.getParentTask())) {
                ShardJoinResponse joined = join(request, shardId, run.breaker());
                runParts.record(request.getParentTask(), request.parts(), request.allPairs(), joined);
                ShardJoinResponse kept = request.parts().length == 0 ? joined : joined.withoutPairs(request.parts());
                answer.onResponse(kept.nodeBytes(run.nodeBytes()));
            }
        });
    }

    @Override
    protected ShardJoinResponse shardOperation(ShardGroupJoinRequest request, ShardId shardId) {
        throw new UnsupportedOperationException("a group join step answers through asyncShardOperation");
    }

    private ShardJoinResponse join(ShardGroupJoinRequest request, ShardId shardId, CircuitBreaker breaker)
            throws Exception {
        IndexService indexService = indicesService.indexServiceSafe(shardId.getIndex());
        List<IndexShard> shards = new ArrayList<>();
        shards.add(indexService.getShard(shardId.id()));
        ClusterState state = clusterService.state();
        for (ShardJoinRequest.OtherShard other : request.together()) {
            shards.add(startedHere(state, other));
        }
        List<Engine.Searcher> searchers = new ArrayList<>();
        try {
            IndexReader[] readers = new IndexReader[shards.size()];
            int[] shardStarts = new int[shards.size()];
            int docs = 0;
            for (int i = 0; i < shards.size(); i++) {
                Engine.Searcher searcher = shards.get(i).acquireSearcher("near_dup_clusters");
                searchers.add(searcher);
                readers[i] = searcher.getIndexReader();
                shardStarts[i] = docs;
                docs = Math.addExact(docs, readers[i].maxDoc());
            }
            try (MultiReader together = new MultiReader(readers, false)) {
                return MinhashBandJoin.selfJoin(
                        breaker,
                        request.spec()
                                .bandMatching(
                                        indexService.newQueryShardContext(
                                                shardId.id(), searchers.get(0), System::currentTimeMillis, null),
                                        shardId),
                        new IndexSearcher(together),
                        request.allPairs(),
                        request::ensureNotCancelled,
                        shardStarts);
            }
        } finally {
            Releasables.close(searchers);
        }
    }

    /** The started copy of {@code shard} on this node; else a {@link ShardNotFoundException}. */
    private IndexShard startedHere(ClusterState state, ShardJoinRequest.OtherShard shard) {
        IndexMetadata index = state.metadata().index(shard.index());
        if (index == null) {
            throw new IndexNotFoundException(shard.index());
        }
        IndexService indexService = indicesService.indexService(index.getIndex());
        IndexShard copy = indexService == null ? null : indexService.getShardOrNull(shard.shard());
        if (copy == null || copy.state() != IndexShardState.STARTED) {
            throw new ShardNotFoundException(new ShardId(index.getIndex(), shard.shard()));
        }
        return copy;
    }
}
