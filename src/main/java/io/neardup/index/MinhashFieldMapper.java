/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.BandKeyFilter;
import io.neardup.core.ContainmentSampling;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.fielddata.IndexFieldData;
import org.opensearch.index.mapper.FieldMapper;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.ParametrizedFieldMapper;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.index.mapper.TextSearchInfo;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.search.DocValueFormat;
import org.opensearch.search.lookup.SearchLookup;

/**
 * The {@code minhash} field type: one MinHash signature per document, indexed as LSH band terms.
 *
 * <pre>
 * "body_fp": {"properties": {"minhash": {"type": "minhash", "num_hashes": 128, "threshold": 0.8}}}
 * parameters: num_hashes (128, in [1, 1024]);
 *             one of: min_similarity_floor in (0, 1), the banding from {@link LshBanding#forFloor}
 *             (default 0.5: 42 bands of 3 rows for 128 values), serving every query threshold at or
 *             above it;
 *             bands + rows (bands * rows &lt;= num_hashes);
 *             threshold in (0, 1) with false_positive_weight / false_negative_weight (0.2 / 0.8),
 *             from which bands and rows are derived by {@link LshBanding#optimal};
 *             containment (false): index a sample of the shingle set for containment queries
 *             ({@link ContainmentQuery}), with containment_sampling (4, in [1, 64]: one shingle in that many);
 *             meta. None of them can be changed on an existing field.
 * </pre>
 *
 * <p>Lucene fields for a field named {@code f} (the query depends on these):
 * <ul>
 * <li>{@code f}: BinaryDocValues, the signature as {@code num_hashes} big-endian int32 values
 *     ({@link SignatureCodec#valueBytes}), no header; in the compact format ({@link FingerprintFormat#COMPACT})
 *     an empty value where the document has a shingle set, whose signature it is
 *     ({@link FingerprintFormat#signatureOfSet}).</li>
 * <li>{@code f}: one indexed term per band (DOCS only, no norms, no positions), {@link MinhashFieldType#bandTerm}:
 *     2 bytes band index (big-endian) followed by the {@link FingerprintFormat#bandKeyBytes} (big-endian) of
 *     {@link FingerprintFormat#bandKey} over the band's {@code rows} values as big-endian int32
 *     bytes; band {@code i} covers values {@code [i * rows, (i + 1) * rows)}.</li>
 * <li>{@code f._shingles}: BinaryDocValues, the document's shingle set as a {@link ShingleSetCodec}
 *     payload, when the value has {@code shingles} (its header must carry the signature's scheme hash).</li>
 * <li>{@code f._scheme}: SortedDocValues of the scheme string, when the value had one.</li>
 * <li>{@code f._containment}: with {@code containment: true}, one indexed term (DOCS only) per shingle value the
 *     {@link ContainmentSampling} keeps at {@code containment_sampling}, 4 bytes big-endian, when the value has
 *     {@code shingles}.</li>
 * <li>{@code f._containment_size}: with {@code containment: true}, NumericDocValues of the shingle set's size, when
 *     the value has {@code shingles}; absent from segments written before it was indexed.</li>
 * </ul>
 * The index's format ({@link IndexFingerprintFormat}) is the field's, fixed when the index was created; a value of
 * the other format is refused, naming both.
 * The signature's header (format version, scheme hash) is checked: a wrong length or version fails,
 * and when the scheme string has the form {@code nd<version>-<8 hex>} ({@code FingerprintScheme.id()})
 * its hash must equal the header's. Arrays are rejected.
 */
public final class MinhashFieldMapper extends FingerprintFieldMapper<FingerprintObject.Minhash> {
    public static final String CONTENT_TYPE = FingerprintKind.MINHASH.typeName();
    public static final int DEFAULT_NUM_HASHES = 128;
    public static final double DEFAULT_THRESHOLD = 0.8;
    /**
     * With exact verification, the banding only has to find the candidates: band for the lowest
     * threshold users ask for, and require more bands to agree at higher ones (docs/minhash.md).
     */
    public static final double DEFAULT_MIN_SIMILARITY_FLOOR = 0.5;
    /**
     * Missing a near-duplicate costs more than verifying a candidate (every candidate is checked on
     * its whole signature): on the man pages these weights raise F1 at threshold 0.8 from 0.854
     * (equal weights: 9 x 13) to 0.914 (12 x 10), against a ceiling of 0.922 without any banding
     * (docs/minhash.md).
     */
    public static final double DEFAULT_FALSE_POSITIVE_WEIGHT = 0.2;

