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
 * <p>Building sorts by LSD radix (four 16-bit digits, O(n), two scratch arrays), carrying the doc
 * ids along: no boxing, no comparator, and unsigned order falls out of treating digits as unsigned.
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

    private SortedFingerprintTable(long[] fingerprints, int[] docs, int indexBits) {
        this.fingerprints = fingerprints;
        this.docs = docs;
        this.indexBits = indexBits;
        this.runStarts = buildIndex(fingerprints, indexBits);
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
        long[] keys = new long[length];
        int[] values = new int[length];
        System.arraycopy(fingerprints, 0, keys, 0, length);
        System.arraycopy(docs, 0, values, 0, length);
        radixSort(keys, values);
        return new SortedFingerprintTable(keys, values, indexBits);
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
        return new SortedFingerprintTable(keys, values, indexBits);
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

    /** LSD radix sort by four unsigned 16-bit digits, carrying values; skips digits all keys share. */
    static void radixSort(long[] keys, int[] values) {
        int n = keys.length;
        long[] keyScratch = new long[n];
        int[] valueScratch = new int[n];
        int[] count = new int[1 << 16];
        long[] srcK = keys;
        int[] srcV = values;
        long[] dstK = keyScratch;
        int[] dstV = valueScratch;
        for (int shift = 0; shift < 64; shift += 16) {
            java.util.Arrays.fill(count, 0);
            for (int i = 0; i < n; i++) {
                count[(int) (srcK[i] >>> shift) & 0xFFFF]++;
            }
            if (n == 0 || count[(int) (srcK[0] >>> shift) & 0xFFFF] == n) {
                continue; // one digit value: this pass would not move anything
            }
            int sum = 0;
            for (int d = 0; d < count.length; d++) {
                int c = count[d];
                count[d] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                int d = (int) (srcK[i] >>> shift) & 0xFFFF;
                int to = count[d]++;
                dstK[to] = srcK[i];
                dstV[to] = srcV[i];
            }
            long[] tk = srcK;
            srcK = dstK;
            dstK = tk;
            int[] tv = srcV;
            srcV = dstV;
            dstV = tv;
        }
        if (srcK != keys) {
            System.arraycopy(srcK, 0, keys, 0, n);
            System.arraycopy(srcV, 0, values, 0, n);
        }
    }

    private static int[] buildIndex(long[] sorted, int indexBits) {
        int buckets = 1 << indexBits;
        int[] starts = new int[buckets + 1];
        int shift = 64 - indexBits;
        // Count per prefix into starts[b + 1], then prefix sums give each run's first position.
        for (long fp : sorted) {
            starts[(int) (fp >>> shift) + 1]++;
        }
        for (int b = 0; b < buckets; b++) {
            starts[b + 1] += starts[b];
        }
        return starts;
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
     * included: input, sorted copy and radix scratch (12 bytes a pair each), the radix counts and the
     * prefix index. What a caller reserves before building.
     */
    public static long peakBuildBytes(long n, int indexBits) {
        checkIndexBits(indexBits);
        return OBJECT_HEADER
                + 3 * (2 * ARRAY_HEADER + 12L * n)
                + ARRAY_HEADER
                + 4L * (1 << 16)
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
