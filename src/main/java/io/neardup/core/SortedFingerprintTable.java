/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * The fingerprints of one segment sorted as unsigned 64-bit values, with their doc ids in a
 * parallel array, and the 2^p prefix index of Sood, "Probabilistic Simhash Matching" (2011), ch. V-A: {@code runStarts[b]} is the first
 * position whose leading p bits are {@code >= b}, so the run of prefix b is
 * {@code [runStarts[b], runStarts[b + 1])}, one array read per lookup. Immutable, thread-safe.
 *
 * <p>Memory: 12 bytes per fingerprint plus {@code 4 · 2^p} bytes of index; at the default
 * {@code p = floor(log2 n)} the index is between a third and two thirds of the table. The index
 * width is capped at {@value #MAX_INDEX_BITS} (1 GiB of index): wider prefixes are still looked up,
 * by narrowing the indexed run with a binary search.
 *
 * <p>Building counts the fingerprints per indexed prefix (those counts become the index), places each pair in its
 * prefix's run (by the leading byte first when the index is wide, so that the second placement writes into one
 * byte's part of the table instead of all over it), then sorts each run by fingerprint: insertion sort for short
 * runs (about one entry at the default p when fingerprints are uniform), the JDK's primitive sort of single longs
 * (the bits the run does not share, then the position in the run) for longer ones, LSD radix by bytes where a run is
 * longer than 2^p. Real simhash prefixes are skewed: at 10M synthetic documents 42% sit in runs longer than 32.
 * Stable. The first query after a merge pays for the build (10M fingerprints: docs/query-benchmark.md).
 */
public final class SortedFingerprintTable implements SortedFingerprints {
    /** Widest prefix index: 2^28 + 1 ints = 1 GiB. */
    public static final int MAX_INDEX_BITS = 28;

    private static final long ARRAY_HEADER = 16;
    private static final long OBJECT_HEADER = 32;

    private final long[] fingerprints;
    private final int[] docs;
    private final int indexBits;
    private final int[] runStarts;

    private SortedFingerprintTable(long[] fingerprints, int[] docs, int indexBits, int[] runStarts) {
        this.fingerprints = fingerprints;
        this.docs = docs;
        this.indexBits = indexBits;
        this.runStarts = runStarts;
    }

    /** {@code floor(log2 n)} clamped to [1, {@value #MAX_INDEX_BITS}]: runs of about one entry. */
    public static int defaultIndexBits(int n) {
        int bits = n <= 1 ? 1 : 31 - Integer.numberOfLeadingZeros(n);
        return Math.max(1, Math.min(MAX_INDEX_BITS, bits));
    }

    /** Builds with {@link #defaultIndexBits}. Copies the inputs; they are not modified. */
    public static SortedFingerprintTable build(long[] fingerprints, int[] docs) {
        checkArrays(fingerprints, docs, fingerprints == null ? 0 : fingerprints.length);
        return build(fingerprints, docs, fingerprints.length, defaultIndexBits(fingerprints.length));
    }

    /**
     * Sorts the first {@code length} (fingerprint, doc) pairs by unsigned fingerprint (stable, so
     * equal fingerprints keep their input order) and indexes the leading {@code indexBits} bits.
     * Copies the inputs; they are not modified.
     */
    public static SortedFingerprintTable build(long[] fingerprints, int[] docs, int length, int indexBits) {
        checkArrays(fingerprints, docs, length);
        checkIndexBits(indexBits);
        int[] runStarts = countByPrefix(fingerprints, length, indexBits);
        long[] keys = new long[length];
        int[] values = new int[length];
        RunSorter sorter;
        if (indexBits > TOP_BITS + 4) {
            // Placing each pair straight into its prefix's run writes all over the table (a cache miss a pair at
            // 10M); by the leading byte first, the second placement stays within one byte's part of the table.
            long[] byTopKeys = new long[length];
            int[] byTopValues = new int[length];
            place(
                    fingerprints,
                    docs,
                    length,
                    TOP_BITS,
                    countByPrefix(fingerprints, length, TOP_BITS),
                    byTopKeys,
                    byTopValues);
            place(byTopKeys, byTopValues, length, indexBits, runStarts, keys, values);
            sorter = new RunSorter(byTopKeys, byTopValues);
        } else {
            place(fingerprints, docs, length, indexBits, runStarts, keys, values);
            sorter = new RunSorter(longestRun(runStarts));
        }
        for (int b = 0; b < runStarts.length - 1; b++) {
            sorter.sort(keys, values, runStarts[b], runStarts[b + 1], indexBits);
        }
        return new SortedFingerprintTable(keys, values, indexBits, runStarts);
    }

    /** Leading bits of the first placement. */
    private static final int TOP_BITS = 8;

    /** Places each pair at the end of its prefix's run so far (stable); {@code runStarts} ends up as it started. */
    private static void place(
            long[] fingerprints, int[] docs, int length, int indexBits, int[] runStarts, long[] keys, int[] values) {
        int shift = 64 - indexBits;
        for (int i = 0; i < length; i++) {
            long fp = fingerprints[i];
            int to = runStarts[(int) (fp >>> shift)]++;
            keys[to] = fp;
            values[to] = docs[i];
        }
        // Each start has moved to its run's end, the next run's start: shift them back by one.
        System.arraycopy(runStarts, 0, runStarts, 1, runStarts.length - 2);
        runStarts[0] = 0;
    }

    /**
     * Wraps pairs already in ascending unsigned order (copied). Fails with the first out-of-order
     * position rather than searching wrongly.
     */
    public static SortedFingerprintTable ofSorted(long[] fingerprints, int[] docs, int length, int indexBits) {
        checkArrays(fingerprints, docs, length);
        checkIndexBits(indexBits);
        for (int i = 1; i < length; i++) {
            if (Long.compareUnsigned(fingerprints[i - 1], fingerprints[i]) > 0) {
                throw new IllegalArgumentException("fingerprints must be sorted as unsigned values, but position " + i
                        + " (" + Long.toHexString(fingerprints[i]) + ") < position " + (i - 1) + " ("
                        + Long.toHexString(fingerprints[i - 1]) + ")");
            }
        }
        long[] keys = new long[length];
        int[] values = new int[length];
        System.arraycopy(fingerprints, 0, keys, 0, length);
        System.arraycopy(docs, 0, values, 0, length);
        return new SortedFingerprintTable(keys, values, indexBits, countByPrefix(keys, length, indexBits));
    }

    private static void checkArrays(long[] fingerprints, int[] docs, int length) {
        if (fingerprints == null || docs == null) {
            throw new IllegalArgumentException("fingerprints and docs must not be null");
        }
        if (length < 0 || length > fingerprints.length || length > docs.length) {
            throw new IllegalArgumentException(
                    "length must be in [0, min(" + fingerprints.length + ", " + docs.length + ")], got " + length);
        }
    }

    private static void checkIndexBits(int indexBits) {
        if (indexBits < 1 || indexBits > MAX_INDEX_BITS) {
            throw new IllegalArgumentException("index_bits must be in [1, " + MAX_INDEX_BITS + "], got " + indexBits);
        }
    }

    /**
     * {@code starts[b]} = the number of fingerprints whose leading {@code indexBits} bits are below b
     * (2^indexBits + 1 entries): in sorted order, the first position of prefix b.
     */
    private static int[] countByPrefix(long[] fingerprints, int length, int indexBits) {
        int buckets = 1 << indexBits;
        int[] starts = new int[buckets + 1];
        int shift = 64 - indexBits;
        for (int i = 0; i < length; i++) {
            starts[(int) (fingerprints[i] >>> shift) + 1]++;
        }
        for (int b = 0; b < buckets; b++) {
            starts[b + 1] += starts[b];
        }
        return starts;
    }

    private static int longestRun(int[] runStarts) {
        int longest = 0;
        for (int b = 0; b < runStarts.length - 1; b++) {
            longest = Math.max(longest, runStarts[b + 1] - runStarts[b]);
        }
        return longest;
    }

    /** Sorts runs of (fingerprint, doc) pairs by unsigned fingerprint, stably. */
    static final class RunSorter {
        /** Longest run sorted by insertion: beyond, a sort in O(n log n) costs less than the moves. */
        static final int INSERTION_MAX = 48;

        private final long[] keyScratch;
        private final int[] valueScratch;
        private final int[] count = new int[257];

        /** Scratch for runs of up to {@code longestRun} pairs, allocated only if a run is longer than {@link #INSERTION_MAX}. */
        RunSorter(int longestRun) {
            this(
                    new long[longestRun > INSERTION_MAX ? longestRun : 0],
                    new int[longestRun > INSERTION_MAX ? longestRun : 0]);
        }

        /** Scratch as long as the longest run it will sort. */
        RunSorter(long[] keyScratch, int[] valueScratch) {
            this.keyScratch = keyScratch;
            this.valueScratch = valueScratch;
        }

        /**
         * Sorts a run whose fingerprints share their leading {@code sharedBits} bits (the indexed prefix): short runs by
         * insertion; runs of at most 2^sharedBits pairs as single longs (the bits they do not share, then the position
         * in the run) by the JDK's primitive sort; longer ones by radix.
         */
        void sort(long[] keys, int[] values, int from, int to, int sharedBits) {
            int n = to - from;
            if (n <= INSERTION_MAX) {
                insertionSort(keys, values, from, to);
            } else if (sharedBits < 31 && n <= 1 << sharedBits) {
                packedSort(keys, values, from, to, sharedBits);
            } else {
                radixSort(keys, values, from, to);
            }
        }

        private void packedSort(long[] keys, int[] values, int from, int to, int sharedBits) {
            int n = to - from;
            long positionMask = (1L << sharedBits) - 1;
            for (int j = 0; j < n; j++) {
                // Sign bit flipped: signed order of the packed longs is unsigned order of the fingerprints' other bits.
                keyScratch[j] = ((keys[from + j] << sharedBits) | j) ^ Long.MIN_VALUE;
            }
            java.util.Arrays.sort(keyScratch, 0, n);
            long shared = keys[from] >>> (64 - sharedBits) << (64 - sharedBits);
            for (int j = 0; j < n; j++) {
                long packed = keyScratch[j] ^ Long.MIN_VALUE;
                valueScratch[j] = values[from + (int) (packed & positionMask)];
                keyScratch[j] = shared | (packed >>> sharedBits);
            }
            System.arraycopy(keyScratch, 0, keys, from, n);
            System.arraycopy(valueScratch, 0, values, from, n);
        }

        private static void insertionSort(long[] keys, int[] values, int from, int to) {
            for (int i = from + 1; i < to; i++) {
                long key = keys[i];
                int value = values[i];
                int j = i - 1;
                while (j >= from && Long.compareUnsigned(keys[j], key) > 0) {
                    keys[j + 1] = keys[j];
                    values[j + 1] = values[j];
                    j--;
                }
                keys[j + 1] = key;
                values[j + 1] = value;
            }
        }

        /** LSD radix by bytes, least significant first, skipping the bytes every pair of the run shares. */
        private void radixSort(long[] keys, int[] values, int from, int to) {
            int n = to - from;
            long differing = 0;
            for (int i = from + 1; i < to; i++) {
                differing |= keys[i] ^ keys[from];
            }
            long[] srcK = keys;
            int[] srcV = values;
            int srcFrom = from;
            long[] dstK = keyScratch;
            int[] dstV = valueScratch;
            int dstFrom = 0;
            for (int shift = 0; shift < 64; shift += 8) {
                if (((differing >>> shift) & 0xFF) == 0) {
                    continue; // every key of the run has the same byte here: the pass would not move anything
                }
                java.util.Arrays.fill(count, 0);
                for (int i = srcFrom; i < srcFrom + n; i++) {
                    count[((int) (srcK[i] >>> shift) & 0xFF) + 1]++;
                }
                for (int d = 0; d < 256; d++) {
                    count[d + 1] += count[d];
                }
                for (int i = srcFrom; i < srcFrom + n; i++) {
                    int at = dstFrom + count[(int) (srcK[i] >>> shift) & 0xFF]++;
                    dstK[at] = srcK[i];
                    dstV[at] = srcV[i];
                }
                long[] swapK = srcK;
                srcK = dstK;
                dstK = swapK;
                int[] swapV = srcV;
                srcV = dstV;
                dstV = swapV;
                int swapFrom = srcFrom;
                srcFrom = dstFrom;
                dstFrom = swapFrom;
            }
            if (srcK != keys) {
                System.arraycopy(srcK, srcFrom, keys, from, n);
                System.arraycopy(srcV, srcFrom, values, from, n);
            }
        }
    }

    @Override
    public int size() {
        return fingerprints.length;
    }

    @Override
    public long fingerprintAt(int position) {
        return fingerprints[position];
    }

    @Override
    public int docAt(int position) {
        return docs[position];
    }

    /** The prefix width of the index. */
    public int indexBits() {
        return indexBits;
    }

    /** The run [start, end) of an {@link #indexBits()}-bit prefix, packed as in {@link SortedFingerprints#run}. */
    public long run(int prefix) {
        if (prefix < 0 || prefix >= runStarts.length - 1) {
            throw new IllegalArgumentException("prefix must be in [0, " + (runStarts.length - 1) + "), got " + prefix);
        }
        return SortedFingerprints.pack(runStarts[prefix], runStarts[prefix + 1]);
    }

    /** Any prefix width: the index directly, merged for narrower prefixes, narrowed by binary search for wider. */
    @Override
    public long run(long prefix, int prefixBits) {
        assert prefixBits >= 1 && prefixBits <= MAX_PREFIX_BITS : "prefixBits " + prefixBits;
        assert prefix >>> prefixBits == 0 : "prefix " + prefix + " has more than " + prefixBits + " bits";
        return SortedFingerprints.runFromIndex(this, runStarts, indexBits, prefix, prefixBits);
    }

    /** The same fingerprints without the prefix index: lookups binary-search (for comparisons and tests). */
    public SortedFingerprints withoutIndex() {
        return new SortedFingerprints() {
            @Override
            public int size() {
                return fingerprints.length;
            }

            @Override
            public long fingerprintAt(int position) {
                return fingerprints[position];
            }

            @Override
            public int docAt(int position) {
                return docs[position];
            }
        };
    }

    @Override
    public int lookupCostFactor() {
        return 1;
    }

    /**
     * The most heap a {@link #build} of {@code n} pairs holds at once, the caller's input arrays
     * included: input, sorted copy and the copy placed by the leading byte that the run sorts reuse
     * as scratch (12 bytes a pair each), two arrays of byte counts and the prefix index. What a
     * caller reserves before building.
     */
    public static long peakBuildBytes(long n, int indexBits) {
        checkIndexBits(indexBits);
        return OBJECT_HEADER
                + 3 * (2 * ARRAY_HEADER + 12L * n)
                + 2 * (ARRAY_HEADER + 4L * 257)
                + ARRAY_HEADER
                + 4L * ((1L << indexBits) + 1);
    }

    /** Heap bytes held: the three arrays plus headers. */
    public long ramBytesUsed() {
        return OBJECT_HEADER
                + ARRAY_HEADER
                + 8L * fingerprints.length
                + ARRAY_HEADER
                + 4L * docs.length
                + ARRAY_HEADER
                + 4L * runStarts.length;
    }
}
