/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * Every fingerprint within {@code maxDistance} bits of a query, exactly, by the block-permutation
 * scheme of Manku, Jain and Das Sarma, "Detecting Near-Duplicates for Web Crawling" (WWW 2007): the
 * 64 bits are cut into {@code maxDistance + 1} blocks, so two fingerprints within that distance agree
 * exactly on at least one block (pigeonhole). One table per block, sorted by that block's value,
 * finds the candidates agreeing on it by binary search; each pair is reported from the first block
 * it agrees on only. With 16-bit blocks (distance 3) a table of n fingerprints yields about
 * n / 65,536 candidates a block, against PSM's {@code max_flips} probes, and misses nothing.
 *
 * <p>Memory: 8 + 4 bytes a fingerprint, plus 8 + 4 bytes a fingerprint and block. Immutable once
 * built; safe for many threads.
 */
public final class SimhashBlockIndex {

    /** Receives each fingerprint found: its document and its distance to the query. */
    @FunctionalInterface
    public interface Hits {
        void hit(int doc, int distance);
    }

    private final int maxDistance;
    private final int[] blockShift;
    private final long[] blockMask;
    private final long[] fingerprints;
    private final int[] docs;
    /** Per block: the block values in ascending order, and the position of the fingerprint each belongs to. */
    private final long[][] sortedValues;

    private final int[][] sortedPositions;

    private SimhashBlockIndex(
            int maxDistance,
            int[] blockShift,
            long[] blockMask,
            long[] fingerprints,
            int[] docs,
            long[][] sortedValues,
            int[][] sortedPositions) {
        this.maxDistance = maxDistance;
        this.blockShift = blockShift;
        this.blockMask = blockMask;
        this.fingerprints = fingerprints;
        this.docs = docs;
        this.sortedValues = sortedValues;
        this.sortedPositions = sortedPositions;
    }

    /** Heap a build for {@code n} fingerprints at {@code maxDistance} holds at its peak (the sort's scratch included). */
    public static long peakBuildBytes(long n, int maxDistance) {
        return n * (12L + 12L * (maxDistance + 1) + 16L);
    }

    /** Indexes the first {@code n} of {@code fingerprints} (of documents {@code docs}) for queries up to {@code maxDistance} bits. */
    public static SimhashBlockIndex build(long[] fingerprints, int[] docs, int n, int maxDistance) {
        if (maxDistance < 0 || maxDistance > FlipSetGenerator.MAX_DISTANCE) {
            throw new IllegalArgumentException(
                    "maxDistance must be in [0, " + FlipSetGenerator.MAX_DISTANCE + "], got " + maxDistance);
        }
        int blocks = maxDistance + 1;
        int[] shift = new int[blocks];
        long[] mask = new long[blocks];
        int start = 0;
        for (int b = 0; b < blocks; b++) {
            int width = 64 / blocks + (b < 64 % blocks ? 1 : 0);
            shift[b] = start;
            mask[b] = width == 64 ? -1L : (1L << width) - 1;
            start += width;
        }
        long[] fps = Arrays.copyOf(fingerprints, n);
        int[] ids = Arrays.copyOf(docs, n);
        long[][] values = new long[blocks][];
        int[][] positions = new int[blocks][];
        for (int b = 0; b < blocks; b++) {
            values[b] = new long[n];
            positions[b] = new int[n];
            if (mask[b] == -1L) {
                sortWholeFingerprints(fps, values[b], positions[b]);
                continue;
            }
            // A block of at most 32 bits and a position pack into one long, sorted without boxing; the sign bit is
            // flipped around the signed sort so that it orders as unsigned.
            long[] packed = new long[n];
            for (int i = 0; i < n; i++) {
                packed[i] = ((((fps[i] >>> shift[b]) & mask[b]) << 32) | i) ^ Long.MIN_VALUE;
            }
            Arrays.sort(packed);
            for (int i = 0; i < n; i++) {
                long entry = packed[i] ^ Long.MIN_VALUE;
                values[b][i] = entry >>> 32;
                positions[b][i] = (int) entry;
            }
        }
        return new SimhashBlockIndex(maxDistance, shift, mask, fps, ids, values, positions);
    }

    /** Distance 0: one block of all 64 bits, sorted as unsigned values. */
    private static void sortWholeFingerprints(long[] fps, long[] values, int[] positions) {
        Integer[] order = new Integer[fps.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(fps[x], fps[y]));
        for (int i = 0; i < order.length; i++) {
            positions[i] = order[i];
            values[i] = fps[order[i]];
        }
    }

    public int size() {
        return fingerprints.length;
    }

    public int maxDistance() {
        return maxDistance;
    }

    public long ramBytesUsed() {
        return 12L * fingerprints.length * (1 + sortedValues.length) + 64L * sortedValues.length + 64;
    }

    /** Calls {@code hits} once for every fingerprint within {@code distance} (at most the index's) bits of {@code query}. */
    public void within(long query, int distance, Hits hits) {
        if (distance > maxDistance) {
            throw new IllegalArgumentException(
                    "this index answers distances up to " + maxDistance + ", asked for " + distance);
        }
        for (int b = 0; b < sortedValues.length; b++) {
            long value = (query >>> blockShift[b]) & blockMask[b];
            long[] column = sortedValues[b];
            for (int i = firstAtLeast(column, value); i < column.length && column[i] == value; i++) {
                int position = sortedPositions[b][i];
                long fingerprint = fingerprints[position];
                int d = Long.bitCount(fingerprint ^ query);
                if (d <= distance && firstAgreeingBlock(fingerprint, query) == b) {
                    hits.hit(docs[position], d);
                }
            }
        }
    }

    private int firstAgreeingBlock(long a, long b) {
        for (int block = 0; block < blockShift.length; block++) {
            if (((a ^ b) >>> blockShift[block] & blockMask[block]) == 0) {
                return block;
            }
        }
        return -1;
    }

    private static int firstAtLeast(long[] sorted, long value) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(sorted[mid], value) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
