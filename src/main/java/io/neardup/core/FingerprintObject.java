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

    /**
     * A MinHash object read by {@link #readMinhash}, every part checked: the scheme hash its headers carry, its
     * format, its signature (stored, or in the compact format its set's) and its shingle set. The signature derived
     * from a set and the set's values are computed when first asked for; not thread-safe.
     */
    public static final class Minhash {
        private final int schemeHash;
        private final FingerprintFormat format;
        private final int signatureLength;
        private final byte[] shingleSet;
        private final boolean signatureStored;
        private int[] signature;
        private int[] shingleValues;

        private Minhash(
                int schemeHash, FingerprintFormat format, int[] storedSignature, int length, byte[] shingleSet) {
            this.schemeHash = schemeHash;
            this.format = format;
            this.signatureStored = storedSignature != null;
            this.signature = storedSignature;
            this.signatureLength = length;
            this.shingleSet = shingleSet;
        }

        /** The scheme hash in the headers ({@link FingerprintScheme#schemeHash()} of the scheme that made them). */
        public int schemeHash() {
            return schemeHash;
        }

        /** The object's format: its signature header's, or {@link FingerprintFormat#COMPACT} for a set alone. */
        public FingerprintFormat format() {
            return format;
        }

        /** Whether the object stores its signature ({@code value}); else the signature is its set's. */
        public boolean signatureStored() {
            return signatureStored;
        }

        /** The signature's number of values. */
        public int signatureLength() {
            return signatureLength;
        }

        /** The signature: stored, or of the set ({@link FingerprintFormat#signatureOfSet}) at the length its header gives. */
        public int[] signature() {
            if (signature == null) {
                signature = FingerprintFormat.signatureOfSet(shingleValues(), signatureLength);
            }
            return signature;
        }

        /** The shingle set payload ({@link ShingleSetCodec#payload}), or null without one. */
        public byte[] shingleSet() {
            return shingleSet;
        }

        /** The shingle set's values, ascending unsigned, or null without a set. */
        public int[] shingleValues() {
            if (shingleValues == null && shingleSet != null) {
                shingleValues = ShingleSetCodec.values(shingleSet, 0, shingleSet.length);
            }
            return shingleValues;
        }

        /**
         * What two fingerprints must share to be compared by their signatures: the scheme hash, the signature's
         * length and its format (signatures of two formats never meet). {@code "%08x/%d"}, and {@code "/2"} after it
         * in the compact format.
         */
        public String comparableKey() {
            String key = String.format(Locale.ROOT, "%08x/%d", schemeHash, signatureLength());
            return format == FingerprintFormat.SIGNATURE ? key : key + "/" + format.number();
        }

        /**
         * What two objects must share for their shingle sets to be compared: the scheme hash alone. A set is the same
         * in both formats and whatever the signature's length, so sets of one scheme compare where signatures cannot.
         */
        public String shingleSetKey() {
            return String.format(Locale.ROOT, "%08x", schemeHash);
        }
    }

    /**
     * An object whose format is not the one it is read for ({@link #readMinhash} with a {@code format}), or whose
     * parts do not make a whole fingerprint of its format: the message names both; a caller adds what to do.
     */
    public static final class OtherFormatException extends IllegalArgumentException {
        OtherFormatException(String message) {
            super(message);
        }
    }

    /**
     * Reads a MinHash object's parts ({@link #read}), the one reader of every caller: the field mapper, the field type
     * (a {@code like}), the lookup and the collapse. Checks, in this order, each failing with an
     * {@link IllegalArgumentException} for the caller to prefix with where:
     * <ol>
     * <li>where {@code format} is given and stores signatures, a set without a {@code value} (of the compact format)
     *     is refused ({@link OtherFormatException});</li>
     * <li>the scheme hash of the signature's header (else the set's); a {@code scheme} that is a scheme id must
     *     carry the same hash;</li>
     * <li>the set is checked whole, made by the same scheme ({@link ShingleSetCodec#decodePayload});</li>
     * <li>without a {@code value}: the set must be of the compact format ({@link OtherFormatException}), standing
     *     for a signature of {@code numHashes} values;</li>
     * <li>with one: the signature must be of {@code format} ({@link OtherFormatException}), of {@code numHashes}
     *     values, and not beside a set in the compact format (a compact document with a set stores no signature).</li>
     * </ol>
     *
     * @param numHashes the signature's length the reader needs, or 0 for the length the object gives (1 to
     *     {@link MinHasher#MAX_HASHES})
     * @param format the format of the index the object is read for, or null for the object's own
     */
    public static Minhash readMinhash(Parts parts, int numHashes, FingerprintFormat format) {
        String value = parts.value();
        String shingles = parts.shingles();
        if (value == null && format != null && format.derivesSignatureFromSet() == false) {
            throw new OtherFormatException("the value has [" + SHINGLES + "] and no [" + VALUE + "]: that is "
                    + FingerprintFormat.COMPACT.describe() + ", and this index has " + format.describe());
        }
        int headerHash = value != null ? SignatureCodec.schemeHashOf(value) : ShingleSetCodec.schemeHashOf(shingles);
        if (parts.scheme() != null) {
            Integer schemeHash = FingerprintScheme.schemeHashOfId(parts.scheme());
            if (schemeHash != null && schemeHash != headerHash) {
                throw new IllegalArgumentException((value != null ? "signature" : "shingle set")
                        + " header has scheme hash " + SignatureCodec.hex(headerHash) + " but [" + SCHEME + "] is ["
                        + parts.scheme() + "]");
            }
        }
        byte[] shingleSet = shingles == null ? null : ShingleSetCodec.decodePayload(shingles, headerHash);
        if (value == null) {
            int signatureLength = ShingleSetCodec.signatureLengthOf(shingles);
            if (signatureLength == 0) {
                throw new OtherFormatException("the value has [" + SHINGLES + "] of "
                        + FingerprintFormat.SIGNATURE.describe() + " and no [" + VALUE + "]");
            }
            if (numHashes > 0 && signatureLength != numHashes) {
                throw new IllegalArgumentException("minhash signature has " + signatureLength + " values, expected "
                        + numHashes + " (num_hashes)");
            }
            return new Minhash(headerHash, FingerprintFormat.COMPACT, null, signatureLength, shingleSet);
        }
        FingerprintFormat given = SignatureCodec.formatOf(value);
        if (format != null && given != format) {
            throw new OtherFormatException("minhash signature is of " + given.describe() + ", expected "
                    + format.describe() + ", the format of this index");
        }
        int[] signature = numHashes > 0
                ? SignatureCodec.decode(value, numHashes, headerHash, given)
                : SignatureCodec.decode(value);
        if (numHashes == 0 && (signature.length < 1 || signature.length > MinHasher.MAX_HASHES)) {
            throw new IllegalArgumentException(
                    "minhash signature must have 1 to " + MinHasher.MAX_HASHES + " values, got " + signature.length);
        }
        if (shingleSet != null && given.derivesSignatureFromSet()) {
            throw new IllegalArgumentException("the value has [" + SHINGLES + "] and a [" + VALUE + "]: in "
                    + given.describe() + " a document with a shingle set stores no signature");
        }
        return new Minhash(headerHash, given, signature, signature.length, shingleSet);
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
