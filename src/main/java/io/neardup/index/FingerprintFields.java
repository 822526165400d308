/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintObject;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.util.BytesRef;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.mapper.ParseContext;

/**
 * What the {@code simhash} and {@code minhash} mappers share: the hidden Lucene field names next to
 * a fingerprint field, and the parsing of the value contract written by the ingest processor
 * ({@link FingerprintObject}):
 * <pre>
 * "simhash": {"value": "&lt;16 hex&gt;", "margins": "&lt;base64url&gt;", "scheme": "&lt;scheme&gt;"}   or "&lt;16 hex&gt;"
 * "minhash": {"value": "&lt;base64url&gt;", "shingles": "&lt;base64url&gt;", "scheme": "&lt;scheme&gt;"}   or "&lt;base64url&gt;"
 * </pre>
 * Errors are {@link IllegalArgumentException}s that name the field and the reason; the mapper
 * framework wraps them in a {@code MapperParsingException} (HTTP 400).
 */
public final class FingerprintFields {
    /** Suffix of the SortedDocValues field holding the scheme string of each document. */
    public static final String SCHEME_SUFFIX = "._scheme";
    /** Suffix of the BinaryDocValues field holding a {@code minhash} field's shingle set ({@code ShingleSetCodec} payload). */
    public static final String SHINGLES_SUFFIX = "._shingles";
    /** Suffix of the terms field holding a {@code minhash} field's sampled shingle values, for containment. */
    public static final String CONTAINMENT_SUFFIX = "._containment";
    /**
     * Suffix of the NumericDocValues field holding the size of a {@code minhash} field's shingle set, for containment.
     * Not on {@code f._containment} itself: Lucene fixes a field's structures for the whole index, so segments
     * indexed before the size existed would refuse it there.
     */
    public static final String CONTAINMENT_SIZE_SUFFIX = "._containment_size";

    private FingerprintFields() {}

    public static String schemeField(String field) {
        return field + SCHEME_SUFFIX;
    }

    /**
     * The {@code minhash} field beside {@code simhashField} in its fingerprint object ({@code body_fp.simhash} →
     * {@code body_fp.minhash}), as the processor writes them: where {@code min_similarity} on a simhash field verifies.
     */
    public static String siblingMinhashField(String simhashField) {
        int dot = simhashField.lastIndexOf('.');
        return (dot < 0 ? "" : simhashField.substring(0, dot + 1)) + "minhash";
    }

    public static String shinglesField(String field) {
        return field + SHINGLES_SUFFIX;
    }

    /** The terms field of a {@code minhash} field's containment sample ({@code containment: true}). */
    public static String containmentField(String field) {
        return field + CONTAINMENT_SUFFIX;
    }

    /** The doc-values field of the size of a {@code minhash} field's shingle set ({@code containment: true}). */
    public static String containmentSizeField(String field) {
        return field + CONTAINMENT_SIZE_SUFFIX;
    }

    /**
     * The fingerprint fields among an object's subfields, for the message that names them where the
     * object was given instead of one of them: {@code [body_fp.simhash], [body_fp.minhash]} in the order
     * of {@code subfields}, or empty if none is mapped as {@code simhash} or {@code minhash}.
     *
     * @param subfields the simple names of the subfields to consider
     * @param typeOf the type each is mapped as ({@code "simhash"}, {@code "minhash"}, another), or null
     */
    public static String fingerprintSubfields(String object, Iterable<?> subfields, Function<Object, Object> typeOf) {
        StringBuilder names = new StringBuilder();
        for (Object name : subfields) {
            if (FingerprintKind.ofType(typeOf.apply(name)) != null) {
                names.append(names.isEmpty() ? "" : ", ")
                        .append('[')
                        .append(object)
                        .append('.')
                        .append(name)
                        .append(']');
            }
        }
        return names.toString();
    }

    /**
     * Reads the current value as {@link FingerprintObject#read} does, with the field named in every
     * error. An object is read whole before it is checked, so a failure leaves the parser at its end.
     */
    static FingerprintObject.Parts read(ParseContext context, String field, String type, List<String> keys)
            throws IOException {
        XContentParser parser = context.parser();
        Object stored = switch (parser.currentToken()) {
            case VALUE_NULL -> null;
            case VALUE_STRING -> parser.text();
            case START_ARRAY ->
                throw new IllegalArgumentException(
                        prefix(type, field) + "takes one fingerprint per document, got an array");
            case START_OBJECT -> parser.mapOrdered();
            default ->
                throw new IllegalArgumentException(prefix(type, field) + "expects a string or an object with ["
                        + String.join(", ", keys) + "], got " + parser.currentToken());
        };
        try {
            return FingerprintObject.read(stored, keys);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix(type, field) + e.getMessage(), e);
        }
    }

    /** Adds the scheme doc value when the value carried a scheme (a bare string carries none). */
    static void addScheme(ParseContext context, String field, String scheme) {
        if (scheme != null) {
            context.doc().add(new SortedDocValuesField(schemeField(field), new BytesRef(scheme)));
        }
    }

    static String prefix(String type, String field) {
        return "[" + type + "] field [" + field + "]: ";
    }
}
