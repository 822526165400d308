/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Which of a shingle set's values are indexed for containment queries, and how many of them two texts must share
 * before their exact containment is worth computing.
 *
 * <p>A value is sampled when a hash of it is 0 modulo the sampling rate r: the same shingle is sampled in every
 * document or none. This is Broder's MOD<sub>m</sub> sketch ("On the resemblance and containment of documents",
 * 1997): unlike the minimum values MinHash keeps, a fixed share of every set, so the sampled values two texts share
 * are a sample of their intersection whatever their sizes, and a short text is found inside a host a hundred times
 * longer as easily as inside its copy. Candidates are the documents sharing at least {@link #minSharedSamples}
 * sampled values with the query, each verified on the exact containment of the shingle sets.
 *
 * <p>If A ∩ B holds s shingles, the number of them sampled is binomial (s, 1/r): the threshold is the largest count
 * that a pair at the boundary falls below with probability at most {@link #MISS_PROBABILITY}, and never less than 1
 * (a pair sharing no sampled value cannot be found: (1 - 1/r)^s, 2.4% for s = 13 at r = 4, 0.2% at s = 22).
 * Stateless.
 */
public final class ContainmentSampling {
    /** One shingle in four: about 15 terms for a 60-word text, 250 for a 1,000-word one. */
    public static final int DEFAULT_RATE = 4;

    public static final int MAX_RATE = 64;
    /** The chance that a pair exactly at the query's containment shares fewer sampled values than the threshold. */
    public static final double MISS_PROBABILITY = 1e-3;
    /** Decorrelates the sampling from the band keys and the set's order, which are functions of the same values. */
    private static final long SEED = 0x636f6e7461696eL; // "contain"

    private ContainmentSampling() {}

    /**
     * @throws IllegalArgumentException when {@code rate} is not in [1, {@value #MAX_RATE}], naming the mapping
     *     parameter that sets it
     */
    public static int requireRate(int rate) {
        if (rate < 1 || rate > MAX_RATE) {
            throw new IllegalArgumentException(
                    "[containment_sampling] must be in [1, " + MAX_RATE + "], got [" + rate + "]");
        }
        return rate;
    }

    /** Whether shingle value {@code value} (a set's 32-bit value) is sampled at {@code rate}. */
    public static boolean sampled(int value, int rate) {
        return rate == 1 || Long.remainderUnsigned(Murmur3.fmix64((value & 0xFFFFFFFFL) ^ SEED), rate) == 0;
    }

    /** The values of {@code values} sampled at {@code rate}, in their order. */
    public static int[] sample(int[] values, int rate) {
        int n = 0;
        int[] out = new int[values.length];
        for (int value : values) {
            if (sampled(value, rate)) {
                out[n++] = value;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    /**
     * How many sampled values a candidate must share with the query when the containment asked for needs {@code
     * sharedShingles} shingles in common: the largest t ≥ 1 with P(Binomial(sharedShingles, 1/rate) &lt; t) ≤
     * {@link #MISS_PROBABILITY}.
     */
    public static int minSharedSamples(long sharedShingles, int rate) {
        if (sharedShingles <= 0 || rate == 1) {
            return (int) Math.max(1, Math.min(Integer.MAX_VALUE, sharedShingles));
        }
        double p = 1.0 / rate;
        double mean = sharedShingles * p;
        if (mean > 200) {
            // Normal approximation of the binomial's lower tail, with continuity correction; z for 1e-3.
            double sd = Math.sqrt(sharedShingles * p * (1 - p));
            return (int) Math.max(1, Math.floor(mean - 3.0902 * sd + 0.5));
        }
        // P(X = 0) = (1 - p)^s, then P(X = k + 1) = P(X = k) (s - k) / (k + 1) p / (1 - p).
        double pmf = Math.exp(sharedShingles * Math.log1p(-p));
        double cdf = 0;
        int t = 0;
        while (t < sharedShingles && cdf + pmf <= MISS_PROBABILITY) {
            cdf += pmf;
            pmf *= (sharedShingles - t) / (t + 1.0) * p / (1 - p);
            t++;
        }
        // cdf = P(X < t) <= MISS_PROBABILITY, and P(X < t + 1) would exceed it.
        return Math.max(1, t);
    }

    /** The number of shingles of a set of {@code size} that containment {@code c} needs in common: ⌈c · size⌉. */
    public static long sharedShinglesFor(double containment, int size) {
        return (long) Math.ceil(containment * size - 1e-9);
    }
}