    public static final double DEFAULT_FALSE_NEGATIVE_WEIGHT = 0.8;
    /** The band terms' field type. */
    public static final FieldType BAND_FIELD_TYPE = new FieldType();

    static {
        BAND_FIELD_TYPE.setIndexOptions(IndexOptions.DOCS);
        BAND_FIELD_TYPE.setTokenized(false);
        BAND_FIELD_TYPE.setOmitNorms(true);
        BAND_FIELD_TYPE.setStored(false);
        BAND_FIELD_TYPE.freeze();
    }

    private static MinhashFieldMapper toType(FieldMapper in) {
        return (MinhashFieldMapper) in;
    }

    private static Parameter<Integer> nullableInt(
            String name, java.util.function.Function<FieldMapper, Integer> initializer) {
        return new Parameter<>(
                        name,
                        false,
                        () -> null,
                        // The parser's first argument is the field's name, not the parameter's.
                        (field, c, o) -> o == null ? null : NearDupOption.integer(name, o),
                        initializer)
                .acceptsNull()
                .setSerializerCheck((includeDefaults, isConfigured, v) -> v != null);
    }

    public static class Builder extends ParametrizedFieldMapper.Builder {
        // Not Parameter.intParam, whose parse of a number beyond int range is a 500 (ArithmeticException).
        private final Parameter<Integer> numHashes = new Parameter<>(
                        "num_hashes",
                        false,
                        () -> DEFAULT_NUM_HASHES,
                        (field, c, o) -> NearDupOption.integer("num_hashes", o),
                        m -> toType(m).numHashes)
                .setValidator(v -> {
                    if (v < 1 || v > MinHasher.MAX_HASHES) {
                        throw new IllegalArgumentException(
                                "[num_hashes] must be in [1, " + MinHasher.MAX_HASHES + "], got [" + v + "]");
                    }
                });
        private final Parameter<Integer> bands = nullableInt("bands", m -> toType(m).bandsParam);
        private final Parameter<Integer> rows = nullableInt("rows", m -> toType(m).rowsParam);
        private final Parameter<Double> threshold = new Parameter<Double>(
                        "threshold",
                        false,
                        () -> null,
                        (n, c, o) -> o == null ? null : XContentMapValues.nodeDoubleValue(o),
                        m -> toType(m).thresholdParam)
                .acceptsNull()
                .setSerializerCheck((includeDefaults, isConfigured, v) -> v != null)
                .setValidator(v -> {
                    if (v != null && !(v > 0 && v < 1)) {
                        throw new IllegalArgumentException("[threshold] must be in (0, 1), got [" + v + "]");
                    }
                });
        private final Parameter<Double> floor = new Parameter<Double>(
                        "min_similarity_floor",
                        false,
                        () -> null,
                        (n, c, o) -> o == null ? null : XContentMapValues.nodeDoubleValue(o),
                        m -> toType(m).floorParam)
                .acceptsNull()
                .setSerializerCheck((includeDefaults, isConfigured, v) -> v != null)
                .setValidator(v -> {
                    if (v != null && !(v > 0 && v < 1)) {
                        throw new IllegalArgumentException("[min_similarity_floor] must be in (0, 1), got [" + v + "]");
                    }
                });
        private final Parameter<Double> fpWeight = Parameter.doubleParam(
                        "false_positive_weight", false, m -> toType(m).fpWeight, DEFAULT_FALSE_POSITIVE_WEIGHT)
                .setValidator(v -> requireWeight("false_positive_weight", v));
        private final Parameter<Double> fnWeight = Parameter.doubleParam(
                        "false_negative_weight", false, m -> toType(m).fnWeight, DEFAULT_FALSE_NEGATIVE_WEIGHT)
                .setValidator(v -> requireWeight("false_negative_weight", v));
        private final Parameter<Boolean> containment =
                Parameter.boolParam("containment", false, m -> toType(m).containment, false);
        private final Parameter<Integer> containmentSampling = nullableInt(
                        "containment_sampling", m -> toType(m).containmentSamplingParam)
                .setValidator(v -> {
                    if (v != null) {
                        ContainmentSampling.requireRate(v);
                    }
                });
        private final Parameter<Map<String, String>> meta = Parameter.metaParam();
        /** The format of the mapper this one is merged from, or null: then the index's, from the settings given. */
        private FingerprintFormat format;

        public Builder(String name) {
            super(name);
        }

