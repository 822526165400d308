/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class MinHasherTests extends OpenSearchTestCase {

    private static final MinHasher.Method[] METHODS = MinHasher.Method.values();

    /** Two sets of random 64-bit values with exactly {@code shared} common elements out of {@code union}. */
    private record Pair(long[] a, long[] b, double jaccard) {}

    private static Pair pair(int union, int shared, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Set<Long> seen = new HashSet<>();
        long[] all = new long[union];
        for (int i = 0; i < union; ) {
            long v = random.nextLong();
            if (seen.add(v)) {
                all[i++] = v;
            }
        }
        int rest = union - shared;
        long[] a = new long[shared + (rest + 1) / 2];
        long[] b = new long[shared + rest / 2];
        System.arraycopy(all, 0, a, 0, shared);
        System.arraycopy(all, 0, b, 0, shared);
        int ia = shared;
        int ib = shared;
        for (int i = shared; i < union; i++) {
            if ((i - shared) % 2 == 0) {
                a[ia++] = all[i];
            } else {
                b[ib++] = all[i];
            }
        }
        return new Pair(a, b, (double) shared / union);
    }

    private static int matches(MinHasher mh, Pair p) {
        int[] sa = mh.signature(p.a, p.a.length);
        int[] sb = mh.signature(p.b, p.b.length);
        return (int) Math.round(MinHasher.jaccard(sa, sb) * mh.numHashes());
    }

    /**
     * Seed 000, Theorem 1 (Chernoff), lower tail: P[X < (1 - d) mu] <= exp(-mu d^2 / 2).
     * Returns the d at which that bound equals {@code p}.
     */
    static double lowerDeviation(double mu, double p) {
        return Math.sqrt(2 * Math.log(1 / p) / mu);
    }

    /**
     * Seed 000, Theorem 1, upper tail: P[X > (1 + d) mu] <= (e^d / (1 + d)^(1 + d))^mu. The seed
     * prints the bound without the exponent mu, a typo: without it the bound would not shrink
     * with k, and its own worked example uses mu. Returns the d at which it equals {@code p}.
     */
    static double upperDeviation(double mu, double p) {
        double lo = 0;
        double hi = 1;
        while (mu * (hi - (1 + hi) * Math.log1p(hi)) > Math.log(p)) {
            hi *= 2;
        }
        for (int i = 0; i < 200; i++) {
            double mid = (lo + hi) / 2;
            if (mu * (mid - (1 + mid) * Math.log1p(mid)) > Math.log(p)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return hi;
    }

    @Test
    public void testChernoffHelpersSolveTheBounds() {
        double mu = 50;
        double p = 1e-3;
        assertEquals(p, Math.exp(-mu * Math.pow(lowerDeviation(mu, p), 2) / 2), 1e-12);
        double d = upperDeviation(mu, p);
        assertEquals(p, Math.pow(Math.exp(d) / Math.pow(1 + d, 1 + d), mu), 1e-9);
    }

    @Test
    public void testEstimateStaysWithinTheChernoffBound() {
        // X = matching positions ~ sum of k indicators with P = J (Broder, "On the resemblance and containment of
        // documents", 1997), mu = kJ.
        // Each check may fail with probability at most 1e-6 (5e-7 per tail) for a random choice
        // of seeds, which the test seed draws: the 80 checks of a run fail falsely with
        // probability at most 8e-5. The union (8000) is large
        // against k (512), so one-permutation bins are essentially never empty and behave as
        // sampling without replacement, which Chernoff bounds cover as well (Hoeffding 1963).
        int k = 512;
        double failure = 1e-6;
        for (MinHasher.Method method : METHODS) {
            for (double j : new double[] {0.1, 0.3, 0.5, 0.7, 0.9}) {
                for (int trial = 0; trial < 8; trial++) {
                    int union = 8000;
                    Pair p = pair(union, (int) Math.round(j * union), randomLong());
                    MinHasher mh = MinHasher.of(k, randomLong(), method);
                    double mu = k * p.jaccard;
                    double low = (1 - lowerDeviation(mu, failure / 2)) * mu;
                    double high = (1 + upperDeviation(mu, failure / 2)) * mu;
                    int x = matches(mh, p);
                    String what = method + " J=" + j + " trial " + trial + ": " + x + " matches, bound [" + low + ", "
                            + high + "]";
                    assertTrue(what, x >= low && x <= high);
                }
            }
        }
    }

    @Test
    public void testMeanEstimateIsUnbiased() {
        // Small sets (union 200, k = 128) leave many one-permutation bins empty, so this also
        // checks that densification keeps the estimator unbiased. Tolerance: 6 standard errors
        // of the mean, estimated from the trials themselves (a false alarm under normality has
        // probability ~2e-9); a bias above ~0.014 fails (6 standard errors are 0.009 to 0.014 here).
        int k = 128;
        int trials = 400;
        for (MinHasher.Method method : METHODS) {
            for (double j : new double[] {0.2, 0.5, 0.8}) {
                double sum = 0;
                double sumSq = 0;
                for (int t = 0; t < trials; t++) {
                    Pair p = pair(200, (int) Math.round(j * 200), randomLong());
                    double est = MinHasher.jaccard(
                            MinHasher.of(k, t, method).signature(p.a, p.a.length),
                            MinHasher.of(k, t, method).signature(p.b, p.b.length));
                    sum += est;
                    sumSq += est * est;
                }
                double mean = sum / trials;
                double sd = Math.sqrt((sumSq - sum * sum / trials) / (trials - 1));
                double se = sd / Math.sqrt(trials);
                assertEquals(method + " J=" + j + " sd=" + sd, j, mean, 6 * se);
                // The spread should be that of k Bernoulli(J) trials, not inflated by correlated
                // (densified) positions: allow 1.5x for sampling noise of sd over 400 trials.
                double binomialSd = Math.sqrt(j * (1 - j) / k);
                assertTrue(method + " J=" + j + " sd " + sd + " vs binomial " + binomialSd, sd < 1.5 * binomialSd);
            }
        }
    }

    @Test
    public void testKnownSignatures() {
        // Pins both methods' outputs: stored signatures must never change for a given scheme.
        long[] hashes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertArrayEquals(
                GOLDEN_CLASSIC, MinHasher.of(8, 0, MinHasher.Method.CLASSIC).signature(hashes, 10));
        assertArrayEquals(
                GOLDEN_OPH, MinHasher.of(8, 0, MinHasher.Method.ONE_PERMUTATION).signature(hashes, 10));
    }

    // Both checked against an independent Python transcription of the documented formulas.
    private static final int[] GOLDEN_CLASSIC = {
        -1962000091, -1916773879, -1762278825, -1897064526, -1956313637, -2119494165, -1429446900, -2137058809
    };
    private static final int[] GOLDEN_OPH = {
        766514998, 1105599489, -1024381763, -1188108722, 1161619109, -192128169, 766514998, -1188108722
    };

    @Test
    public void testOrderAndDuplicatesDoNotMatter() {
        long[] hashes = new SplittableRandom(randomLong()).longs(300).toArray();
        long[] shuffledWithRepeats = new long[600];
        for (int i = 0; i < 600; i++) {
            shuffledWithRepeats[i] = hashes[(i * 7) % 300];
        }
        for (MinHasher.Method method : METHODS) {
            MinHasher mh = MinHasher.of(64, 5, method);
            assertArrayEquals(method.toString(), mh.signature(hashes, 300), mh.signature(shuffledWithRepeats, 600));
        }
    }

    @Test
    public void testCountLimitsTheInputAndOutVariantMatches() {
        long[] hashes = new SplittableRandom(randomLong()).longs(100).toArray();
        for (MinHasher.Method method : METHODS) {
            MinHasher mh = MinHasher.of(32, 1, method);
            int[] out = new int[32];
            Arrays.fill(out, 12345);
            mh.signature(hashes, 40, out);
            assertArrayEquals(mh.signature(Arrays.copyOf(hashes, 40), 40), out);
        }
    }

    @Test
    public void testEmptyInput() {
        for (MinHasher.Method method : METHODS) {
            MinHasher mh = MinHasher.of(16, 0, method);
            int[] empty = mh.signature(new long[0], 0);
            int[] expected = new int[16];
            Arrays.fill(expected, MinHasher.EMPTY);
            assertArrayEquals(expected, empty);
            assertEquals("two empty sets are equal", 1.0, MinHasher.jaccard(empty, mh.signature(new long[5], 0)), 0.0);
            assertEquals(0.0, MinHasher.jaccard(empty, mh.signature(new long[] {42}, 1)), 0.0);
        }
    }

    @Test
    public void testDensificationFillsEveryBin() {
        MinHasher mh = MinHasher.of(256, 3, MinHasher.Method.ONE_PERMUTATION);
        int[] one = mh.signature(new long[] {42}, 1);
        for (int v : one) {
            assertEquals("a one-element set copies its only value everywhere", one[0], v);
        }
        int[] five = mh.signature(new long[] {1, 2, 3, 4, 5}, 5);
        assertEquals(0, Arrays.stream(five).filter(v -> v == MinHasher.EMPTY).count());
        // Five elements fill at most five bins (fewer when two share one); every bin gets one of them.
        long distinct = Arrays.stream(five).distinct().count();
        assertTrue("distinct values: " + distinct, distinct >= 1 && distinct <= 5);
        assertEquals(0.0, MinHasher.jaccard(one, mh.signature(new long[] {43}, 1)), 0.0);
    }

    @Test
    public void testSeedChangesSignature() {
        long[] hashes = {1, 2, 3};
        for (MinHasher.Method method : METHODS) {
            assertNotEquals(
                    Arrays.toString(MinHasher.of(8, 0, method).signature(hashes, 3)),
                    Arrays.toString(MinHasher.of(8, 1, method).signature(hashes, 3)));
        }
    }

    @Test
    public void testValidation() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> MinHasher.of(0, 0, MinHasher.Method.CLASSIC));
        assertEquals("num_hashes must be in [1, 1024], got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> MinHasher.of(1025, 0, MinHasher.Method.CLASSIC));
        assertEquals("num_hashes must be in [1, 1024], got 1025", e.getMessage());
        MinHasher mh = MinHasher.of(4, 0, MinHasher.Method.CLASSIC);
        e = assertThrows(IllegalArgumentException.class, () -> mh.signature(new long[2], 3));
        assertEquals("count must be in [0, 2], got 3", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> mh.signature(new long[2], 2, new int[5]));
        assertEquals("out has length 5, expected 4", e.getMessage());
    }

    @Test
    public void testJaccardRejectsLengthMismatch() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> MinHasher.jaccard(new int[64], new int[128]));
        assertEquals("minhash signatures differ in length: 64 vs 128", e.getMessage());
        assertEquals(0.75, MinHasher.jaccard(new int[] {1, 2, 3, 4}, new int[] {1, 2, 3, 5}), 0.0);
    }

    @Test
    public void testParseMethod() {
        assertSame(MinHasher.Method.CLASSIC, MinHasher.Method.parse("classic"));
        assertSame(MinHasher.Method.ONE_PERMUTATION, MinHasher.Method.parse("one_permutation"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MinHasher.Method.parse("oph"));
        assertEquals("unknown minhash method [oph], expected one of [classic, one_permutation]", e.getMessage());
    }
}
