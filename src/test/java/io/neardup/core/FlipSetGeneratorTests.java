/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.common.SuppressForbidden;
import org.opensearch.test.OpenSearchTestCase;

public class FlipSetGeneratorTests extends OpenSearchTestCase {

    /** A flip set as the brute force sees it: a mask over fingerprint bits and its log-probability. */
    private record Combo(long mask, double logP, int size) {}

    /**
     * Every set of size <= h of the p prefix indices, by brute force over all 2^p subsets, sorted by
     * decreasing probability (ties: smaller set first, as the generator documents).
     */
    private static List<Combo> bruteForce(double[] logP, int p, int h) {
        List<Combo> all = new ArrayList<>();
        for (long subset = 0; subset < (1L << p); subset++) {
            int size = Long.bitCount(subset);
            if (size > h) {
                continue;
            }
            double s = 0;
            long mask = 0;
            for (int i = 0; i < p; i++) {
                if ((subset >>> i & 1) != 0) {
                    s += logP[i];
                    mask |= 1L << (63 - i);
                }
            }
            all.add(new Combo(mask, s, size));
        }
        all.sort((a, b) -> a.logP != b.logP ? Double.compare(b.logP, a.logP) : Integer.compare(a.size, b.size));
        return all;
    }

    private static double[] randomLogP(SplittableRandom random, int p) {
        double[] logP = new double[p];
        for (int i = 0; i < p; i++) {
            // Probabilities in (0, 1): continuous, so exact ties between different sets are impossible
            // except through floating-point summation order (handled below by a 1e-12 tolerance).
            logP[i] = Math.log(random.nextDouble(1e-6, 1.0));
        }
        return logP;
    }

