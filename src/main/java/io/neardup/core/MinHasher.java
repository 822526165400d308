/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.Locale;

/**
 * MinHash signatures of sets of 64-bit shingle hashes (Broder, "On the resemblance and containment of documents", 1997; Broder et al., "Min-wise independent permutations", 1998): the fraction of
 * positions where two signatures agree estimates the Jaccard similarity of the sets. Immutable and
 * thread-safe: all per-call state is local or in the caller's output array.
 *
 * <p>Methods:
 * <ul>
 *   <li>{@link Method#CLASSIC}: k hash functions {@code h_i(x) = high32(fmix64(x ^ s_i))} with
 *       per-function seeds {@code s_i} derived from the seed; value i is the minimum of h_i over
 *       the set. O(n k).</li>
 *   <li>{@link Method#ONE_PERMUTATION}: one hash {@code g = fmix64(x ^ s)} per element; its high
 *       32 bits choose one of k bins, its low 32 bits are the value, and each bin keeps its
 *       minimum (one-permutation hashing, Li, Owen and Zhang 2012). Bins left empty are filled by
 *       Shrivastava's "optimal densification" (ICML 2017): empty bin i probes bins
 *       {@code j = u(i, 1), u(i, 2), ...} with a fixed hash u until it meets a bin that was
 *       non-empty before densification, and copies its value. The probes depend only on (seed, i,
 *       attempt), so two sets with the same empty bins copy from the same places, which keeps the
 *       estimator unbiased. O(n + k) when n >= k; a set with m << k distinct elements costs about
 *       k^2 / m probes (1M hash evaluations at k = 1024, m = 1, still a few ms).</li>
 * </ul>
 * Values compare as signed ints; the minimum over an empty set is {@link #EMPTY}.
 *
 * <p>Empty input gives a signature of all {@link #EMPTY}; two such signatures have estimated
 * Jaccard 1 (the sets are equal), and one against any non-empty set has about 0. A real minimum
 * equal to {@link #EMPTY} (probability 2^-32 per value) is indistinguishable from an empty bin and
 * is handled as one, the same way for every document.
 */
public final class MinHasher {
    public static final int MAX_HASHES = 1024;
    public static final int EMPTY = Integer.MAX_VALUE;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private static final long SALT_CLASSIC = 0x636c6173736963L; // "classic"
    private static final long SALT_OPH = 0x6f6e655f7065726dL; // "one_perm"
    private static final long SALT_DENSIFY = 0x64656e7369667921L; // "densify!"

    /** How the k minima are computed; part of the scheme, since it changes the values. */
    public enum Method {
        CLASSIC("classic"),
        ONE_PERMUTATION("one_permutation");

        private final String paramName;

        Method(String paramName) {
            this.paramName = paramName;
        }

        public String paramName() {
            return paramName;
        }

        public static Method parse(String value) {
            if (value != null) {
                String v = value.toLowerCase(Locale.ROOT);
                for (Method m : values()) {
                    if (m.paramName.equals(v)) {
                        return m;
                    }
                }
            }
            throw new IllegalArgumentException(
                    "unknown minhash method [" + value + "], expected one of [classic, one_permutation]");
        }
    }

    private final int numHashes;
    private final long seed;
    private final Method method;
    /** CLASSIC: one seed per hash function. Never exposed, never mutated after construction. */
    private final long[] functionSeeds;

    private final long binSeed;
    private final long densifySeed;

    private MinHasher(int numHashes, long seed, Method method) {
        this.numHashes = numHashes;
        this.seed = seed;
        this.method = method;
        long classic = Murmur3.fmix64(seed ^ SALT_CLASSIC);
        this.functionSeeds = new long[method == Method.CLASSIC ? numHashes : 0];
        for (int i = 0; i < functionSeeds.length; i++) {
            functionSeeds[i] = Murmur3.fmix64(classic + (i + 1) * GOLDEN);
        }
        this.binSeed = Murmur3.fmix64(seed ^ SALT_OPH);
        this.densifySeed = Murmur3.fmix64(seed ^ SALT_DENSIFY);
    }

    public static MinHasher of(int numHashes, long seed, Method method) {
        if (numHashes < 1 || numHashes > MAX_HASHES) {
            throw new IllegalArgumentException("num_hashes must be in [1, " + MAX_HASHES + "], got " + numHashes);
        }
        if (method == null) {
            throw new IllegalArgumentException("minhash method must not be null");
        }
        return new MinHasher(numHashes, seed, method);
    }

