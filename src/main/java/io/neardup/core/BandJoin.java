/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * The LSH band self-join of a set of documents, as batch deduplication does it ("Mining of Massive
 * Datasets", ch. 3.4; Broder, "On the resemblance and containment of documents", for the bands as
 * super-shingles): instead of one query per document, each band's keys are sorted, the documents
 * sharing a key form a bucket, the pairs that share at least {@code minBandMatches} buckets are the
 * candidates, and each candidate is verified once by the caller (exact Jaccard of the shingle sets,
 * or the estimate). The verified pairs at or above the threshold are reported.
 *
 * <p>Input: {@code n} documents numbered {@code 0..n-1} and their {@link Buckets}: the groups of
 * documents that share one band's key ({@link LshBanding#bandKey}). Only the buckets, so that any
 * storage that can list them (the band terms' postings, band keys sorted in memory by
 * {@link #ofKeys}) can serve the join.
 *
 * <p><b>Boilerplate.</b> A bucket of more than {@code maxBucket} documents (a license text, a
 * template filled in thousands of times) would cost O(s²) pairs. Such a bucket is joined by leaders
 * instead: its documents, in order, are verified against at most {@code maxLeaders} leaders (the
 * earlier documents of the bucket that matched no leader), so it costs at most s × maxLeaders
 * verifications. What it can miss: two documents of an oversized bucket that are near-duplicates of
 * each other but of no leader, once the bucket has {@code maxLeaders} mutually dissimilar leaders;
 * they are still found through any other band they share in a bucket of normal size. The shares of
 * an oversized bucket do not count towards {@code minBandMatches}.
 *
 * <p><b>Single linkage.</b> With {@code skipConnected}, a candidate pair whose documents are already
 * connected through reported pairs is not verified: it could not change the connected components
 * (the clusters of {@code linkage: single}). Without it, every candidate is verified and every pair
 * at or above the threshold is reported once (what {@code linkage: leader} needs).
 *
 * <p>Memory: every array is reserved from the {@link MemoryBudget} before it is allocated and
 * released before {@link #join} returns; a refused reservation leaves nothing held.
 */
public final class BandJoin {

    /** The similarity of two documents of the set (a &lt; b), called once per verified candidate. */
    @FunctionalInterface
    public interface Verifier {
        double similarity(int a, int b);
    }

    /**
     * Receives a pair at or above the threshold (a &lt; b). With {@code skipConnected} each pair
     * comes at most once; without it, once from the buckets of normal size and once more from each
     * oversized bucket that joined it by a leader.
     */
    @FunctionalInterface
    public interface Pairs {
        void pair(int a, int b, double similarity);
    }

    /** Receives one bucket: {@code size} documents, ascending, in {@code members[0..size)} (read them before returning). */
    @FunctionalInterface
    public interface Bucket {
        void members(int[] members, int size);
    }

    /** Every group of two or more documents that share one band's key, each group once. */
    @FunctionalInterface
    public interface Buckets {
        void forEach(Bucket bucket);
    }

    /** What a join did: buckets (of 2 or more), the largest, those joined by leaders, candidates, verifications, pairs. */
    public record Stats(
            long buckets,
            long largestBucket,
            long oversizedBuckets,
            long candidates,
            long skippedConnected,
            long verifications,
            long pairs) {}

    public static final int MAX_BANDS = 1024;

    private BandJoin() {}

    /** Bytes a join over {@link #ofKeys} holds at most beside its buckets' members: a band's sort, the counters and the components. */
    static long baseBytes(int n) {
        return sortBytes(n) + 3L * 4 * n;
    }

    private static long sortBytes(int n) {
        return SortedFingerprintTable.peakBuildBytes(n, SortedFingerprintTable.defaultIndexBits(Math.max(n, 1)))
                + 4L * n;
    }

    /**
     * The buckets of {@code n} documents' band keys ({@code bands} a document, doc-major), found by
     * sorting each band's keys; the sort's memory is reserved from {@code budget} while it runs.
     */
    public static Buckets ofKeys(long[] keys, int n, int bands, MemoryBudget budget) {
        if (bands < 1 || bands > MAX_BANDS) {
            throw new IllegalArgumentException("bands must be in [1, " + MAX_BANDS + "], got " + bands);
        }
        if (n < 0 || keys.length < (long) n * bands) {
            throw new IllegalArgumentException(
                    "keys must hold n * bands = " + (long) n * bands + " values, got " + keys.length);
        }
        return bucket -> {
            if (n < 2) {
                return;
            }
            budget.reserve(sortBytes(n));
            try {
                long[] bandKeys = new long[n];
                int[] docs = new int[n];
                int[] members = new int[n];
                for (int d = 0; d < n; d++) {
                    docs[d] = d;
                }
                for (int band = 0; band < bands; band++) {
                    for (int d = 0; d < n; d++) {
                        bandKeys[d] = keys[d * bands + band];
                    }
                    // Stable: the documents of a bucket stay ascending.
                    SortedFingerprintTable sorted =
                            SortedFingerprintTable.build(bandKeys, docs, n, SortedFingerprintTable.defaultIndexBits(n));
                    for (int from = 0; from < n; ) {
                        int to = from + 1;
                        while (to < n && sorted.fingerprintAt(to) == sorted.fingerprintAt(from)) {
                            to++;
                        }
                        if (to - from >= 2) {
                            for (int i = from; i < to; i++) {
                                members[i - from] = sorted.docAt(i);
                            }
                            bucket.members(members, to - from);
                        }
                        from = to;
                    }
                }
            } finally {
                budget.release(sortBytes(n));
            }
        };
    }

    /**
     * Joins the documents {@code 0..n-1} of {@code buckets}: candidates share at least
     * {@code minBandMatches} buckets of normal size, pairs have a verified similarity of at least
     * {@code minSimilarity}; buckets of more than {@code maxBucket} documents are joined by at most
     * {@code maxLeaders} leaders (see the class comment).
     */
    public static Stats join(
            Buckets buckets,
            int n,
            int minBandMatches,
            double minSimilarity,
            int maxBucket,
            int maxLeaders,
            boolean skipConnected,
            Verifier verifier,
            Pairs pairs,
            MemoryBudget budget) {
        if (n < 0) {
            throw new IllegalArgumentException("n must be >= 0, got " + n);
        }
        if (minBandMatches < 1 || minBandMatches > MAX_BANDS) {
            throw new IllegalArgumentException(
                    "minBandMatches must be in [1, " + MAX_BANDS + "], got " + minBandMatches);
        }
        if (maxBucket < 2 || maxLeaders < 1) {
            throw new IllegalArgumentException(
                    "maxBucket must be >= 2 and maxLeaders >= 1, got " + maxBucket + " and " + maxLeaders);
        }
        Join join = new Join(n, minBandMatches, minSimilarity, skipConnected, verifier, pairs, budget);
        try {
            buckets.forEach((members, size) -> join.bucket(members, size, maxBucket, maxLeaders));
            join.countCandidates();
            return join.stats();
        } finally {
            join.releaseAll();
        }
    }

    /** One join's state; every array it holds is charged to the budget. */
    private static final class Join {
        private final int n;
        private final int minBandMatches;
        private final double minSimilarity;
        private final boolean skipConnected;
        private final Verifier verifier;
        private final Pairs pairs;
        private final MemoryBudget budget;
        private long held;

        /** Members of the normal buckets, bucket after bucket, each bucket ascending. */
        private int[] members = new int[0];

        private int memberCount;
        /** Where each normal bucket ends in {@link #members}, by bucket number. */
        private int[] bucketEnds = new int[0];

        private int bucketCount;
        private int[] parent;
        private long buckets;
        private long largest;
        private long oversized;
        private long candidates;
        private long skipped;
        private long verifications;
        private long reported;

        Join(
                int n,
                int minBandMatches,
                double minSimilarity,
                boolean skipConnected,
                Verifier verifier,
                Pairs pairs,
                MemoryBudget budget) {
            this.n = n;
            this.minBandMatches = minBandMatches;
            this.minSimilarity = minSimilarity;
            this.skipConnected = skipConnected;
            this.verifier = verifier;
            this.pairs = pairs;
            this.budget = budget;
            reserve(4L * n);
            parent = new int[n];
            for (int i = 0; i < n; i++) {
                parent[i] = i;
            }
        }

        private void reserve(long bytes) {
            budget.reserve(bytes);
            held += bytes;
        }

        private void release(long bytes) {
            budget.release(bytes);
            held -= bytes;
        }

        void releaseAll() {
            budget.release(held);
            held = 0;
        }

        /** Keeps a normal bucket's members; joins an oversized one by leaders. */
        void bucket(int[] bucketMembers, int size, int maxBucket, int maxLeaders) {
            if (size < 2) {
                return;
            }
            for (int i = 0; i < size; i++) {
                int doc = bucketMembers[i];
                if (doc < 0 || doc >= n || (i > 0 && doc <= bucketMembers[i - 1])) {
                    throw new IllegalArgumentException("a bucket's members must be ascending documents in [0, " + n
                            + "), got " + doc + " at " + i);
                }
            }
            buckets++;
            largest = Math.max(largest, size);
            if (size > maxBucket) {
                oversized++;
                joinByLeaders(bucketMembers, size, maxLeaders);
                return;
            }
            if (memberCount + size > members.length) {
                members = grow(members, memberCount + size);
            }
            System.arraycopy(bucketMembers, 0, members, memberCount, size);
            memberCount += size;
            if (bucketCount == bucketEnds.length) {
                bucketEnds = grow(bucketEnds, bucketCount + 1);
            }
            bucketEnds[bucketCount++] = memberCount;
        }

        private int[] grow(int[] array, int atLeast) {
            int length = Math.max(atLeast, array.length + (array.length >> 1) + 16);
            reserve(4L * length);
            int[] grown = Arrays.copyOf(array, length);
            release(4L * array.length);
            return grown;
        }

        private void joinByLeaders(int[] bucketMembers, int size, int maxLeaders) {
            int[] leaders = new int[Math.min(maxLeaders, size)];
            reserve(4L * leaders.length);
            try {
                int leaderCount = 0;
                for (int i = 0; i < size; i++) {
                    int doc = bucketMembers[i];
                    boolean matched = false;
                    for (int l = 0; l < leaderCount; l++) {
                        if (consider(leaders[l], doc)) {
                            matched = true;
                            if (skipConnected) {
                                break;
                            }
                        }
                    }
                    if (matched == false && leaderCount < leaders.length) {
                        leaders[leaderCount++] = doc;
                    }
                }
            } finally {
                release(4L * leaders.length);
            }
        }

        /**
         * Counts, for each document, the normal buckets it shares with each later document; a pair
         * is a candidate when the count reaches {@code minBandMatches}.
         */
        void countCandidates() {
            if (memberCount == 0) {
                return;
            }
            // Each document's places in the members, as compressed rows: doc d's at placeStarts[d]..placeStarts[d+1].
            long bytes = 4L * (n + 1) + 8L * memberCount + 8L * n;
            reserve(bytes);
            int[] placeStarts = new int[n + 1];
            int[] places = new int[memberCount];
            int[] bucketOfPlace = new int[memberCount];
            for (int m = 0; m < memberCount; m++) {
                placeStarts[members[m] + 1]++;
            }
            for (int d = 0; d < n; d++) {
                placeStarts[d + 1] += placeStarts[d];
            }
            int[] next = Arrays.copyOf(placeStarts, n);
            for (int b = 0, m = 0; b < bucketCount; b++) {
                for (; m < bucketEnds[b]; m++) {
                    int slot = next[members[m]]++;
                    places[slot] = m;
                    bucketOfPlace[slot] = b;
                }
            }
            int[] counts = next; // reused: zeroed below, then one counter per document
            Arrays.fill(counts, 0);
            int[] touched = new int[n];
            for (int d = 0; d < n; d++) {
                int touchedCount = 0;
                for (int p = placeStarts[d]; p < placeStarts[d + 1]; p++) {
                    int end = bucketEnds[bucketOfPlace[p]];
                    for (int m = places[p] + 1; m < end; m++) {
                        int other = members[m];
                        if (counts[other]++ == 0) {
                            touched[touchedCount++] = other;
                        }
                    }
                }
                int candidateCount = 0;
                for (int t = 0; t < touchedCount; t++) {
                    int other = touched[t];
                    if (counts[other] >= minBandMatches) {
                        touched[candidateCount++] = other;
                    }
                    counts[other] = 0;
                }
                // In increasing order, so that the verifier reads the documents' values forwards.
                Arrays.sort(touched, 0, candidateCount);
                for (int c = 0; c < candidateCount; c++) {
                    consider(d, touched[c]);
                }
            }
            release(bytes);
        }

        /** A candidate pair: verified unless already connected (single linkage); true if it is a pair. */
        private boolean consider(int a, int b) {
            candidates++;
            if (skipConnected && find(a) == find(b)) {
                skipped++;
                return true;
            }
            int low = Math.min(a, b);
            int high = Math.max(a, b);
            verifications++;
            double similarity = verifier.similarity(low, high);
            if (similarity >= minSimilarity) {
                reported++;
                parent[find(low)] = find(high);
                pairs.pair(low, high, similarity);
                return true;
            }
            return false;
        }

        private int find(int x) {
            while (parent[x] != x) {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            return x;
        }

        Stats stats() {
            return new Stats(buckets, largest, oversized, candidates, skipped, verifications, reported);
        }
    }
}
