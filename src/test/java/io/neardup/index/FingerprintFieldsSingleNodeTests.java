/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static org.hamcrest.Matchers.containsString;

import io.neardup.NearDupPlugin;
import io.neardup.compat.DerivedSourceSupport;
import io.neardup.compat.LuceneApi;
import io.neardup.core.FeatureWeighting;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Margins;
import io.neardup.core.MinHasher;
import io.neardup.core.SignatureCodec;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.opensearch.action.admin.indices.segments.IndicesSegmentResponse;
import org.opensearch.action.search.SearchPhaseExecutionException;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.engine.Segment;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/** A real node: index sorting by a simhash field, sort values, term / exists queries, docvalue_fields. */
public class FingerprintFieldsSingleNodeTests extends OpenSearchSingleNodeTestCase {
    private static final String MAPPING = """
        {"properties": {"fp": {"properties": {
          "simhash": {"type": "simhash"},
          "minhash": {"type": "minhash", "num_hashes": 8, "bands": 4, "rows": 2}}}}}""";

    /** The raw values these tests index are signatures of format 1 (the compact format's are its own tests'). */
    private static final Settings FORMAT_ONE = Settings.builder()
            .put(IndexFingerprintFormat.SETTING.getKey(), FingerprintFormat.SIGNATURE.number())
            .build();

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    private void index(String id, String json) {
        client().prepareIndex("docs")
                .setId(id)
                .setSource(json, XContentType.JSON)
                .get();
    }

