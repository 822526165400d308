/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The one owner of the objects the ingest processor writes into a document for its fingerprints,
 * and of their reading wherever they are read (field mappers, queries by {@code _id}, the collapse):
 * <pre>
 * "simhash": {"value": "&lt;16 hex&gt;", "margins": "&lt;base64url&gt;", "scheme": "&lt;scheme id&gt;"}                     or "&lt;16 hex&gt;"
 * "minhash": {"value": "&lt;signature&gt;", "shingles": "&lt;shingle set&gt;", "scheme": "&lt;scheme id&gt;"}          or "&lt;signature&gt;"
 * </pre>
 * In {@link FingerprintFormat#COMPACT} a MinHash object with {@code shingles} has no {@code value}: its
 * signature is the set's ({@link FingerprintFormat#signatureOfSet}).
 * The value encodings belong to {@link SimhashCodec}, {@link Margins}, {@link SignatureCodec} and
 * {@link ShingleSetCodec}; this class owns the keys and the object around them.
 */
public final class FingerprintObject {
    public static final String VALUE = "value";
    public static final String MARGINS = "margins";
    public static final String SHINGLES = "shingles";
    public static final String SCHEME = "scheme";
    /** The keys of each kind of object, in the order the processor writes them. */
    public static final List<String> SIMHASH_KEYS = List.of(VALUE, MARGINS, SCHEME);

    public static final List<String> MINHASH_KEYS = List.of(VALUE, SHINGLES, SCHEME);
    /** For readers that take either kind and tell them apart by the value. */
    public static final List<String> ANY_KEYS = List.of(VALUE, MARGINS, SHINGLES, SCHEME);
    /** Longest accepted scheme string, in characters. */
    public static final int MAX_SCHEME_LENGTH = 512;

    private FingerprintObject() {}

    /**
     * A stored fingerprint: its {@code value} (null only in a MinHash object of the compact format, which has
     * {@code shingles} instead) and the optional parts, null when absent.
     */
    public record Parts(String value, String margins, String shingles, String scheme) {}

    public static Map<String, Object> simhash(long simhash, Margins margins, String schemeId) {
        Map<String, Object> object = new LinkedHashMap<>();
        object.put(VALUE, SimhashCodec.toHex(simhash));
        object.put(MARGINS, margins.encode());
        object.put(SCHEME, schemeId);
        return object;
    }

    /**
     * @param shingleSet the document's shingle set ({@link ShingleSetCodec#of}), or null to leave it out
     * @param schemeHash {@link FingerprintScheme#schemeHash()} and {@code schemeId} {@link FingerprintScheme#id()} of
     *                   the scheme that made them: both hash the scheme's canonical string, so a writer computes them
     *                   once, not per document
     */
    public static Map<String, Object> minhash(int[] signature, int[] shingleSet, int schemeHash, String schemeId) {
        return minhash(signature, shingleSet, schemeHash, schemeId, FingerprintFormat.SIGNATURE);
    }

    /**
     * As {@link #minhash(int[], int[], int, String)}, for an index of {@code format}: in the compact format a
     * document with a shingle set has no {@code value}, and a signature's header names its format.
     */
    public static Map<String, Object> minhash(
            int[] signature, int[] shingleSet, int schemeHash, String schemeId, FingerprintFormat format) {
        Map<String, Object> object = new LinkedHashMap<>();
        if (shingleSet == null || format.derivesSignatureFromSet() == false) {
            object.put(VALUE, SignatureCodec.encode(signature, schemeHash, format));
        }
        if (shingleSet != null) {
            object.put(
                    SHINGLES,
                    format.derivesSignatureFromSet()
                            ? ShingleSetCodec.encode(shingleSet, schemeHash, signature.length)
                            : ShingleSetCodec.encode(shingleSet, schemeHash));
        }
        object.put(SCHEME, schemeId);
        return object;
    }

    /**
     * The stored form of {@code parts} as the processor writes it: the bare value, or an object with the
     * parts that are present in the order of {@link #ANY_KEYS}. The inverse of {@link #read} for what it
     * returns, for rebuilding a value from the fields it was indexed into.
     */
    public static Object write(Parts parts, boolean asObject) {
        if (asObject == false) {
            return parts.value();
        }
        Map<String, Object> object = new LinkedHashMap<>();
        if (parts.value() != null) {
            object.put(VALUE, parts.value());
        }
        if (parts.margins() != null) {
            object.put(MARGINS, parts.margins());
        }
        if (parts.shingles() != null) {
            object.put(SHINGLES, parts.shingles());
        }
        if (parts.scheme() != null) {
            object.put(SCHEME, parts.scheme());
        }
        return object;
    }

    /**
     * Reads a stored value: null (returns null), a bare string (the value alone), or an object whose
     * keys are among {@code keys}, each a string, with a {@code value} or (compact MinHash) {@code shingles}. A malformed one fails with an
     * {@link IllegalArgumentException} saying what is wrong, for the caller to prefix with where.
     */
    public static Parts read(Object stored, List<String> keys) {
        if (stored == null) {
            return null;
        }
        if (stored instanceof String value) {
            return new Parts(value, null, null, null);
        }
        if (stored instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (keys.contains(e.getKey()) == false) {
                    throw new IllegalArgumentException(
                            "has unknown key [" + e.getKey() + "], expected one of [" + String.join(", ", keys) + "]");
                }
                if (e.getValue() != null && e.getValue() instanceof String == false) {
                    throw new IllegalArgumentException(
                            "key [" + e.getKey() + "] must be a string, got " + describe(e.getValue()));
                }
            }
            String value = (String) map.get(VALUE);
            if (value == null && (keys.contains(SHINGLES) == false || map.get(SHINGLES) == null)) {
                throw new IllegalArgumentException("object has no [" + VALUE + "]"
                        + (keys.contains(SHINGLES) ? " and no [" + SHINGLES + "]" : ""));
            }
            String scheme = (String) map.get(SCHEME);
            if (scheme != null && (scheme.isEmpty() || scheme.length() > MAX_SCHEME_LENGTH)) {
                throw new IllegalArgumentException(
                        "[" + SCHEME + "] must have 1 to " + MAX_SCHEME_LENGTH + " characters, got " + scheme.length());
            }
            return new Parts(value, (String) map.get(MARGINS), (String) map.get(SHINGLES), scheme);
        }
        throw new IllegalArgumentException(
                "expects a string or an object with [" + String.join(", ", keys) + "], got " + describe(stored));
    }

    /** The value of a stored fingerprint, without checking the rest: for showing it (fields, fetch), not for using it. */
    public static Object valueOf(Object stored) {
        return stored instanceof Map<?, ?> map ? map.get(VALUE) : stored;
    }

    private static String describe(Object o) {
        if (o instanceof Map) {
            return "an object";
        }
        if (o instanceof Iterable) {
            return "an array";
        }
        return o.getClass().getSimpleName().toLowerCase(Locale.ROOT) + " [" + o + "]";
    }
}
