/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.util.Map;
import org.apache.lucene.search.Query;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.SourceValueFetcher;
import org.opensearch.index.mapper.TextSearchInfo;
import org.opensearch.index.mapper.ValueFetcher;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.search.lookup.SearchLookup;

/**
 * A fingerprint field type, {@code simhash} or {@code minhash}: what every entry point asks of a
 * mapped fingerprint field (its {@link #kind}, the formats it answers in, its {@code near_duplicate}
 * query) instead of telling the two apart by class or name.
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
    public abstract FingerprintKind kind();

    /**
     * The Lucene query of {@code near_duplicate} on this field: the documents near {@code like}'s
     * fingerprint under {@code options}, which the caller checked apply to this field's {@link #kind}. As
     * {@code MappedFieldType#termsQuery} is to {@code terms}: the entry point parses, validates and resolves
     * {@code like}; the field type knows its Lucene fields, its queries and what verifies them.
     *
     * @param like asked for the fingerprint in the form this field compares (a {@code simhash} field with
     *     {@code min_similarity} also asks for its sibling {@code minhash} field's)
     * @param excludedId the {@code _id} of the document the query must not find (its {@code like}), or null;
     *     the caller excludes it by {@code _id} too, a field type may leave it out earlier
     * @param cache the node's per-segment structures and query stats
     * @throws IllegalArgumentException when the query cannot be built here (the entry point makes it a 400
     *     naming the shard); a {@code QueryShardException} where the field type names the shard itself
     */
    /**
     * What this field's queries are built from besides their own inputs: two fields, of two indices, with equal
     * identities build the same {@link #nearDuplicateQuery} and {@link #containmentQuery} for the same {@code like},
     * options and excluded id, so that a query built on one index's shard can be searched on the other's (a lookup into
     * a data stream's 30 backing indices of one mapping builds each document's query once a node, not 30 times). Null
     * where a query also depends on more of its index than this field.
     */
    public abstract Object queryIdentity();

    public abstract Query nearDuplicateQuery(
            NearDupOptions options,
            LikeFingerprints like,
            String excludedId,
            QueryShardContext context,
            SegmentFingerprintCache cache);

    /**
     * The Lucene query of {@code near_duplicate} with {@code min_containment} on this field, as
     * {@link #nearDuplicateQuery}; a field type without containment refuses it.
     *
     * @throws IllegalArgumentException when this field cannot answer containment (the entry point makes it a 400)
     */
    public Query containmentQuery(
            Containment containment,
            LikeFingerprints like,
            String excludedId,
            QueryShardContext context,
            SegmentFingerprintCache cache) {
        throw new IllegalArgumentException("[" + NearDupOptions.QUERY + "] [" + Containment.MIN_CONTAINMENT
                + "] applies to [minhash] fields; [" + name() + "] is a [" + typeName() + "] field");
    }

    @Override
    public final String typeName() {
        return kind().typeName();
    }

    /** Refuses a {@code format} other than the ones this field renders its values in; null is the default. */
    protected abstract void checkFormat(String format);

    /** A {@code _source} value (bare or the object) as {@code fields} shows it in the default format, or null. */
    protected abstract Object render(Object stored);

    /** From {@code _source}: the value rendered, or with {@link FingerprintKind#OBJECT} the stored object. */
    @Override
    public final ValueFetcher valueFetcher(QueryShardContext context, SearchLookup searchLookup, String format) {
        if (FingerprintKind.OBJECT.equals(format) == false) {
            checkFormat(format);
        }
        return new SourceValueFetcher(name(), context) {
            @Override
            protected Object parseSourceValue(Object value) {
                return FingerprintKind.fetched(value, format, FingerprintFieldType.this::render);
            }
        };
    }
}
