/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * The reference search: compares the query with every fingerprint. Exact by construction, and the
 * fallback of {@link PsmSearch} EXACT mode when exhaustive flips would cost more. Stateless.
 */
public final class LinearScan {
    private LinearScan() {}

    /** Adds every {@code docs[i]}, i < length, with {@code distance(fingerprints[i], query) <= maxDistance}. */
    public static void search(long[] fingerprints, int[] docs, int length, long query, int maxDistance, Matches out) {
        if (length < 0 || length > fingerprints.length || length > docs.length) {
            throw new IllegalArgumentException(
                    "length must be in [0, min(" + fingerprints.length + ", " + docs.length + ")], got " + length);
        }
        checkDistance(maxDistance);
        for (int i = 0; i < length; i++) {
            int d = Long.bitCount(fingerprints[i] ^ query);
            if (d <= maxDistance) {
                out.add(docs[i], d);
            }
        }
        out.countCandidates(length);
    }

    /** The same over any accessor (in position order). */
    public static void search(SortedFingerprints fingerprints, long query, int maxDistance, Matches out) {
        checkDistance(maxDistance);
        int n = fingerprints.size();
        for (int i = 0; i < n; i++) {
            int d = Long.bitCount(fingerprints.fingerprintAt(i) ^ query);
            if (d <= maxDistance) {
                out.add(fingerprints.docAt(i), d);
            }
        }
        out.countCandidates(n);
    }

    private static void checkDistance(int maxDistance) {
        if (maxDistance < 0 || maxDistance > 64) {
            throw new IllegalArgumentException("max_distance must be in [0, 64], got " + maxDistance);
        }
    }
}
