/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.util.Map;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.SourceValueFetcher;
import org.opensearch.index.mapper.TextSearchInfo;
import org.opensearch.index.mapper.ValueFetcher;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.search.lookup.SearchLookup;

/**
 * A fingerprint field type, {@code simhash} or {@code minhash}: what every entry point asks of a
 * mapped fingerprint field (its {@link #kind}, the formats it answers in) instead of telling the
 * two apart by class or name.
 */
public abstract sealed class FingerprintFieldType extends MappedFieldType
        permits SimhashFieldMapper.SimhashFieldType, MinhashFieldMapper.MinhashFieldType {

    protected FingerprintFieldType(
            String name,
            boolean indexed,
            boolean hasDocValues,
            TextSearchInfo textSearchInfo,
            Map<String, String> meta) {
        super(name, indexed, false, hasDocValues, textSearchInfo, meta);
    }

    /** Which of the two fingerprint kinds this field holds, and so which options apply to it. */
    public abstract NearDupOptions.FieldKind kind();

    @Override
    public final String typeName() {
        return kind().typeName();
    }

    /** Refuses a {@code format} other than the ones this field renders its values in; null is the default. */
    protected abstract void checkFormat(String format);

    /** A {@code _source} value as {@code fields} shows it in the default format. */
    protected abstract Object render(Object value);

    /** From {@code _source}: the value rendered, or with {@link FingerprintFormats#OBJECT} the stored object. */
    @Override
    public final ValueFetcher valueFetcher(QueryShardContext context, SearchLookup searchLookup, String format) {
        if (FingerprintFormats.OBJECT.equals(format) == false) {
            checkFormat(format);
        }
        return new SourceValueFetcher(name(), context) {
            @Override
            protected Object parseSourceValue(Object value) {
                return FingerprintFormats.fetched(value, format, FingerprintFieldType.this::render);
            }
        };
    }
}