    public void testSortedIndexAndQueries() {
        client().admin()
                .indices()
                .prepareCreate("docs")
                .setSettings(Settings.builder()
                        .put("index.sort.field", "fp.simhash")
                        .put("index.number_of_shards", 1)
                        .put(FORMAT_ONE))
                .setMapping(MAPPING)
                .get();
        String minhash = SignatureCodec.encode(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, 42);
        index(
                "top",
                "{\"fp\": {\"simhash\": {\"value\": \"8000000000000000\", \"scheme\": \"nd1-0123abcd\"}, \"minhash\": \""
                        + minhash + "\"}}");
        index("max", "{\"fp\": {\"simhash\": \"FFFFFFFFFFFFFFFF\"}}");
        index("zero", "{\"fp\": {\"simhash\": \"0000000000000000\"}}");
        index("mid", "{\"fp\": {\"simhash\": \"7fffffffffffffff\"}}");
        index("none", "{\"title\": \"no fingerprint\"}");
        client().admin().indices().prepareRefresh("docs").get();

        IndicesSegmentResponse segments =
                client().admin().indices().prepareSegments("docs").get();
        List<Segment> segs = segments.getIndices()
                .get("docs")
                .getShards()
                .get(0)
                .getShards()[0]
                .getSegments();
        assertFalse(segs.isEmpty());
        for (Segment s : segs) {
            assertNotNull(s.getSegmentSort());
            assertEquals("fp.simhash", s.getSegmentSort().getSort()[0].getField());
        }

        SearchResponse sorted = client().prepareSearch("docs")
                .setQuery(QueryBuilders.existsQuery("fp.simhash"))
                .addSort("fp.simhash", SortOrder.ASC)
                .addDocValueField("fp.simhash")
                .get();
        assertEquals(4, LuceneApi.count(sorted.getHits().getTotalHits()));
        assertEquals(
                List.of("zero", "mid", "top", "max"),
                Arrays.stream(sorted.getHits().getHits()).map(SearchHit::getId).toList());
        // OpenSearch formats long sort values only for unsigned_long: they come back encoded (fp ^ Long.MIN_VALUE).
        assertEquals(
                List.of(Long.MIN_VALUE, -1L, 0L, Long.MAX_VALUE),
                Arrays.stream(sorted.getHits().getHits())
                        .map(h -> h.getSortValues()[0])
                        .toList());
        // search_after takes the encoded long or the hex string.
        SearchResponse after = client().prepareSearch("docs")
                .setQuery(QueryBuilders.existsQuery("fp.simhash"))
                .addSort("fp.simhash", SortOrder.ASC)
                .searchAfter(new Object[] {"7fffffffffffffff"})
                .get();
        assertEquals(
                List.of("top", "max"),
                Arrays.stream(after.getHits().getHits()).map(SearchHit::getId).toList());
        assertEquals(
                List.of("0000000000000000", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff"),
                Arrays.stream(sorted.getHits().getHits())
                        .map(h -> h.field("fp.simhash").getValue())
                        .toList());

        SearchResponse term = client().prepareSearch("docs")
                .setQuery(QueryBuilders.termQuery("fp.simhash", "8000000000000000"))
                .addFetchField("fp.simhash")
                .get();
        assertEquals(1, LuceneApi.count(term.getHits().getTotalHits()));
        assertEquals("top", term.getHits().getAt(0).getId());
        assertEquals(
                "8000000000000000", term.getHits().getAt(0).field("fp.simhash").getValue());

        SearchResponse minhashExists = client().prepareSearch("docs")
                .setQuery(QueryBuilders.existsQuery("fp.minhash"))
                .get();
        assertEquals(1, LuceneApi.count(minhashExists.getHits().getTotalHits()));

        MapperParsingException e =
                expectThrows(MapperParsingException.class, () -> index("bad", "{\"fp\": {\"simhash\": \"xyz\"}}"));
        assertEquals(RestStatus.BAD_REQUEST, e.status());
        assertEquals(
                "[simhash] field [fp.simhash]: simhash must be 16 hex characters, got [xyz]",
                e.getCause().getMessage());
    }

    /**
     * Ranges, sorting and terms follow the unsigned fingerprint order (what the index sort uses);
     * prefix queries and numeric aggregations, which have no meaning for a fingerprint, are 400s.
     */
    public void testRangesSortAndAggregationsOnFingerprints() {
        createIndex("docs", FORMAT_ONE);
        client().admin()
                .indices()
                .preparePutMapping("docs")
                .setSource(MAPPING, XContentType.JSON)
                .get();
        String[] hex = {"0000000000000001", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff"};
        for (int i = 0; i < hex.length; i++) {
            index("d" + i, "{\"fp\": {\"simhash\": \"" + hex[i] + "\"}}");
        }
        client().admin().indices().prepareRefresh("docs").get();
        SearchResponse lowerHalf = client().prepareSearch("docs")
                .setQuery(QueryBuilders.rangeQuery("fp.simhash")
                        .gte("0000000000000000")
                        .lt("8000000000000000"))
                .get();
        assertEquals(
                "unsigned order: the top bit sorts last",
                2,
                LuceneApi.count(lowerHalf.getHits().getTotalHits()));
        SearchResponse upper = client().prepareSearch("docs")
                .setQuery(QueryBuilders.rangeQuery("fp.simhash").gt("7FFFFFFFFFFFFFFF"))
                .get();
        assertEquals(2, LuceneApi.count(upper.getHits().getTotalHits()));

        SearchResponse sorted = client().prepareSearch("docs")
                .setQuery(QueryBuilders.matchAllQuery())
                .addSort("fp.simhash", org.opensearch.search.sort.SortOrder.ASC)
                .addDocValueField("fp.simhash")
                .get();
        String[] order = java.util.Arrays.stream(sorted.getHits().getHits())
                .map(h -> (String) h.field("fp.simhash").getValue())
                .toArray(String[]::new);
        assertArrayEquals(hex, order);

        SearchPhaseExecutionException e = expectThrows(
                SearchPhaseExecutionException.class,
                () -> client().prepareSearch("docs")
                        .setQuery(QueryBuilders.prefixQuery("fp.simhash", "ff"))
                        .get());
        assertEquals(RestStatus.BAD_REQUEST, e.status());
        assertThat(
                e.shardFailures()[0].reason(),
                containsString("[simhash] fields do not support prefix queries: field [fp.simhash]"));
        // Refused before any shard runs it: a histogram over 2^64 would allocate buckets until the heap is gone.
        for (org.opensearch.search.aggregations.AggregationBuilder numeric : List.of(
                org.opensearch.search.aggregations.AggregationBuilders.avg("avg")
                        .field("fp.simhash"),
                org.opensearch.search.aggregations.AggregationBuilders.histogram("histogram")
                        .field("fp.simhash")
                        .interval(1000))) {
            IllegalArgumentException agg = expectThrows(
                    IllegalArgumentException.class,
                    () -> client().prepareSearch("docs")
                            .setSize(0)
                            .addAggregation(numeric)
                            .get());
            assertThat(
                    agg.getMessage(),
                    containsString("[" + numeric.getType() + "] aggregation [" + numeric.getName()
                            + "] does not apply to [simhash] field [fp.simhash]"));
        }
        SearchResponse terms = client().prepareSearch("docs")
                .setSize(0)
                .addAggregation(org.opensearch.search.aggregations.AggregationBuilders.terms("t")
                        .field("fp.simhash"))
                .get();
        org.opensearch.search.aggregations.bucket.terms.Terms buckets =
                terms.getAggregations().get("t");
        assertEquals(4, buckets.getBuckets().size());
        assertTrue(buckets.getBuckets().stream()
                .map(b -> b.getKeyAsString())
                .toList()
                .contains("ffffffffffffffff"));
    }

    /**
     * docvalue_fields on a minhash field give the signature as _source has it (header rebuilt from
     * the scheme id); a bare signature, whose scheme hash is not kept, gets scheme hash 0. The
     * simhash format "hex" is its default; any other format on either field is a 400 naming
     * [format] on every shard, not a shard failure that drops hits.
     */
    public void testDocValueFieldsOnFingerprintFields() {
        client().admin()
                .indices()
                .prepareCreate("docs")
                .setSettings(Settings.builder().put("index.number_of_shards", 3).put(FORMAT_ONE))
                .setMapping(MAPPING)
                .get();
        int[] values = {1, 2, 3, 4, 5, 6, 7, -8};
        int schemeHash = 0x75205b5f;
        String withScheme = SignatureCodec.encode(values, schemeHash);
        for (int i = 0; i < 6; i++) {
            index(
                    "s" + i,
                    "{\"fp\": {\"simhash\": \"00000000000000f" + i + "\", \"minhash\": {\"value\": \"" + withScheme
                            + "\", \"scheme\": \"nd1-75205b5f\"}}}");
        }
        index("bare", "{\"fp\": {\"minhash\": \"" + SignatureCodec.encode(values, 42) + "\"}}");
        client().admin().indices().prepareRefresh("docs").get();

        SearchResponse response = client().prepareSearch("docs")
                .setSize(10)
                .addDocValueField("fp.minhash")
                .addDocValueField("fp.simhash", "hex")
                .get();
        assertEquals(0, response.getFailedShards());
        assertEquals(7, response.getHits().getHits().length);
        for (SearchHit hit : response.getHits().getHits()) {
            if (hit.getId().equals("bare")) {
                assertEquals(
                        SignatureCodec.encode(values, MinhashFieldData.UNKNOWN_SCHEME_HASH),
                        hit.field("fp.minhash").getValue());
                assertEquals(List.of(), hit.field("fp.simhash").getValues());
            } else {
                assertEquals(withScheme, hit.field("fp.minhash").getValue());
                assertEquals(
                        "00000000000000f" + hit.getId().substring(1),
                        hit.field("fp.simhash").getValue());
            }
        }

        // size 1: one shard fetches. Refused in its fetch phase, that would be a 200 with that shard's hit missing.
        for (String field : List.of("fp.simhash", "fp.minhash")) {
            IllegalArgumentException docValues = expectThrows(
                    IllegalArgumentException.class,
                    () -> client().prepareSearch("docs")
                            .setSize(1)
                            .addDocValueField(field, "epoch_millis")
                            .get());
            assertThat(docValues.getMessage(), containsString("[format] [epoch_millis] is not supported on"));
            assertThat(docValues.getMessage(), containsString("field [" + field + "]"));
        }
        IllegalArgumentException fields = expectThrows(
                IllegalArgumentException.class,
                () -> client().prepareSearch("docs")
                        .setSize(1)
                        .addFetchField("fp.*", "0.00")
                        .get());
        assertThat(fields.getMessage(), containsString("[format] [0.00] is not supported on"));
        SearchPhaseExecutionException sort = expectThrows(
                SearchPhaseExecutionException.class,
                () -> client().prepareSearch("docs")
                        .addSort("fp.minhash", SortOrder.ASC)
                        .get());
        assertEquals(RestStatus.BAD_REQUEST, sort.status());
        assertThat(
                sort.shardFailures()[0].reason(),
                containsString("[minhash] fields do not support sorting: field [fp.minhash]"));
    }

    /**
     * An index with derived source stores no {@code _source}: every fingerprint comes back from doc values as
     * it was sent (bare or object, with or without margins, shingles and scheme), through GET, search and a
     * partial update, and the update re-indexes the same doc values (a term query on the value still finds it).
     */
    @SuppressWarnings("unchecked")
    public void testDerivedSourceRebuildsEveryFingerprintAsSent() {
        if (derivedSourceRefusedHere()) {
            return;
        }
        client().admin()
                .indices()
                .prepareCreate("derived")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 2)
                        .put("index.derived_source.enabled", true)
                        .put(FORMAT_ONE))
                .setMapping("""
                    {"properties": {"title": {"type": "keyword"}, "fp": {"properties": {
                      "simhash": {"type": "simhash"},
                      "minhash": {"type": "minhash", "num_hashes": 8, "bands": 4, "rows": 2}}}}}""")
                .get();
        FingerprintScheme scheme = new FingerprintScheme(
                1, "standard", 1, FeatureWeighting.LOG_TF, "none", 3, 8, MinHasher.Method.ONE_PERMUTATION, 0);
        double[] weights = new double[64];
        for (int i = 0; i < 64; i++) {
            weights[i] = i % 7 - 3;
        }
        Map<String, Object> full = Map.of(
                "simhash", FingerprintObject.simhash(0xfedcba9876543210L, Margins.of(weights, 64), scheme.id()),
                "minhash",
                        FingerprintObject.minhash(
                                new int[] {1, 2, 3, 4, 5, 6, 7, -8},
                                new int[] {3, 9, 0x80000000},
                                scheme.schemeHash(),
                                scheme.id()));
        Map<String, Object> bare = Map.of(
                "simhash",
                "0123456789abcdef",
                "minhash",
                SignatureCodec.encode(new int[] {8, 7, 6, 5, 4, 3, 2, 1}, 42));
        Map<String, Object> valuesOnly = Map.of(
                "simhash", Map.of("value", "00000000000000ff"),
                "minhash",
                        Map.of(
                                "value",
                                SignatureCodec.encode(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, scheme.schemeHash()),
                                "scheme",
                                scheme.id()));
        Map<String, Map<String, Object>> sent = Map.of(
                "full",
                full,
                "bare",
                bare,
                "values-only",
                valuesOnly,
                "simhash-only",
                Map.of("simhash", "ff00ff00ff00ff00"));
        sent.forEach((id, fp) -> client().prepareIndex("derived")
                .setId(id)
                .setSource(Map.of("fp", fp, "title", id))
                .get());
        client().admin().indices().prepareRefresh("derived").get();

        sent.forEach((id, fp) -> assertEquals(
                id,
                fp,
                client().prepareGet("derived", id).get().getSourceAsMap().get("fp")));
        for (SearchHit hit :
                client().prepareSearch("derived").setSize(10).get().getHits().getHits()) {
            assertEquals(
                    hit.getId(), sent.get(hit.getId()), hit.getSourceAsMap().get("fp"));
        }
        // Keys come back in the processor's order, as the bytes of _source would have them.
        String rebuilt = client().prepareGet("derived", "full").get().getSourceAsString();
        for (String kind : List.of("simhash", "minhash")) {
            Map<String, Object> object = (Map<String, Object>) full.get(kind);
            int at = rebuilt.indexOf("\"" + kind + "\":{");
            int previous = at;
            for (String key : object.keySet()) {
                int next = rebuilt.indexOf("\"" + key + "\":\"" + object.get(key) + "\"", at);
                assertTrue(rebuilt + " " + kind + "." + key, next > previous);
                previous = next;
            }
        }

        // `fields` in format [object] returns the stored object (here rebuilt from doc values); doc values hold a part.
        for (SearchHit hit : client().prepareSearch("derived")
                .setFetchSource(false)
                .addFetchField("fp.simhash", "object")
                .addFetchField("fp.minhash", "object")
                .setSize(10)
                .get()
                .getHits()
                .getHits()) {
            Map<String, Object> fp = sent.get(hit.getId());
            for (String kind : List.of("simhash", "minhash")) {
                Object fetched = hit.field("fp." + kind) == null
                        ? null
                        : hit.field("fp." + kind).getValue();
                assertEquals(hit.getId() + " " + kind, fp.get(kind), fetched);
            }
        }
        IllegalArgumentException docValues = expectThrows(
                IllegalArgumentException.class,
                () -> client().prepareSearch("derived")
                        .addDocValueField("fp.minhash", "object")
                        .get());
        assertThat(docValues.getMessage(), containsString("([fields] also take [object]: the stored object)"));

        client().prepareUpdate("derived", "full")
                .setDoc(Map.of("title", "updated"))
                .get();
        client().admin().indices().prepareRefresh("derived").get();
        Map<String, Object> updated =
                client().prepareGet("derived", "full").get().getSourceAsMap();
        assertEquals("updated", updated.get("title"));
        assertEquals(full, updated.get("fp"));
        assertEquals(
                List.of("full"),
                Arrays.stream(client().prepareSearch("derived")
                                .setQuery(QueryBuilders.termQuery("fp.simhash", "fedcba9876543210"))
                                .get()
                                .getHits()
                                .getHits())
                        .map(SearchHit::getId)
                        .toList());
    }

