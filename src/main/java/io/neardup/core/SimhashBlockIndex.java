/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every fingerprint within {@code maxDistance} bits of a query, exactly, by the block-permutation
 * scheme of Manku, Jain and Das Sarma, "Detecting Near-Duplicates for Web Crawling" (WWW 2007): the
 * 64 bits are cut into blocks; two fingerprints within {@code maxDistance} bits differ in at most that
 * many blocks, so they agree on every block of at least one table's key (pigeonhole). One table per
 * key, sorted by it, finds the candidates agreeing on it; each pair is reported from the first table
 * whose key it agrees on only.
 *
 * <p>Two {@linkplain Layout layouts}, the paper's trade of tables for candidates: a table per block of
 * {@code maxDistance + 1} (at distance 3, four tables of 16-bit keys), or a table per pair of blocks of
 * {@code maxDistance + 2} (ten tables of 25–26-bit keys). Real fingerprints are far from uniform
 * (frequent words pull many simhashes towards one pattern), so the candidates a probe reads in a table
 * per block grow with the segment: in {@code SyntheticJsonl}'s corpus, 389 at 0.5M documents and 3,844
 * at 5M, where uniform fingerprints would give 31 and 305, and 63 at 5M in the tables per pair
 * ({@code BlockTableCandidates}). {@link Layout#of} counts them on the segment's own fingerprints and
 * takes the tables per pair where they pay for their six more look-ups and 2.5 times the memory.
 *
 * <p>Each table holds the fingerprints themselves (and their documents) in its key's order, so the
 * candidates of a probe are read in one sequential run; a table of where each prefix of the key
 * starts takes a probe to its run without a binary search over the column. Memory: about 8 + 4 bytes
 * a fingerprint and table, and a byte for the prefixes. Immutable once built; safe for many threads.
 */
public final class SimhashBlockIndex {

    /** Receives each fingerprint found: its document and its distance to the query. */
    @FunctionalInterface
    public interface Hits {
        void hit(int doc, int distance);
    }

    /**
     * Candidates a probe reads in the tables per block past which the tables per pair answer it sooner: there a
     * probe's ~1.5 ns a candidate read in sequence (idle, {@code BlockTableCandidates}) outweigh the tables per pair's
     * six more look-ups, each a few cache misses in a table of the segment's size.
     */
    static final double PAIRS_PAY_AT_CANDIDATES = 2_000;

    /** How the 64 bits are cut into blocks, and which blocks each table's key is made of (one or two). */
    public static final class Layout {
        private final int maxDistance;
        private final int[] blockShift;
        private final long[] blockMask;
        /** Per table: its key's blocks as shifts and masks (a key of one block has the second's mask 0). */
        private final int[] firstShift;

        private final long[] firstMask;
        private final int[] secondShift;
        private final long[] secondMask;
        private final int[] secondWidth;
        /** Per table: the key's bits in place (two fingerprints have the same key where they agree on these), and its blocks as a bit set. */
        private final long[] keyBits;

        private final int[] keyBlocks;

        private Layout(int maxDistance, int blocks, int blocksPerKey) {
            this.maxDistance = maxDistance;
            blockShift = new int[blocks];
            blockMask = new long[blocks];
            int start = 0;
            for (int b = 0; b < blocks; b++) {
                int width = 64 / blocks + (b < 64 % blocks ? 1 : 0);
                blockShift[b] = start;
                blockMask[b] = width == 64 ? -1L : (1L << width) - 1;
                start += width;
            }
            List<int[]> keys = new ArrayList<>();
            for (int a = 0; a < blocks; a++) {
                if (blocksPerKey == 1) {
                    keys.add(new int[] {a});
                    continue;
                }
                for (int b = a + 1; b < blocks; b++) {
                    keys.add(new int[] {a, b});
                }
            }
            int tables = keys.size();
            firstShift = new int[tables];
            firstMask = new long[tables];
            secondShift = new int[tables];
            secondMask = new long[tables];
            secondWidth = new int[tables];
            keyBits = new long[tables];
            keyBlocks = new int[tables];
            for (int t = 0; t < tables; t++) {
                int[] key = keys.get(t);
                firstShift[t] = blockShift[key[0]];
                firstMask[t] = blockMask[key[0]];
                if (key.length == 2) {
                    secondShift[t] = blockShift[key[1]];
                    secondMask[t] = blockMask[key[1]];
                    secondWidth[t] = Long.bitCount(blockMask[key[1]]);
                }
                for (int b : key) {
                    keyBits[t] |= blockMask[b] << blockShift[b];
                    keyBlocks[t] |= 1 << b;
                }
            }
        }

        /** A table per block: {@code maxDistance + 1} blocks, so that a pair within the distance agrees on one. */
        public static Layout perBlock(int maxDistance) {
            checkDistance(maxDistance);
            return new Layout(maxDistance, maxDistance + 1, 1);
        }

        /**
         * A table per pair of {@code maxDistance + 2} blocks, so that a pair within the distance agrees on both blocks
         * of one table; from a distance of 2, where such a key fits 32 bits.
         */
        public static Layout perPairOfBlocks(int maxDistance) {
            checkDistance(maxDistance);
            if (maxDistance < 2) {
                throw new IllegalArgumentException(
                        "a key of two blocks fits 32 bits from a distance of 2, got " + maxDistance);
            }
            return new Layout(maxDistance, maxDistance + 2, 2);
        }

        /**
         * The layout for these fingerprints: a table per pair of blocks where a table per block would give a probe
         * more than {@link #PAIRS_PAY_AT_CANDIDATES} candidates (counted with each of the fingerprints as a probe),
         * else a table per block.
         */
        public static Layout of(long[] fingerprints, int n, int maxDistance) {
            Layout perBlock = perBlock(maxDistance);
            if (maxDistance < 2 || n == 0) {
                return perBlock;
            }
            return perBlock.candidatesPerProbe(fingerprints, n) > PAIRS_PAY_AT_CANDIDATES
                    ? perPairOfBlocks(maxDistance)
                    : perBlock;
        }

        /**
         * The candidates a probe by one of the first {@code n} fingerprints reads in these tables, on average: the
         * sum over tables of the squared counts of their keys, over n. Counted on the keys' top 16 bits at most (a
         * bound from above for a wider key), from a distance of 3 every key of a table per block.
         */
        double candidatesPerProbe(long[] fingerprints, int n) {
            int[] counts = new int[1 << 16];
            long sumOfSquares = 0;
            for (int t = 0; t < keyBits.length; t++) {
                int drop = Math.max(0, keyWidth(t) - 16);
                Arrays.fill(counts, 0);
                for (int i = 0; i < n; i++) {
                    counts[(int) (key(fingerprints[i], t) >>> drop)]++;
                }
                for (int count : counts) {
                    sumOfSquares += (long) count * count;
                }
            }
            return (double) sumOfSquares / n;
        }

        public int maxDistance() {
            return maxDistance;
        }

        public int tables() {
            return keyBits.length;
        }

        /** Heap a build of {@code n} fingerprints holds at its peak: the tables, their prefixes and the sort's scratch. */
        public long peakBuildBytes(long n) {
            long bytes = n * (12L * tables() + 8L) + 64L * tables();
            for (int t = 0; t < tables(); t++) {
                bytes += 4L * ((1L << prefixBits(n, keyWidth(t))) + 1);
            }
            return bytes;
        }

        int keyWidth(int table) {
            return Long.bitCount(keyBits[table]);
        }

        /** The key of {@code fingerprint} in {@code table}: its blocks' bits side by side, unsigned. */
        long key(long fingerprint, int table) {
            return (((fingerprint >>> firstShift[table]) & firstMask[table]) << secondWidth[table])
                    | ((fingerprint >>> secondShift[table]) & secondMask[table]);
        }

        /** The first table all of whose key's blocks {@code a} and {@code b} agree on, or -1. */
        int firstAgreeingTable(long a, long b) {
            int agreeing = 0;
            for (int block = 0; block < blockShift.length; block++) {
                if (((a ^ b) >>> blockShift[block] & blockMask[block]) == 0) {
                    agreeing |= 1 << block;
                }
            }
            for (int t = 0; t < keyBlocks.length; t++) {
                if ((keyBlocks[t] & ~agreeing) == 0) {
                    return t;
                }
            }
            return -1;
        }
    }

    private final Layout layout;
    /** Per table: the fingerprints in ascending (unsigned) order of its key, and their documents. */
    private final long[][] sortedFingerprints;

    private final int[][] sortedDocs;
    /**
     * Per table: where each value of the key's top {@code prefixBits[t]} bits starts in the sorted column (one entry
     * more than values), so that a probe lands next to its run with one look-up instead of a binary search over the
     * whole column.
     */
    private final int[] prefixBits;

    private final int[][] prefixStart;

    private SimhashBlockIndex(
            Layout layout, long[][] sortedFingerprints, int[][] sortedDocs, int[] prefixBits, int[][] prefixStart) {
        this.layout = layout;
        this.sortedFingerprints = sortedFingerprints;
        this.sortedDocs = sortedDocs;
        this.prefixBits = prefixBits;
        this.prefixStart = prefixStart;
    }

    private static void checkDistance(int maxDistance) {
        if (maxDistance < 0 || maxDistance > FlipSetGenerator.MAX_DISTANCE) {
            throw new IllegalArgumentException(
                    "maxDistance must be in [0, " + FlipSetGenerator.MAX_DISTANCE + "], got " + maxDistance);
        }
    }

    /**
     * Prefix bits of a key: about one entry per 4 fingerprints (at most the key's width), so that the prefixes cost
     * about a byte a fingerprint and table, and a probe's binary search a few neighbouring entries.
     */
    private static int prefixBits(long n, int keyWidth) {
        int bits = 63 - Long.numberOfLeadingZeros(Math.max(1, n)) - 2;
        return Math.max(0, Math.min(keyWidth, Math.min(bits, 30)));
    }

    /**
     * Indexes the first {@code n} of {@code fingerprints} (of documents {@code docs}) for queries up to
     * {@code maxDistance} bits, in the layout {@link Layout#of} chooses for them.
     */
    public static SimhashBlockIndex build(long[] fingerprints, int[] docs, int n, int maxDistance) {
        return build(fingerprints, docs, n, Layout.of(fingerprints, n, maxDistance));
    }

    /** Indexes the first {@code n} of {@code fingerprints} (of documents {@code docs}) in the tables of {@code layout}. */
    public static SimhashBlockIndex build(long[] fingerprints, int[] docs, int n, Layout layout) {
        int tables = layout.tables();
        long[][] sorted = new long[tables][];
        int[][] sortedDocs = new int[tables][];
        int[] prefixBits = new int[tables];
        int[][] prefixStart = new int[tables][];
        long[] packed = null;
        for (int t = 0; t < tables; t++) {
            sorted[t] = new long[n];
            sortedDocs[t] = new int[n];
            int width = layout.keyWidth(t);
            prefixBits[t] = prefixBits(n, width);
            if (width > 32) {
                sortByWideKey(layout, t, fingerprints, docs, n, sorted[t], sortedDocs[t]);
            } else {
                // A key of at most 32 bits and a position pack into one long, sorted without boxing; the sign bit is
                // flipped around the signed sort so that it orders as unsigned.
                if (packed == null) {
                    packed = new long[n];
                }
                for (int i = 0; i < n; i++) {
                    packed[i] = ((layout.key(fingerprints[i], t) << 32) | i) ^ Long.MIN_VALUE;
                }
                Arrays.sort(packed, 0, n);
                for (int k = 0; k < n; k++) {
                    int i = (int) (packed[k] ^ Long.MIN_VALUE);
                    sorted[t][k] = fingerprints[i];
                    sortedDocs[t][k] = docs[i];
                }
            }
            prefixStart[t] = prefixStarts(layout, t, sorted[t], prefixBits[t]);
        }
        return new SimhashBlockIndex(layout, sorted, sortedDocs, prefixBits, prefixStart);
    }

    /** The top {@code bits} of a key {@code width} bits wide (a shift by 64 would be no shift at all). */
    private static int prefixOf(long key, int width, int bits) {
        return bits == 0 ? 0 : (int) (key >>> (width - bits));
    }

    private static int[] prefixStarts(Layout layout, int table, long[] sorted, int bits) {
        int width = layout.keyWidth(table);
        int[] start = new int[(1 << bits) + 1];
        int k = 0;
        for (int prefix = 0; prefix < (1 << bits); prefix++) {
            start[prefix] = k;
            while (k < sorted.length && prefixOf(layout.key(sorted[k], table), width, bits) == prefix) {
                k++;
            }
        }
        start[1 << bits] = sorted.length;
        return start;
    }

    /** Keys wider than 32 bits (distance 0 and 1): sorted through boxed positions. */
    private static void sortByWideKey(
            Layout layout, int table, long[] fps, int[] docs, int n, long[] sorted, int[] sortedDocs) {
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> Long.compareUnsigned(layout.key(fps[x], table), layout.key(fps[y], table)));
        for (int k = 0; k < n; k++) {
            sorted[k] = fps[order[k]];
            sortedDocs[k] = docs[order[k]];
        }
    }

    public int size() {
        return sortedFingerprints[0].length;
    }

    public int maxDistance() {
        return layout.maxDistance;
    }

    public Layout layout() {
        return layout;
    }

    public long ramBytesUsed() {
        long bytes = 64;
        for (int t = 0; t < sortedFingerprints.length; t++) {
            bytes += 12L * sortedFingerprints[t].length + 4L * prefixStart[t].length + 64;
        }
        return bytes;
    }

    /** Calls {@code hits} once for every fingerprint within {@code distance} (at most the index's) bits of {@code query}. */
    public void within(long query, int distance, Hits hits) {
        if (distance > layout.maxDistance) {
            throw new IllegalArgumentException(
                    "this index answers distances up to " + layout.maxDistance + ", asked for " + distance);
        }
        for (int t = 0; t < sortedFingerprints.length; t++) {
            long key = layout.key(query, t);
            long keyBits = layout.keyBits[t];
            long[] column = sortedFingerprints[t];
            int end = column.length;
            int prefix = prefixOf(key, layout.keyWidth(t), prefixBits[t]);
            for (int i = firstAtLeast(column, prefixStart[t][prefix], prefixStart[t][prefix + 1], key, t);
                    i < end;
                    i++) {
                long fingerprint = column[i];
                if (((fingerprint ^ query) & keyBits) != 0) {
                    break; // past the run of the query's key
                }
                int d = Long.bitCount(fingerprint ^ query);
                if (d <= distance && layout.firstAgreeingTable(fingerprint, query) == t) {
                    hits.hit(sortedDocs[t][i], d);
                }
            }
        }
    }

    /** The first position in [{@code low}, {@code high}) whose key in {@code table} is at least {@code key}, unsigned. */
    private int firstAtLeast(long[] sorted, int low, int high, long key, int table) {
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(layout.key(sorted[mid], table), key) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }
}
