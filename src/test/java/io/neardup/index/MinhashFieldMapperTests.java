/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static org.hamcrest.Matchers.containsString;

import io.neardup.MinhashDocuments;
import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.LshBanding;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.util.BytesRef;
import org.opensearch.ExceptionsHelper;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.mapper.DocumentMapper;
import org.opensearch.index.mapper.FieldTypeTestCase;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.mapper.MapperTestCase;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.plugins.Plugin;

public class MinhashFieldMapperTests extends MapperTestCase {
    static final FingerprintScheme SCHEME = FingerprintScheme.defaults("standard");

    static int[] signature(int n) {
        int[] sig = new int[n];
        for (int i = 0; i < n; i++) {
            sig[i] = i * 7919 - 1000;
        }
        return sig;
    }

    static String encoded(int n) {
        return SignatureCodec.encode(signature(n), SCHEME.schemeHash());
    }

    @Override
    protected Collection<? extends Plugin> getPlugins() {
        return List.of(new NearDupPlugin());
    }

    @Override
    protected void minimalMapping(XContentBuilder b) throws IOException {
        // The floor is recorded in the mapping even when it was not given (see testDefaultFloorIsRecorded).
        b.field("type", "minhash").field("min_similarity_floor", MinhashFieldMapper.DEFAULT_MIN_SIMILARITY_FLOOR);
    }

    @Override
    protected void writeFieldValue(XContentBuilder b) throws IOException {
        b.startObject()
                .field("value", encoded(128))
                .field("scheme", SCHEME.id())
                .endObject();
    }

    @Override
    protected void registerParameters(ParameterChecker checker) throws IOException {
        checker.registerConflictCheck("num_hashes", b -> b.field("num_hashes", 64));
        checker.registerConflictCheck(
                "min_similarity_floor",
                fieldMapping(this::minimalMapping),
                fieldMapping(b -> b.field("type", "minhash").field("min_similarity_floor", 0.6)));
        checker.registerConflictCheck(
                "threshold",
                fieldMapping(b -> b.field("type", "minhash").field("threshold", 0.8)),
                fieldMapping(b -> b.field("type", "minhash").field("threshold", 0.5)));
        checker.registerConflictCheck(
                "false_positive_weight",
                fieldMapping(b -> b.field("type", "minhash").field("threshold", 0.8)),
                fieldMapping(
                        b -> b.field("type", "minhash").field("threshold", 0.8).field("false_positive_weight", 0.3)));
        checker.registerConflictCheck(
                "false_negative_weight",
                fieldMapping(b -> b.field("type", "minhash").field("threshold", 0.8)),
                fieldMapping(
                        b -> b.field("type", "minhash").field("threshold", 0.8).field("false_negative_weight", 0.3)));
        checker.registerConflictCheck(
                "bands",
                fieldMapping(b -> b.field("type", "minhash").field("bands", 4).field("rows", 8)),
                fieldMapping(b -> b.field("type", "minhash").field("bands", 8).field("rows", 8)));
        checker.registerConflictCheck(
                "rows",
                fieldMapping(b -> b.field("type", "minhash").field("bands", 4).field("rows", 8)),
                fieldMapping(b -> b.field("type", "minhash").field("bands", 4).field("rows", 16)));
    }

    private LshBanding banding(CheckedMapping mapping) throws IOException {
        MappedFieldType ft = createMapperService(fieldMapping(mapping::build)).fieldType("field");
        return ((MinhashFieldMapper.MinhashFieldType) ft).banding();
    }

    interface CheckedMapping {
        void build(XContentBuilder b) throws IOException;
    }

    public void testBanding() throws IOException {
        assertEquals(new LshBanding(42, 3), banding(b -> b.field("type", "minhash")));
        assertEquals(
                new LshBanding(21, 6), banding(b -> b.field("type", "minhash").field("min_similarity_floor", 0.8)));
        assertEquals(
                new LshBanding(12, 10), banding(b -> b.field("type", "minhash").field("threshold", 0.8)));
        assertEquals(
                new LshBanding(7, 18), banding(b -> b.field("type", "minhash").field("threshold", 0.9)));
        assertEquals(
                "equal weights reproduce datasketch's worked example",
                new LshBanding(5, 25),
                banding(b -> b.field("type", "minhash")
                        .field("threshold", 0.9)
                        .field("false_positive_weight", 0.5)
                        .field("false_negative_weight", 0.5)));
        assertEquals(
                new LshBanding(10, 6),
                banding(b -> b.field("type", "minhash")
                        .field("num_hashes", 64)
                        .field("threshold", 0.7)
                        .field("false_positive_weight", 0.3)
                        .field("false_negative_weight", 0.7)));
        assertEquals(
                new LshBanding(16, 8),
                banding(b -> b.field("type", "minhash").field("bands", 16).field("rows", 8)));
    }