        private static void requireWeight(String name, Double value) {
            if (value == null || Double.isFinite(value) == false || value < 0) {
                throw new IllegalArgumentException("[" + name + "] must be a finite number >= 0, got [" + value + "]");
            }
        }

        @Override
        protected List<Parameter<?>> getParameters() {
            return List.of(
                    numHashes,
                    floor,
                    bands,
                    rows,
                    threshold,
                    fpWeight,
                    fnWeight,
                    containment,
                    containmentSampling,
                    meta);
        }

        /** The containment sampling rate, 0 for a field without containment; recorded in the mapping when on. */
        private int containmentSampling() {
            if (containment.getValue() == false) {
                if (containmentSampling.getValue() != null) {
                    throw new IllegalArgumentException("[" + CONTENT_TYPE + "] field [" + name
                            + "]: [containment_sampling] applies with [containment: true]");
                }
                return 0;
            }
            if (containmentSampling.getValue() == null) {
                // Recorded, so that a later default cannot change the terms of this field.
                containmentSampling.setValue(ContainmentSampling.DEFAULT_RATE);
            }
            return containmentSampling.getValue();
        }

        private LshBanding banding() {
            int n = numHashes.getValue();
            boolean explicit = bands.getValue() != null || rows.getValue() != null;
            int given =
                    (explicit ? 1 : 0) + (threshold.getValue() != null ? 1 : 0) + (floor.getValue() != null ? 1 : 0);
            if (given > 1) {
                throw new IllegalArgumentException(
                        "set one of [min_similarity_floor], [threshold], or [bands] with [rows], not several");
            }
            if ((fpWeight.isConfigured() || fnWeight.isConfigured()) && threshold.getValue() == null) {
                throw new IllegalArgumentException(
                        "[false_positive_weight] and [false_negative_weight] only apply to [threshold]");
            }
            try {
                if (explicit) {
                    if (bands.getValue() == null || rows.getValue() == null) {
                        throw new IllegalArgumentException("[bands] and [rows] must be set together");
                    }
                    return LshBanding.of(bands.getValue(), rows.getValue(), n);
                }
                if (threshold.getValue() != null) {
                    return LshBanding.optimal(threshold.getValue(), n, fpWeight.getValue(), fnWeight.getValue());
                }
                if (floor.getValue() == null) {
                    // Recorded in the mapping, so that a later default cannot change the band terms of this field.
                    floor.setValue(DEFAULT_MIN_SIMILARITY_FLOOR);
                }
                return LshBanding.forFloor(floor.getValue(), n);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("[" + CONTENT_TYPE + "] field [" + name + "]: " + e.getMessage(), e);
            }
        }

        @Override
        public MinhashFieldMapper build(BuilderContext context) {
            LshBanding banding = banding();
            MinhashFieldType ft = new MinhashFieldType(
                    buildFullName(context),
                    numHashes.getValue(),
                    banding,
                    format != null ? format : IndexFingerprintFormat.of(context.indexSettings()),
                    containmentSampling(),
                    meta.getValue());
            return new MinhashFieldMapper(name, ft, multiFieldsBuilder.build(this, context), copyTo.build(), this);
        }
    }

    public static final TypeParser PARSER = new TypeParser((n, c) -> new Builder(n));

    public static final class MinhashFieldType extends FingerprintFieldType {
        private final int numHashes;
        private final LshBanding banding;
        private final FingerprintFormat format;
        private final int containmentSampling;

        /** {@code type} as a {@code minhash} field type, or null if it is another (or none). */
        public static MinhashFieldType of(MappedFieldType type) {
            return type instanceof MinhashFieldType minhash ? minhash : null;
        }

        public MinhashFieldType(
                String name, int numHashes, LshBanding banding, FingerprintFormat format, Map<String, String> meta) {
            this(name, numHashes, banding, format, 0, meta);
        }

        /** @param containmentSampling the rate {@link ContainmentSampling} samples the set at, or 0: no containment */
        public MinhashFieldType(
                String name,
                int numHashes,
                LshBanding banding,
                FingerprintFormat format,
                int containmentSampling,
                Map<String, String> meta) {
            super(name, true, true, TextSearchInfo.NONE, meta);
            this.numHashes = numHashes;
            this.banding = banding;
            this.format = format;
            this.containmentSampling =
                    containmentSampling == 0 ? 0 : ContainmentSampling.requireRate(containmentSampling);
        }

        @Override
        public FingerprintKind kind() {
            return FingerprintKind.MINHASH;
        }

