/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.io.IOException;
import java.util.Map;
import org.opensearch.action.NoShardAvailableActionException;
import org.opensearch.action.support.single.shard.SingleShardRequest;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.core.tasks.TaskCancelledException;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.tasks.CancellableTask;
import org.opensearch.tasks.Task;

/**
 * A request for one shard of an index, named by number, run by a {@link OneShardAction} on a node
 * holding a copy of it. It runs as a cancellable task, so that cancelling the run that sent it
 * (its parent) cancels it too, and long work on the shard stops at its next {@link #ensureNotCancelled}.
 */
public abstract class OneShardRequest<R extends OneShardRequest<R>> extends SingleShardRequest<R> {

    private final int shard;
    /** The task this request last ran as on this node (the shard's, where it runs). */
    private volatile CancellableTask task;

    protected OneShardRequest(String index, int shard) {
        super(index);
        this.shard = shard;
    }

    protected OneShardRequest(StreamInput in) throws IOException {
        super(in);
        shard = in.readVInt();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeVInt(shard);
    }

    public int shard() {
        return shard;
    }

    /** The node whose copy of the shard is tried first; null for any copy, in the usual order. */
    public String preferredNode() {
        return null;
    }

    /**
     * Throws unless this runs on its {@link #preferredNode} (where it names one): for a request whose work belongs to
     * that node (the part of a run's graph kept there), another copy cannot stand in. The copy here is then "not
     * available", so the caller tries the shard's other copies and answers 503 with {@code what} in the reason.
     */
    public void ensureOnPreferredNode(String localNode, ShardId shardId, String what) {
        String node = preferredNode();
        if (node != null && node.equals(localNode) == false) {
            throw new NoShardAvailableActionException(
                    shardId,
                    what + " belongs on node [" + node + "], not on node [" + localNode
                            + "]: a copy moved during the run, run it again");
        }
    }

    @Override
    public Task createTask(long id, String type, String action, TaskId parentTaskId, Map<String, String> headers) {
        CancellableTask created = new CancellableTask(id, type, action, getDescription(), parentTaskId, headers) {
            @Override
            public boolean shouldCancelChildrenOnCancellation() {
                return false;
            }
        };
        task = created;
        return created;
    }

    /** Throws if the run that sent this request was cancelled: checked between steps of long work on the shard. */
    public void ensureNotCancelled() {
        CancellableTask running = task;
        if (running != null && running.isCancelled()) {
            throw new TaskCancelledException("cancelled: " + running.getReasonCancelled());
        }
    }
}
