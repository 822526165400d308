/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Fingerprints in ascending <em>unsigned</em> 64-bit order, addressed by position: the view PSM
 * searches (Sood, "Probabilistic Simhash Matching" (2011), ch. V-A). Implemented by the in-memory {@link SortedFingerprintTable} and by
 * anything already sorted elsewhere, e.g. doc values of a segment sorted by the simhash field, in
 * which case the position is the doc id and no copy is needed.
 *
 * <p>Unsigned, because a prefix is the leading bits as an unsigned number: prefix 1 (fingerprints
 * with the top bit set) must sort after prefix 0.
 *
 * <p>{@link #run} finds the positions sharing a p-bit prefix. The default binary-searches
 * ({@code O(log n)} per lookup, two searches); {@link SortedFingerprintTable} answers from its
 * 2^p index in O(1).
 */
public interface SortedFingerprints {
    /** Widest prefix {@link #run} accepts. */
    int MAX_PREFIX_BITS = 32;

    int size();

    /** The fingerprint at {@code position} in [0, size()); non-decreasing as unsigned values. */
    long fingerprintAt(int position);

    /**
     * What one prefix lookup costs relative to an in-memory table with a prefix index (1): the
     * accessor's price, which decides whether an exact search looks up or scans.
     */
    default int lookupCostFactor() {
        return PsmSearch.UNINDEXED_LOOKUP_FACTOR;
    }

    /** The document at {@code position}; the position itself where positions are doc ids. */
    default int docAt(int position) {
        return position;
    }

    /**
     * The positions whose leading {@code prefixBits} bits equal {@code prefix}, as
     * {@code [runStart(r), runEnd(r))} of the returned packed value (packed so that lookups
     * allocate nothing).
     *
     * @param prefix     in [0, 2^prefixBits)
     * @param prefixBits in [1, {@value #MAX_PREFIX_BITS}]
     */
    default long run(long prefix, int prefixBits) {
        assert prefixBits >= 1 && prefixBits <= MAX_PREFIX_BITS : "prefixBits " + prefixBits;
        assert prefix >>> prefixBits == 0 : "prefix " + prefix + " has more than " + prefixBits + " bits";
        int shift = 64 - prefixBits;
        long low = prefix << shift;
        int start = lowerBound(this, low, 0, size());
        // The next prefix's first value; the last prefix (all ones) runs to the end.
        int end = prefix == (1L << prefixBits) - 1 ? size() : lowerBound(this, (prefix + 1) << shift, start, size());
        return pack(start, end);
    }

    /**
     * {@link #run} answered from a prefix index: {@code runStarts[b]} is the first position of
     * {@code indexBits}-bit prefix b (2^indexBits + 1 entries). Narrower prefixes merge index
     * entries; wider ones binary-search within one entry's run.
     */
    static long runFromIndex(
            SortedFingerprints fingerprints, int[] runStarts, int indexBits, long prefix, int prefixBits) {
        if (prefixBits <= indexBits) {
            int shift = indexBits - prefixBits;
            return pack(runStarts[(int) (prefix << shift)], runStarts[(int) ((prefix + 1) << shift)]);
        }
        int b = (int) (prefix >>> (prefixBits - indexBits));
        int from = runStarts[b];
        int to = runStarts[b + 1];
        int shift = 64 - prefixBits;
        int start = lowerBound(fingerprints, prefix << shift, from, to);
        int end = prefix == (1L << prefixBits) - 1 ? to : lowerBound(fingerprints, (prefix + 1) << shift, start, to);
        return pack(start, end);
    }

    /** Packs a run [start, end). */
    static long pack(int start, int end) {
        return ((long) start << 32) | (end & 0xFFFFFFFFL);
    }

    static int runStart(long run) {
        return (int) (run >>> 32);
    }

    static int runEnd(long run) {
        return (int) run;
    }

    /** The first position in [from, to) whose fingerprint is >= value (unsigned), or to. */
    static int lowerBound(SortedFingerprints fingerprints, long value, int from, int to) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(fingerprints.fingerprintAt(mid), value) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }
}
