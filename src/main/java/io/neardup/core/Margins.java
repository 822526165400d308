/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.Base64;

/**
 * The per-bit margins of a simhash, quantized to one unsigned byte per bit, MSB first (index i is
 * fingerprint bit {@code f - 1 - i}, as in {@link SimhashAccumulator}). Immutable.
 *
 * <p>Margin (eq. 4.5 of Sood, "Probabilistic Simhash Matching" (2011)): {@code m_i = |W_i| / ||W||}, with the max norm
 * {@code ||W|| = max_j |W_j|}. PSM only uses the order of the margins (measured on synthetic text: L1, L2 and max
 * norms give the same recall); the max norm spans the whole [0, 1] range (the strongest bit is
 * exactly 1), which leaves the byte's resolution to the values that matter. A zero W (no features)
 * gives all margins 0: every bit is maximally weak.
 *
 * <p>Quantization: {@code q = round(255 * sqrt(m))}, {@code m = (q / 255)^2}. The square root
 * spends resolution on small margins (the weak bits that PSM flips first): the first step is
 * about 4e-6 wide, the last about 8e-3. Monotone, so the order of margins survives up to ties.
 *
 * <p>{@code 1 - margin(i)} is eq. 4.5's flip "probability". It is not a calibrated
 * probability (it averages far above real flip rates): use it to rank bits, not as odds.
 */
public final class Margins {
    /** The number of bits of a production simhash, and the length {@link #decode} accepts. */
    public static final int BITS = 64;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final byte[] quantized;

    private Margins(byte[] quantized) {
        this.quantized = quantized;
    }

    /** Quantizes the first {@code bits} values of {@code weightsMsbFirst} (W, MSB first). */
    public static Margins of(double[] weightsMsbFirst, int bits) {
        if (bits < 1 || bits > BITS || bits > weightsMsbFirst.length) {
            throw new IllegalArgumentException(
                    "bits must be in [1, " + Math.min(BITS, weightsMsbFirst.length) + "], got " + bits);
        }
        double norm = 0;
        for (int i = 0; i < bits; i++) {
            norm = Math.max(norm, Math.abs(weightsMsbFirst[i]));
        }
        byte[] q = new byte[bits];
        if (norm > 0) {
            for (int i = 0; i < bits; i++) {
                q[i] = (byte) quantize(Math.abs(weightsMsbFirst[i]) / norm);
            }
        }
        return new Margins(q);
    }

    /** The margins of an accumulator's current W. */
    public static Margins of(SimhashAccumulator accumulator) {
        return of(accumulator.weights(new double[accumulator.bits()]), accumulator.bits());
    }

    /** Wraps already-quantized margins (copied). */
    public static Margins ofQuantized(byte[] quantized) {
        if (quantized.length < 1 || quantized.length > BITS) {
            throw new IllegalArgumentException("margins must have 1 to " + BITS + " bytes, got " + quantized.length);
        }
        return new Margins(quantized.clone());
    }

    /** Monotone map of a margin in [0, 1] to [0, 255]. */
    static int quantize(double margin) {
        // StrictMath keeps the stored bytes identical on every JVM and CPU.
        long q = Math.round(255.0 * StrictMath.sqrt(Math.min(1.0, Math.max(0.0, margin))));
        return (int) q;
    }

    static double dequantize(int q) {
        double r = q / 255.0;
        return r * r;
    }

    public int length() {
        return quantized.length;
    }

    /** The quantized margin of index i, in [0, 255]. */
    public int quantized(int index) {
        checkIndex(index);
        return quantized[index] & 0xFF;
    }

    /** The dequantized margin of index i, in [0, 1]; smaller means weaker (more likely to flip). */
    public double margin(int index) {
        return dequantize(quantized(index));
    }

    /**
     * The first {@code prefixBits} indices ordered weakest first (ascending margin; ties by index,
     * so the order is deterministic). This is the bit order PSM flips in.
     */
    public int[] weakestFirst(int prefixBits) {
        if (prefixBits < 0 || prefixBits > quantized.length) {
            throw new IllegalArgumentException(
                    "prefix_bits must be in [0, " + quantized.length + "], got " + prefixBits);
        }
        // Sort (margin, index) packed into one int: margin in the high bits, index in the low 8.
        int[] packed = new int[prefixBits];
        for (int i = 0; i < prefixBits; i++) {
            packed[i] = (quantized[i] & 0xFF) << 8 | i;
        }
        Arrays.sort(packed);
        for (int i = 0; i < prefixBits; i++) {
            packed[i] &= 0xFF;
        }
        return packed;
    }

    public byte[] toBytes() {
        return quantized.clone();
    }

    /** URL-safe base64 without padding (86 characters for 64 bits). */
    public String encode() {
        return ENCODER.encodeToString(quantized);
    }

    /** Inverse of {@link #encode()} for a 64-bit simhash's margins. */
    public static Margins decode(String encoded) {
        if (encoded == null) {
            throw new IllegalArgumentException("margins must not be null");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "margins [" + abbreviate(encoded) + "] are not valid URL-safe base64: " + e.getMessage(), e);
        }
        if (bytes.length != BITS) {
            throw new IllegalArgumentException("margins have " + bytes.length + " bytes, expected " + BITS);
        }
        return new Margins(bytes);
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= quantized.length) {
            throw new IndexOutOfBoundsException("index must be in [0, " + quantized.length + "), got " + index);
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 100 ? s : s.substring(0, 97) + "...";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Margins other && Arrays.equals(quantized, other.quantized);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(quantized);
    }

    @Override
    public String toString() {
        return "Margins[" + encode() + "]";
    }
}
