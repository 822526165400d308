/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.instanceOf;

import io.neardup.NearDupPlugin;
import io.neardup.core.Margins;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexOrDocValuesQuery;
import org.apache.lucene.search.PointRangeQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.mapper.DocumentMapper;
import org.opensearch.index.mapper.FieldNamesFieldMapper;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.mapper.MapperService;
import org.opensearch.index.mapper.MapperTestCase;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.plugins.Plugin;

public class SimhashFieldMapperTests extends MapperTestCase {
    static final String HEX = "9f3a6c0e12b4d871";
    static final long FP = 0x9f3a6c0e12b4d871L;

    /** Sixteen characters (or nearly) that look like a simhash in hex and are not one. */
    public static final List<String> ASCII_HEX_LOOKALIKES = List.of(
            "０１２３４５６７８９ａｂｃｄｅｆ", "٠١٢٣٤٥٦٧٨٩٠١٢٣٤٥", "0x0000000000000f", "00000000000000ff0", " 00000000000000f");

    static String margins() {
        byte[] q = new byte[64];
        for (int i = 0; i < 64; i++) {
            q[i] = (byte) (i * 4);
        }
        return Margins.ofQuantized(q).encode();
    }

    @Override
    protected Collection<? extends Plugin> getPlugins() {
        return List.of(new NearDupPlugin());
    }

    @Override
    protected void minimalMapping(XContentBuilder b) throws IOException {
        b.field("type", "simhash");
    }

    @Override
    protected void writeFieldValue(XContentBuilder b) throws IOException {
        b.startObject()
                .field("value", HEX)
                .field("margins", margins())
                .field("scheme", "nd1-0123abcd")
                .endObject();
    }

    @Override
    protected void registerParameters(ParameterChecker checker) throws IOException {
        checker.registerConflictCheck("index", b -> b.field("index", false));
        checker.registerConflictCheck("doc_values", b -> b.field("doc_values", false));
    }

    private ParseContext.Document parse(DocumentMapper mapper, String json) {
        return mapper.parse(source("{\"field\": " + json + "}")).rootDoc();
    }

