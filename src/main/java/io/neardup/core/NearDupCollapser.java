/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Greedy leader clustering of a ranked list of fingerprints, the algorithm behind the
 * {@code near_dup_collapse} search response processor.
 *
 * <p>Input is in rank order (index 0 is the best hit). Each position has a fingerprint and a scheme
 * key, or scheme key {@link #MISSING} for a hit without a fingerprint. Position i is compared only
 * with the <em>leaders</em> kept before it, never with hits already folded: it is folded into the
 * best-ranked leader within the threshold that has the same scheme key, or becomes a leader itself.
 * So with A ~ B, B ~ C but not A ~ C (in that rank order), B folds into A and C stays a leader:
 * groups do not chain. A hit without a fingerprint is always a leader of a group of one, and a hit
 * is never compared with a fingerprint of another scheme key.
 *
 * <p>The result, {@code leaderOf}, maps each position to the position of its leader ({@code i} for a
 * leader). Thread-safe: all state is local to a call.
 */
public final class NearDupCollapser {
    /** Scheme key of a position without a fingerprint. */
    public static final int MISSING = -1;

    private NearDupCollapser() {}

    /**
     * Simhash: folded when the Hamming distance to the leader is at most {@code maxDistance}. A
     * linear scan over the leaders (one xor and popcount each, stopping at the first match in rank
     * order): O(n · leaders), about a nanosecond a pair.
     */
    public static int[] collapseSimhash(long[] fingerprints, int[] schemeKeys, int maxDistance) {
        int n = fingerprints.length;
        checkLengths(n, schemeKeys.length);
        int[] leaderOf = new int[n];
        long[] leaderFp = new long[n];
        int[] leaderScheme = new int[n];
        int[] leaderPos = new int[n];
        int leaders = 0;
        for (int i = 0; i < n; i++) {
            int scheme = schemeKeys[i];
            leaderOf[i] = i;
            if (scheme == MISSING) {
                continue;
            }
            long fp = fingerprints[i];
            for (int j = 0; j < leaders; j++) {
                if (Long.bitCount(leaderFp[j] ^ fp) <= maxDistance && leaderScheme[j] == scheme) {
                    leaderOf[i] = leaderPos[j];
                    break;
                }
            }
            if (leaderOf[i] == i) {
                leaderFp[leaders] = fp;
                leaderScheme[leaders] = scheme;
                leaderPos[leaders] = i;
                leaders++;
            }
        }
        return leaderOf;
    }

    /**
     * MinHash: folded when {@link MinHasher#jaccard} with the leader is at least
     * {@code minSimilarity}. Exact, but not quadratic: a pair at or above the threshold agrees on
     * at least e of its k positions, so it disagrees on at most k - e; cutting the signature into
     * k - e + 1 bands leaves at least one band where the two agree entirely (pigeonhole). Leaders
     * are indexed by the hash of each band (with their scheme key); a hit is checked only against
     * the leaders sharing a band with it, and the best-ranked one that passes wins.
     */
    public static int[] collapseMinhash(int[][] signatures, int[] schemeKeys, double minSimilarity) {
        int n = signatures.length;
        checkLengths(n, schemeKeys.length);
        if (!(minSimilarity > 0 && minSimilarity <= 1)) {
            throw new IllegalArgumentException("min_similarity must be in (0, 1], got [" + minSimilarity + "]");
        }
        int[] leaderOf = new int[n];
        Map<Long, int[]> buckets = new HashMap<>();
        for (int i = 0; i < n; i++) {
            int scheme = schemeKeys[i];
            leaderOf[i] = i;
            if (scheme == MISSING) {
                continue;
            }
            int[] sig = signatures[i];
            int k = sig.length;
            int bands = bandsFor(k, minSimilarity);
            long[] keys = new long[bands];
            byte[] stored = SignatureCodec.valueBytes(sig);
            int best = Integer.MAX_VALUE;
            for (int b = 0; b < bands; b++) {
                keys[b] = LshBanding.bandKey(
                        stored,
                        0,
                        (int) ((long) b * k / bands),
                        (int) ((long) (b + 1) * k / bands),
                        ((long) scheme << 32) ^ ((long) b << 16) ^ k);
                int[] bucket = buckets.get(keys[b]);
                if (bucket == null) {
                    continue;
                }
                for (int c = 1; c <= bucket[0]; c++) {
                    int leader = bucket[c];
                    if (leader < best
                            && schemeKeys[leader] == scheme
                            && signatures[leader].length == k
                            && MinHasher.jaccard(signatures[leader], sig) >= minSimilarity) {
                        best = leader;
                    }
                }
            }
            if (best != Integer.MAX_VALUE) {
                leaderOf[i] = best;
                continue;
            }
            for (int b = 0; b < bands; b++) {
                int[] bucket = buckets.get(keys[b]);
                if (bucket == null) {
                    bucket = new int[4];
                } else if (bucket[bucket[0]] == i) {
                    continue; // two bands with the same key: already added
                } else if (bucket[0] + 1 == bucket.length) {
                    bucket = Arrays.copyOf(bucket, bucket.length * 2);
                }
                bucket[++bucket[0]] = i;
                buckets.put(keys[b], bucket);
            }
        }
        return leaderOf;
    }

    /**
     * MinHash with shingle sets: folded when the exact Jaccard of the two sets ({@link ShingleSetCodec}
     * values, ascending unsigned) is at least {@code minSimilarity}. Exact and not quadratic, by prefix
     * filtering ("A Primitive Operator for Similarity Joins in Data Cleaning", Chaudhuri, Ganti and
     * Kaushik, 2006): two sets with Jaccard >= t share one of the first {@code |x| - ceil(t |x|) + 1}
     * values of each in a common order (here: ascending), so leaders are indexed by their prefix
     * values and a hit is checked only against the leaders sharing one with it; the best-ranked one
     * that passes wins. Hits with {@link #MISSING} scheme keys are never folded nor leaders of others.
     */
    public static int[] collapseJaccard(int[][] shingleSets, int[] schemeKeys, double minSimilarity) {
        int n = shingleSets.length;
        checkLengths(n, schemeKeys.length);
        if (!(minSimilarity > 0 && minSimilarity <= 1)) {
            throw new IllegalArgumentException("min_similarity must be in (0, 1], got [" + minSimilarity + "]");
        }
        int[] leaderOf = new int[n];
        LongIndexMap postingsOf = new LongIndexMap(64);
        int[][] postings = new int[64][];
        for (int i = 0; i < n; i++) {
            leaderOf[i] = i;
            int scheme = schemeKeys[i];
            if (scheme == MISSING) {
                continue;
            }
            int[] set = shingleSets[i];
            int prefix = prefixLength(set.length, minSimilarity);
            int best = Integer.MAX_VALUE;
            for (int p = 0; p < prefix; p++) {
                int slot = postingsOf.indexOf(key(scheme, set, p));
                if (slot < 0) {
                    continue;
                }
                int[] bucket = postings[slot];
                for (int c = 1; c <= bucket[0]; c++) {
                    int leader = bucket[c];
                    if (leader < best && ShingleSetCodec.jaccard(shingleSets[leader], set) >= minSimilarity) {
                        best = leader;
                    }
                }
            }
            if (best != Integer.MAX_VALUE) {
                leaderOf[i] = best;
                continue;
            }
            for (int p = 0; p < prefix; p++) {
                int slot = postingsOf.add(key(scheme, set, p));
                if (slot == postings.length) {
                    postings = Arrays.copyOf(postings, postings.length * 2);
                }
                int[] bucket = postings[slot];
                if (bucket == null) {
                    bucket = new int[4];
                } else if (bucket[0] + 1 == bucket.length) {
                    bucket = Arrays.copyOf(bucket, bucket.length * 2);
                }
                bucket[++bucket[0]] = i;
                postings[slot] = bucket;
            }
        }
        return leaderOf;
    }

    /** How many leading values of a set of {@code size} must be indexed and probed; an empty set uses one key of its own. */
    static int prefixLength(int size, double minSimilarity) {
        return size == 0 ? 1 : size - (int) Math.ceil(minSimilarity * size - 1e-9) + 1;
    }

    /** A prefix value with its scheme key; {@code p} past an empty set stands for "empty". */
    private static long key(int scheme, int[] set, int p) {
        long value = set.length == 0 ? 1L << 32 : Integer.toUnsignedLong(set[p]);
        return (long) scheme << 33 | value;
    }

    /** The smallest number of equal positions out of k whose fraction is at least s, as {@link MinHasher#jaccard} computes it. */
    static int minEqual(int k, double s) {
        int e = (int) Math.ceil(s * k);
        while (e > 0 && (double) (e - 1) / k >= s) {
            e--;
        }
        while (e < k && (double) e / k < s) {
            e++;
        }
        return Math.max(e, 1);
    }

    /** k - e + 1 bands: a pair at or above the threshold agrees on at least one whole band. */
    static int bandsFor(int k, double s) {
        return Math.min(k, k - minEqual(k, s) + 1);
    }

    private static void checkLengths(int values, int schemes) {
        if (values != schemes) {
            throw new IllegalArgumentException("got " + values + " fingerprints but " + schemes + " scheme keys");
        }
    }
}
