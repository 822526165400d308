package io.neardup.core;

import static org.junit.Assert.assertEquals;
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
}