    /** Derived source needs the doc values: a simhash field without them is refused when the index is created. */
    public void testDerivedSourceRefusesASimhashFieldWithoutDocValues() {
        if (derivedSourceRefusedHere()) {
            return;
        }
        Exception refused = expectThrows(
                Exception.class,
                () -> client().admin()
                        .indices()
                        .prepareCreate("no-doc-values")
                        .setSettings(Settings.builder()
                                .put("index.derived_source.enabled", true)
                                .put(FORMAT_ONE))
                        .setMapping("{\"properties\": {\"sh\": {\"type\": \"simhash\", \"doc_values\": false}}}")
                        .get());
        assertThat(refused.getMessage(), containsString("Unable to derive source for [sh] with doc values disabled"));
    }

    /**
     * True where the release has no derived source (OpenSearch 2.19, 3.0, 3.1: {@link DerivedSourceSupport#AVAILABLE}
     * false), after checking that OpenSearch itself refuses the index setting there, naming it.
     */
    private boolean derivedSourceRefusedHere() {
        if (DerivedSourceSupport.AVAILABLE) {
            return false;
        }
        Exception refused = expectThrows(
                IllegalArgumentException.class,
                () -> client().admin()
                        .indices()
                        .prepareCreate("derived-unavailable")
                        .setSettings(Settings.builder().put("index.derived_source.enabled", true))
                        .setMapping("{\"properties\": {\"sh\": {\"type\": \"simhash\"}}}")
                        .get());
        assertThat(refused.getMessage(), containsString("unknown setting [index.derived_source.enabled]"));
        return true;
    }
}
