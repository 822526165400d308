/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/** Hamming distance between 64-bit fingerprints (Sood, "Probabilistic Simhash Matching" (2011), eq. 3.2): XOR, then count the ones. */
public final class Hamming {
    private Hamming() {}

    public static int distance(long a, long b) {
        return Long.bitCount(a ^ b);
    }

    /** True iff {@code distance(a, b) <= maxDistance}. */
    public static boolean within(long a, long b, int maxDistance) {
        return Long.bitCount(a ^ b) <= maxDistance;
    }
}