        /** Everything of the field its queries read: the band terms, filter keys and verification follow from these. */
        private record QueryIdentity(
                String name,
                int numHashes,
                LshBanding banding,
                FingerprintFormat format,
                int containmentSampling,
                boolean searchable,
                boolean hasDocValues) {}

        @Override
        public Object queryIdentity() {
            return new QueryIdentity(
                    name(), numHashes, banding, format, containmentSampling, isSearchable(), hasDocValues());
        }

        /** {@link MinhashSimilarityQuery}: band candidates verified on the signatures or shingle sets; {@code _id} excludes the liked document. */
        @Override
        public Query nearDuplicateQuery(
                NearDupOptions options,
                LikeFingerprints like,
                String excludedId,
                QueryShardContext context,
                SegmentFingerprintCache cache) {
            return NearDuplicateQueries.minhash(this, options, like, context, cache);
        }

        /**
         * {@link ContainmentQuery}: the documents that contain {@code like}'s text, or that its text contains, by
         * at least the share asked for; needs the field mapped with {@code containment: true}.
         */
        @Override
        public Query containmentQuery(
                Containment containment,
                LikeFingerprints like,
                String excludedId,
                QueryShardContext context,
                SegmentFingerprintCache cache) {
            if (containmentSampling == 0) {
                throw new IllegalArgumentException("[" + NearDupOptions.QUERY + "] [" + Containment.MIN_CONTAINMENT
                        + "] needs field [" + name() + "] mapped with [containment: true], and it is not "
                        + "(set it on a new field or index, and reindex into it: docs/containment.md)");
            }
            LikeFingerprints.Minhash target = like.minhash(this, context);
            if (target.shingleSet() == null) {
                throw new IllegalArgumentException("[" + NearDupOptions.QUERY + "] [" + Containment.MIN_CONTAINMENT
                        + "] compares shingle sets, and the query fingerprint has none: query by [_id] or [text], or "
                        + "give [like.shingles]");
            }
            return new ContainmentQuery(
                    this, target.shingleSet(), target.schemeHash(), target.scheme(), containment, cache);
        }

        public int numHashes() {
            return numHashes;
        }

        /** One shingle value in this many is indexed for containment ({@link ContainmentSampling}); 0: none. */
        public int containmentSampling() {
            return containmentSampling;
        }