    /** A later default cannot change the band terms of an existing field: the floor it was built with is in its mapping. */
    public void testDefaultFloorIsRecorded() throws IOException {
        String mapping = createMapperService(fieldMapping(b -> b.field("type", "minhash")))
                .documentMapper()
                .mappingSource()
                .string();
        assertThat(mapping, containsString("\"min_similarity_floor\":0.5"));
        String withThreshold = createMapperService(
                        fieldMapping(b -> b.field("type", "minhash").field("threshold", 0.9)))
                .documentMapper()
                .mappingSource()
                .string();
        assertFalse(withThreshold, withThreshold.contains("min_similarity_floor"));
    }

    public void testInvalidParameters() {
        Map<CheckedMapping, String> cases = Map.of(
                b -> b.field("type", "minhash")
                        .field("threshold", 0.8)
                        .field("bands", 4)
                        .field("rows", 8),
                "set one of [min_similarity_floor], [threshold], or [bands] with [rows], not several",
                b -> b.field("type", "minhash").field("threshold", 0.8).field("min_similarity_floor", 0.5),
                "set one of [min_similarity_floor], [threshold], or [bands] with [rows], not several",
                b -> b.field("type", "minhash").field("min_similarity_floor", 0.0),
                "[min_similarity_floor] must be in (0, 1), got [0.0]",
                b -> b.field("type", "minhash").field("num_hashes", 16).field("min_similarity_floor", 0.01),
                "min_similarity_floor [0.01] is too low for num_hashes [16]",
                b -> b.field("type", "minhash").field("bands", 4),
                "[bands] and [rows] must be set together",
                b -> b.field("type", "minhash").field("bands", 16).field("rows", 9),
                "bands * rows must be at most num_hashes [128], got bands [16] * rows [9] = 144",
                b -> b.field("type", "minhash").field("num_hashes", 2000),
                "[num_hashes] must be in [1, 1024], got [2000]",
                b -> b.field("type", "minhash").field("threshold", 1.0),
                "[threshold] must be in (0, 1), got [1.0]",
                b -> b.field("type", "minhash")
                        .field("bands", 4)
                        .field("rows", 8)
                        .field("false_positive_weight", 0.5),
                "[false_positive_weight] and [false_negative_weight] only apply to [threshold]",
                b -> b.field("type", "minhash").field("false_negative_weight", 0.5),
                "[false_positive_weight] and [false_negative_weight] only apply to [threshold]");
        for (Map.Entry<CheckedMapping, String> c : cases.entrySet()) {
            Exception e = expectThrows(Exception.class, () -> createMapperService(fieldMapping(c.getKey()::build)));
            assertThat(e.getMessage(), containsString(c.getValue()));
        }
        for (String weight : new String[] {"Infinity", "NaN", "-1"}) {
            Exception e = expectThrows(
                    Exception.class,
                    () -> createMapperService(fieldMapping(b -> b.field("type", "minhash")
                            .field("threshold", 0.8)
                            .field("false_positive_weight", weight))));
            assertThat(e.getMessage(), containsString("[false_positive_weight] must be a finite number >= 0, got ["));
        }
    }

    /** The mapping parameters {@code HostileInputIT} once sent over HTTP that the test above does not already. */
    public void testOutOfRangeParametersNameThemselves() {
        assertMappingRefused(
                b -> b.field("type", "minhash").field("threshold", 0.8).field("false_positive_weight", "Infinity"),
                "[false_positive_weight] must be a finite number >= 0, got [Infinity]");
        assertMappingRefused(
                b -> b.field("type", "minhash").field("threshold", 0.8).field("false_negative_weight", -1),
                "[false_negative_weight]");
        assertMappingRefused(
                b -> b.field("type", "minhash").field("num_hashes", 0), "[num_hashes] must be in [1, 1024], got [0]");
        assertMappingRefused(
                b -> b.field("type", "minhash").field("threshold", 1.5), "[threshold] must be in (0, 1), got [1.5]");
    }

    private void assertMappingRefused(CheckedMapping mapping, String reason) {
        Exception e = expectThrows(Exception.class, () -> createMapperService(fieldMapping(mapping::build)));
        assertThat(e.getMessage(), containsString(reason));
    }

