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
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.ValidateActions;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/** One step of a shard join, run where a copy of the shard is ({@link TransportShardJoinAction}): one of the {@link Step} kinds. */
public final class ShardJoinRequest extends OneShardRequest<ShardJoinRequest> {

    /** Most sequence numbers (so documents) a window spans: bounds the memory a window takes on its shard's node. */
    public static final long MAX_WINDOW = NearDupClustersRequest.MAX_SCROLL_SIZE;

    /** What the step joins. */
    public sealed interface Step permits Window, BandsWithin, BandsAcross {}

    /** A shard a step looks up, of the step's own index or of another index of the run. */
    public record OtherShard(String index, int shard) {
        @Override
        public String toString() {
            return "[" + shard + "] of [" + index + "]";
        }
    }

    /**
     * On a {@code simhash} field ({@link SimhashWindowJoin}): the documents of the shard whose {@code _seq_no} is in
     * {@code [fromSeqNo, toSeqNo)}, joined with every document of the shard and of {@code otherShards}.
     */
    public record Window(long fromSeqNo, long toSeqNo, OtherShard[] otherShards) implements Step {}

    /**
     * On a {@code minhash} field ({@link MinhashBandJoin}): the band self-join of the whole shard, every pair of its
     * documents once. Without {@code allPairs} (single linkage) a pair whose documents are already connected is not
     * verified nor reported. The step that counts the shard's documents.
     */
    public record BandsWithin(boolean allPairs) implements Step {}

    /**
     * On a {@code minhash} field ({@link MinhashBandJoin}): the look-ups by band of the whole shard's documents in
     * {@code otherShard}, every pair with that shard's documents once (each pair of shards is named once,
     * {@link ShardScan#shardsProbedBy}).
     */
    public record BandsAcross(OtherShard otherShard) implements Step {}

    private final MatchSpec spec;
    private final Step step;
    /** The run's part of each shard a pair can be in, numbered as {@link #matchedIndices}; empty: none recorded. */
    private final int[] parts;
    /** The node that keeps the parts of this step's shard: tried first; null for any copy. */
    private final String partNode;
    /** Whether the parts keep the edges inside them (leader linkage weighs them). */
    private final boolean keepEdges;

    public ShardJoinRequest(String index, int shard, MatchSpec spec, Step step) {
        this(index, shard, spec, step, new int[0], null, false);
    }

    /**
     * @param parts the run's part of each shard a pair the step finds can be in, numbered as {@link #matchedIndices}:
     *     the step's node records its pairs there ({@link RunParts}); empty to record nothing
     * @param partNode the node that keeps the step's shard's part, tried first; null for any copy
     * @param keepEdges whether the parts keep the edges inside them (leader linkage weighs them)
     */
    public ShardJoinRequest(
            String index, int shard, MatchSpec spec, Step step, int[] parts, String partNode, boolean keepEdges) {
        super(index, shard);
        this.spec = spec;
        this.step = step;
        this.parts = parts;
        this.partNode = partNode;
        this.keepEdges = keepEdges;
        if (parts.length != 0 && parts.length != matchedIndices().length) {
            throw new IllegalArgumentException(
                    "a join step names " + matchedIndices().length + " shards and " + parts.length + " parts");
        }
    }