        /** The term a sampled shingle value is indexed as in {@link FingerprintFields#containmentField}: 4 bytes, big-endian. */
        public static BytesRef containmentTerm(int value) {
            return new BytesRef(
                    new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
        }

        /** The effective banding (given or derived from the threshold). */
        public LshBanding banding() {
            return banding;
        }

        /** The format of the field's index, fixed when it was created. */
        public FingerprintFormat format() {
            return format;
        }

        /** The length of a band term: the band index (2 bytes) and the format's band key. */
        public int bandTermBytes() {
            return 2 + format.bandKeyBytes();
        }

        /** The key of band {@code band} of a signature in its stored layout at {@code offset} of {@code signatureBytes}. */
        public long bandKey(byte[] signatureBytes, int offset, int band) {
            return format.bandKey(signatureBytes, offset, band, banding.rows());
        }

        /** The term of band {@code band} of a signature in {@link SignatureCodec#valueBytes} layout. */
        public BytesRef bandTerm(byte[] signatureBytes, int band) {
            BytesRef term = new BytesRef(new byte[bandTermBytes()]);
            bandTerm(band, bandKey(signatureBytes, 0, band), term);
            return term;
        }

        /** The term of band {@code band} with key {@code key} ({@link #bandKey}), written into {@code term}, whose bytes hold at least {@link #bandTermBytes}. */
        public void bandTerm(int band, long key, BytesRef term) {
            byte[] bytes = term.bytes;
            int at = term.offset;
            bytes[at] = (byte) (band >>> 8);
            bytes[at + 1] = (byte) band;
            int keyBytes = format.bandKeyBytes();
            for (int i = 0; i < keyBytes; i++) {
                bytes[at + 2 + i] = (byte) (key >>> (8 * (keyBytes - 1 - i)));
            }
            term.length = 2 + keyBytes;
        }

        /** The band index of a band term. */
        public static int bandOf(BytesRef term) {
            return ((term.bytes[term.offset] & 0xFF) << 8) | (term.bytes[term.offset + 1] & 0xFF);
        }

        /** The band key of a band term ({@link #bandKey}). */
        public long keyOf(BytesRef term) {
            long key = 0;
            for (int i = 2; i < term.length; i++) {
                key = (key << 8) | (term.bytes[term.offset + i] & 0xFF);
            }
            return key;
        }

        /**
         * The {@link BandKeyFilter} key of a band term ({@link BandKeyFilter#keyOf} its band and key): the one key
         * derivation of every band key filter, the shard's ({@code ShardBandBuckets}) and the segment's
         * ({@link SegmentFingerprintCache#bandKeyFilter}), read from the term so that a filter and a probe built from
         * the same terms cannot disagree.
         */
        public long filterKeyOf(BytesRef term) {
            return BandKeyFilter.keyOf(bandOf(term), keyOf(term));
        }

        /**
         * A fingerprint read from a document or a request ({@code value}, {@code shingles}, {@code scheme}, as
         * {@link FingerprintObject} reads them) as this field compares it: a signature of its format and length, and
         * the set. Read by {@link FingerprintObject#readMinhash}, with every check of a document's value; a fingerprint of
         * the other format serves through its set: in the compact format with the set's signature, in format 1 (whose
         * signatures are not a function of the set) with no signature, compared by sets alone; without a set it is
         * refused, naming both formats.
         *
         * @throws IllegalArgumentException what is wrong, for the caller to say where the fingerprint came from
         */
        public LikeFingerprints.Minhash likeFingerprintOf(String value, String shingles, String scheme) {
            FingerprintObject.Parts parts = new FingerprintObject.Parts(value, null, shingles, scheme);
            FingerprintFormat given = value == null ? FingerprintFormat.COMPACT : SignatureCodec.formatOf(value);
            FingerprintObject.Minhash read;
            try {
                // Of this field's format: read as the field reads a document's value. Of the other: read as it is,
                // then compared through its set where this format derives signatures.
                read = FingerprintObject.readMinhash(
                        parts, given == format ? numHashes : 0, given == format ? format : null);
            } catch (FingerprintObject.OtherFormatException e) {
                throw new IllegalArgumentException(e.getMessage() + "; fingerprint the text instead ([like.text])", e);
            }
            if (given == format) {
                return new LikeFingerprints.Minhash(read.signature(), read.shingleSet(), read.schemeHash(), scheme);
            }
            if (format.derivesSignatureFromSet() && read.shingleSet() != null) {
                int[] signature = FingerprintFormat.signatureOfSet(read.shingleValues(), numHashes);
                return new LikeFingerprints.Minhash(signature, read.shingleSet(), read.schemeHash(), scheme);
            }
            if (read.shingleSet() != null) {
                // A set, and no signature of this format: compared by sets alone (NearDuplicateQueries.minhash).
                return new LikeFingerprints.Minhash(null, read.shingleSet(), read.schemeHash(), scheme);
            }
            throw new IllegalArgumentException(
                    "its fingerprint is of " + given.describe() + " and field [" + name() + "] of " + format.describe()
                            + ", and it has no shingle set to compare with; fingerprint the text instead ([like.text])");
        }

        /** The field's values in {@code reader}'s segment, as the caller may see them ({@link MinhashDocValues}). */
        public MinhashDocValues docValues(LeafReader reader, boolean withShingleSets) throws IOException {
            return MinhashDocValues.open(reader, name(), withShingleSets, this);
        }

        /**
         * The signature of a document that stores none, in the stored layout: in the compact format, of its shingle
         * set payload ({@link FingerprintFormat#signatureOfSet}).
         */
        byte[] signatureOfSet(byte[] payload, int offset, int length) {
            return FingerprintFormat.signatureBytesOfSet(payload, offset, length, numHashes);
        }

        @Override
        protected void checkFormat(String format) {
            kind().requireRenderFormat(name(), format);
        }

        /**
         * Signature strings are shown as stored; a compact document's, which stores none, as its set's signature
         * ({@link FingerprintFormat#signatureOfSet}) with its format's header, as {@code docvalue_fields} shows it.
         */
        @Override
        protected Object render(Object stored) {
            Object value = FingerprintObject.valueOf(stored);
            if (value != null || format.derivesSignatureFromSet() == false || stored instanceof Map<?, ?> == false) {
                return value;
            }
            if (((Map<?, ?>) stored).get(FingerprintObject.SHINGLES) instanceof String == false) {
                return null;
            }
            FingerprintObject.Minhash read = FingerprintObject.readMinhash(
                    FingerprintObject.read(stored, FingerprintObject.MINHASH_KEYS), numHashes, format);
            return SignatureCodec.encode(read.signature(), read.schemeHash(), format);
        }

        /** Signature strings, as in {@code _source}: what {@code docvalue_fields}, scripts and {@code terms} read. */
        @Override
        public IndexFieldData.Builder fielddataBuilder(
                String fullyQualifiedIndexName, Supplier<SearchLookup> searchLookup) {
            failIfNoDocValues();
            return MinhashFieldData.builder(this);
        }

        @Override
        public DocValueFormat docValueFormat(String format, ZoneId timeZone) {
            checkFormat(format);
            return DocValueFormat.RAW;
        }

        @Override
        public Query termQuery(Object value, QueryShardContext context) {
            throw new IllegalArgumentException("[minhash] fields do not support term queries: field [" + name() + "]");
        }
    }