    public void testObjectValue() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        ParseContext.Document doc = mapper.parse(source(this::writeField)).rootDoc();
        IndexableField[] fields = doc.getFields("field");
        assertEquals(2, fields.length);
        IndexableField dv = Arrays.stream(fields)
                .filter(f -> f.fieldType().docValuesType() == DocValuesType.SORTED_NUMERIC)
                .findFirst()
                .get();
        assertEquals(FP ^ Long.MIN_VALUE, dv.numericValue().longValue());
        IndexableField point = Arrays.stream(fields)
                .filter(f -> f.fieldType().pointDimensionCount() == 1)
                .findFirst()
                .get();
        assertEquals(FP ^ Long.MIN_VALUE, point.numericValue().longValue());
        assertNull("margins are checked and kept in _source only", doc.getField("field._margins"));
        assertEquals(new BytesRef("nd1-0123abcd"), doc.getField("field._scheme").binaryValue());
        assertEquals(
                DocValuesType.SORTED, doc.getField("field._scheme").fieldType().docValuesType());
    }

    public void testBareHexUpperCaseAndNull() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        ParseContext.Document doc = parse(mapper, "\"FFFFFFFFFFFFFFFF\"");
        IndexableField dv = Arrays.stream(doc.getFields("field"))
                .filter(f -> f.fieldType().docValuesType() == DocValuesType.SORTED_NUMERIC)
                .findFirst()
                .get();
        assertEquals(Long.MAX_VALUE, dv.numericValue().longValue());
        assertNull(doc.getField("field._margins"));
        assertNull(doc.getField("field._scheme"));
        assertEquals(0, parse(mapper, "null").getFields("field").length);
    }

    public void testNoIndex() throws IOException {
        DocumentMapper mapper = createDocumentMapper(
                fieldMapping(b -> b.field("type", "simhash").field("index", false)));
        ParseContext.Document doc = mapper.parse(source(this::writeField)).rootDoc();
        assertEquals(1, doc.getFields("field").length);
        assertEquals(
                DocValuesType.SORTED_NUMERIC, doc.getField("field").fieldType().docValuesType());
    }

    public void testNoDocValuesUsesFieldNamesForExists() throws IOException {
        MapperService mapperService =
                createMapperService(fieldMapping(b -> b.field("type", "simhash").field("doc_values", false)));
        assertExistsQuery(mapperService);
        ParseContext.Document doc =
                mapperService.documentMapper().parse(source(this::writeField)).rootDoc();
        assertNotNull(doc.getField(FieldNamesFieldMapper.NAME));
        MappedFieldType ft = mapperService.fieldType("field");
        assertThat(ft.termQuery(HEX, null), instanceOf(PointRangeQuery.class));
        Exception e = expectThrows(IllegalArgumentException.class, () -> ft.fielddataBuilder("test", null));
        assertThat(e.getMessage(), containsString("Can't load fielddata on [field]"));
    }

    public void testQueries() throws IOException {
        MapperService mapperService = createMapperService(fieldMapping(this::minimalMapping));
        MappedFieldType ft = mapperService.fieldType("field");
        assertThat(
                ft.termQuery(new BytesRef(HEX.toUpperCase(java.util.Locale.ROOT)), null),
                instanceOf(IndexOrDocValuesQuery.class));
        assertEquals(ft.termQuery(HEX, null), ft.termQuery(new BytesRef(HEX), null));
        assertThat(ft.existsQuery(null), instanceOf(FieldExistsQuery.class));
        Exception e = expectThrows(IllegalArgumentException.class, () -> ft.termQuery("xyz", null));
        assertEquals("Field [field] of type [simhash]: simhash must be 16 hex characters, got [xyz]", e.getMessage());
        assertThat(
                ft.rangeQuery(HEX, null, true, true, null, null, null, null), instanceOf(IndexOrDocValuesQuery.class));
        assertThat(
                ft.rangeQuery("ffffffffffffffff", null, false, true, null, null, null, null),
                instanceOf(org.apache.lucene.search.MatchNoDocsQuery.class));
        e = expectThrows(
                IllegalArgumentException.class, () -> ft.rangeQuery("xyz", null, true, true, null, null, null, null));
        assertEquals("Field [field] of type [simhash]: simhash must be 16 hex characters, got [xyz]", e.getMessage());
        e = expectThrows(IllegalArgumentException.class, () -> ft.prefixQuery("9f", null, false, null));
        assertEquals("[simhash] fields do not support prefix queries: field [field]", e.getMessage());
        MappedFieldType noDv = createMapperService(
                        fieldMapping(b -> b.field("type", "simhash").field("index", false)))
                .fieldType("field");
        Query dvOnly = noDv.termQuery(HEX, null);
        assertEquals("field:[" + (FP ^ Long.MIN_VALUE) + " TO " + (FP ^ Long.MIN_VALUE) + "]", dvOnly.toString());
        assertThat(noDv.existsQuery(null), instanceOf(FieldExistsQuery.class));
        assertFalse(ft.existsQuery(null) instanceof TermQuery);
    }

    public void testMalformedValues() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        String p = "[simhash] field [field]: ";
        Map<String, String> cases = Map.ofEntries(
                Map.entry("\"9f3a6c0e12b4d87\"", p + "simhash must be 16 hex characters, got [9f3a6c0e12b4d87]"),
                Map.entry("\"9f3a6c0e12b4d87g\"", p + "simhash must be 16 hex characters, got [9f3a6c0e12b4d87g]"),
                Map.entry(
                        "{\"value\": \"+f3a6c0e12b4d871\"}",
                        p + "simhash must be 16 hex characters, got [+f3a6c0e12b4d871]"),
                Map.entry(
                        "{\"value\": \"" + HEX + "\", \"margins\": \"!!\"}",
                        p + "margins [!!] are not valid URL-safe base64"),
                Map.entry(
                        "{\"value\": \"" + HEX + "\", \"margins\": \"AAAA\"}", p + "margins have 3 bytes, expected 64"),
                Map.entry(
                        "{\"value\": \"" + HEX + "\", \"bits\": 64}", p + "has unknown key [bits], expected one of ["),
                Map.entry("{\"value\": 12345}", p + "key [value] must be a string, got integer [12345]"),
                Map.entry("{\"value\": {\"a\": 1}}", p + "key [value] must be a string, got an object"),
                Map.entry("{\"scheme\": \"x\"}", p + "object has no [value]"),
                Map.entry(
                        "{\"value\": \"" + HEX + "\", \"scheme\": \"\"}",
                        p + "[scheme] must have 1 to 512 characters, got 0"),
                Map.entry("12345", p + "expects a string or an object with ["),
                Map.entry("true", p + "expects a string or an object with ["),
                Map.entry("[\"" + HEX + "\"]", p + "takes one fingerprint per document, got an array"));
        for (Map.Entry<String, String> c : cases.entrySet()) {
            MapperParsingException e = expectThrows(MapperParsingException.class, () -> parse(mapper, c.getKey()));
            assertThat(c.getKey(), e.getMessage(), containsString("failed to parse field [field] of type [simhash]"));
            assertThat(c.getKey(), e.getCause().getMessage(), containsString(c.getValue()));
            // the reason on top too, not only in caused_by (an object value has no preview to show)
            assertThat(c.getKey(), e.getMessage(), containsString(c.getValue()));
        }
    }

    public void testDocValueFormatFetch() throws IOException {
        MapperService mapperService = createMapperService(fieldMapping(this::minimalMapping));
        MappedFieldType ft = mapperService.fieldType("field");
        for (String hex : List.of("8000000000000000", "ffffffffffffffff", "0000000000000000", HEX)) {
            assertEquals(
                    List.of(hex),
                    fetchFromDocValues(
                            mapperService, ft, ft.docValueFormat(null, null), hex.toUpperCase(java.util.Locale.ROOT)));
        }
    }

    public void testFetchSourceValue() throws IOException {
        MapperService mapperService = createMapperService(fieldMapping(this::minimalMapping));
        MappedFieldType ft = mapperService.fieldType("field");
        assertEquals(
                List.of(HEX),
                org.opensearch.index.mapper.FieldTypeTestCase.fetchSourceValue(
                        ft, Map.of("value", HEX.toUpperCase(java.util.Locale.ROOT), "scheme", "s")));
        assertEquals(List.of(HEX), org.opensearch.index.mapper.FieldTypeTestCase.fetchSourceValue(ft, HEX));
        assertEquals(List.of(HEX), org.opensearch.index.mapper.FieldTypeTestCase.fetchSourceValue(ft, HEX, "hex"));
        Exception e = expectThrows(
                IllegalArgumentException.class,
                () -> org.opensearch.index.mapper.FieldTypeTestCase.fetchSourceValue(ft, HEX, "yyyy"));
        assertEquals(
                "[format] [yyyy] is not supported on [simhash] field [field]: its values are 16 hex characters; "
                        + "leave [format] out or set it to [hex] ([fields] also take [object]: the stored object)",
                e.getMessage());
        Map<String, Object> object = Map.of("value", HEX, "scheme", "s");
        assertEquals(
                List.of(object), org.opensearch.index.mapper.FieldTypeTestCase.fetchSourceValue(ft, object, "object"));
    }

    /** Whether {@link #getIndexSettings} adds the index-level {@code index.mapping.ignore_malformed}. */
    private boolean indexLevelIgnoreMalformed;

    /**
     * The index settings of the mapper services made here, with {@link #indexLevelIgnoreMalformed}: through this
     * override rather than {@code createMapperService(Settings, ...)}, which OpenSearch 2.19's test framework lacks.
     */
    @Override
    protected Settings getIndexSettings() {
        Settings settings = super.getIndexSettings();
        return indexLevelIgnoreMalformed
                ? Settings.builder()
                        .put(settings)
                        .put("index.mapping.ignore_malformed", true)
                        .build()
                : settings;
    }

    /** With the index-level ignore_malformed, a bad value is skipped and the parser stays in step. */
    public void testIndexLevelIgnoreMalformedKeepsParserInStep() throws IOException {
        indexLevelIgnoreMalformed = true;
        DocumentMapper mapper = createMapperService(mapping(b -> {
                    b.startObject("field").field("type", "simhash").endObject();
                    b.startObject("other").field("type", "keyword").endObject();
                }))
                .documentMapper();
        for (String bad : List.of(
                "{\"value\": \"nothex\", \"scheme\": \"s\"}", "[\"" + HEX + "\", \"" + HEX + "\"]", "\"xyz\"")) {
            ParseContext.Document doc = mapper.parse(source("{\"field\": " + bad + ", \"other\": \"kept\"}"))
                    .rootDoc();
            assertEquals(bad, 0, doc.getFields("field").length);
            assertNull(bad, doc.getField("field._scheme"));
            assertEquals(
                    bad,
                    1,
                    Arrays.stream(doc.getFields("other"))
                            .filter(f -> f.fieldType().docValuesType() == DocValuesType.SORTED_SET)
                            .count());
        }
    }

    /**
     * Digits that are not ASCII hex digits (full-width, Arabic-Indic) are not a fingerprint anywhere one is
     * read: a term, a range bound, an indexed value.
     */
    public void testOnlyAsciiHexIsAFingerprint() throws IOException {
        MapperService mapperService = createMapperService(fieldMapping(this::minimalMapping));
        MappedFieldType ft = mapperService.fieldType("field");
        DocumentMapper mapper = mapperService.documentMapper();
        for (String lookalike : ASCII_HEX_LOOKALIKES) {
            Exception e = expectThrows(IllegalArgumentException.class, () -> ft.termQuery(lookalike, null));
            assertThat(lookalike, e.getMessage(), containsString("Field [field] of type [simhash]"));
            assertThat(lookalike, e.getMessage(), containsString("simhash must be 16 hex characters"));
            e = expectThrows(
                    IllegalArgumentException.class,
                    () -> ft.rangeQuery(lookalike, null, true, true, null, null, null, null));
            assertThat(lookalike, e.getMessage(), containsString("Field [field] of type [simhash]"));
            assertThat(lookalike, e.getMessage(), containsString("simhash must be 16 hex characters"));
            e = expectThrows(MapperParsingException.class, () -> parse(mapper, "\"" + lookalike + "\""));
            assertThat(lookalike, e.getMessage(), containsString("[simhash] field [field]"));
            assertThat(lookalike, e.getMessage(), containsString("simhash must be 16 hex characters"));
        }
    }

    /** Values that are not one fingerprint, as {@code HostileInputIT} once indexed them: refusals naming the field. */
    public void testValuesThatAreNotOneFingerprintNameTheField() throws IOException {
        DocumentMapper mapper = createDocumentMapper(fieldMapping(this::minimalMapping));
        for (String[] bad : new String[][] {
            {"[\"00000000000000ff\", \"00000000000000fe\"]", "array"},
            {"{\"value\": \"00000000000000ff\", \"colour\": \"red\"}", "colour"},
            {"255", null},
            {"{\"value\": \"00000000000000ff\", \"margins\": \"short\"}", null}
        }) {
            MapperParsingException e = expectThrows(MapperParsingException.class, () -> parse(mapper, bad[0]));
            assertThat(bad[0], e.getMessage(), containsString("[simhash] field [field]"));
            if (bad[1] != null) {
                assertThat(bad[0], e.getMessage(), containsString(bad[1]));
            }
        }
    }

    public void testMarginsIsNoMappingParameter() {
        Exception e = expectThrows(
                MapperParsingException.class,
                () -> createMapperService(
                        fieldMapping(b -> b.field("type", "simhash").field("margins", true))));
        assertThat(e.getMessage(), containsString("margins"));
    }
}
