/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.MemoryBudget;
import io.neardup.index.BreakerBudget;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import org.opensearch.core.common.breaker.CircuitBreaker;

/**
 * Matches found in a shard's block tables or band buckets, held by doc id until {@link #addTo} reads
 * their {@code _id}s all at once, in doc id order ({@link ShardDocs#ids}). They grow with the pairs
 * (with {@code leader} linkage every verified pair of a bucket), so each growth is reserved first.
 */
public final class DocMatches implements AutoCloseable {

    /** What a shard request holds of its matches by doc id and of the {@code _id}s it has read. */
    public static MemoryBudget budget(CircuitBreaker breaker) {
        return BreakerBudget.of(breaker, "near_dup_clusters matched documents");
    }

    /** A slot of the four arrays. */
    static final long BYTES_PER_MATCH = 4 + 4 + 8 + 4;

    private static final int INITIAL_CAPACITY = 16;

    private final MemoryBudget budget;
    private long reserved;
    private int[] query;
    private int[] doc;
    private long[] seqNo;
    private float[] similarity;
    private int size;

    public DocMatches(MemoryBudget budget) {
        this.budget = budget;
        reserve(INITIAL_CAPACITY);
        query = new int[INITIAL_CAPACITY];
        doc = new int[INITIAL_CAPACITY];
        seqNo = new long[INITIAL_CAPACITY];
        similarity = new float[INITIAL_CAPACITY];
    }

    private void reserve(int slots) {
        long bytes = slots * BYTES_PER_MATCH;
        budget.reserve(bytes);
        reserved += bytes;
    }

    public void add(int queryIndex, int targetDoc, long matchedSeqNo, float score) {
        if (size == doc.length) {
            reserve(size); // the doubled arrays; the old ones are let go as they are copied
            query = Arrays.copyOf(query, size * 2);
            doc = Arrays.copyOf(doc, size * 2);
            seqNo = Arrays.copyOf(seqNo, size * 2);
            similarity = Arrays.copyOf(similarity, size * 2);
        }
        query[size] = queryIndex;
        doc[size] = targetDoc;
        seqNo[size] = matchedSeqNo;
        similarity[size++] = score;
    }

    public int size() {
        return size;
    }

    /** The matched document of match {@code i}, in the order they were added (as {@link #addTo} adds them). */
    public int matchedDoc(int i) {
        return doc[i];
    }

    /** Adds every match to {@code matches}, its query numbered by {@code queryNumber}. */
    public void addTo(MatchList matches, ShardDocs docs, IntUnaryOperator queryNumber) throws IOException {
        String[] ids = docs.ids(doc, size);
        for (int i = 0; i < size; i++) {
            matches.add(queryNumber.applyAsInt(query[i]), ids[i], seqNo[i], similarity[i], null);
        }
    }

    @Override
    public void close() {
        budget.release(reserved);
        reserved = 0;
    }
}
