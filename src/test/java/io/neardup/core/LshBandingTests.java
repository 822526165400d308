/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class LshBandingTests {

    /** datasketch's worked example: MinHashLSH(threshold=0.9, num_perm=128) → b = 5, r = 25. */
    @Test
    public void testDatasketchWorkedExample() {
        assertEquals(new LshBanding(5, 25), LshBanding.optimal(0.9, 128));
    }

    /** Reference values computed with datasketch's _optimal_param code (scipy quad). */
    @Test
    public void testMatchesDatasketchReference() {
        assertEquals(new LshBanding(9, 13), LshBanding.optimal(0.8, 128));
        assertEquals(new LshBanding(25, 5), LshBanding.optimal(0.5, 128));
        assertEquals(new LshBanding(17, 15), LshBanding.optimal(0.8, 256));
        assertEquals(new LshBanding(10, 6), LshBanding.optimal(0.7, 64, 0.3, 0.7));
        assertEquals(new LshBanding(51, 20), LshBanding.optimal(0.8, 1024));
    }

    @Test
    public void testAreasAgainstClosedForm() {
        // b = r = 1: P(s) = s, FP = t^2 / 2, FN = (1 - t)^2 / 2.
        assertEquals(0.32, LshBanding.falsePositiveArea(0.8, 1, 1), 1e-12);
        assertEquals(0.02, LshBanding.falseNegativeArea(0.8, 1, 1), 1e-12);
        // b = 1, r = 2: FP = t^3 / 3.
        assertEquals(0.512 / 3, LshBanding.falsePositiveArea(0.8, 1, 2), 1e-12);
        LshBanding banding = new LshBanding(5, 25);
        assertEquals(0.0, banding.candidateProbability(0.0), 0.0);
        assertEquals(1.0, banding.candidateProbability(1.0), 0.0);
        assertTrue(banding.candidateProbability(0.95) > 0.5 && banding.candidateProbability(0.7) < 0.01);
    }

    @Test
    public void testValidation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LshBanding.of(10, 13, 128));
        assertEquals("bands * rows must be at most num_hashes [128], got bands [10] * rows [13] = 130", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LshBanding.optimal(1.0, 128));
        assertEquals("threshold must be in (0, 1), got 1.0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LshBanding.optimal(0.5, 2000));
        assertEquals("num_hashes must be in [1, 1024], got 2000", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new LshBanding(0, 3));
        assertEquals("bands and rows must be at least 1, got bands [0] rows [3]", e.getMessage());
        assertEquals(new LshBanding(8, 16), LshBanding.of(8, 16, 128));
    }

    /** The floor rule: the longest bands that still find pairs at the floor with probability 0.99, as many as fit. */
    @Test
    public void testForFloor() {
        assertEquals(new LshBanding(42, 3), LshBanding.forFloor(0.5, 128));
        assertEquals(new LshBanding(21, 6), LshBanding.forFloor(0.8, 128));
        for (double floor : new double[] {0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
            for (int k : new int[] {64, 128, 256}) {
                LshBanding banding = LshBanding.forFloor(floor, k);
                assertTrue(floor + "/" + k, banding.candidateProbability(floor) >= LshBanding.CANDIDATE_RECALL);
                assertEquals(k / banding.rows(), banding.bands());
                if (banding.rows() < k) {
                    int r = banding.rows() + 1;
                    assertTrue(
                            "longer bands would miss pairs at the floor",
                            1 - Math.pow(1 - Math.pow(floor, r), k / r) < 0.99);
                }
                assertTrue(banding.floor() <= floor + 1e-9);
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LshBanding.forFloor(0.01, 16));
        assertEquals(
                "min_similarity_floor [0.01] is too low for num_hashes [16]: even 16 bands of one value find a pair at that "
                        + "similarity with probability 0.149 < 0.99",
                e.getMessage());
    }

    /** At least m of b bands: checked against the binomial sum written out, including m = 1 (one band). */
    @Test
    public void testCandidateProbabilityWithMinBandMatches() {
        LshBanding banding = new LshBanding(9, 13);
        for (double s : new double[] {0.1, 0.5, 0.8, 0.95}) {
            double classic = 1 - Math.pow(1 - Math.pow(s, 13), 9);
            assertEquals(classic, banding.candidateProbability(1, s), 1e-12);
            assertEquals(banding.candidateProbability(s), banding.candidateProbability(1, s), 1e-12);
            double p = Math.pow(s, 13);
            assertEquals(classic - 9 * p * Math.pow(1 - p, 8), banding.candidateProbability(2, s), 1e-12);
        }
        assertEquals(1.0, banding.candidateProbability(9, 1.0), 0.0);
        assertEquals(0.0, banding.candidateProbability(1, 0.0), 0.0);
        // Many bands: no underflow. 1024 bands of one row at s = 0.5: P(X >= 512) is about one half.
        assertEquals(0.5, new LshBanding(1024, 1).candidateProbability(512, 0.5), 0.02);
    }

    /** The automatic min_band_matches keeps 0.99 at the threshold and is the largest that does. */
    @Test
    public void testMinBandMatchesFor() {
        LshBanding banding = LshBanding.forFloor(0.5, 128);
        assertEquals(1, banding.minBandMatchesFor(0.5));
        assertEquals(1, banding.minBandMatchesFor(0.3));
        int previous = 1;
        for (double tau : new double[] {0.6, 0.7, 0.8, 0.9, 0.95}) {
            int m = banding.minBandMatchesFor(tau);
            assertTrue(tau + ": " + m, m >= previous);
            assertTrue(banding.candidateProbability(m, tau) >= LshBanding.CANDIDATE_RECALL);
            if (m < banding.bands()) {
                assertTrue(banding.candidateProbability(m + 1, tau) < LshBanding.CANDIDATE_RECALL);
            }
            previous = m;
        }
        assertTrue("at 0.9 most bands must agree", banding.minBandMatchesFor(0.9) > 20);
    }

    /** The answers are remembered by banding and threshold: asked again, interleaved, each is still its own. */
    @Test
    public void testMinBandMatchesForIsRememberedByBandingAndThreshold() {
        LshBanding[] bandings = {LshBanding.forFloor(0.5, 128), LshBanding.forFloor(0.8, 128), new LshBanding(16, 8)};
        double[] taus = {0.55, 0.8, 0.9, 0.8};
        for (int round = 0; round < 2; round++) {
            for (double tau : taus) {
                for (LshBanding banding : bandings) {
                    int m = banding.minBandMatchesFor(tau);
                    int expected = 1;
                    while (expected < banding.bands()
                            && banding.candidateProbability(expected + 1, tau) >= LshBanding.CANDIDATE_RECALL) {
                        expected++;
                    }
                    assertEquals(banding + " at " + tau, expected, m);
                }
            }
        }
        assertNotEquals(bandings[0].minBandMatchesFor(0.9), bandings[1].minBandMatchesFor(0.9));
    }
}
