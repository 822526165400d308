/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class ShingleHasherTests extends OpenSearchTestCase {

    /** The documented formula, written out independently of the class. */
    private static long formula(long seed, long... window) {
        long h = Murmur3.fmix64(seed ^ 0x7368696e676c6573L);
        for (long t : window) {
            h = Murmur3.fmix64(h * 0x9E3779B97F4A7C15L + t);
        }
        return h;
    }

    private static List<Long> stream(ShingleHasher sh, long... tokens) {
        List<Long> out = new ArrayList<>();
        for (long t : tokens) {
            if (sh.add(t)) {
                out.add(sh.shingle());
            }
        }
        if (sh.finish()) {
            out.add(sh.shingle());
        }
        return out;
    }

    @Test
    public void testSlidingWindowsFollowTheFormula() {
        long seed = 11;
        long[] tokens = new SplittableRandom(randomLong()).longs(20).toArray();
        for (int n = 1; n <= ShingleHasher.MAX_SIZE; n++) {
            List<Long> got = stream(new ShingleHasher(n, seed), tokens);
            assertEquals("n=" + n, tokens.length - n + 1, got.size());
            for (int i = 0; i + n <= tokens.length; i++) {
                long[] window = java.util.Arrays.copyOfRange(tokens, i, i + n);
                assertEquals("n=" + n + " window " + i, formula(seed, window), (long) got.get(i));
            }
        }
    }

    @Test
    public void testKnownAnswer() {
        // Pins the combining function: changing it changes every stored fingerprint.
        ShingleHasher sh = new ShingleHasher(2, 0);
        assertEquals(GOLDEN_PAIR, sh.hashOf(1L, 2L));
    }

    private static final long GOLDEN_PAIR = 0x6f2fb89b937ee8b4L;

    @Test
    public void testShortStreamEmitsOneShingleOfAllTokens() {
        ShingleHasher sh = new ShingleHasher(3, 5);
        assertEquals(List.of(formula(5, 10L)), stream(sh, 10L));
        sh.reset();
        assertEquals(List.of(formula(5, 10L, 20L)), stream(sh, 10L, 20L));
        sh.reset();
        // Exactly n tokens: one regular shingle, and finish() adds nothing.
        assertEquals(List.of(formula(5, 10L, 20L, 30L)), stream(sh, 10L, 20L, 30L));
    }

    @Test
    public void testEmptyStreamEmitsNothing() {
        ShingleHasher sh = new ShingleHasher(4, 0);
        assertFalse(sh.finish());
        assertEquals(0, sh.tokens());
    }

    @Test
    public void testOrderSensitive() {
        ShingleHasher sh = new ShingleHasher(2, 0);
        assertNotEquals(sh.hashOf(1L, 2L), sh.hashOf(2L, 1L));
    }

    @Test
    public void testResetForgetsThePreviousStream() {
        ShingleHasher sh = new ShingleHasher(3, 9);
        stream(sh, 1L, 2L, 3L, 4L, 5L);
        sh.reset();
        assertEquals(stream(new ShingleHasher(3, 9), 7L, 8L, 9L, 10L), stream(sh, 7L, 8L, 9L, 10L));
    }

    @Test
    public void testMaxWeightIsOverTheCurrentWindow() {
        ShingleHasher sh = new ShingleHasher(2, 0);
        assertFalse(sh.add(1, 5f));
        assertTrue(sh.add(2, 1f));
        assertEquals(5f, sh.maxWeight(), 0f);
        assertTrue(sh.add(3, 2f));
        assertEquals("the 5 has left the window", 2f, sh.maxWeight(), 0f);
        sh.reset();
        sh.add(1, 3f);
        assertTrue(sh.finish());
        assertEquals(3f, sh.maxWeight(), 0f);
    }

    @Test
    public void testRejectsBadSize() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ShingleHasher(0, 0));
        assertEquals("shingle_size must be in [1, 8], got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ShingleHasher(9, 0));
        assertEquals("shingle_size must be in [1, 8], got 9", e.getMessage());
    }
}
