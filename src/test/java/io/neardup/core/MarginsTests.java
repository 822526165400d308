/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class MarginsTests extends OpenSearchTestCase {

    private static double[] randomW(SplittableRandom random) {
        double[] w = new double[64];
        for (int i = 0; i < 64; i++) {
            w[i] = random.nextGaussian() * 10;
        }
        return w;
    }

    @Test
    public void testMaxNormAndQuantization() {
        double[] w = new double[64];
        w[0] = -4.0; // the strongest bit: margin 1
        w[1] = 1.0; // margin 0.25 -> round(255 * 0.5) = 128
        w[2] = 0.0; // a tie: margin 0
        w[3] = 0.01; // margin 0.0025 -> round(255 * 0.05) = 13
        Margins m = Margins.of(w, 64);
        assertEquals(255, m.quantized(0));
        assertEquals(128, m.quantized(1));
        assertEquals(0, m.quantized(2));
        assertEquals(13, m.quantized(3));
        assertEquals(1.0, m.margin(0), 0.0);
        // Dequantized value is (q / 255)^2; the sqrt scale's step near 0.25 is ~4e-3.
        assertEquals(0.25, m.margin(1), 4e-3);
    }

    @Test
    public void testEmptyWeightsGiveAllZeroMargins() {
        Margins m = Margins.of(new double[64], 64);
        for (int i = 0; i < 64; i++) {
            assertEquals(0, m.quantized(i));
        }
    }

    @Test
    public void testQuantizationPreservesOrderUpToTies() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 200; iter++) {
            double[] w = randomW(random);
            Margins m = Margins.of(w, 64);
            double norm = Arrays.stream(w).map(Math::abs).max().orElseThrow();
            for (int i = 0; i < 64; i++) {
                for (int j = 0; j < 64; j++) {
                    if (Math.abs(w[i]) < Math.abs(w[j])) {
                        assertTrue("iteration " + iter + ": " + i + " vs " + j, m.quantized(i) <= m.quantized(j));
                    }
                }
                // The dequantized margin is within half a quantization step of the true one.
                double exact = Math.abs(w[i]) / norm;
                double step = (2 * Math.sqrt(exact) + 1.0 / 255) / 255;
                assertEquals(exact, m.margin(i), step);
            }
        }
    }

    @Test
    public void testSmallMarginsKeepResolution() {
        // Linear 8-bit quantization would merge everything below 1/510; sqrt keeps these apart.
        double[] w = new double[64];
        w[0] = 1.0;
        w[1] = 0.0005;
        w[2] = 0.001;
        w[3] = 0.0015;
        Margins m = Margins.of(w, 64);
        assertTrue(m.quantized(1) < m.quantized(2));
        assertTrue(m.quantized(2) < m.quantized(3));
    }

    @Test
    public void testEncodeDecodeRoundTrip() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 100; iter++) {
            Margins m = Margins.of(randomW(random), 64);
            String s = m.encode();
            assertEquals("64 bytes in unpadded base64", 86, s.length());
            assertTrue(s, s.matches("[A-Za-z0-9_-]+"));
            assertEquals(m, Margins.decode(s));
            assertArrayEquals(m.toBytes(), Margins.decode(s).toBytes());
        }
    }

    @Test
    public void testKnownEncoding() {
        // Pins quantization and encoding, which are persisted in _source.
        double[] w = new double[64];
        for (int i = 0; i < 64; i++) {
            w[i] = (i % 2 == 0 ? 1 : -1) * (i + 1) / 64.0;
        }
        assertEquals(GOLDEN, Margins.of(w, 64).encode());
    }

    // Checked independently: base64url(round(255 * sqrt((i + 1) / 64)) for i in 0..63).
    private static final String GOLDEN =
            "IC03QEdOVFpgZWpuc3d7gIOHi4-Slpmcn6OmqayvsbS3ur2_wsTHyszP0dPW2Nvd3-Hk5ujq7O_x8_X3-fv9_w";

    @Test
    public void testWeakestFirst() {
        byte[] q = new byte[64];
        Arrays.fill(q, (byte) 200);
        q[10] = 5;
        q[3] = 5; // a tie with 10: the lower index comes first
        q[40] = 1;
        q[63] = 0; // outside a 40-bit prefix
        Margins m = Margins.ofQuantized(q);
        int[] order = m.weakestFirst(41);
        assertEquals(41, order.length);
        assertArrayEquals(new int[] {40, 3, 10, 0, 1}, Arrays.copyOf(order, 5));
        assertEquals(63, m.weakestFirst(64)[0]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.weakestFirst(65));
        assertEquals("prefix_bits must be in [0, 64], got 65", e.getMessage());
    }

    @Test
    public void testDecodeRejectsWrongLength() {
        String tooShort = Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[63]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Margins.decode(tooShort));
        assertEquals("margins have 63 bytes, expected 64", e.getMessage());
    }

    @Test
    public void testDecodeRejectsBadBase64() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Margins.decode("ab+/"));
        assertTrue(e.getMessage(), e.getMessage().startsWith("margins [ab+/] are not valid URL-safe base64: "));
        e = assertThrows(IllegalArgumentException.class, () -> Margins.decode(null));
        assertEquals("margins must not be null", e.getMessage());
    }
}
