/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.opensearch.common.document.DocumentField;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.search.SearchHit;

/**
 * A hit's fingerprint as the collapse reads it, without a second round trip: from {@code _source}
 * first (the ingest processor's object {@code {"value", "margins", "scheme"}}, or a bare value),
 * else from the hit's {@code fields} ({@code docvalue_fields} or {@code fields}, which render a
 * simhash as 16 hex characters and a minhash as its signature string).
 *
 * <p>The kind is told by the value: 16 hex characters are a simhash, a base64url string with a
 * version-1 signature header is a MinHash signature (a signature is never 16 characters long).
 * The scheme key: a simhash's {@code scheme} string when {@code _source} has one (none for a bare
 * hex value or a doc value); a signature's header scheme hash and length. A MinHash object in
 * {@code _source} may also carry its shingle set ({@code shingles}), read with the signature's
 * scheme hash; doc values and bare signatures carry none.
 */
record HitFingerprint(Kind kind, long simhash, int[] signature, int[] shingleSet, String scheme) {

    enum Kind {
        SIMHASH("simhash"),
        MINHASH("minhash");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** The hit's fingerprint, or null when the hit has none; a value that is not a fingerprint fails. */
    static HitFingerprint read(SearchHit hit, String field) {
        Object value = null;
        if (hit.hasSource()) {
            Map<String, Object> source = hit.getSourceAsMap();
            value = source == null ? null : single(hit, field, XContentMapValues.extractValue(field, source));
        }
        if (value == null) {
            DocumentField fromFields = hit.field(field);
            if (fromFields != null) {
                value = single(hit, field, fromFields.getValues());
            }
        }
        if (value == null) {
            return null;
        }
        FingerprintObject.Parts stored;
        try {
            stored = FingerprintObject.read(value, FingerprintObject.ANY_KEYS);
        } catch (IllegalArgumentException e) {
            throw notAFingerprint(hit, field, value);
        }
        if (stored.value() == null) {
            return compact(hit, field, stored.shingles());
        }
        HitFingerprint fingerprint = parse(hit, field, stored.value(), stored.scheme());
        if (fingerprint.kind() == Kind.MINHASH && stored.shingles() != null) {
            return fingerprint.withShingleSet(hit, field, stored.shingles());
        }
        return fingerprint;
    }

    private static Object single(SearchHit hit, String field, Object value) {
        if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                return null;
            }
            if (list.size() > 1) {
                throw new IllegalArgumentException(prefix(hit, field) + "has " + list.size()
                        + " values; a fingerprint field holds one per document");
            }
            return list.get(0);
        }
        return value;
    }

    private static HitFingerprint parse(SearchHit hit, String field, String value, String scheme) {
        if (SimhashCodec.isHex(value)) {
            return new HitFingerprint(Kind.SIMHASH, SimhashCodec.parseHex(value), null, null, scheme);
        }
        int[] signature;
        try {
            signature = SignatureCodec.decode(value);
        } catch (IllegalArgumentException e) {
            throw notAFingerprint(hit, field, value);
        }
        if (signature.length == 0) {
            throw notAFingerprint(hit, field, value);
        }
        return new HitFingerprint(
                Kind.MINHASH,
                0,
                signature,
                null,
                comparableAs(SignatureCodec.schemeHashOf(value), signature.length, SignatureCodec.formatOf(value)));
    }

    /**
     * What two hits must share to be compared: the scheme hash, the signature length, and the fingerprint format
     * (signatures of two formats never meet; format 1 keeps its key of before).
     */
    private static String comparableAs(int schemeHash, int values, FingerprintFormat format) {
        String key = String.format(Locale.ROOT, "%08x/%d", schemeHash, values);
        return format == FingerprintFormat.SIGNATURE ? key : key + "/" + format.number();
    }

    /** A compact fingerprint (format 2), its set and no signature: the set's stands for it, at the length its header gives. */
    private static HitFingerprint compact(SearchHit hit, String field, String encoded) {
        try {
            int schemeHash = ShingleSetCodec.schemeHashOf(encoded);
            byte[] payload = ShingleSetCodec.decodePayload(encoded, schemeHash);
            int[] set = ShingleSetCodec.values(payload, 0, payload.length);
            int[] signature = FingerprintFormat.signatureOfSet(set, ShingleSetCodec.signatureLengthOf(encoded));
            return new HitFingerprint(
                    Kind.MINHASH,
                    0,
                    signature,
                    set,
                    comparableAs(schemeHash, signature.length, FingerprintFormat.COMPACT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix(hit, field) + "has a bad shingle set: " + e.getMessage(), e);
        }
    }

    private HitFingerprint withShingleSet(SearchHit hit, String field, String encoded) {
        try {
            byte[] payload =
                    ShingleSetCodec.decodePayload(encoded, Integer.parseUnsignedInt(scheme.substring(0, 8), 16));
            return new HitFingerprint(
                    kind, simhash, signature, ShingleSetCodec.values(payload, 0, payload.length), scheme);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix(hit, field) + "has a bad shingle set: " + e.getMessage(), e);
        }
    }

    static String prefix(SearchHit hit, String field) {
        return "[" + NearDupCollapseResponseProcessor.TYPE + "] field [" + field + "] of hit [" + hit.getId() + "]"
                + (hit.getIndex() == null ? "" : " in index [" + hit.getIndex() + "]") + " ";
    }

    private static IllegalArgumentException notAFingerprint(SearchHit hit, String field, Object value) {
        String shown = String.valueOf(value);
        if (shown.length() > 40) {
            shown = shown.substring(0, 37) + "...";
        }
        return new IllegalArgumentException(prefix(hit, field)
                + "is neither a simhash (16 hex characters) nor a minhash signature: [" + shown + "]");
    }
}
