/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.opensearch.test.OpenSearchTestCase;

public class ContainmentSamplingTests extends OpenSearchTestCase {

    private static int[] sortedDistinct(SplittableRandom random, int n) {
        long[] hashes = random.longs(n).toArray();
        return ShingleSetCodec.of(hashes, hashes.length);
    }

    /** A value is sampled or not whatever set it is in: the sample of a subset is the subset of the sample. */
    public void testTheSampleOfASubsetIsTheSubsetOfTheSample() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int[] host = sortedDistinct(random, 5000);
        int[] embedded = Arrays.copyOfRange(host, 1000, 1400);
        int[] hostSample = ContainmentSampling.sample(host, 4);
        int[] embeddedSample = ContainmentSampling.sample(embedded, 4);
        for (int value : embeddedSample) {
            assertTrue(Arrays.binarySearch(hostSample, value) >= 0 || containsUnsigned(hostSample, value));
        }
        long inWindow = Arrays.stream(hostSample)
                .filter(v -> Integer.compareUnsigned(v, embedded[0]) >= 0
                        && Integer.compareUnsigned(v, embedded[embedded.length - 1]) <= 0)
                .count();
        assertEquals(inWindow, embeddedSample.length);
    }

    private static boolean containsUnsigned(int[] values, int value) {
        return Arrays.stream(values).anyMatch(v -> v == value);
    }

    /** About one value in r, for every rate; rate 1 keeps all. */
    public void testSamplesAboutOneValueInRate() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int[] set = sortedDistinct(random, 40_000);
        assertArrayEquals(set, ContainmentSampling.sample(set, 1));
        for (int rate : new int[] {2, 4, 8, 64}) {
            double expected = set.length / (double) rate;
            double sd = Math.sqrt(set.length * (1.0 / rate) * (1 - 1.0 / rate));
            int sampled = ContainmentSampling.sample(set, rate).length;
            assertTrue(rate + ": " + sampled, Math.abs(sampled - expected) < 5 * sd);
        }
        expectThrows(IllegalArgumentException.class, () -> ContainmentSampling.requireRate(0));
        expectThrows(IllegalArgumentException.class, () -> ContainmentSampling.requireRate(65));
    }

    /** The threshold against the binomial's lower tail summed term by term in log space, on both sides of it. */
    public void testMinSharedSamplesIsTheBinomialQuantile() {
        for (int rate : new int[] {2, 4, 8}) {
            for (long shared : new long[] {1, 5, 13, 22, 60, 400, 3000}) {
                int t = ContainmentSampling.minSharedSamples(shared, rate);
                assertTrue(t >= 1);
                double below = binomialCdf(shared, 1.0 / rate, t - 1);
                if (t > 1) {
                    assertTrue(shared + "/" + rate + ": P(X < " + t + ") = " + below, below <= 1.2e-3);
                }
                if (shared / rate < 200) {
                    assertTrue(
                            shared + "/" + rate + ": t + 1 must miss more",
                            binomialCdf(shared, 1.0 / rate, t) > ContainmentSampling.MISS_PROBABILITY);
                }
            }
        }
        assertEquals(1, ContainmentSampling.minSharedSamples(13, 4));
        assertEquals(7, ContainmentSampling.minSharedSamples(7, 1));
    }

    /** P(X ≤ k) for X ~ Binomial(n, p), each term from logarithms of factorials. */
    private static double binomialCdf(long n, double p, long k) {
        double sum = 0;
        for (long i = 0; i <= k; i++) {
            double log = logFactorial(n)
                    - logFactorial(i)
                    - logFactorial(n - i)
                    + i * Math.log(p)
                    + (n - i) * Math.log1p(-p);
            sum += Math.exp(log);
        }
        return sum;
    }

    private static double logFactorial(long n) {
        double sum = 0;
        for (long i = 2; i <= n; i++) {
            sum += Math.log(i);
        }
        return sum;
    }

    /** The intersection of two payloads against a count over the two value arrays. */
    public void testContainmentOfPayloads() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int[] host = sortedDistinct(random, 3000);
        int[] other = sortedDistinct(random, 100);
        int[] embedded = new int[200];
        System.arraycopy(host, 500, embedded, 0, 150);
        System.arraycopy(other, 0, embedded, 150, 50);
        embedded = ShingleSetCodec.of(
                Arrays.stream(embedded).mapToLong(v -> (long) v << 32).toArray(), 200);
        byte[] a = ShingleSetCodec.payload(embedded);
        byte[] b = ShingleSetCodec.payload(host);
        // Counted on the arrays, not the payloads: what the merge must agree with.
        int common = (int) Arrays.stream(embedded)
                .filter(v -> Arrays.stream(host).anyMatch(h -> h == v))
                .count();
        assertTrue(common >= 150);
        assertEquals(common, ShingleSetCodec.intersectionSize(a, 0, a.length, b, 0, b.length));
        assertEquals(common, ShingleSetCodec.intersectionSizeIfAtLeast(a, 0, a.length, b, 0, b.length, common));
        assertEquals(-1, ShingleSetCodec.intersectionSizeIfAtLeast(b, 0, b.length, a, 0, a.length, common + 1));
        assertEquals(
                (double) common / (host.length + embedded.length - common),
                ShingleSetCodec.jaccard(a, 0, a.length, b, 0, b.length),
                0);
        assertEquals(embedded.length, ShingleSetCodec.count(a, 0, a.length));
        byte[] empty = ShingleSetCodec.payload(new int[0]);
        assertEquals(0, ShingleSetCodec.intersectionSizeIfAtLeast(empty, 0, empty.length, b, 0, b.length, 0));
    }
}
