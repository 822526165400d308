/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class SimhashAccumulatorTests extends OpenSearchTestCase {

    /** Seed 001, Table I: six words, their 4-bit hashes (written MSB first) and weights. */
    private static final Object[][] TABLE_I = {
        {"word_1", "0101", 0.05}, {"word_2", "1101", 0.02}, {"word_3", "0001", 0.01},
        {"word_4", "1110", 0.03}, {"word_5", "0100", 0.05}, {"word_6", "0011", 0.09},
    };

    @Test
    public void testReproducesTableOne() {
        // The injected hash function theta of the table: a lookup from word to its 4-bit hash.
        Map<String, Long> theta = new LinkedHashMap<>();
        for (Object[] row : TABLE_I) {
            theta.put((String) row[0], Long.parseLong((String) row[1], 2));
        }
        SimhashAccumulator acc = new SimhashAccumulator(4);
        for (Object[] row : TABLE_I) {
            acc.add(theta.get((String) row[0]), (Double) row[2]);
        }
        // "sum weight" row, left to right = MSB first. 1e-12: only double rounding of 0.0x sums.
        assertArrayEquals(new double[] {-0.15, +0.05, -0.01, +0.09}, acc.weights(new double[4]), 1e-12);
        assertEquals("simhash row 0101", 0b0101L, acc.fingerprint());
    }

    @Test
    public void testTableOneFirstRowContributions() {
        SimhashAccumulator acc = new SimhashAccumulator(4);
        acc.add(0b0101L, 0.05);
        assertArrayEquals(new double[] {-0.05, +0.05, -0.05, +0.05}, acc.weights(new double[4]), 0.0);
    }

    @Test
    public void testSingleFeatureGivesItsHashAndEqualMargins() {
        long hash = 0x8000_0000_0000_0001L;
        SimhashAccumulator acc = new SimhashAccumulator(64);
        acc.add(hash, 2.5);
        assertEquals(hash, acc.fingerprint());
        assertEquals("MSB first: index 0 is bit 63, which is set", 2.5, acc.weight(0), 0.0);
        assertEquals("index 63 is bit 0, which is set", 2.5, acc.weight(63), 0.0);
        assertEquals("index 1 is bit 62, which is clear", -2.5, acc.weight(1), 0.0);
        Margins m = Margins.of(acc);
        for (int i = 0; i < 64; i++) {
            assertEquals("index " + i, 255, m.quantized(i));
        }
    }

    @Test
    public void testWeakBitIsReportedAtItsMsbFirstIndex() {
        // Two features that agree everywhere but bit 60: W_60 = 1.0 - 0.9 is the only small
        // component. MSB first, bit 60 is index 3; reporting index 60 instead (bit 3) is the
        // bit j vs 63 - j mix-up that silently drops PSM's recall to ~0.6 (measured on synthetic text).
        long a = 0x0123_4567_89ab_cdefL;
        long b = a ^ (1L << 60);
        SimhashAccumulator acc = new SimhashAccumulator(64);
        acc.add(a, 1.0);
        acc.add(b, 0.9);
        Margins m = Margins.of(acc);
        assertEquals(3, m.weakestFirst(64)[0]);
        for (int i = 0; i < 64; i++) {
            if (i != 3) {
                assertEquals("index " + i, 255, m.quantized(i));
            }
        }
        assertEquals(0.1, Math.abs(acc.weight(3)), 1e-12);
        assertEquals("bit 60 follows the heavier feature", a & (1L << 60), acc.fingerprint() & (1L << 60));
        assertEquals(a, acc.fingerprint());
    }

    @Test
    public void testTiesAndEmptyGiveZeroBits() {
        SimhashAccumulator acc = new SimhashAccumulator(64);
        assertEquals(0L, acc.fingerprint());
        acc.add(0L, 1.0);
        acc.add(-1L, 1.0);
        assertEquals("W_j = 0 everywhere, and bit j = 1 needs W_j > 0", 0L, acc.fingerprint());
    }

    @Test
    public void testMatchesNaiveAlgorithmOne() {
        SplittableRandom random = new SplittableRandom(randomLong());
        SimhashAccumulator acc = new SimhashAccumulator(64);
        for (int doc = 0; doc < 50; doc++) {
            acc.reset();
            double[] w = new double[64];
            int n = 1 + random.nextInt(100);
            for (int i = 0; i < n; i++) {
                long h = random.nextLong();
                double weight = random.nextDouble() * 3;
                acc.add(h, weight);
                for (int j = 0; j < 64; j++) {
                    w[j] += ((h >>> j) & 1) == 1 ? weight : -weight;
                }
            }
            long expected = 0;
            for (int j = 0; j < 64; j++) {
                if (w[j] > 0) {
                    expected |= 1L << j;
                }
                assertEquals(w[j], acc.weight(63 - j), 0.0);
            }
            assertEquals("doc " + doc, expected, acc.fingerprint());
        }
    }

    @Test
    public void testResetClearsW() {
        SimhashAccumulator acc = new SimhashAccumulator(64);
        acc.add(42L, 1.0);
        assertNotEquals(0L, acc.fingerprint());
        acc.reset();
        assertArrayEquals(new double[64], acc.weights(new double[64]), 0.0);
    }

    @Test
    public void testValidation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SimhashAccumulator(65));
        assertEquals("simhash bits must be in [1, 64], got 65", e.getMessage());
        IndexOutOfBoundsException e2 =
                assertThrows(IndexOutOfBoundsException.class, () -> new SimhashAccumulator(4).weight(4));
        assertEquals("index must be in [0, 4), got 4", e2.getMessage());
    }
}
