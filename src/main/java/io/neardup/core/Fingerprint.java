/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * The fingerprints of one document, as produced by {@link Fingerprinter#finish()}.
 *
 * @param simhash  the 64-bit simhash (0 when the {@link Fingerprinter} computed no simhash)
 * @param margins  its per-bit margins, MSB first, or null without a simhash
 * @param minhash  the MinHash signature (owned by this record: fresh per document, do not mutate), or null when
 *                 the {@link Fingerprinter} computed none
 * @param tokens   the number of tokens seen
 * @param features the number of distinct simhash features (0 without a simhash)
 * @param shingleSet the distinct MinHash shingles ({@link ShingleSetCodec#of}), or null when not asked for
 */
public record Fingerprint(long simhash, Margins margins, int[] minhash, long tokens, int features, int[] shingleSet) {

    public Fingerprint(long simhash, Margins margins, int[] minhash, long tokens, int features) {
        this(simhash, margins, minhash, tokens, features, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint f
                && simhash == f.simhash
                && Objects.equals(margins, f.margins)
                && Arrays.equals(minhash, f.minhash)
                && tokens == f.tokens
                && features == f.features
                && Arrays.equals(shingleSet, f.shingleSet);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(simhash) * 31 + Arrays.hashCode(minhash);
    }

    @Override
    public String toString() {
        return "Fingerprint[simhash=" + SimhashCodec.toHex(simhash) + ", margins="
                + (margins == null ? null : margins.encode())
                + ", minhash=" + Arrays.toString(minhash) + ", tokens=" + tokens + ", features=" + features
                + (shingleSet == null ? "" : ", shingleSet=" + shingleSet.length + " values") + "]";
    }
}
