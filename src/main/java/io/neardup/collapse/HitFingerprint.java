/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.core.FingerprintObject;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import java.util.List;
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
 * signature header ({@link SignatureCodec}: format 1 or 2) is a MinHash signature (a signature is never 16
 * characters long), and an object with a shingle set and no value is a MinHash fingerprint of the compact
 * format. A MinHash fingerprint is read by {@link FingerprintObject#readMinhash}, as the field reads it, at the
 * length it gives. The scheme key: a simhash's {@code scheme} string when {@code _source} has one (none for a
 * bare hex value or a doc value); a MinHash fingerprint's {@link FingerprintObject.Minhash#comparableKey}. A
 * MinHash object in {@code _source} may also carry its shingle set ({@code shingles}), compared with the sets of
 * the same {@code shingleSetScheme} ({@link FingerprintObject.Minhash#shingleSetKey}: whatever the format, so that
 * hits of a data stream's format 1 and format 2 generations fold together); doc values and bare signatures carry
 * none.
 */
record HitFingerprint(
        Kind kind, long simhash, int[] signature, int[] shingleSet, String scheme, String shingleSetScheme) {

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
        if (stored.value() != null && SimhashCodec.isHex(stored.value())) {
            return new HitFingerprint(
                    Kind.SIMHASH, SimhashCodec.parseHex(stored.value()), null, null, stored.scheme(), null);
        }
        return minhash(hit, field, stored);
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

    /** A MinHash fingerprint: a signature, or an object with a signature or a shingle set (the compact format). */
    private static HitFingerprint minhash(SearchHit hit, String field, FingerprintObject.Parts stored) {
        FingerprintObject.Minhash read;
        try {
            read = FingerprintObject.readMinhash(stored, 0, null);
        } catch (IllegalArgumentException e) {
            if (stored.value() != null && isSignature(stored.value()) == false) {
                throw notAFingerprint(hit, field, stored.value());
            }
            throw new IllegalArgumentException(
                    prefix(hit, field) + "is not a valid minhash fingerprint: " + e.getMessage(), e);
        }
        int[] shingleSet = read.shingleValues();
        return new HitFingerprint(
                Kind.MINHASH,
                0,
                read.signature(),
                shingleSet,
                read.comparableKey(),
                shingleSet == null ? null : read.shingleSetKey());
    }

    private static boolean isSignature(String value) {
        try {
            return SignatureCodec.decode(value).length > 0;
        } catch (IllegalArgumentException e) {
            return false;
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
