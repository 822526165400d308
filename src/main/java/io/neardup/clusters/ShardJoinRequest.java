/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.Arrays;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.ValidateActions;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * Join the documents of one shard whose {@code _seq_no} is in {@code [fromSeqNo, toSeqNo)} with
 * every document of that shard and of the shards {@code otherShards}, on a {@code simhash} field;
 * or ({@link #bands}) on a {@code minhash} field, one step of a whole shard's band join: its band
 * self-join ({@link #bandsWithin}), or its look-ups in one other shard ({@link #bandsAcross}).
 */
public final class ShardJoinRequest extends OneShardRequest<ShardJoinRequest> {

    /** Most sequence numbers (so documents) a window spans: bounds the memory a window takes on its shard's node. */
    public static final long MAX_WINDOW = NearDupClustersRequest.MAX_SCROLL_SIZE;

    private final MatchSpec spec;
    private final long fromSeqNo;
    private final long toSeqNo;
    private final int[] otherShards;
    private final boolean bands;
    /** With {@link #bands}: every verified pair (leader linkage), not only those that connect new documents. */
    private final boolean allPairs;

    public ShardJoinRequest(String index, int shard, MatchSpec spec, long fromSeqNo, long toSeqNo, int[] otherShards) {
        this(index, shard, spec, fromSeqNo, toSeqNo, otherShards, false, false);
    }

    private ShardJoinRequest(
            String index,
            int shard,
            MatchSpec spec,
            long fromSeqNo,
            long toSeqNo,
            int[] otherShards,
            boolean bands,
            boolean allPairs) {
        super(index, shard);
        this.spec = spec;
        this.fromSeqNo = fromSeqNo;
        this.toSeqNo = toSeqNo;
        this.otherShards = otherShards;
        this.bands = bands;
        this.allPairs = allPairs;
    }

    /**
     * The band self-join of the whole shard on a {@code minhash} field: every pair of its documents
     * once. Without {@code allPairs} (single linkage) a pair whose documents are already connected
     * is not verified nor reported. The step that counts the shard's documents.
     */
    public static ShardJoinRequest bandsWithin(String index, int shard, MatchSpec spec, boolean allPairs) {
        return new ShardJoinRequest(index, shard, spec, 0, Long.MAX_VALUE, new int[0], true, allPairs);
    }

    /**
     * The look-ups by band of the whole shard's documents in {@code otherShard}: every pair with that
     * shard's documents once (each pair of shards is named once, {@link ClusterJob#shardsProbedBy}).
     */
    public static ShardJoinRequest bandsAcross(String index, int shard, MatchSpec spec, int otherShard) {
        return new ShardJoinRequest(index, shard, spec, 0, Long.MAX_VALUE, new int[] {otherShard}, true, false);
    }

    public ShardJoinRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        fromSeqNo = in.readZLong();
        toSeqNo = in.readZLong();
        otherShards = in.readVIntArray();
        bands = in.readBoolean();
        allPairs = in.readBoolean();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        out.writeZLong(fromSeqNo);
        out.writeZLong(toSeqNo);
        out.writeVIntArray(otherShards);
        out.writeBoolean(bands);
        out.writeBoolean(allPairs);
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateNonNullIndex();
        if (bands) {
            return otherShards.length > 1
                    ? ValidateActions.addValidationError("a band join step looks up at most one other shard", e)
                    : e;
        }
        if (fromSeqNo < 0 || toSeqNo <= fromSeqNo || toSeqNo - fromSeqNo > MAX_WINDOW) {
            e = ValidateActions.addValidationError(
                    "the window [" + fromSeqNo + ", " + toSeqNo + ") must be non-empty, start at 0 or "
                            + "later and span at most " + MAX_WINDOW + " sequence numbers",
                    e);
        }
        return e;
    }

    public MatchSpec spec() {
        return spec;
    }

    public long fromSeqNo() {
        return fromSeqNo;
    }

    public long toSeqNo() {
        return toSeqNo;
    }

    public int[] otherShards() {
        return otherShards;
    }

    /** Whether this is a step of a whole shard's band join (a {@code minhash} field) rather than a window. */
    public boolean bands() {
        return bands;
    }

    /** Whether this is the band self-join of the shard ({@link #bandsWithin}), not its look-ups in another. */
    public boolean bandsWithin() {
        return bands && otherShards.length == 0;
    }

    public boolean allPairs() {
        return allPairs;
    }

    /** What {@code GET _tasks?detailed} shows of the step. */
    @Override
    public String getDescription() {
        String shardOf = "shard [" + shard() + "] of [" + index() + "]: ";
        if (bandsWithin()) {
            return shardOf + "band self-join of [" + spec.field() + "]";
        }
        if (bands) {
            return shardOf + "band look-ups of [" + spec.field() + "] in shard [" + otherShards[0] + "]";
        }
        return shardOf + "window [" + fromSeqNo + ", " + toSeqNo + ") of [" + spec.field() + "], looked up in shards "
                + Arrays.toString(otherShards);
    }
}