    public int numHashes() {
        return numHashes;
    }

    public long seed() {
        return seed;
    }

    public Method method() {
        return method;
    }

    /** The signature of the first {@code count} hashes (duplicates allowed, order irrelevant). */
    public int[] signature(long[] hashes, int count) {
        int[] out = new int[numHashes];
        signature(hashes, count, out);
        return out;
    }

    /** As {@link #signature(long[], int)}, into {@code out} of length {@link #numHashes()}. */
    public void signature(long[] hashes, int count, int[] out) {
        if (count < 0 || count > hashes.length) {
            throw new IllegalArgumentException("count must be in [0, " + hashes.length + "], got " + count);
        }
        if (out.length != numHashes) {
            throw new IllegalArgumentException("out has length " + out.length + ", expected " + numHashes);
        }
        Arrays.fill(out, EMPTY);
        if (method == Method.CLASSIC) {
            classic(hashes, count, out);
        } else {
            onePermutation(hashes, count, out);
        }
    }

    private void classic(long[] hashes, int count, int[] out) {
        final long[] s = functionSeeds;
        for (int e = 0; e < count; e++) {
            final long x = hashes[e];
            for (int i = 0; i < out.length; i++) {
                int v = (int) (Murmur3.fmix64(x ^ s[i]) >>> 32);
                if (v < out[i]) {
                    out[i] = v;
                }
            }
        }
    }

    private void onePermutation(long[] hashes, int count, int[] out) {
        if (count == 0) {
            return;
        }
        final int k = out.length;
        for (int e = 0; e < count; e++) {
            long g = Murmur3.fmix64(hashes[e] ^ binSeed);
            int bin = (int) (((g >>> 32) * k) >>> 32);
            int v = (int) g;
            if (v < out[bin]) {
                out[bin] = v;
            }
        }
        // Which bins were filled by data; densified bins must never be copied from.
        long[] full = new long[(k + 63) >>> 6];
        int filled = 0;
        for (int i = 0; i < k; i++) {
            if (out[i] != EMPTY) {
                full[i >>> 6] |= 1L << i;
                filled++;
            }
        }
        if (filled == 0 || filled == k) {
            return; // filled == 0 only if every minimum equals EMPTY: treat as the empty set
        }
        for (int i = 0; i < k; i++) {
            if ((full[i >>> 6] & (1L << i)) != 0) {
                continue;
            }
            for (long attempt = 1; ; attempt++) {
                long r = Murmur3.fmix64(densifySeed ^ ((long) i << 32 | attempt));
                int j = (int) (((r >>> 32) * k) >>> 32);
                if ((full[j >>> 6] & (1L << j)) != 0) {
                    out[i] = out[j];
                    break;
                }
            }
        }
    }

    /** The fraction of positions where {@code a} and {@code b} agree: the Jaccard estimate. */
    public static double jaccard(int[] a, int[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("minhash signatures differ in length: " + a.length + " vs " + b.length);
        }
        if (a.length == 0) {
            throw new IllegalArgumentException("minhash signatures must not be empty");
        }
        int equal = 0;
        for (int i = 0; i < a.length; i++) {
            if (a[i] == b[i]) {
                equal++;
            }
        }
        return (double) equal / a.length;
    }

    /**
     * The same estimate on two signatures in their stored layout (4 bytes a value), compared in place:
     * the fraction of the {@code length / 4} values that are equal.
     */
    public static double jaccard(byte[] a, int aOffset, byte[] b, int bOffset, int length) {
        if (length <= 0 || length % 4 != 0) {
            throw new IllegalArgumentException("a stored signature has 4 bytes a value, got " + length + " bytes");
        }
        int equal = 0;
        for (int i = 0; i < length; i += 4) {
            if (Arrays.equals(a, aOffset + i, aOffset + i + 4, b, bOffset + i, bOffset + i + 4)) {
                equal++;
            }
        }
        return (double) equal / (length / 4);
    }

    @Override
    public String toString() {
        return "MinHasher[num_hashes=" + numHashes + ", seed=" + seed + ", method=" + method.paramName + "]";
    }
}
