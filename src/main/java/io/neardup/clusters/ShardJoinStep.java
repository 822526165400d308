/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.MemoryBudget;
import io.neardup.match.DocMatches;
import io.neardup.match.NodeRunBreakers;
import io.neardup.match.ShardMatchAction;
import io.neardup.match.ShardMatchRequest;
import io.neardup.match.ShardMatchResponse;
import io.neardup.query.QueryServices;
import java.util.Arrays;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/**
 * One step of a shard join where a copy of the shard is: what its algorithm ({@link SimhashWindowJoin},
 * {@link MinhashBandJoin}) needs, the searcher held until the step answers. Its memory is charged to the breaker of
 * its run on this node ({@code run}), and what the other shards it looks up in report of theirs is kept there.
 */
record ShardJoinStep(
        ShardJoinRequest request,
        ShardId shardId,
        QueryShardContext context,
        Engine.Searcher searcher,
        QueryServices services,
        Client client,
        ThreadPool threadPool,
        StepTimeouts timeouts,
        NodeRunBreakers.Request run) {

    CircuitBreaker breaker() {
        return run.breaker();
    }

    /** What a step holds of its matches by doc id and of the {@code _id}s it has read. */
    MemoryBudget matchedBudget() {
        return DocMatches.budget(breaker());
    }

    /** Sends a look-up to another shard as a child of the run; its answer continues on the plugin's pool. */
    void lookUp(ShardMatchRequest lookUp, ActionListener<ShardMatchResponse> answer) {
        lookUp.setParentTask(request.getParentTask());
        client.execute(
                ShardMatchAction.INSTANCE,
                lookUp,
                ClusterSteps.step(
                        threadPool, timeouts, "a look-up of shard [" + lookUp.shard() + "]", new ActionListener<>() {
                            @Override
                            public void onResponse(ShardMatchResponse response) {
                                run.heardFrom(response.nodeBytes());
                                answer.onResponse(response);
                            }

                            @Override
                            public void onFailure(Exception e) {
                                answer.onFailure(e);
                            }
                        }));
    }

    /** The documents of a step that have a match, numbered in the order their first match is found. */
    static final class Queries {
        private final int[] queryOf;
        private final int[] docOf;
        private int count;

        /** @param size the step's documents, numbered 0 to size - 1 */
        Queries(int size) {
            queryOf = new int[size];
            Arrays.fill(queryOf, -1);
            docOf = new int[size];
        }

        int of(int index) {
            if (queryOf[index] < 0) {
                docOf[count] = index;
                queryOf[index] = count++;
            }
            return queryOf[index];
        }

        int count() {
            return count;
        }

        /** The step's number of query {@code q}. */
        int indexOf(int q) {
            return docOf[q];
        }
    }
}
