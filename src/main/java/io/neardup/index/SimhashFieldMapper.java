/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintObject;
import io.neardup.core.Margins;
import io.neardup.core.SimhashCodec;
import java.io.IOException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.MultiTermQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.geo.ShapeRelation;
import org.opensearch.common.time.DateMathParser;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.fielddata.IndexFieldData;
import org.opensearch.index.fielddata.IndexNumericFieldData.NumericType;
import org.opensearch.index.fielddata.plain.SortedNumericIndexFieldData;
import org.opensearch.index.mapper.FieldMapper;
import org.opensearch.index.mapper.ParametrizedFieldMapper;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.index.mapper.TextSearchInfo;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.search.DocValueFormat;
import org.opensearch.search.lookup.SearchLookup;

/**
 * The {@code simhash} field type: one 64-bit simhash per document, with its optional per-bit
 * margins and scheme string.
 *
 * <pre>
 * "body_fp": {"properties": {"simhash": {"type": "simhash"}}}
 * parameters: index (true), doc_values (true, needed by the near-duplicate query, sorting and
 *             index sorting), meta
 * </pre>
 *
 * <p>Lucene fields for a field named {@code f} (the query depends on these):
 * <ul>
 * <li>{@code f}: SortedNumericDocValues holding {@code fp ^ Long.MIN_VALUE} ({@link #encode}), so
 *     that signed long order is the unsigned fingerprint order and fingerprints sharing a p-bit
 *     prefix form one contiguous run; with {@code index: true} also a LongPoint of the same value.</li>
 * <li>{@code f._scheme}: SortedDocValues of the scheme string, when the value had one (a bare hex
 *     string has none).</li>
 * </ul>
 * Arrays are rejected: one fingerprint per document and field.
 */
public final class SimhashFieldMapper extends FingerprintFieldMapper<SimhashFieldMapper.Simhash> {
    public static final String CONTENT_TYPE = FingerprintKind.SIMHASH.typeName();

    private static SimhashFieldMapper toType(FieldMapper in) {
        return (SimhashFieldMapper) in;
    }

    /** The doc value and point encoding of a fingerprint: flips the top bit. */
    public static long encode(long fingerprint) {
        return fingerprint ^ Long.MIN_VALUE;
    }

    /** Inverse of {@link #encode}. */
    public static long decode(long encoded) {
        return encoded ^ Long.MIN_VALUE;
    }

    public static class Builder extends ParametrizedFieldMapper.Builder {
        private final Parameter<Boolean> indexed = Parameter.indexParam(m -> toType(m).indexed, true);
        private final Parameter<Boolean> hasDocValues = Parameter.docValuesParam(m -> toType(m).hasDocValues, true);
        private final Parameter<Map<String, String>> meta = Parameter.metaParam();

        public Builder(String name) {
            super(name);
        }

        @Override
        protected List<Parameter<?>> getParameters() {
            return List.of(indexed, hasDocValues, meta);
        }

        @Override
        public SimhashFieldMapper build(BuilderContext context) {
            SimhashFieldType ft = new SimhashFieldType(
                    buildFullName(context), indexed.getValue(), hasDocValues.getValue(), meta.getValue());
            return new SimhashFieldMapper(name, ft, multiFieldsBuilder.build(this, context), copyTo.build(), this);
        }
    }

    public static final TypeParser PARSER = new TypeParser((n, c) -> new Builder(n));

    public static final class SimhashFieldType extends FingerprintFieldType {

        public SimhashFieldType(String name, boolean indexed, boolean hasDocValues, Map<String, String> meta) {
            super(name, indexed, hasDocValues, TextSearchInfo.SIMPLE_MATCH_ONLY, meta);
        }

        public SimhashFieldType(String name) {
            this(name, true, true, Map.of());
        }

        @Override
        public FingerprintKind kind() {
            return FingerprintKind.SIMHASH;
        }

        /** None: with {@code min_similarity} its query verifies on the sibling {@code minhash} field of its own index. */
        @Override
        public Object queryIdentity() {
            return null;
        }

        /** {@link SimhashNeighborQuery}; with {@code min_similarity}, inside a {@link JaccardVerifiedQuery} on the sibling {@code minhash} field. */
        @Override
        public Query nearDuplicateQuery(
                NearDupOptions options,
                LikeFingerprints like,
                String excludedId,
                QueryShardContext context,
                SegmentFingerprintCache cache) {
            return NearDuplicateQueries.simhash(name(), options, like, excludedId, context, cache);
        }

        @Override
        protected void checkFormat(String format) {
            kind().requireRenderFormat(name(), format);
        }

        @Override
        protected Object render(Object stored) {
            Object hex = FingerprintObject.valueOf(stored);
            return hex == null ? null : SimhashCodec.toHex(SimhashCodec.parseHex(hex.toString()));
        }

        @Override
        public DocValueFormat docValueFormat(String format, ZoneId timeZone) {
            checkFormat(format);
            return SimhashDocValueFormat.INSTANCE;
        }

        @Override
        public Object valueForDisplay(Object value) {
            return value instanceof Long l ? SimhashCodec.toHex(decode(l)) : value;
        }

        @Override
        public IndexFieldData.Builder fielddataBuilder(
                String fullyQualifiedIndexName, Supplier<SearchLookup> searchLookup) {
            failIfNoDocValues();
            return new SortedNumericIndexFieldData.Builder(name(), NumericType.LONG);
        }