    /** A signature too short for its header and one that is not base64: refusals naming the field. */
    public void testValuesThatAreNotOneSignatureNameTheField() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        MapperParsingException e =
                expectThrows(MapperParsingException.class, () -> mapper.parse(source("{\"field\": \"AQAAAAAAAAAB\"}")));
        assertThat(e.getMessage(), containsString("[minhash] field [field]"));
        e = expectThrows(MapperParsingException.class, () -> mapper.parse(source("{\"field\": \"!!!not base64!!!\"}")));
        assertThat(e.getMessage(), containsString("[minhash] field [field]"));
        assertThat(e.getMessage(), containsString("base64"));
    }

    /**
     * Issue 40: an integer parameter beyond int range was an ArithmeticException from the stock parser (a 500 on
     * {@code PUT _mapping}), a fraction or a word a message that named nothing; each is now a 400 naming the
     * parameter in the words of the matching options' table.
     */
    public void testIntegerParametersRefuseAnyNonIntegerByName() {
        Object[][] values = {
            {1e19, "1.0E19"},
            {new java.math.BigInteger("10000000000000000000"), "10000000000000000000"},
            {2_147_483_648L, "2147483648"},
            {-2_147_483_649L, "-2147483649"},
            {2.5, "2.5"},
            {"many", "many"},
            {true, "true"}
        };
        for (String parameter : new String[] {"num_hashes", "bands", "rows", "containment_sampling"}) {
            for (Object[] value : values) {
                Exception e = expectThrows(
                        Exception.class,
                        () -> createMapperService(fieldMapping(b -> b.field("type", "minhash")
                                .field("containment", true)
                                .field(parameter, value[0]))));
                assertEquals(parameter + " " + value[1], RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
                assertThat(
                        parameter + " " + value[1],
                        e.getMessage(),
                        containsString("[" + parameter + "] must be an integer, got [" + value[1] + "]"));
            }
        }
        Exception e = expectThrows(
                Exception.class,
                () -> createMapperService(fieldMapping(b ->
                        b.field("type", "minhash").field("containment", true).field("containment_sampling", -1))));
        assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
        assertThat(e.getMessage(), containsString("[containment_sampling] must be in [1, 64], got [-1]"));
    }

    public void testParse() throws IOException {
        DocumentMapper mapper = createDocumentMapper(
                fieldMapping(b -> b.field("type", "minhash").field("bands", 16).field("rows", 8)));
        ParseContext.Document doc = mapper.parse(source(this::writeField)).rootDoc();
        IndexableField[] fields = doc.getFields("field");
        assertEquals(17, fields.length);
        byte[] expectedBytes = SignatureCodec.valueBytes(signature(128));
        assertEquals(512, expectedBytes.length);
        Set<BytesRef> terms = new HashSet<>();
        for (IndexableField f : fields) {
            if (f.fieldType().docValuesType() == DocValuesType.BINARY) {
                assertEquals(new BytesRef(expectedBytes), f.binaryValue());
            } else {
                assertEquals(IndexOptions.DOCS, f.fieldType().indexOptions());
                assertTrue(f.fieldType().omitNorms());
                assertEquals(10, f.binaryValue().length);
                terms.add(BytesRef.deepCopyOf(f.binaryValue()));
            }
        }
        assertEquals(16, terms.size());
        assertTrue(terms.contains(
                MinhashDocuments.fieldType("field", LshBanding.of(16, 8, 128)).bandTerm(expectedBytes, 15)));
        assertEquals(new BytesRef(SCHEME.id()), doc.getField("field._scheme").binaryValue());
        // Bare string: the same fields, no scheme.
        doc = mapper.parse(source("{\"field\": \"" + encoded(128) + "\"}")).rootDoc();
        assertNull(doc.getField("field._scheme"));
        assertEquals(17, doc.getFields("field").length);
        assertEquals(0, mapper.parse(source("{\"field\": null}")).rootDoc().getFields("field").length);
    }

    /** Equal band values in different positions give different terms; the band index is the first two bytes. */
    public void testBandTermLayout() {
        byte[] sig = SignatureCodec.valueBytes(new int[] {1, 2, 1, 2});
        MinhashFieldMapper.MinhashFieldType type = MinhashDocuments.fieldType("field", LshBanding.of(2, 2, 4));
        BytesRef t0 = type.bandTerm(sig, 0);
        BytesRef t1 = type.bandTerm(sig, 1);
        assertNotEquals(t0, t1);
        assertEquals(Arrays.asList((byte) 0, (byte) 1), Arrays.asList(t1.bytes[t1.offset], t1.bytes[t1.offset + 1]));
        assertTrue(Arrays.equals(t0.bytes, t0.offset + 2, t0.offset + 10, t1.bytes, t1.offset + 2, t1.offset + 10));
    }

    public void testMalformedValues() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        String p = "[minhash] field [field]: ";
        byte[] wrongVersion = Base64.getUrlDecoder().decode(encoded(128));
        wrongVersion[0] = 9;
        int otherHash = SCHEME.schemeHash() + 1;
        Map<String, String> cases = Map.of(
                "\"" + encoded(64) + "\"",
                p + "minhash signature has 64 values, expected 128 (num_hashes)",
                "\"" + Base64.getUrlEncoder().withoutPadding().encodeToString(wrongVersion) + "\"",
                p + "minhash signature has format version 9: unknown fingerprint format [9], expected one of [1, 2]",
                "\"" + SignatureCodec.encode(signature(128), SCHEME.schemeHash(), FingerprintFormat.COMPACT) + "\"",
                p + "minhash signature is of fingerprint format 2 (compact), expected fingerprint format 1 (stored"
                        + " signature), the format of this index; fingerprint the text with a pipeline whose target is"
                        + " this index",
                "{\"shingles\": \"" + ShingleSetCodec.encode(new int[] {1, 2, 3}, SCHEME.schemeHash()) + "\"}",
                p + "the value has [shingles] and no [value]: that is fingerprint format 2 (compact), and this index"
                        + " has fingerprint format 1 (stored signature); fingerprint the text with a pipeline whose"
                        + " target is this index",
                "\"AAA\"",
                p + "minhash signature has 2 bytes, shorter than its 5-byte header",
                "\"not base64!\"",
                p + "minhash signature is not valid URL-safe base64",
                "{\"value\": \"" + SignatureCodec.encode(signature(128), otherHash) + "\", \"scheme\": \"" + SCHEME.id()
                        + "\"}",
                p + "signature header has scheme hash " + String.format(java.util.Locale.ROOT, "%08x", otherHash)
                        + " but [scheme] is [" + SCHEME.id() + "]",
                "{\"value\": \"" + encoded(128) + "\", \"margins\": \"x\"}",
                p + "has unknown key [margins], expected one of [",
                "[\"" + encoded(128) + "\"]",
                p + "takes one fingerprint per document, got an array",
                "42",
                p + "expects a string or an object with [");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            MapperParsingException e = expectThrows(
                    MapperParsingException.class, () -> mapper.parse(source("{\"field\": " + c.getKey() + "}")));
            assertThat(c.getKey(), e.getMessage(), containsString("failed to parse field [field] of type [minhash]"));
            assertThat(c.getKey(), e.getCause().getMessage(), containsString(c.getValue()));
            // the reason on top too, not only in caused_by (an object value has no preview to show)
            assertThat(c.getKey(), e.getMessage(), containsString(c.getValue()));
        }
    }

    public void testShingleSetIsStoredInDocValues() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        int[] set = {3, 70000, 0x80000000, 0xFFFFFFF0};
        String value = "{\"field\": {\"value\": \"" + encoded(128) + "\", \"shingles\": \""
                + ShingleSetCodec.encode(set, SCHEME.schemeHash()) + "\", \"scheme\": \"" + SCHEME.id() + "\"}}";
        ParseContext.Document doc = mapper.parse(source(value)).rootDoc();
        IndexableField stored = doc.getField("field._shingles");
        assertEquals(DocValuesType.BINARY, stored.fieldType().docValuesType());
        assertEquals(new BytesRef(ShingleSetCodec.payload(set)), stored.binaryValue());
        assertNull(
                "no set, no field",
                mapper.parse(source(b -> b.field("field", encoded(128))))
                        .rootDoc()
                        .getField("field._shingles"));

        String otherScheme = "{\"field\": {\"value\": \"" + encoded(128) + "\", \"shingles\": \""
                + ShingleSetCodec.encode(set, SCHEME.schemeHash() + 1) + "\"}}";
        MapperParsingException e = expectThrows(MapperParsingException.class, () -> mapper.parse(source(otherScheme)));
        assertThat(
                e.getCause().getMessage(),
                containsString("[minhash] field [field]: shingle set was made by another fingerprint scheme"));
        String corrupt = "{\"field\": {\"value\": \"" + encoded(128) + "\", \"shingles\": \"AQAAAAAC\"}}";
        e = expectThrows(MapperParsingException.class, () -> mapper.parse(source(corrupt)));
        assertThat(e.getCause().getMessage(), containsString("shingle set"));
    }

    public void testQueriesAndFetch() throws IOException {
        MappedFieldType ft =
                createMapperService(fieldMapping(this::minimalMapping)).fieldType("field");
        Exception e = expectThrows(IllegalArgumentException.class, () -> ft.termQuery("x", null));
        assertEquals("[minhash] fields do not support term queries: field [field]", e.getMessage());
        assertEquals(
                List.of(encoded(128)),
                FieldTypeTestCase.fetchSourceValue(ft, Map.of("value", encoded(128), "scheme", "s")));
        assertEquals(List.of(encoded(128)), FieldTypeTestCase.fetchSourceValue(ft, encoded(128)));
    }
}
