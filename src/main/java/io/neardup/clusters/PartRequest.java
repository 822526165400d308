/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.OneShardRequest;
import java.io.IOException;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.tasks.TaskId;

/**
 * A request to the parts of a run's graph one node keeps ({@link RunParts}): the run and the node, addressed through a
 * shard whose part the node keeps; it must run there ({@link #ensureOnPreferredNode}).
 */
abstract class PartRequest<R extends PartRequest<R>> extends OneShardRequest<R> {
    private final TaskId run;
    private final String node;

    PartRequest(String index, int shard, TaskId run, String node) {
        super(index, shard);
        this.run = run;
        this.node = node;
    }

    PartRequest(StreamInput in) throws IOException {
        super(in);
        run = TaskId.readFromStream(in);
        node = in.readString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        run.writeTo(out);
        out.writeString(node);
    }

    @Override
    public ActionRequestValidationException validate() {
        return validateNonNullIndex();
    }

    @Override
    public String preferredNode() {
        return node;
    }

    TaskId run() {
        return run;
    }

    /** The node whose parts the request is for. */
    String node() {
        return node;
    }
}
