/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every parameter that changes a fingerprint. Two fingerprints are comparable only if their
 * schemes are equal; {@link #id()} is the short form stored with every fingerprint, and
 * {@link #schemeHash()} the 32 bits of it that {@link SignatureCodec} puts in a header.
 *
 * <p>The id is a hash of {@link #describe()}, a canonical string that also names the fixed parts
 * of the algorithms (hash function, simhash width, margin encoding), so that changing any of them
 * must come with a new {@link #version} and a new id, never silently alter stored values.
 *
 * @param version            algorithm version, {@value #CURRENT_VERSION} for what this code computes
 * @param analyzer           name of the analyzer that produced the tokens (recorded, not run here)
 * @param simhashShingleSize tokens per simhash feature, 1 (words) to 8
 * @param weighting          per-document weight of a simhash feature from its count
 * @param idf                {@link IdfTable#identity()} of the IDF table, or {@value #NO_IDF}
 * @param minhashShingleSize tokens per MinHash shingle, 1 to 8
 * @param numHashes          MinHash signature length, 1 to 1024
 * @param minhashMethod      how the MinHash minima are computed
 * @param seed               seed of every hash (tokens, shingles, MinHash functions)
 */
public record FingerprintScheme(
        int version,
        String analyzer,
        int simhashShingleSize,
        FeatureWeighting weighting,
        String idf,
        int minhashShingleSize,
        int numHashes,
        MinHasher.Method minhashMethod,
        long seed) {

    public static final int CURRENT_VERSION = 1;
    public static final String NO_IDF = "none";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final Pattern ID = Pattern.compile("nd[0-9]+-([0-9a-f]{8})");
    private static final Pattern IDF_IDENTITY = Pattern.compile("[A-Za-z0-9._-]{1,128}@[0-9a-f]{16}");

    public FingerprintScheme {
        if (version < 1 || version > CURRENT_VERSION) {
            throw new IllegalArgumentException(
                    "scheme version must be in [1, " + CURRENT_VERSION + "], got " + version);
        }
        if (analyzer == null || !NAME.matcher(analyzer).matches()) {
            throw new IllegalArgumentException("analyzer must match [A-Za-z0-9._-]{1,128}, got [" + analyzer + "]");
        }
        checkShingle("simhash_shingle_size", simhashShingleSize);
        checkShingle("minhash_shingle_size", minhashShingleSize);
        if (weighting == null) {
            throw new IllegalArgumentException("weighting must not be null");
        }
        if (idf == null || !(idf.equals(NO_IDF) || IDF_IDENTITY.matcher(idf).matches())) {
            throw new IllegalArgumentException(
                    "idf must be [" + NO_IDF + "] or an idf table identity name@<16 hex>, got [" + idf + "]");
        }
        if (numHashes < 1 || numHashes > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "num_hashes must be in [1, " + MinHasher.MAX_HASHES + "], got " + numHashes);
        }
        if (minhashMethod == null) {
            throw new IllegalArgumentException("minhash method must not be null");
        }
    }

    /**
     * The defaults, chosen on three corpora (man pages, Debian package descriptions, WordNet;
     * docs/simhash-schemes.md): single words as simhash features weighted 1 + ln(tf), no IDF
     * table; 3-word MinHash shingles, 128 one-permutation values, seed 0. Among 18 schemes (1-3
     * word features x binary / tf / log tf x IDF or not) it has the best worst corpus for the
     * share of pairs with Jaccard >= 0.9 within 3 bits (63% against 25% for the earlier word-pair
     * tf default) and beats that default on each corpus, with no unrelated pair within 3 bits.
     * Its price is spread: unrelated documents sit 27-29 bits apart instead of 31.
     */
    public static FingerprintScheme defaults(String analyzer) {
        return new FingerprintScheme(
                CURRENT_VERSION,
                analyzer,
                1,
                FeatureWeighting.LOG_TF,
                NO_IDF,
                3,
                128,
                MinHasher.Method.ONE_PERMUTATION,
                0L);
    }

    /** The canonical string the id is a hash of. Field order and spelling are part of the contract. */
    public String describe() {
        return "neardup/v" + version
                + ";hash=murmur3_x64_128"
                + ";analyzer=" + analyzer
                + ";simhash_bits=64"
                + ";simhash_shingle_size=" + simhashShingleSize
                + ";weighting=" + weighting.paramName()
                + ";idf=" + idf
                + ";margins=maxnorm_sqrt_u8"
                + ";minhash_shingle_size=" + minhashShingleSize
                + ";num_hashes=" + numHashes
                + ";minhash_method=" + minhashMethod.paramName()
                + ";seed=" + seed;
    }

    /** The first 32 bits of murmur3 (seed 0) of {@link #describe()}. */
    public int schemeHash() {
        byte[] bytes = describe().getBytes(StandardCharsets.UTF_8);
        return (int) (Murmur3.hash64(bytes, 0, bytes.length, 0) >>> 32);
    }

    /**
     * The {@link #schemeHash()} inside a string of the {@link #id()} form, or null if it is not one
     * (schemes may also be opaque strings given by users).
     */
    public static Integer schemeHashOfId(String id) {
        if (id == null) {
            return null;
        }
        Matcher matcher = ID.matcher(id);
        return matcher.matches() ? Integer.parseUnsignedInt(matcher.group(1), 16) : null;
    }

    /** {@code nd<version>-<8 hex>}, e.g. {@code nd1-0123abcd}. */
    public String id() {
        return "nd" + version + "-" + SignatureCodec.hex(schemeHash());
    }

    private static void checkShingle(String name, int size) {
        if (size < 1 || size > ShingleHasher.MAX_SIZE) {
            throw new IllegalArgumentException(name + " must be in [1, " + ShingleHasher.MAX_SIZE + "], got " + size);
        }
    }
}
