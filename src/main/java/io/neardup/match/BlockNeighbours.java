/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.index.SimhashBatchMatcher;
import java.util.Arrays;

/**
 * The neighbours of one simhash in a shard's block tables, closest first (ties by doc id): the
 * order in which {@code _near_dup_clusters} keeps at most {@link TransportShardMatchAction#MAX_MATCHES_PER_DOCUMENT}
 * of them. One instance serves many look-ups of one thread; its buffer grows to the largest answer.
 */
public final class BlockNeighbours {

    /** Distance in the high half, doc in the low half: sorted, the closest come first. */
    private long[] found = new long[16];

    private int count;
    private final SimhashBatchMatcher.Hits collect = this::add;

    /** Finds every live document within the matcher's distance of {@code simhash}; returns how many. */
    public int find(SimhashBatchMatcher blocks, long simhash, String scheme) {
        count = 0;
        blocks.match(simhash, scheme, collect);
        Arrays.sort(found, 0, count);
        return count;
    }

    public int doc(int i) {
        return (int) found[i];
    }

    public int distance(int i) {
        return (int) (found[i] >>> 32);
    }

    private void add(int doc, int distance) {
        if (count == found.length) {
            found = Arrays.copyOf(found, count * 2);
        }
        found[count++] = (long) distance << 32 | doc;
    }
}