        /** An exact match on the fingerprint, given as 16 hex characters. */
        @Override
        public Query termQuery(Object value, QueryShardContext context) {
            failIfNotIndexedAndNoDocValues();
            String hex = value instanceof BytesRef bytes ? bytes.utf8ToString() : String.valueOf(value);
            long encoded;
            try {
                encoded = encode(SimhashCodec.parseHex(hex));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "Field [" + name() + "] of type [" + typeName() + "]: " + e.getMessage(), e);
            }
            Query dvQuery = hasDocValues() ? SortedNumericDocValuesField.newSlowExactQuery(name(), encoded) : null;
            if (isSearchable() == false) {
                return dvQuery;
            }
            Query pointQuery = LongPoint.newExactQuery(name(), encoded);
            return dvQuery == null ? pointQuery : new IndexOrDocValuesQuery(pointQuery, dvQuery);
        }

        @Override
        public Query rangeQuery(
                Object lowerTerm,
                Object upperTerm,
                boolean includeLower,
                boolean includeUpper,
                ShapeRelation relation,
                ZoneId timeZone,
                DateMathParser parser,
                QueryShardContext context) {
            failIfNotIndexedAndNoDocValues();
            // Fingerprint order is unsigned, which is the signed order of the encoded values.
            long lower = lowerTerm == null ? Long.MIN_VALUE : encodedBound(lowerTerm);
            long upper = upperTerm == null ? Long.MAX_VALUE : encodedBound(upperTerm);
            if (lowerTerm != null && includeLower == false) {
                if (lower == Long.MAX_VALUE) {
                    return new MatchNoDocsQuery("nothing above the largest fingerprint");
                }
                lower++;
            }
            if (upperTerm != null && includeUpper == false) {
                if (upper == Long.MIN_VALUE) {
                    return new MatchNoDocsQuery("nothing below the smallest fingerprint");
                }
                upper--;
            }
            if (lower > upper) {
                return new MatchNoDocsQuery("empty fingerprint range");
            }
            Query dvQuery = hasDocValues() ? SortedNumericDocValuesField.newSlowRangeQuery(name(), lower, upper) : null;
            if (isSearchable() == false) {
                return dvQuery;
            }
            Query pointQuery = LongPoint.newRangeQuery(name(), lower, upper);
            return dvQuery == null ? pointQuery : new IndexOrDocValuesQuery(pointQuery, dvQuery);
        }

        /** A range bound: 16 hex characters, or the internal signed value that sort values and {@code search_after} carry. */
        private long encodedBound(Object bound) {
            if (bound instanceof Number number) {
                return number.longValue();
            }
            String hex = bound instanceof BytesRef bytes ? bytes.utf8ToString() : String.valueOf(bound);
            try {
                return encode(SimhashCodec.parseHex(hex));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "Field [" + name() + "] of type [" + typeName() + "]: " + e.getMessage(), e);
            }
        }

        @Override
        public Query prefixQuery(
                String value, MultiTermQuery.RewriteMethod method, boolean caseInsensitive, QueryShardContext context) {
            throw new IllegalArgumentException(
                    "[simhash] fields do not support prefix queries: field [" + name() + "]");
        }
    }

    private final boolean indexed;
    private final boolean hasDocValues;

    private SimhashFieldMapper(
            String simpleName, SimhashFieldType fieldType, MultiFields multiFields, CopyTo copyTo, Builder builder) {
        super(simpleName, fieldType, multiFields, copyTo);
        this.indexed = builder.indexed.getValue();
        this.hasDocValues = builder.hasDocValues.getValue();
    }

    @Override
    public SimhashFieldType fieldType() {
        return (SimhashFieldType) super.fieldType();
    }

    /** A decoded value: the fingerprint, and its margins when the value had them (checked here, read from {@code _source} by the queries). */
    record Simhash(long fingerprint, Margins margins) {}

    @Override
    protected List<String> keys() {
        return FingerprintObject.SIMHASH_KEYS;
    }

    @Override
    protected Simhash decode(FingerprintObject.Parts raw) {
        return new Simhash(
                SimhashCodec.parseHex(raw.value()), raw.margins() == null ? null : Margins.decode(raw.margins()));
    }

    @Override
    protected void addFields(ParseContext context, String field, Simhash value) {
        long encoded = encode(value.fingerprint());
        IndexableField first = null;
        if (hasDocValues) {
            first = new SortedNumericDocValuesField(field, encoded);
            context.doc().addWithKey(field, first);
        }
        if (indexed) {
            IndexableField point = new LongPoint(field, encoded);
            if (first == null) {
                context.doc().addWithKey(field, point);
            } else {
                context.doc().add(point);
            }
        }
        if (hasDocValues == false && indexed) {
            createFieldNamesField(context);
        }
    }

    @Override
    protected void addDerivedForm(ParseContext context, String field, boolean object, Simhash value) {
        DerivedFingerprintSource.addSimhash(context, field, object, value.margins());
    }

    /** Doc values hold the fingerprint, so an index with derived source can rebuild it; without them it cannot. */
    @Override
    public void canDeriveSource() {
        super.canDeriveSource();
        if (hasDocValues == false) {
            throw new UnsupportedOperationException(
                    "Unable to derive source for [" + name() + "] with doc values disabled");
        }
    }

    /** Overrides FieldMapper's from OpenSearch 3.1 on (see {@link #canDeriveSource}). */
    public void deriveSource(XContentBuilder builder, LeafReader leafReader, int docId) throws IOException {
        DerivedFingerprintSource.writeSimhash(
                builder, leafReader, docId, fieldType().name(), simpleName());
    }

    @Override
    public ParametrizedFieldMapper.Builder getMergeBuilder() {
        return new Builder(simpleName()).init(this);
    }
}
