/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

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

    /**
     * On a {@code simhash} field ({@link SimhashWindowJoin}): the documents of the shard whose {@code _seq_no} is in
     * {@code [fromSeqNo, toSeqNo)}, joined with every document of the shard and of {@code otherShards}.
     */
    public record Window(long fromSeqNo, long toSeqNo, int[] otherShards) implements Step {}

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
    public record BandsAcross(int otherShard) implements Step {}

    private final MatchSpec spec;
    private final Step step;

    public ShardJoinRequest(String index, int shard, MatchSpec spec, Step step) {
        super(index, shard);
        this.spec = spec;
        this.step = step;
    }

    public ShardJoinRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        long fromSeqNo = in.readZLong();
        long toSeqNo = in.readZLong();
        int[] otherShards = in.readVIntArray();
        boolean bands = in.readBoolean();
        boolean allPairs = in.readBoolean();
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
    }

    /** The layout written before the steps were types of their own: a window, then whether bands, all pairs. */
    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        if (step instanceof Window window) {
            out.writeZLong(window.fromSeqNo());
            out.writeZLong(window.toSeqNo());
            out.writeVIntArray(window.otherShards());
            out.writeBoolean(false);
            out.writeBoolean(false);
        } else if (step instanceof BandsWithin within) {
            out.writeZLong(0);
            out.writeZLong(Long.MAX_VALUE);
            out.writeVIntArray(new int[0]);
            out.writeBoolean(true);
            out.writeBoolean(within.allPairs());
        } else if (step instanceof BandsAcross across) {
            out.writeZLong(0);
            out.writeZLong(Long.MAX_VALUE);
            out.writeVIntArray(new int[] {across.otherShard()});
            out.writeBoolean(true);
            out.writeBoolean(false);
        } else {
            throw new IllegalStateException(
                    "no such join step: " + step.getClass().getName()); // sealed
        }
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
            return shardOf + "band look-ups of [" + spec.field() + "] in shard [" + across.otherShard() + "]";
        }
        return shardOf + "band self-join of [" + spec.field() + "]";
    }
}
