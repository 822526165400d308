/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * The weight vector W of Charikar's simhash (Sood, "Probabilistic Simhash Matching" (2011), Alg. 1 and eq. 2.4) over f bits:
 * {@code W_j = sum_i (2 b_ij - 1) w_i}, and fingerprint bit j = 1 iff {@code W_j > 0}.
 *
 * <p>Bit numbering. Bit j of a hash or fingerprint is {@code (x >>> j) & 1} (j = 0 is the least
 * significant). PSM looks fingerprints up by their leading (most significant) bits, so every
 * per-bit accessor here is indexed <em>MSB first</em>: index i describes fingerprint bit
 * {@code f - 1 - i}. Index 0 is the first prefix bit. Written as a binary string, index i is the
 * i-th character from the left, which is also how the seed's Table I lists hash bits.
 *
 * <p>Not thread-safe; reuse through {@link #reset()}.
 */
public final class SimhashAccumulator {
    private final int bits;
    /** W by bit number j (LSB = 0); the accessors translate to MSB-first indices. */
    private final double[] w;

    public SimhashAccumulator(int bits) {
        if (bits < 1 || bits > 64) {
            throw new IllegalArgumentException("simhash bits must be in [1, 64], got " + bits);
        }
        this.bits = bits;
        this.w = new double[bits];
    }

    public int bits() {
        return bits;
    }

    /** Adds a feature: +weight to W_j where bit j of {@code featureHash} is 1, -weight where it is 0. */
    public void add(long featureHash, double weight) {
        // Branch-free: hash bits are random, so a branch per bit would mispredict half the time.
        // Flipping the IEEE sign bit gives exactly -weight, so the sums are bit-identical to
        // w[j] += bit ? weight : -weight.
        final long wbits = Double.doubleToRawLongBits(weight);
        final long inverted = ~featureHash;
        final double[] w = this.w;
        for (int j = 0; j < bits; j++) {
            w[j] += Double.longBitsToDouble(wbits ^ (((inverted >>> j) & 1L) << 63));
        }
    }

    /** Bit j = 1 iff W_j > 0 (ties, including the empty document, give 0). */
    public long fingerprint() {
        long fp = 0;
        for (int j = 0; j < bits; j++) {
            if (w[j] > 0) {
                fp |= 1L << j;
            }
        }
        return fp;
    }

    /** W of fingerprint bit {@code bits - 1 - index} (MSB first). */
    public double weight(int index) {
        if (index < 0 || index >= bits) {
            throw new IndexOutOfBoundsException("index must be in [0, " + bits + "), got " + index);
        }
        return w[bits - 1 - index];
    }

    /** All of W, MSB first, into {@code out} (length >= bits); returns {@code out}. */
    public double[] weights(double[] out) {
        if (out.length < bits) {
            throw new IllegalArgumentException("out must have length >= " + bits + ", got " + out.length);
        }
        for (int i = 0; i < bits; i++) {
            out[i] = w[bits - 1 - i];
        }
        return out;
    }

    public void reset() {
        Arrays.fill(w, 0.0);
    }
}
