/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.Arrays;
import org.opensearch.core.common.breaker.CircuitBreaker;

/**
 * Matches as a shard finds them, in the parallel arrays of a {@link ShardMatchResponse}. A batch
 * of copies of one text can match up to {@link TransportShardMatchAction#MAX_MATCHES_PER_DOCUMENT}
 * times a document, so the arrays' growth is charged to the {@code neardup} breaker before it is
 * taken, and given back by {@link #close}.
 */
public final class MatchList implements AutoCloseable {

    /** A slot of the five arrays, and the matched document's {@code _id} string (short ids assumed; a long one is under-counted). */
    static final int BYTES_PER_MATCH = 4 + 8 + 4 + 8 + 8 + 64;

    private final CircuitBreaker breaker;
    private long charged;
    private int size;
    private int[] query = new int[16];
    private String[] matchedId = new String[16];
    private long[] matchedSeqNo = new long[16];
    private float[] similarity = new float[16];
    private String[] cluster = new String[16];

    public MatchList(CircuitBreaker breaker) {
        this.breaker = breaker;
        charge(query.length);
    }

    public void add(int queryIndex, String matchedDocId, long seqNo, float score, String matchedCluster) {
        if (size == query.length) {
            int grown = size * 2;
            charge(grown - size);
            query = Arrays.copyOf(query, grown);
            matchedId = Arrays.copyOf(matchedId, grown);
            matchedSeqNo = Arrays.copyOf(matchedSeqNo, grown);
            similarity = Arrays.copyOf(similarity, grown);
            cluster = Arrays.copyOf(cluster, grown);
        }
        cluster[size] = matchedCluster;
        query[size] = queryIndex;
        matchedId[size] = matchedDocId;
        matchedSeqNo[size] = seqNo;
        similarity[size++] = score;
    }

    public int size() {
        return size;
    }

    private void charge(int slots) {
        long bytes = (long) slots * BYTES_PER_MATCH;
        breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters matches");
        charged += bytes;
    }

    @Override
    public void close() {
        breaker.addWithoutBreaking(-charged);
        charged = 0;
    }

    public ShardMatchResponse toResponse() {
        return new ShardMatchResponse(
                Arrays.copyOf(query, size),
                Arrays.copyOf(matchedId, size),
                Arrays.copyOf(matchedSeqNo, size),
                Arrays.copyOf(similarity, size),
                Arrays.copyOf(cluster, size));
    }
}
