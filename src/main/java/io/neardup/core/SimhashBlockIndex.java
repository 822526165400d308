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
 * <p>Each table holds the fingerprints themselves (and their documents) in its block's order, so
 * the candidates of a probe are read in one sequential run: real fingerprints are far from uniform,
 * and a block value can be shared by thousands of them; a table of where each prefix of the block
 * starts takes a probe to its run without a binary search over the column. Memory: about 8 + 4 + 4
 * bytes a fingerprint and block. Immutable once built; safe for many threads.
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
    /** Per block: the fingerprints in ascending (unsigned) order of that block's value, and their documents. */
    private final long[][] sortedFingerprints;

    private final int[][] sortedDocs;
    /**
     * Per block: where each value of the block's top {@code prefixBits[b]} bits starts in the sorted
     * column (one entry more than values), so that a probe lands on its run with one look-up instead
     * of a binary search over the whole column.
     */
    private final int[] prefixBits;

    private final int[][] prefixStart;

    private SimhashBlockIndex(
            int maxDistance,
            int[] blockShift,
            long[] blockMask,
            long[][] sortedFingerprints,
            int[][] sortedDocs,
            int[] prefixBits,
            int[][] prefixStart) {
        this.maxDistance = maxDistance;
        this.blockShift = blockShift;
        this.blockMask = blockMask;
        this.sortedFingerprints = sortedFingerprints;
        this.sortedDocs = sortedDocs;
        this.prefixBits = prefixBits;
        this.prefixStart = prefixStart;
    }

    /** Heap a build for {@code n} fingerprints at {@code maxDistance} holds at its peak (the sort's scratch included). */
    public static long peakBuildBytes(long n, int maxDistance) {
        return n * (16L * (maxDistance + 1) + 8L) + 64L * (maxDistance + 1);
    }

    /** Prefix bits of a block: about one entry per fingerprint (at most the block's width), so the table costs about 4 bytes a fingerprint. */
    private static int prefixBits(int n, int blockWidth) {
        int bits = 32 - Integer.numberOfLeadingZeros(Math.max(1, n)) - 1;
        return Math.max(0, Math.min(blockWidth, Math.min(bits, 30)));
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
        long[][] sorted = new long[blocks][];
        int[][] sortedDocs = new int[blocks][];
        int[] prefixBits = new int[blocks];
        int[][] prefixStart = new int[blocks][];
        long[] packed = new long[n];
        for (int b = 0; b < blocks; b++) {
            sorted[b] = new long[n];
            sortedDocs[b] = new int[n];
            int width = Long.bitCount(mask[b]);
            prefixBits[b] = prefixBits(n, width);
            if (mask[b] == -1L) {
                sortWholeFingerprints(fingerprints, docs, n, sorted[b], sortedDocs[b]);
                prefixStart[b] = prefixStarts(sorted[b], shift[b], mask[b], width, prefixBits[b]);
                continue;
            }
            // A block of at most 32 bits and a position pack into one long, sorted without boxing; the sign bit is
            // flipped around the signed sort so that it orders as unsigned.
            for (int i = 0; i < n; i++) {
                packed[i] = ((((fingerprints[i] >>> shift[b]) & mask[b]) << 32) | i) ^ Long.MIN_VALUE;
            }
            Arrays.sort(packed);
            for (int k = 0; k < n; k++) {
                int i = (int) (packed[k] ^ Long.MIN_VALUE);
                sorted[b][k] = fingerprints[i];
                sortedDocs[b][k] = docs[i];
            }
            prefixStart[b] = prefixStarts(sorted[b], shift[b], mask[b], width, prefixBits[b]);
        }
        return new SimhashBlockIndex(maxDistance, shift, mask, sorted, sortedDocs, prefixBits, prefixStart);
    }

    /** The top {@code bits} of a block value {@code width} bits wide (a shift by 64 would be no shift at all). */
    private static int prefixOf(long blockValue, int width, int bits) {
        return bits == 0 ? 0 : (int) (blockValue >>> (width - bits));
    }

    private static int[] prefixStarts(long[] sorted, int shift, long mask, int width, int bits) {
        int[] start = new int[(1 << bits) + 1];
        int k = 0;
        for (int prefix = 0; prefix < (1 << bits); prefix++) {
            start[prefix] = k;
            while (k < sorted.length && prefixOf((sorted[k] >>> shift) & mask, width, bits) == prefix) {
                k++;
            }
        }
        start[1 << bits] = sorted.length;
        return start;
    }

    /** Distance 0: one block of all 64 bits, sorted as unsigned values. */
    private static void sortWholeFingerprints(long[] fps, int[] docs, int n, long[] sorted, int[] sortedDocs) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(fps[x], fps[y]));
        for (int k = 0; k < n; k++) {
            sorted[k] = fps[order[k]];
            sortedDocs[k] = docs[order[k]];
        }
    }

    public int size() {
        return sortedFingerprints[0].length;
    }

    public int maxDistance() {
        return maxDistance;
    }

    public long ramBytesUsed() {
        long bytes = 64;
        for (int b = 0; b < sortedFingerprints.length; b++) {
            bytes += 12L * sortedFingerprints[b].length + 4L * prefixStart[b].length + 64;
        }
        return bytes;
    }

    /** Calls {@code hits} once for every fingerprint within {@code distance} (at most the index's) bits of {@code query}. */
    public void within(long query, int distance, Hits hits) {
        if (distance > maxDistance) {
            throw new IllegalArgumentException(
                    "this index answers distances up to " + maxDistance + ", asked for " + distance);
        }
        for (int b = 0; b < sortedFingerprints.length; b++) {
            int shift = blockShift[b];
            long mask = blockMask[b];
            long value = (query >>> shift) & mask;
            long[] column = sortedFingerprints[b];
            int prefix = prefixOf(value, Long.bitCount(mask), prefixBits[b]);
            int end = prefixStart[b][prefix + 1];
            for (int i = firstAtLeast(column, prefixStart[b][prefix], end, shift, mask, value);
                    i < end && ((column[i] >>> shift) & mask) == value;
                    i++) {
                long fingerprint = column[i];
                int d = Long.bitCount(fingerprint ^ query);
                if (d <= distance && firstAgreeingBlock(fingerprint, query) == b) {
                    hits.hit(sortedDocs[b][i], d);
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

    /** The first position in [{@code low}, {@code high}) whose block value is at least {@code value}, in unsigned order. */
    private static int firstAtLeast(long[] sorted, int low, int high, int shift, long mask, long value) {
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned((sorted[mid] >>> shift) & mask, value) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