    private final int numHashes;
    private final Integer bandsParam;
    private final Integer rowsParam;
    private final Double thresholdParam;
    private final Double floorParam;
    private final double fpWeight;
    private final double fnWeight;
    private final boolean containment;
    private final Integer containmentSamplingParam;

    private MinhashFieldMapper(
            String simpleName, MinhashFieldType fieldType, MultiFields multiFields, CopyTo copyTo, Builder builder) {
        super(simpleName, fieldType, multiFields, copyTo);
        this.numHashes = builder.numHashes.getValue();
        this.bandsParam = builder.bands.getValue();
        this.rowsParam = builder.rows.getValue();
        this.thresholdParam = builder.threshold.getValue();
        this.floorParam = builder.floor.getValue();
        this.fpWeight = builder.fpWeight.getValue();
        this.fnWeight = builder.fnWeight.getValue();
        this.containment = builder.containment.getValue();
        this.containmentSamplingParam = builder.containmentSampling.getValue();
    }

    @Override
    public MinhashFieldType fieldType() {
        return (MinhashFieldType) super.fieldType();
    }

    @Override
    protected List<String> keys() {
        return FingerprintObject.MINHASH_KEYS;
    }

    /** The value as this field stores it ({@link FingerprintObject#readMinhash}, of its length and its index's format). */
    @Override
    protected FingerprintObject.Minhash decode(FingerprintObject.Parts raw) {
        try {
            return FingerprintObject.readMinhash(raw, numHashes, fieldType().format());
        } catch (FingerprintObject.OtherFormatException e) {
            throw new IllegalArgumentException(
                    e.getMessage() + "; fingerprint the text with a pipeline whose target is this index", e);
        }
    }

    @Override
    protected void addFields(ParseContext context, String field, FingerprintObject.Minhash value) {
        byte[] bytes = SignatureCodec.valueBytes(value.signature());
        context.doc()
                .addWithKey(
                        field,
                        new BinaryDocValuesField(
                                field, MinhashDocValues.signatureValue(bytes, value.signatureStored())));
        MinhashFieldType type = fieldType();
        for (int band = 0; band < type.banding().bands(); band++) {
            context.doc().add(new Field(field, type.bandTerm(bytes, band), BAND_FIELD_TYPE));
        }
        if (value.shingleSet() != null) {
            context.doc()
                    .add(new BinaryDocValuesField(
                            FingerprintFields.shinglesField(field), new BytesRef(value.shingleSet())));
            int rate = type.containmentSampling();
            if (rate > 0) {
                String containmentField = FingerprintFields.containmentField(field);
                // The set's size lets a containment query discard a candidate without reading its set.
                context.doc()
                        .add(new NumericDocValuesField(
                                FingerprintFields.containmentSizeField(field), value.shingleValues().length));
                for (int shingle : ContainmentSampling.sample(value.shingleValues(), rate)) {
                    context.doc()
                            .add(new Field(
                                    containmentField, MinhashFieldType.containmentTerm(shingle), BAND_FIELD_TYPE));
                }
            }
        }
    }

    @Override
    protected void addDerivedForm(ParseContext context, String field, boolean object, FingerprintObject.Minhash value) {
        DerivedFingerprintSource.addMinhash(context, field, object, value.schemeHash());
    }

    /** Overrides FieldMapper's from OpenSearch 3.1 on (see {@link #canDeriveSource}). */
    public void deriveSource(XContentBuilder builder, LeafReader leafReader, int docId) throws IOException {
        DerivedFingerprintSource.writeMinhash(builder, leafReader, docId, fieldType(), simpleName());
    }

    /** Keeps the field's format: OpenSearch builds a merged mapper without the index's settings. */
    @Override
    public ParametrizedFieldMapper.Builder getMergeBuilder() {
        Builder builder = new Builder(simpleName());
        builder.format = fieldType().format();
        return builder.init(this);
    }
}
