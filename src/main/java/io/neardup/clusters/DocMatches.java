/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;

/**
 * Matches found in a shard's block tables, held by doc id until {@link #addTo} reads their
 * {@code _id}s all at once, in doc id order ({@link ShardDocs#ids}).
 */
final class DocMatches {

    private int[] query = new int[16];
    private int[] doc = new int[16];
    private long[] seqNo = new long[16];
    private float[] similarity = new float[16];
    private int size;

    void add(int queryIndex, int targetDoc, long targetSeqNo, float score) {
        if (size == doc.length) {
            query = Arrays.copyOf(query, size * 2);
            doc = Arrays.copyOf(doc, size * 2);
            seqNo = Arrays.copyOf(seqNo, size * 2);
            similarity = Arrays.copyOf(similarity, size * 2);
        }
        query[size] = queryIndex;
        doc[size] = targetDoc;
        seqNo[size] = targetSeqNo;
        similarity[size++] = score;
    }

    /** Adds every match to {@code matches}, its query numbered by {@code queryNumber}. */
    void addTo(MatchList matches, ShardDocs docs, IntUnaryOperator queryNumber) throws IOException {
        String[] ids = docs.ids(doc, size);
        for (int i = 0; i < size; i++) {
            matches.add(queryNumber.applyAsInt(query[i]), ids[i], seqNo[i], similarity[i], null);
        }
    }
}
