/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * The fingerprints of one document, as produced by {@link Fingerprinter#finish()}.
 *
 * @param simhash  the 64-bit simhash
 * @param margins  its per-bit margins, MSB first
 * @param minhash  the MinHash signature (owned by this record: fresh per document, do not mutate)
 * @param tokens   the number of tokens seen
 * @param features the number of distinct simhash features
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
                && margins.equals(f.margins)
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
        return "Fingerprint[simhash=" + SimhashCodec.toHex(simhash) + ", margins=" + margins.encode()
                + ", minhash=" + Arrays.toString(minhash) + ", tokens=" + tokens + ", features=" + features
                + (shingleSet == null ? "" : ", shingleSet=" + shingleSet.length + " values") + "]";
    }
}
