/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.AddedWireFields;
import io.neardup.match.ShardMatchResponse;
import java.io.IOException;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * The pairs a window of a shard's documents forms: {@link #matches} pairs the window's document
 * {@code queryIds[matches.query(i)]} (read at {@code querySeqNos[…]}) with a document of the index.
 * Only the window's documents with a match are listed. A step over shards joined together
 * ({@link ShardGroupJoinAction}) also says which of them each query is in ({@link #queryIn}), in a layout of its own
 * ({@link #readGroup}), so that a single shard's step keeps the layout it always had.
 */
public final class ShardJoinResponse extends ActionResponse {

    private final long scanned;
    private final long noFingerprint;
    private final String[] queryIds;
    private final long[] querySeqNos;
    private final ShardMatchResponse matches;
    private final int[] matchedIn;
    /** For each query, the shard it is in, as {@link #matchedIn} numbers them; null: the step's own. */
    private final int[] queryIn;
    /** Set by the answering node: the most the run held at once there, or on a node the step looked up in. */
    private long nodeBytes;
    /** The pairs the answering node kept in the run's parts instead of listing them ({@link #withoutPairs}). */
    private long pairsKept;

    /**
     * @param matchedIn for each match, the shard its document is in: 0 the step's own, else the one at that position of
     *     the shards it looked up ({@link ShardJoinRequest#matchedIndices})
     */
    public ShardJoinResponse(
            long scanned,
            long noFingerprint,
            String[] queryIds,
            long[] querySeqNos,
            ShardMatchResponse matches,
            int[] matchedIn) {
        this(scanned, noFingerprint, queryIds, querySeqNos, matches, matchedIn, null);
    }

    /** @param queryIn for each query, the shard it is in, numbered as {@code matchedIn}'s are (null: the step's own) */
    ShardJoinResponse(
            long scanned,
            long noFingerprint,
            String[] queryIds,
            long[] querySeqNos,
            ShardMatchResponse matches,
            int[] matchedIn,
            int[] queryIn) {
        if (matchedIn.length != matches.size()) {
            throw new IllegalArgumentException(matches.size() + " matches, " + matchedIn.length + " shards of them");
        }
        if (queryIn != null && queryIn.length != queryIds.length) {
            throw new IllegalArgumentException(queryIds.length + " queries, " + queryIn.length + " shards of them");
        }
        this.scanned = scanned;
        this.noFingerprint = noFingerprint;
        this.queryIds = queryIds;
        this.querySeqNos = querySeqNos;
        this.matches = matches;
        this.matchedIn = matchedIn;
        this.queryIn = queryIn;
    }

    public ShardJoinResponse(StreamInput in) throws IOException {
        this(in, false);
    }

    private ShardJoinResponse(StreamInput in, boolean group) throws IOException {
        super(in);
        scanned = in.readVLong();
        noFingerprint = in.readVLong();
        queryIds = in.readStringArray();
        querySeqNos = in.readLongArray();
        matches = new ShardMatchResponse(in);
        matchedIn = in.readVIntArray();
        queryIn = group ? in.readVIntArray() : null;
        if (AddedWireFields.read(in)) {
            nodeBytes = in.readVLong();
            pairsKept = in.readVLong();
        }
    }

    /** The answer of a step over shards joined together: the layout above, then {@link #queryIn}. */
    static ShardJoinResponse readGroup(StreamInput in) throws IOException {
        return new ShardJoinResponse(in, true);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVLong(scanned);
        out.writeVLong(noFingerprint);
        out.writeStringArray(queryIds);
        out.writeLongArray(querySeqNos);
        matches.writeTo(out);
        out.writeVIntArray(matchedIn);
        if (queryIn != null) {
            out.writeVIntArray(queryIn);
        }
        if (AddedWireFields.written(out)) {
            out.writeVLong(nodeBytes);
            out.writeVLong(pairsKept);
        }
    }

    /**
     * This answer without its pairs, which the answering node kept in the run's parts ({@code parts} the part of each
     * shard as {@link #matchedIn} numbers them; docs/clusters.md section 8): how many there are (a document met as its
     * own match not counted, as {@link MatchGraph} does not), what the step scanned, and the most the run held on a node
     * the step looked up in. The run's coordinating node only counts them, so they do not travel to it.
     */
    ShardJoinResponse withoutPairs(int[] parts) {
        long pairs = 0;
        for (int i = 0; i < matches.size(); i++) {
            int query = matches.query(i);
            if (parts[queryIn(query)] != parts[matchedIn[i]] || queryIds[query].equals(matches.matchedId(i)) == false) {
                pairs++;
            }
        }
        ShardJoinResponse counted = new ShardJoinResponse(
                scanned,
                noFingerprint,
                new String[0],
                new long[0],
                new ShardMatchResponse(
                                new int[0], new String[0], new long[0], new float[0], new String[0], new String[0])
                        .nodeBytes(matches.nodeBytes()),
                new int[0],
                queryIn == null ? null : new int[0]);
        counted.pairsKept = pairs;
        counted.nodeBytes = nodeBytes;
        return counted;
    }

    /** The pairs the answering node kept in the run's parts instead of listing them here. */
    long pairsKept() {
        return pairsKept;
    }

    /**
     * The most the run held at once on the node that answered, or on a node the step looked up in, so far
     * ({@link io.neardup.match.NodeRunBreakers}); 0 from a node that does not say.
     */
    public long nodeBytes() {
        return nodeBytes;
    }

    /** Set where the answer is made, from the step's {@link io.neardup.match.NodeRunBreakers.Request#nodeBytes}. */
    ShardJoinResponse nodeBytes(long bytes) {
        nodeBytes = bytes;
        return this;
    }

    /** Live documents in the window. */
    public long scanned() {
        return scanned;
    }

    /** Of those, documents without a value in the field: left alone. */
    public long noFingerprint() {
        return noFingerprint;
    }

    public String queryId(int query) {
        return queryIds[query];
    }

    public long querySeqNo(int query) {
        return querySeqNos[query];
    }

    public ShardMatchResponse matches() {
        return matches;
    }

    /** The shard match {@code i} is in: 0 the step's own, else that of the shards it looked up. */
    public int matchedIn(int i) {
        return matchedIn[i];
    }

    /** The shard query {@code query} is in, numbered as {@link #matchedIn}'s are. */
    public int queryIn(int query) {
        return queryIn == null ? 0 : queryIn[query];
    }
}
