/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.Arrays;

/** Matches as a shard finds them, in the parallel arrays of a {@link ShardMatchResponse}. */
final class MatchList {

    private int size;
    private int[] query = new int[16];
    private String[] target = new String[16];
    private long[] targetSeqNo = new long[16];
    private float[] similarity = new float[16];
    private String[] cluster = new String[16];

    void add(int queryIndex, String targetId, long seqNo, float score, String targetCluster) {
        if (size == query.length) {
            int grown = size * 2;
            query = Arrays.copyOf(query, grown);
            target = Arrays.copyOf(target, grown);
            targetSeqNo = Arrays.copyOf(targetSeqNo, grown);
            similarity = Arrays.copyOf(similarity, grown);
            cluster = Arrays.copyOf(cluster, grown);
        }
        cluster[size] = targetCluster;
        query[size] = queryIndex;
        target[size] = targetId;
        targetSeqNo[size] = seqNo;
        similarity[size++] = score;
    }

    int size() {
        return size;
    }

    ShardMatchResponse toResponse() {
        return new ShardMatchResponse(
                Arrays.copyOf(query, size),
                Arrays.copyOf(target, size),
                Arrays.copyOf(targetSeqNo, size),
                Arrays.copyOf(similarity, size),
                Arrays.copyOf(cluster, size));
    }
}
