/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * How an index keeps its MinHash fingerprints: chosen when the index is created and kept for its life, so
 * that no upgrade changes an existing index's fingerprints (as OpenSearch gates behaviour on an index's
 * created version). The one owner of what differs between the formats; the simhash side is the same in both.
 *
 * <ul>
 * <li>{@link #SIGNATURE} (format 1, every index created before format 2): the signature is stored, computed
 *     over the 64-bit shingle hashes by the scheme's {@code minhash_method} and {@code seed}; band keys are 8
 *     bytes ({@link LshBanding#bandKey}).</li>
 * <li>{@link #COMPACT} (format 2): the signature is a function of the shingle set ({@link #signatureOfSet}),
 *     so a document that keeps its set stores no signature, neither in {@code _source} nor in doc values;
 *     a document without a set (over {@code max_shingles}, or {@code outputs} without {@code shingles})
 *     stores one, computed the same way. Band keys are the high 4 bytes of the 8-byte key: one extra
 *     candidate per 2^32 pairs a band, each verified. The set's header in {@code _source} gives the length of the
 *     signature it stands for ({@link ShingleSetCodec#encode(int[], int, int)}).</li>
 * </ul>
 * Shingle set values are the same in both formats, so two documents with sets compare exactly across them; a
 * signature only ever meets a signature of its own format. A stored signature says its format in its header
 * ({@link SignatureCodec}). Stateless and thread-safe.
 */
public enum FingerprintFormat {
    SIGNATURE(1, Long.BYTES),
    COMPACT(2, Integer.BYTES);

    /** The format of an index that does not say (created before formats were recorded). */
    public static final FingerprintFormat UNRECORDED = SIGNATURE;

    /** The format a new index gets unless its settings or templates choose one. */
    public static final FingerprintFormat NEW_INDEX_DEFAULT = COMPACT;

    /**
     * The seed of {@link #signatureOfSet}: fixed, since the scheme's {@code seed} already chose the set's values and
     * a {@code minhash} field derives signatures knowing only its {@code num_hashes}.
     */
    private static final long SET_SIGNATURE_SEED = 0L;

    private static final MinHasher[] SET_SIGNATURE_HASHERS = new MinHasher[MinHasher.MAX_HASHES + 1];

    private final int number;
    private final int bandKeyBytes;

    FingerprintFormat(int number, int bandKeyBytes) {
        this.number = number;
        this.bandKeyBytes = bandKeyBytes;
    }

    /** The format's number, as the index setting and a stored signature's header give it. */
    public int number() {
        return number;
    }

    /** The format numbered {@code number}. */
    public static FingerprintFormat of(int number) {
        for (FingerprintFormat format : values()) {
            if (format.number == number) {
                return format;
            }
        }
        throw new IllegalArgumentException("unknown fingerprint format [" + number + "], expected one of "
                + Arrays.stream(values()).map(f -> String.valueOf(f.number)).toList());
    }

    /** "fingerprint format 2 (compact)": how errors name a format. */
    public String describe() {
        return "fingerprint format " + number + (this == COMPACT ? " (compact)" : " (stored signature)");
    }

    /** Bytes of a band key in a band term. */
    public int bandKeyBytes() {
        return bandKeyBytes;
    }

    /**
     * The key of band {@code band} of a signature in its stored layout ({@link SignatureCodec#valueBytes}) in this
     * format: {@link LshBanding#bandKey}, or its high 32 bits (as a non-negative long).
     */
    public long bandKey(byte[] signatureBytes, int offset, int band, int rows) {
        long key = LshBanding.bandKey(signatureBytes, offset, band, rows);
        return this == COMPACT ? key >>> 32 : key;
    }

    /** Whether a document that keeps its shingle set stores no signature: it is {@link #signatureOfSet}. */
    public boolean derivesSignatureFromSet() {
        return this == COMPACT;
    }

    /**
     * The {@link #COMPACT} format's signature of a shingle set ({@link ShingleSetCodec#of}): one-permutation
     * MinHash ({@link MinHasher.Method#ONE_PERMUTATION}, seed 0) over its 32-bit values. A pure function of the set
     * and {@code numHashes}, so that it never has to be stored.
     */
    public static int[] signatureOfSet(int[] setValues, int numHashes) {
        long[] values = new long[setValues.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = Integer.toUnsignedLong(setValues[i]);
        }
        return setSignatureHasher(numHashes).signature(values, values.length);
    }

    /** {@link #signatureOfSet} of a shingle set payload, in the stored layout ({@link SignatureCodec#valueBytes}). */
    public static byte[] signatureBytesOfSet(byte[] payload, int offset, int length, int numHashes) {
        return SignatureCodec.valueBytes(signatureOfSet(ShingleSetCodec.values(payload, offset, length), numHashes));
    }

    private static MinHasher setSignatureHasher(int numHashes) {
        if (numHashes < 1 || numHashes > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "num_hashes must be in [1, " + MinHasher.MAX_HASHES + "], got " + numHashes);
        }
        // Immutable and cheap to build: a lost race builds an equal one.
        MinHasher hasher = SET_SIGNATURE_HASHERS[numHashes];
        if (hasher == null) {
            hasher = MinHasher.of(numHashes, SET_SIGNATURE_SEED, MinHasher.Method.ONE_PERMUTATION);
            SET_SIGNATURE_HASHERS[numHashes] = hasher;
        }
        return hasher;
    }
}