    public ShardJoinRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        long fromSeqNo = in.readZLong();
        long toSeqNo = in.readZLong();
        int[] shards = in.readVIntArray();
        boolean bands = in.readBoolean();
        boolean allPairs = in.readBoolean();
        String[] indices = in.readStringArray();
        if (indices.length != shards.length) {
            throw new IllegalArgumentException(
                    "a join step names " + shards.length + " other shards and " + indices.length + " indices");
        }
        OtherShard[] otherShards = new OtherShard[shards.length];
        for (int i = 0; i < shards.length; i++) {
            otherShards[i] = new OtherShard(indices[i], shards[i]);
        }
        if (bands == false) {
            step = new Window(fromSeqNo, toSeqNo, otherShards);
        } else if (otherShards.length == 0) {
            step = new BandsWithin(allPairs);
        } else if (otherShards.length == 1) {
            step = new BandsAcross(otherShards[0]);
        } else {
            throw new IllegalArgumentException(
                    "a band join step looks up at most one other shard, got " + Arrays.toString(otherShards));
        }
        if (AddedWireFields.read(in)) {
            parts = in.readVIntArray();
            partNode = in.readOptionalString();
            keepEdges = in.readBoolean();
            if (parts.length != 0 && parts.length != matchedIndices().length) {
                throw new IllegalArgumentException(
                        "a join step names " + matchedIndices().length + " shards and " + parts.length + " parts");
            }
        } else {
            parts = new int[0];
            partNode = null;
            keepEdges = false;
        }
    }

    /**
     * A window, whether bands, all pairs (the layout written before the steps were types of their own), then the
     * other shards' indices.
     */
    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        long fromSeqNo = 0;
        long toSeqNo = Long.MAX_VALUE;
        OtherShard[] otherShards = new OtherShard[0];
        boolean allPairs = false;
        if (step instanceof Window window) {
            fromSeqNo = window.fromSeqNo();
            toSeqNo = window.toSeqNo();
            otherShards = window.otherShards();
        } else if (step instanceof BandsWithin within) {
            allPairs = within.allPairs();
        } else {
            otherShards = new OtherShard[] {((BandsAcross) step).otherShard()};
        }
        out.writeZLong(fromSeqNo);
        out.writeZLong(toSeqNo);
        out.writeVIntArray(
                Arrays.stream(otherShards).mapToInt(OtherShard::shard).toArray());
        out.writeBoolean(step instanceof Window == false);
        out.writeBoolean(allPairs);
        out.writeStringArray(Arrays.stream(otherShards).map(OtherShard::index).toArray(String[]::new));
        if (AddedWireFields.written(out)) {
            out.writeVIntArray(parts);
            out.writeOptionalString(partNode);
            out.writeBoolean(keepEdges);
        }
    }

    /**
     * The run's part of each shard a pair of the step's answer can be in, numbered as {@link #matchedIndices}; empty
     * if the step records nothing (from a node of another version).
     */
    public int[] parts() {
        return parts.clone();
    }

    /** The node that keeps the step's shard's part, tried first; null for any copy. */
    @Override
    public String preferredNode() {
        return partNode;
    }

    /** Whether the parts keep the edges inside them (leader linkage weighs them). */
    public boolean keepEdges() {
        return keepEdges;
    }

    /**
     * The index of each shard a match of the step's answer ({@link ShardJoinResponse#matchedIn}) can be in: 0 this
     * shard's own, then those of the shards it looks up, in order.
     */
    public String[] matchedIndices() {
        if (step instanceof Window window) {
            String[] indices = new String[window.otherShards().length + 1];
            indices[0] = index();
            for (int i = 0; i < window.otherShards().length; i++) {
                indices[i + 1] = window.otherShards()[i].index();
            }
            return indices;
        }
        if (step instanceof BandsAcross across) {
            return new String[] {index(), across.otherShard().index()};
        }
        return new String[] {index()};
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateNonNullIndex();
        if (step instanceof Window window
                && (window.fromSeqNo() < 0
                        || window.toSeqNo() <= window.fromSeqNo()
                        || window.toSeqNo() - window.fromSeqNo() > MAX_WINDOW)) {
            e = ValidateActions.addValidationError(
                    "the window [" + window.fromSeqNo() + ", " + window.toSeqNo() + ") must be non-empty, start at 0"
                            + " or later and span at most " + MAX_WINDOW + " sequence numbers",
                    e);
        }
        return e;
    }

    public MatchSpec spec() {
        return spec;
    }

    public Step step() {
        return step;
    }

    /** What {@code GET _tasks?detailed} shows of the step. */
    @Override
    public String getDescription() {
        String shardOf = "shard [" + shard() + "] of [" + index() + "]: ";
        if (step instanceof Window window) {
            return shardOf + "window [" + window.fromSeqNo() + ", " + window.toSeqNo() + ") of [" + spec.field()
                    + "], looked up in shards " + Arrays.toString(window.otherShards());
        }
        if (step instanceof BandsAcross across) {
            return shardOf + "band look-ups of [" + spec.field() + "] in shard " + across.otherShard();
        }
        return shardOf + "band self-join of [" + spec.field() + "]";
    }
}
