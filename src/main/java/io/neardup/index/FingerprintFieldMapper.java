/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintObject;
import java.io.IOException;
import java.util.List;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.mapper.ParametrizedFieldMapper;
import org.opensearch.index.mapper.ParseContext;

/**
 * What the {@code simhash} and {@code minhash} mappers share: one value per document, a bare
 * string or the processor's object ({@link FingerprintObject}), read whole, decoded and checked
 * before any Lucene field is added, then the scheme doc value and, in an index with derived
 * source, the form that rebuilds the value. A subclass decodes the value and adds its own fields.
 *
 * @param <V> the decoded value
 */
public abstract sealed class FingerprintFieldMapper<V> extends ParametrizedFieldMapper
        permits SimhashFieldMapper, MinhashFieldMapper {

    protected FingerprintFieldMapper(
            String simpleName, FingerprintFieldType fieldType, MultiFields multiFields, CopyTo copyTo) {
        super(simpleName, fieldType, multiFields, copyTo);
    }

    @Override
    public FingerprintFieldType fieldType() {
        return (FingerprintFieldType) super.fieldType();
    }

    /** The whole value arrives at once, so that an array can be rejected instead of split. */
    @Override
    public final boolean parsesArrayValue() {
        return true;
    }

    /**
     * The framework's parsing, with our reason on top of its error: it wraps ours as "failed to parse
     * field … Preview of field's value: 'null'" (an object has no preview), leaving what was wrong (a
     * signature of 64 values in a field of 128) in {@code caused_by} only.
     */
    @Override
    public void parse(ParseContext context) throws IOException {
        try {
            super.parse(context);
        } catch (MapperParsingException e) {
            if (e.getCause() instanceof IllegalArgumentException reason) {
                throw new MapperParsingException(
                        "failed to parse field [" + name() + "] of type [" + contentType() + "] in document with id '"
                                + context.sourceToParse().id() + "': " + reason.getMessage(),
                        reason);
            }
            throw e;
        }
    }

    /** The keys an object value may hold. */
    protected abstract List<String> keys();

    /** The value decoded and checked; an {@link IllegalArgumentException} says why not. */
    protected abstract V decode(FingerprintObject.Parts raw);

    /** Adds the Lucene fields of {@code value} to the document. */
    protected abstract void addFields(ParseContext context, String field, V value);

    /** Adds what derived source needs besides the doc values to rebuild the value as it was sent. */
    protected abstract void addDerivedForm(ParseContext context, String field, boolean object, V value);

    @Override
    protected final void parseCreateField(ParseContext context) throws IOException {
        String field = fieldType().name();
        String type = contentType();
        boolean object = context.parser().currentToken() == XContentParser.Token.START_OBJECT;
        FingerprintObject.Parts raw = FingerprintFields.read(context, field, type, keys());
        if (raw == null) {
            return;
        }
        V value;
        try {
            value = decode(raw);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(FingerprintFields.prefix(type, field) + e.getMessage(), e);
        }
        if (context.doc().getByKey(field) != null) {
            throw new IllegalArgumentException(
                    FingerprintFields.prefix(type, field) + "takes one fingerprint per document, got a second value");
        }
        addFields(context, field, value);
        FingerprintFields.addScheme(context, field, raw.scheme());
        if (DerivedFingerprintSource.enabled(context)) {
            addDerivedForm(context, field, object, value);
        }
    }

    /**
     * Each mapper's doc values hold what derived source rebuilds; a copy_to target would get no value from it.
     * No {@code @Override}: FieldMapper has this method from OpenSearch 3.1 on, 3.0's has not (see
     * {@link io.neardup.compat.DerivedSourceSupport}).
     */
    public void canDeriveSource() {
        DerivedFingerprintSource.requireNoCopyTo(this);
    }

    @Override
    protected final String contentType() {
        return fieldType().typeName();
    }
}
