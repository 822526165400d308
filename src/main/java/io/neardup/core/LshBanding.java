/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * LSH banding of a MinHash signature: {@code bands} bands of {@code rows} consecutive values each
 * (band {@code i} covers values {@code [i * rows, (i + 1) * rows)}; values past
 * {@code bands * rows} are not banded). Two documents become candidates when all values of at
 * least one band are equal, which for Jaccard similarity {@code s} happens with probability
 * {@code P(s) = 1 - (1 - s^rows)^bands}.
 *
 * <p>{@link #optimal} is datasketch's {@code _optimal_param}: over every {@code (b, r)} with
 * {@code b * r <= numHashes} (b ascending, then r ascending; the first minimum wins) it minimizes
 * {@code falsePositiveWeight * FP + falseNegativeWeight * FN} with
 * {@code FP = ∫_0^t P(s) ds} and {@code FN = ∫_t^1 (1 - P(s)) ds}. datasketch integrates with
 * scipy's {@code quad}; this class uses adaptive Simpson to 1e-12, so a near-tie may in principle
 * resolve differently, never by more than that tolerance in the objective. Pure math, immutable.
 *
 * @param bands number of bands, at least 1
 * @param rows  values per band, at least 1
 */
public record LshBanding(int bands, int rows) {

    /** datasketch's default weights. */
    public static final double DEFAULT_FALSE_POSITIVE_WEIGHT = 0.5;

    public static final double DEFAULT_FALSE_NEGATIVE_WEIGHT = 0.5;

    private static final double TOLERANCE = 1e-12;
    private static final int MAX_DEPTH = 50;
    private static final int CACHE_LIMIT = 256;
    private static final Map<String, LshBanding> CACHE = new ConcurrentHashMap<>();
    /**
     * {@link #minBandMatchesFor} by banding and threshold: a binomial tail per candidate count, asked again by every
     * query (a lookup into 30 indices asks it 30 times a document), while a cluster uses a handful of pairs.
     */
    private static final Map<MinBandMatchesKey, Integer> MIN_BAND_MATCHES = new ConcurrentHashMap<>();

    private record MinBandMatchesKey(LshBanding banding, double threshold) {}

    public LshBanding {
        if (bands < 1 || rows < 1) {
            throw new IllegalArgumentException(
                    "bands and rows must be at least 1, got bands [" + bands + "] rows [" + rows + "]");
        }
    }

    /** Validates {@code bands * rows <= numHashes}. */
    public static LshBanding of(int bands, int rows, int numHashes) {
        LshBanding banding = new LshBanding(bands, rows);
        if ((long) bands * rows > numHashes) {
            throw new IllegalArgumentException("bands * rows must be at most num_hashes [" + numHashes
                    + "], got bands [" + bands + "] * rows [" + rows + "] = " + ((long) bands * rows));
        }
        return banding;
    }

    /** {@link #optimal(double, int, double, double)} with datasketch's default weights 0.5 / 0.5. */
    public static LshBanding optimal(double threshold, int numHashes) {
        return optimal(threshold, numHashes, DEFAULT_FALSE_POSITIVE_WEIGHT, DEFAULT_FALSE_NEGATIVE_WEIGHT);
    }

    /**
     * The banding that minimizes the weighted false positive and false negative areas for
     * {@code threshold}. Results are memoized (the search costs up to ~0.5 s for 1024 values).
     */
    public static LshBanding optimal(
            double threshold, int numHashes, double falsePositiveWeight, double falseNegativeWeight) {
        if (!(threshold > 0 && threshold < 1)) {
            throw new IllegalArgumentException("threshold must be in (0, 1), got " + threshold);
        }
        if (numHashes < 1 || numHashes > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "num_hashes must be in [1, " + MinHasher.MAX_HASHES + "], got " + numHashes);
        }
        if (!(falsePositiveWeight >= 0)
                || !(falseNegativeWeight >= 0)
                || !(falsePositiveWeight + falseNegativeWeight > 0)) {
            throw new IllegalArgumentException(
                    "weights must be non-negative and not both 0, got false_positive_weight [" + falsePositiveWeight
                            + "] false_negative_weight [" + falseNegativeWeight + "]");
        }
        String key = threshold + "/" + numHashes + "/" + falsePositiveWeight + "/" + falseNegativeWeight;
        LshBanding cached = CACHE.get(key);
        if (cached != null) {
            return cached;
        }
        double minError = Double.POSITIVE_INFINITY;
        LshBanding best = null;
        for (int b = 1; b <= numHashes; b++) {
            int maxR = numHashes / b;
            for (int r = 1; r <= maxR; r++) {
                double error = falsePositiveWeight * falsePositiveArea(threshold, b, r)
                        + falseNegativeWeight * falseNegativeArea(threshold, b, r);
                if (error < minError) {
                    minError = error;
                    best = new LshBanding(b, r);
                }
            }
        }
        if (CACHE.size() >= CACHE_LIMIT) {
            CACHE.clear();
        }
        CACHE.put(key, best);
        return best;
    }

    /**
     * The candidate recall a banding promises at and above its {@link #floor()}, and that the query's
     * automatic {@code min_band_matches} keeps at its threshold.
     */
    public static final double CANDIDATE_RECALL = 0.99;

    /**
     * The banding that serves every threshold at or above {@code floor} from one index: pairs of
     * similarity {@code floor} share at least one band with probability at least
     * {@link #CANDIDATE_RECALL}, with the longest bands that allow it (the fewest chance candidates
     * among dissimilar documents), and as many bands of that length as fit, so that a query at a
     * higher threshold can ask for more bands to agree ({@link #minBandMatchesFor}). For 128 values:
     * floor 0.5 gives 42 bands of 3 rows, 0.8 gives 21 of 6. The rule is part of the mapping
     * contract: changing it would change the band terms of existing fields.
     */
    public static LshBanding forFloor(double floor, int numHashes) {
        if (!(floor > 0 && floor < 1)) {
            throw new IllegalArgumentException("min_similarity_floor must be in (0, 1), got " + floor);
        }
        if (numHashes < 1 || numHashes > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "num_hashes must be in [1, " + MinHasher.MAX_HASHES + "], got " + numHashes);
        }
        for (int r = numHashes; r >= 1; r--) {
            int b = numHashes / r;
            if (candidate(floor, b, r) >= CANDIDATE_RECALL) {
                return new LshBanding(b, r);
            }
        }
        throw new IllegalArgumentException("min_similarity_floor [" + floor + "] is too low for num_hashes ["
                + numHashes
                + "]: even " + numHashes + " bands of one value find a pair at that similarity with probability "
                + String.format(java.util.Locale.ROOT, "%.3f", candidate(floor, numHashes, 1)) + " < "
                + CANDIDATE_RECALL);
    }

    /** Probability that two signatures of Jaccard similarity {@code s} share at least one band. */
    public double candidateProbability(double s) {
        return candidate(s, bands, rows);
    }

    /**
     * Probability that two signatures of Jaccard similarity {@code s} agree on at least {@code m}
     * bands: a binomial tail, each band agreeing independently with probability {@code s^rows}.
     */
    public double candidateProbability(int m, double s) {
        if (m < 1 || m > bands) {
            throw new IllegalArgumentException("min_band_matches must be in [1, " + bands + "], got " + m);
        }
        double p = Math.pow(s, rows);
        if (p >= 1) {
            return 1;
        }
        if (p <= 0) {
            return 0;
        }
        // P(X < m) summed in log space: C(b, i) p^i (1 - p)^(b - i) underflows for large b otherwise.
        double logP = Math.log(p), logQ = Math.log1p(-p);
        double below = 0, logBinomial = 0;
        for (int i = 0; i < m; i++) {
            below += Math.exp(logBinomial + i * logP + (bands - i) * logQ);
            logBinomial += Math.log((double) (bands - i) / (i + 1));
        }
        return Math.min(1, Math.max(0, 1 - below));
    }

    /**
     * The most bands that may be required to agree while pairs of similarity {@code threshold} still
     * become candidates with probability at least {@link #CANDIDATE_RECALL}; 1 when even one band
     * cannot promise that (the threshold is below the {@link #floor()}).
     */
    public int minBandMatchesFor(double threshold) {
        MinBandMatchesKey key = new MinBandMatchesKey(this, threshold);
        Integer cached = MIN_BAND_MATCHES.get(key);
        if (cached != null) {
            return cached;
        }
        int m = computeMinBandMatches(threshold);
        if (MIN_BAND_MATCHES.size() >= CACHE_LIMIT) {
            MIN_BAND_MATCHES.clear();
        }
        MIN_BAND_MATCHES.put(key, m);
        return m;
    }

    private int computeMinBandMatches(double threshold) {
        int m = 1;
        while (m < bands && candidateProbability(m + 1, threshold) >= CANDIDATE_RECALL) {
            m++;
        }
        return m;
    }

    /**
     * The lowest similarity at which one agreeing band finds pairs with probability at least
     * {@link #CANDIDATE_RECALL}: the least threshold this banding serves reliably.
     */
    public double floor() {
        double lo = 0, hi = 1;
        for (int i = 0; i < 50; i++) {
            double mid = (lo + hi) / 2;
            if (candidate(mid, bands, rows) >= CANDIDATE_RECALL) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        return hi;
    }

    /** {@code ∫_0^t P(s) ds}. */
    public static double falsePositiveArea(double threshold, int bands, int rows) {
        return integrate(s -> candidate(s, bands, rows), 0.0, threshold);
    }

    /** {@code ∫_t^1 (1 - P(s)) ds}. */
    public static double falseNegativeArea(double threshold, int bands, int rows) {
        return integrate(s -> miss(s, bands, rows), threshold, 1.0);
    }

    /** {@code 1 - (1 - s^r)^b}, computed without cancellation for small {@code s^r}. */
    static double candidate(double s, int b, int r) {
        double sr = Math.pow(s, r);
        if (sr >= 1) {
            return 1;
        }
        return -Math.expm1(b * Math.log1p(-sr));
    }

    /** {@code (1 - s^r)^b}. */
    static double miss(double s, int b, int r) {
        double sr = Math.pow(s, r);
        if (sr >= 1) {
            return 0;
        }
        return Math.exp(b * Math.log1p(-sr));
    }

    private interface Fn {
        double at(double x);
    }

    private static double integrate(Fn f, double a, double b) {
        double fa = f.at(a), fb = f.at(b), m = (a + b) / 2, fm = f.at(m);
        double whole = (b - a) / 6 * (fa + 4 * fm + fb);
        return simpson(f, a, b, fa, fm, fb, whole, TOLERANCE, MAX_DEPTH);
    }

    private static double simpson(
            Fn f, double a, double b, double fa, double fm, double fb, double whole, double eps, int depth) {
        double m = (a + b) / 2;
        double lm = (a + m) / 2, rm = (m + b) / 2;
        double flm = f.at(lm), frm = f.at(rm);
        double left = (m - a) / 6 * (fa + 4 * flm + fm);
        double right = (b - m) / 6 * (fm + 4 * frm + fb);
        double delta = left + right - whole;
        // Depth 6 minimum: a steep integrand (large r) can look flat on a coarse grid.
        if (depth <= 0 || (MAX_DEPTH - depth >= 6 && Math.abs(delta) <= 15 * eps)) {
            return left + right + delta / 15;
        }
        return simpson(f, a, m, fa, flm, fm, left, eps / 2, depth - 1)
                + simpson(f, m, b, fm, frm, fb, right, eps / 2, depth - 1);
    }

    /**
     * The key of band {@code band} of a signature in its stored layout (4 bytes a value, big-endian):
     * {@link Murmur3#hash64} (seed 0) over the band's {@code rows} values. The one definition of a band
     * key: the {@code minhash} field's band terms carry it, the band self-join groups by it, and
     * {@code near_dup_collapse} keys its own bands by it ({@link #bandKey(byte[], int, int, int, long)}).
     */
    public static long bandKey(byte[] signatureBytes, int band, int rows) {
        return bandKey(signatureBytes, 0, band, rows);
    }

    /** {@link #bandKey(byte[], int, int)} of the signature at {@code offset} of {@code bytes}. */
    public static long bandKey(byte[] bytes, int offset, int band, int rows) {
        return bandKey(bytes, offset, band * rows, (band + 1) * rows, 0L);
    }

    /**
     * The key of the values {@code [from, to)} of the signature at {@code offset} of {@code bytes} (its
     * stored layout), under {@code seed}: bands of unequal widths, or keys that must differ by scheme.
     */
    public static long bandKey(byte[] bytes, int offset, int from, int to, long seed) {
        return Murmur3.hash64(bytes, offset + from * 4, (to - from) * 4, seed);
    }
}
