/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import org.opensearch.action.support.single.shard.SingleShardRequest;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/** A request for one shard of an index, named by number, run by a {@link OneShardAction} on a node holding a copy of it. */
public abstract class OneShardRequest<R extends OneShardRequest<R>> extends SingleShardRequest<R> {

    private final int shard;

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
}
