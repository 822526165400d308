/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.AddedWireFields;
import io.neardup.match.MatchSpec;
import io.neardup.match.OneShardRequest;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * The band self-join of shards that have copies on one node, joined there as one reader
 * ({@link TransportShardGroupJoinAction}): every pair of their documents once, within a shard or across two, as
 * {@link ShardJoinRequest.BandsWithin} joins one shard's. It goes to a copy of its first shard on {@code node}, where
 * copies of the {@code together} shards are too.
 */
public final class ShardGroupJoinRequest extends OneShardRequest<ShardGroupJoinRequest> {

    private final MatchSpec spec;
    private final boolean allPairs;
    private final ShardJoinRequest.OtherShard[] together;
    private final String node;
    /** The run's part of each shard joined, numbered as {@link #joinedIndices}; empty: none recorded. */
    private final int[] parts;

    /**
     * @param allPairs as {@link ShardJoinRequest.BandsWithin#allPairs}
     * @param node the id of the node that holds a copy of every shard named, tried first
     */
    public ShardGroupJoinRequest(
            String index,
            int shard,
            MatchSpec spec,
            boolean allPairs,
            ShardJoinRequest.OtherShard[] together,
            String node) {
        this(index, shard, spec, allPairs, together, node, new int[0]);
    }

    /** @param parts the run's part of each shard joined, numbered as {@link #joinedIndices}; empty to record nothing */
    public ShardGroupJoinRequest(
            String index,
            int shard,
            MatchSpec spec,
            boolean allPairs,
            ShardJoinRequest.OtherShard[] together,
            String node,
            int[] parts) {
        super(index, shard);
        this.spec = spec;
        this.allPairs = allPairs;
        this.together = together;
        this.node = node;
        this.parts = checkedParts(parts, together.length + 1);
    }

    private static int[] checkedParts(int[] parts, int shards) {
        if (parts.length != 0 && parts.length != shards) {
            throw new IllegalArgumentException(
                    "a group join step names " + shards + " shards and " + parts.length + " parts");
        }
        return parts;
    }

    public ShardGroupJoinRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        allPairs = in.readBoolean();
        String[] indices = in.readStringArray();
        int[] shards = in.readVIntArray();
        if (indices.length != shards.length) {
            throw new IllegalArgumentException(
                    "a group join step names " + shards.length + " shards and " + indices.length + " indices");
        }
        together = new ShardJoinRequest.OtherShard[shards.length];
        for (int i = 0; i < shards.length; i++) {
            together[i] = new ShardJoinRequest.OtherShard(indices[i], shards[i]);
        }
        node = in.readString();
        parts = AddedWireFields.read(in) ? checkedParts(in.readVIntArray(), together.length + 1) : new int[0];
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        out.writeBoolean(allPairs);
        out.writeStringArray(
                Arrays.stream(together).map(ShardJoinRequest.OtherShard::index).toArray(String[]::new));
        out.writeVIntArray(Arrays.stream(together)
                .mapToInt(ShardJoinRequest.OtherShard::shard)
                .toArray());
        out.writeString(node);
        if (AddedWireFields.written(out)) {
            out.writeVIntArray(parts);
        }
    }

    /** The run's part of each shard joined, numbered as {@link #joinedIndices}; empty if none is recorded. */
    public int[] parts() {
        return parts.clone();
    }

    /** Every index the step reads, so that each is checked for the caller (the Security plugin reads this). */
    @Override
    public String[] indices() {
        Set<String> indices = new LinkedHashSet<>();
        indices.add(index());
        for (ShardJoinRequest.OtherShard shard : together) {
            indices.add(shard.index());
        }
        return indices.toArray(new String[0]);
    }

    /** The index of each shard the answer's queries and matches can be in: 0 the first shard's, then {@link #together}'s. */
    String[] joinedIndices() {
        String[] indices = new String[together.length + 1];
        indices[0] = index();
        for (int i = 0; i < together.length; i++) {
            indices[i + 1] = together[i].index();
        }
        return indices;
    }

    @Override
    public ActionRequestValidationException validate() {
        return validateNonNullIndex();
    }

    public MatchSpec spec() {
        return spec;
    }

    public boolean allPairs() {
        return allPairs;
    }

    /** The shards joined with the first, each of them with a copy on {@link #node}. */
    public ShardJoinRequest.OtherShard[] together() {
        return together;
    }

    public String node() {
        return node;
    }

    @Override
    public String preferredNode() {
        return node;
    }

    /** What {@code GET _tasks?detailed} shows of the step. */
    @Override
    public String getDescription() {
        return "shard [" + shard() + "] of [" + index() + "]: band self-join of [" + spec.field() + "] together with "
                + Arrays.toString(together) + " on node [" + node + "]";
    }
}