    @Test
    public void testEmitsExactlyTheTopKInOrderAgainstBruteForce() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 300; iter++) {
            int p = 1 + random.nextInt(14);
            int h = random.nextInt(Math.min(p, 6) + 1);
            double[] logP = randomLogP(random, p);
            List<Combo> expected = bruteForce(logP, p, h);
            int k = 1 + random.nextInt(Math.min(FlipSetGenerator.MAX_K, expected.size() + 5));
            FlipSetGenerator g = new FlipSetGenerator();
            g.reset(logP, p, h, k);
            int n = 0;
            Set<Long> seen = new HashSet<>();
            while (g.next()) {
                Combo e = expected.get(n);
                String where = "iter " + iter + " p=" + p + " h=" + h + " k=" + k + " set #" + n;
                assertTrue(where + ": duplicate " + Long.toHexString(g.mask()), seen.add(g.mask()));
                assertEquals(where, Long.bitCount(g.mask()), g.size());
                if (e.mask != g.mask()) {
                    // Only a float-rounding tie may reorder two sets.
                    assertEquals(
                            where + ": got " + Long.toHexString(g.mask()) + ", expected " + Long.toHexString(e.mask),
                            e.logP,
                            g.logProbability(),
                            1e-12);
                }
                assertEquals(where, e.logP, g.logProbability(), 1e-12);
                n++;
            }
            assertEquals("iter " + iter + " p=" + p + " h=" + h + ": count", Math.min(k, expected.size()), n);
            // The emitted set of sets equals the brute-force top n (as multisets of probabilities too).
            Set<Long> top = new HashSet<>();
            for (int i = 0; i < n; i++) {
                top.add(expected.get(i).mask);
            }
            assertEquals("iter " + iter, top, seen);
        }
    }

    @Test
    public void testTiesFromQuantizedMarginsCompareAsMultisets() {
        // Real margins are bytes: many equal probabilities, so the order of equal sets is ours to
        // choose. Compare the sequence of probabilities with the brute force's (a multiset check).
        SplittableRandom random = new SplittableRandom(randomLong());
        double[] w = new double[64];
        double[] logP = new double[64];
        for (int iter = 0; iter < 100; iter++) {
            for (int i = 0; i < 64; i++) {
                w[i] = random.nextInt(7) - 3; // coarse: lots of equal |W|
            }
            int p = 1 + random.nextInt(12);
            int h = random.nextInt(Math.min(p, 4) + 1);
            FlipModel model = iter % 2 == 0 ? FlipModel.marginComplement() : FlipModel.gaussian(0.2);
            model.logFlipProbabilities(Margins.of(w, 64), p, logP);
            List<Combo> expected = bruteForce(logP, p, h);
            FlipSetGenerator g = new FlipSetGenerator();
            g.reset(logP, p, h, FlipSetGenerator.MAX_K);
            int n = 0;
            Set<Long> seen = new HashSet<>();
            while (g.next()) {
                assertTrue("iter " + iter + ": duplicate", seen.add(g.mask()));
                assertEquals("iter " + iter + " set #" + n, expected.get(n).logP, g.logProbability(), 1e-9);
                n++;
            }
            assertEquals("iter " + iter, expected.size(), n);
        }
    }

    @Test
    public void testEmptySetFirstThenSingleBitMaskIsMsbFirst() {
        double[] logP = new double[64];
        Arrays.fill(logP, Math.log(0.01));
        logP[5] = Math.log(0.4); // the weakest bit: prefix index 5 is fingerprint bit 58
        FlipSetGenerator g = new FlipSetGenerator();
        g.reset(logP, 20, 3, 3);
        assertTrue(g.next());
        assertEquals(0L, g.mask());
        assertEquals(0, g.size());
        assertEquals(0.0, g.logProbability(), 0.0);
        assertTrue(g.next());
        assertEquals(1L << 58, g.mask());
        assertEquals(5, g.weakest(0));
        assertTrue(g.next());
        assertFalse("k = 3 sets", g.next());
        assertEquals(3, g.emitted());
    }

    @Test
    public void testLiteralNextMatchesThesisExamples() {
        // Index vectors, 0-based here (the thesis counts from 1; Fig. 3 starts at {1, 2, 3}).
        int[] b1 = new int[8];
        int[] b2 = new int[8];
        // (0, 2): B1 = (0, 3), B2 = (1, 2).
        assertEquals(3, FlipSetGenerator.successors(new int[] {0, 2}, 2, 10, b1, b2));
        assertArrayEquals(new int[] {0, 3}, Arrays.copyOf(b1, 2));
        assertArrayEquals(new int[] {1, 2}, Arrays.copyOf(b2, 2));
        // (0, 1, 2): only B1 = (0, 1, 3).
        assertEquals(1, FlipSetGenerator.successors(new int[] {0, 1, 2}, 3, 10, b1, b2));
        assertArrayEquals(new int[] {0, 1, 3}, Arrays.copyOf(b1, 3));
        // (0, 1, 3): B1 = (0, 1, 4), B2 = (0, 2, 3).
        assertEquals(3, FlipSetGenerator.successors(new int[] {0, 1, 3}, 3, 10, b1, b2));
        assertArrayEquals(new int[] {0, 2, 3}, Arrays.copyOf(b2, 3));
        // (0, 2, 3): B2 walks back over the run (2, 3) to the gap of 2: (1, 2, 3).
        assertEquals(3, FlipSetGenerator.successors(new int[] {0, 2, 3}, 3, 10, b1, b2));
        assertArrayEquals(new int[] {1, 2, 3}, Arrays.copyOf(b2, 3));
        // (0, 3, 4): the gap before the run is 3: no B2.
        assertEquals(1, FlipSetGenerator.successors(new int[] {0, 3, 4}, 3, 10, b1, b2));
        // B1 past the list's end does not exist.
        assertEquals(0, FlipSetGenerator.successors(new int[] {9}, 1, 10, b1, b2));
        assertEquals(0, FlipSetGenerator.successors(new int[0], 0, 10, b1, b2));
    }

    @Test
    public void testNextIsASpanningTree() {
        // From the most probable set of each size, `next` reaches every combination exactly once:
        // that is what makes the heap enumeration complete and duplicate-free.
        int[] b1 = new int[8];
        int[] b2 = new int[8];
        for (int p = 1; p <= 12; p++) {
            for (int l = 1; l <= Math.min(p, 5); l++) {
                Set<String> seen = new HashSet<>();
                List<int[]> stack = new ArrayList<>();
                int[] root = new int[l];
                for (int i = 0; i < l; i++) {
                    root[i] = i;
                }
                stack.add(root);
                while (!stack.isEmpty()) {
                    int[] b = stack.remove(stack.size() - 1);
                    assertTrue(
                            "p=" + p + " l=" + l + ": reached twice " + Arrays.toString(b),
                            seen.add(Arrays.toString(b)));
                    int r = FlipSetGenerator.successors(b, l, p, b1, b2);
                    if ((r & 1) != 0) {
                        stack.add(Arrays.copyOf(b1, l));
                    }
                    if ((r & 2) != 0) {
                        stack.add(Arrays.copyOf(b2, l));
                    }
                }
                assertEquals("p=" + p + " l=" + l, binomial(p, l), seen.size());
            }
        }
    }

    @Test
    public void testBitSetNextAgreesWithLiteralNext() {
        // The generator runs `next` on rank bit sets; the literal index-vector version is the
        // specification. Compare them on every combination of size <= 6 of p <= 14 ranks.
        int[] b1 = new int[8];
        int[] b2 = new int[8];
        int[] b = new int[8];
        for (int p = 1; p <= 14; p++) {
            for (long ranks = 1; ranks < (1L << p); ranks++) {
                int l = Long.bitCount(ranks);
                if (l > 6) {
                    continue;
                }
                int n = 0;
                for (long m = ranks; m != 0; m &= m - 1) {
                    b[n++] = Long.numberOfTrailingZeros(m);
                }
                int r = FlipSetGenerator.successors(b, l, p, b1, b2);
                String where = "p=" + p + " " + Arrays.toString(Arrays.copyOf(b, l));
                assertEquals(where + " B1", (r & 1) != 0 ? toRanks(b1, l) : 0L, FlipSetGenerator.successor1(ranks, p));
                assertEquals(where + " B2", (r & 2) != 0 ? toRanks(b2, l) : 0L, FlipSetGenerator.successor2(ranks));
            }
        }
    }

    private static long toRanks(int[] b, int l) {
        long r = 0;
        for (int i = 0; i < l; i++) {
            r |= 1L << b[i];
        }
        return r;
    }

    @Test
    public void testCountsPerSizeAreBinomials() {
        for (int p = 1; p <= 16; p++) {
            double[] logP = new double[p];
            for (int i = 0; i < p; i++) {
                logP[i] = -1.0 - i * 0.37;
            }
            for (int h = 0; h <= Math.min(p, 4); h++) {
                FlipSetGenerator g = new FlipSetGenerator();
                g.reset(logP, p, h, FlipSetGenerator.MAX_K);
                long[] bySize = new long[h + 1];
                while (g.next()) {
                    bySize[g.size()]++;
                }
                for (int l = 0; l <= h; l++) {
                    assertEquals("p=" + p + " h=" + h + " size " + l, binomial(p, l), bySize[l]);
                }
            }
        }
    }

    @Test
    public void testUniformOrderCoversAllSingleFlipsAtExactlyPPlusOne() {
        // Known property: with equal probabilities below 1, the empty set and every single flip
        // come first (p + 1 sets), before any pair.
        int p = 20;
        double[] logP = new double[64];
        FlipModel.uniform().logFlipProbabilities(Margins.of(new double[64], 64), p, logP);
        FlipSetGenerator g = new FlipSetGenerator();
        g.reset(logP, p, 3, p + 2);
        long singles = 0;
        for (int i = 0; i < p + 1; i++) {
            assertTrue(g.next());
            assertTrue("set #" + i + " has size " + g.size(), g.size() <= 1);
            singles |= g.mask();
        }
        assertEquals("every prefix bit once", -1L << (64 - p), singles);
        assertTrue(g.next());
        assertEquals(2, g.size());
    }

    @Test
    public void testSizesAreCappedByPrefix() {
        FlipSetGenerator g = new FlipSetGenerator();
        g.reset(new double[] {-1, -2}, 2, 8, 100);
        int n = 0;
        while (g.next()) {
            n++;
        }
        assertEquals(4, n); // {}, {a}, {b}, {a, b}
    }

    @Test
    public void testReuseGivesTheSameSequence() {
        SplittableRandom random = new SplittableRandom(randomLong());
        double[] logP = randomLogP(random, 20);
        FlipSetGenerator g = new FlipSetGenerator();
        long[] first = new long[500];
        g.reset(logP, 20, 3, 500);
        for (int i = 0; g.next(); i++) {
            first[i] = g.mask();
        }
        g.reset(randomLogP(random, 30), 30, 5, 2000);
        while (g.next()) {
            // drain with other parameters
        }
        g.reset(logP, 20, 3, 500);
        for (int i = 0; g.next(); i++) {
            assertEquals("set #" + i, first[i], g.mask());
        }
    }

    @Test
    @SuppressForbidden(reason = "HotSpot's per-thread allocation counter is the measurement")
    public void testNextAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        SplittableRandom random = new SplittableRandom(randomLong());
        double[] logP = randomLogP(random, 20);
        FlipSetGenerator g = new FlipSetGenerator();
        long sink = 0;
        for (int warm = 0; warm < 200; warm++) {
            g.reset(logP, 20, 3, 256);
            while (g.next()) {
                sink += g.mask();
            }
        }
        long before = bean.getCurrentThreadAllocatedBytes();
        for (int rep = 0; rep < 100; rep++) {
            g.reset(logP, 20, 3, 256);
            while (g.next()) {
                sink += g.mask();
            }
        }
        long allocated = bean.getCurrentThreadAllocatedBytes() - before;
        // Tolerance: the measurement itself may allocate a few hundred bytes; 25,600 sets would
        // allocate at least 400 KB if each allocated even one small object.
        assertTrue("allocated " + allocated + " bytes (sink " + sink + ")", allocated < 4096);
    }

    @Test
    public void testValidationMessages() {
        FlipSetGenerator g = new FlipSetGenerator();
        double[] logP = new double[64];
        assertEquals(
                "prefix_bits must be in [1, 64], got 0",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 0, 3, 10))
                        .getMessage());
        assertEquals(
                "prefix_bits must be in [1, 64], got 65",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 65, 3, 10))
                        .getMessage());
        assertEquals(
                "max_distance must be in [0, 8], got 9",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 20, 9, 10))
                        .getMessage());
        assertEquals(
                "max_distance must be in [0, 8], got -1",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 20, -1, 10))
                        .getMessage());
        assertEquals(
                "k must be in [1, 10000], got 0",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 20, 3, 0))
                        .getMessage());
        assertEquals(
                "k must be in [1, 10000], got 10001",
                assertThrows(IllegalArgumentException.class, () -> g.reset(logP, 20, 3, 10_001))
                        .getMessage());
        assertEquals(
                "log_flip_probabilities must have length >= 20, got 5",
                assertThrows(IllegalArgumentException.class, () -> g.reset(new double[5], 20, 3, 10))
                        .getMessage());
        double[] bad = new double[20];
        bad[7] = 0.5;
        assertEquals(
                "log_flip_probabilities[7] must be <= 0 (a log-probability), got 0.5",
                assertThrows(IllegalArgumentException.class, () -> g.reset(bad, 20, 3, 10))
                        .getMessage());
        bad[7] = Double.NaN;
        assertEquals(
                "log_flip_probabilities[7] must be <= 0 (a log-probability), got NaN",
                assertThrows(IllegalArgumentException.class, () -> g.reset(bad, 20, 3, 10))
                        .getMessage());
        assertEquals(
                "probabilities[1] must be in [0, 1], got 1.5",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> FlipSetGenerator.logOf(new double[] {0.5, 1.5}, new double[2]))
                        .getMessage());
    }

    static long binomial(int n, int r) {
        long c = 1;
        for (int i = 0; i < r; i++) {
            c = c * (n - i) / (i + 1);
        }
        return c;
    }

    /** The per-thread flip-set heap stays within the stated figure at the caps (h = 8, k = 10,000): 160 KB. */
    @Test
    public void heapAtTheCapsIsTheStatedBound() {
        FlipSetGenerator generator = new FlipSetGenerator();
        double[] logP = new double[64];
        Arrays.fill(logP, Math.log(0.1));
        generator.reset(logP, 64, FlipSetGenerator.MAX_DISTANCE, FlipSetGenerator.MAX_K);
        int emitted = 0;
        while (generator.next()) {
            emitted++;
        }
        assertEquals(FlipSetGenerator.MAX_K, emitted);
        long bound = FlipSetGenerator.heapBytesFor(FlipSetGenerator.MAX_DISTANCE, FlipSetGenerator.MAX_K);
        assertEquals(160_176, bound);
        assertEquals(bound, generator.heapBytes());
        generator.reset(logP, 20, 3, 64);
        assertEquals("a smaller query reuses the heap, it does not grow it", bound, generator.heapBytes());
    }
}
