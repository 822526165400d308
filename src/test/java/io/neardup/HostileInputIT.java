/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.core.FingerprintFormat;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import io.neardup.index.SimhashFieldMapperTests;
import io.neardup.ingest.FingerprintScratchPool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a hostile (or careless) user sends, over HTTP against the real node: every bad input is a
 * 400 that names the parameter, every odd but valid input gives the right answer, and nothing is
 * a 500 or a 200 with quietly missing hits. Each row of issue 15's table has a test here; the
 * percolator row is {@code NearDuplicateQueryIT#testPercolatingADocumentAgainstAStoredQuery}. A refusal
 * that a parser decides alone is tested in that parser's unit tests; here one of each kind proves the
 * status and the wording on a real node.
 */
public class HostileInputIT extends NearDupRestTestCase {

    private static final String INDEX = "hostile";
    private static final String PIPELINE = "hostile-fp";
    private static final String SEARCH = "/" + INDEX + "/_search";

    /** Texts with near-duplicates among them, CJK, RTL, emoji and control characters. */
    private static final List<String> TEXTS = List.of(
            "The ls command lists directory contents, sorted alphabetically by default.",
            "The ls command lists the directory contents, sorted alphabetically by default.",
            "The cp command copies files and directories from a source to a destination.",
            "The cp command copies files and directories from one source to a destination.",
            "The mv command moves or renames files and directories on the file system.",
            "東京は日本の首都であり、世界最大の都市圏の一つです。",
            "مرحبا بالعالم هذا نص عربي قصير للاختبار",
            "שלום עולם זהו טקסט עברי קצר לבדיקה",
            "party time 🎉🎉 with emoji 😀 and more emoji 🚀 everywhere",
            "control\u0001characters\u0007in\u001bthe\ttext\u0000here",
            "again again again again again again again again again again",
            "The grep command searches files for lines matching a regular expression pattern.");

    private static Map<String, Object> search(String json) throws IOException {
        return send("POST", SEARCH, json);
    }

    private static void assertSearchRejected(String json, String... reasonParts) throws IOException {
        assertBadRequest("POST", SEARCH, json, reasonParts);
    }

    private static String nearDuplicate(String options) {
        return "{\"query\": {\"near_duplicate\": {\"field\": \"body_fp.simhash\", \"like\": {\"_id\": \"0\"}" + options
                + "}}}";
    }

    /** The pipeline and a 3-shard index of {@link #TEXTS}, ids "0", "1", …, fingerprinted on the way in. */
    private static void createIndex() throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}");
        send(
                "PUT",
                "/" + INDEX,
                "{\"settings\": {\"number_of_shards\": 3, \"number_of_replicas\": 0, \"index.default_pipeline\": \""
                        + PIPELINE
                        + "\"}, \"mappings\": {\"properties\": {\"body\": {\"type\": \"text\"}, \"body_fp\": {\"properties\": {"
                        + "\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"}, \"content_hash\": {\"type\": \"keyword\"}}}}}}");
        StringBuilder bulk = new StringBuilder();
        for (int i = 0; i < TEXTS.size(); i++) {
            bulk.append("{\"index\": {\"_id\": \"")
                    .append(i)
                    .append("\"}}\n{\"body\": ")
                    .append(json(TEXTS.get(i)))
                    .append("}\n");
        }
        Map<String, Object> response = send("POST", "/" + INDEX + "/_bulk?refresh=true", bulk.toString());
        assertEquals(response.toString(), false, response.get("errors"));
    }

    /** A JSON string literal; non-ASCII and control characters escaped, so lone surrogates survive the trip. */
    private static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> field(Map<String, Object> map, String path) {
        Map<String, Object> current = map;
        for (String part : path.split("\\.")) {
            current = (Map<String, Object>) current.get(part);
        }
        return current;
    }

    private static int shardFailures(Map<String, Object> response) {
        return ((Number) field(response, "_shards").get("failed")).intValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> simulate(String processorConfig, String text) throws IOException {
        Map<String, Object> result = send(
                "POST",
                "/_ingest/pipeline/_simulate",
                "{\"pipeline\": {\"processors\": [{\"near_dup_fingerprint\": " + processorConfig
                        + "}]}, \"docs\": [{\"_source\": {\"body\": " + json(text) + "}}]}");
        Map<String, Object> doc = (Map<String, Object>) ((List<Object>) result.get("docs")).get(0);
        assertNull(String.valueOf(doc.get("error")), doc.get("error"));
        return (Map<String, Object>) field(doc, "doc._source").get("body_fp");
    }

    private static int tokens(Map<String, Object> fingerprint) {
        return ((Number) fingerprint.get("tokens")).intValue();
    }

    /**
     * A bad option is a 400 with the query's own words on a real node (every such refusal is in
     * {@code NearDuplicateQueryBuilderTests}: the builder's parse alone decides it); a missing
     * {@code like} document and a field that holds no fingerprint are found only against the index.
     */
    public void testQueryParametersThatAreNotWhatTheyClaimNameThemselves() throws IOException {
        createIndex();
        assertSearchRejected(
                nearDuplicate(", \"max_distance\": 9"), "[near_duplicate] [max_distance] must be in [0, 8], got [9]");
        assertSearchRejected(
                nearDuplicate("").replace("{\"_id\": \"0\"}", "{\"_id\": \"no-such-id\"}"),
                "document [no-such-id] not found in index [hostile]");
        assertSearchRejected(
                nearDuplicate("").replace("{\"_id\": \"0\"}", "{\"_id\": \"0\", \"_index\": \"\"}"),
                "[like._index] must not be empty");
        assertSearchRejected(
                "{\"query\": {\"near_duplicate\": {\"field\": \"body\", \"like\": {\"_id\": \"0\"}}}}", "body");

        // Every limit itself is accepted, and answers.
        Map<String, Object> atTheLimits = search(nearDuplicate(
                ", \"max_distance\": 8, \"prefix_bits\": 1, \"max_flips\": 10000, " + "\"include_self\": true"));
        assertTrue(hits(atTheLimits).stream().anyMatch(hit -> "0".equals(hit.get("_id"))));
        assertEquals(0, shardFailures(atTheLimits));
        assertEquals(0, shardFailures(search(nearDuplicate(", \"prefix_bits\": 32, \"mode\": \"exact\""))));
    }

    /**
     * Digits that are not ASCII hex digits (full-width, Arabic-Indic) are not a fingerprint anywhere one is read:
     * a 400 naming the field on a real node. Every lookalike at every place is in {@code SimhashFieldMapperTests}
     * (term, range, indexed value) and {@code NearDuplicateQueryBuilderTests} ({@code like.simhash}).
     */
    public void testOnlyAsciiHexIsAFingerprint() throws IOException {
        createIndex();
        String quoted = json(SimhashFieldMapperTests.ASCII_HEX_LOOKALIKES.get(0));
        assertSearchRejected(
                "{\"query\": {\"term\": {\"body_fp.simhash\": " + quoted + "}}}",
                "body_fp.simhash",
                "simhash must be 16 hex characters");
        assertBadRequest(
                "PUT",
                "/" + INDEX + "/_doc/odd?pipeline=_none",
                "{\"body_fp\": {\"simhash\": " + quoted + "}}",
                "mapper_parsing_exception",
                "[simhash] field [body_fp.simhash]",
                "simhash must be 16 hex characters");
        // Upper-case ASCII hex is the same fingerprint as lower case.
        Map<String, Object> source = send("GET", "/" + INDEX + "/_doc/0", null);
        String hex = (String) field(source, "_source.body_fp.simhash").get("value");
        Map<String, Object> term = search(
                "{\"query\": {\"term\": {\"body_fp.simhash\": \"" + hex.toUpperCase(java.util.Locale.ROOT) + "\"}}}");
        assertTrue(hits(term).stream().anyMatch(hit -> "0".equals(hit.get("_id"))));
    }

    /**
     * The aggregations that mean something on a fingerprint work (terms and cardinality, keys in
     * hex); the ones that would need it as a double are 400s with the reason: a double cannot hold
     * 64 bits, so min / max would name a fingerprint no document has.
     */
    @SuppressWarnings("unchecked")
    public void testAggregationsOnSimhash() throws IOException {
        createIndex();
        Map<String, Object> terms = search(
                "{\"size\": 0, \"aggs\": {\"t\": {\"terms\": {\"field\": \"body_fp.simhash\", \"size\": 100}},"
                        + " \"c\": {\"cardinality\": {\"field\": \"body_fp.simhash\"}}, \"v\": {\"value_count\": {\"field\": \"body_fp.simhash\"}}}}");
        assertEquals(0, shardFailures(terms));
        List<Map<String, Object>> buckets =
                (List<Map<String, Object>>) field(terms, "aggregations.t").get("buckets");
        Set<String> keys = new HashSet<>();
        for (Map<String, Object> bucket : buckets) {
            String key = (String) bucket.get("key_as_string");
            assertTrue(key, key.matches("[0-9a-f]{16}"));
            keys.add(key);
        }
        Set<String> stored = new HashSet<>();
        for (Map<String, Object> hit : hits(search("{\"size\": 100, \"_source\": [\"body_fp.simhash.value\"]}"))) {
            stored.add((String) field(hit, "_source.body_fp.simhash").get("value"));
        }
        assertEquals(stored, keys);
        assertEquals(stored.size(), ((Number) field(terms, "aggregations.c").get("value")).intValue());
        assertEquals(TEXTS.size(), ((Number) field(terms, "aggregations.v").get("value")).intValue());

        for (String agg : List.of(
                "{\"avg\": {\"field\": \"body_fp.simhash\"}}",
                "{\"sum\": {\"field\": \"body_fp.simhash\"}}",
                "{\"min\": {\"field\": \"body_fp.simhash\"}}",
                "{\"max\": {\"field\": \"body_fp.simhash\"}}",
                "{\"stats\": {\"field\": \"body_fp.simhash\"}}",
                "{\"extended_stats\": {\"field\": \"body_fp.simhash\"}}",
                "{\"percentiles\": {\"field\": \"body_fp.simhash\"}}",
                "{\"histogram\": {\"field\": \"body_fp.simhash\", \"interval\": 1000}}",
                "{\"range\": {\"field\": \"body_fp.simhash\", \"ranges\": [{\"to\": \"8000000000000000\"}]}}",
                "{\"range\": {\"field\": \"body_fp.simhash\", \"ranges\": [{\"to\": 100}]}}",
                "{\"composite\": {\"sources\": [{\"h\": {\"histogram\": {\"field\": \"body_fp.simhash\", \"interval\": 1}}}]}}",
                "{\"filter\": {\"match_all\": {}}, \"aggs\": {\"inner\": {\"histogram\": {\"field\": \"body_fp.simhash\", \"interval\": 1}}}}")) {
            assertSearchRejected(
                    "{\"size\": 0, \"aggs\": {\"a\": " + agg + "}}",
                    "does not apply to [simhash] field [body_fp.simhash]",
                    "[simhash] fields hold fingerprints, not numbers");
        }
        assertSearchRejected(
                "{\"size\": 0, \"aggs\": {\"a\": {\"terms\": {\"field\": \"body_fp.simhash\", \"missing\": "
                        + "\"0000000000000000\"}}}}",
                "[missing] is not supported on [simhash] field [body_fp.simhash] in [terms] aggregation [a]");
        Map<String, Object> composite = search(
                "{\"size\": 0, \"aggs\": {\"a\": {\"composite\": {\"size\": 100, \"sources\": "
                        + "[{\"h\": {\"terms\": {\"field\": \"body_fp.simhash\"}}}]}}, \"m\": {\"missing\": {\"field\": \"body_fp.simhash\"}}}}");
        assertEquals(
                stored.size(), ((List<?>) field(composite, "aggregations.a").get("buckets")).size());
        assertEquals(0, ((Number) field(composite, "aggregations.m").get("doc_count")).intValue());
        assertSearchRejected(
                "{\"size\": 0, \"aggs\": {\"a\": {\"avg\": {\"field\": \"body_fp.minhash\"}}}}", "body_fp.minhash");
    }

    /** Every document's stored simhash, as _source has it, in unsigned order. */
    private static List<String> storedSimhashesInUnsignedOrder() throws IOException {
        List<String> stored = new ArrayList<>();
        for (Map<String, Object> hit : hits(search("{\"size\": 100, \"_source\": [\"body_fp.simhash.value\"]}"))) {
            stored.add((String) field(hit, "_source.body_fp.simhash").get("value"));
        }
        stored.sort(null); // equal-length lower-case hex sorts like the unsigned value
        return stored;
    }

    /**
     * min / max are refused with the request that answers them exactly, and that request does: a
     * sort on the field with size 1 and the field in docvalue_fields (and top_hits with the same)
     * returns the smallest / largest stored fingerprint in hex, compared in unsigned order; the
     * sort value is that fingerprint as the stored signed long (fingerprint xor 2^63).
     */
    @SuppressWarnings("unchecked")
    public void testMinAndMaxOfSimhashBySort() throws IOException {
        createIndex();
        List<String> stored = storedSimhashesInUnsignedOrder();
        assertNotEquals(
                "the corpus must have distinct fingerprints for min and max to differ",
                stored.get(0),
                stored.getLast());
        for (String type : List.of("min", "max")) {
            String order = type.equals("min") ? "asc" : "desc";
            String expected = type.equals("min") ? stored.get(0) : stored.getLast();
            assertSearchRejected(
                    "{\"size\": 0, \"aggs\": {\"a\": {\"" + type + "\": {\"field\": \"body_fp.simhash\"}}}}",
                    "[" + type + "] aggregation [a] does not apply to [simhash] field [body_fp.simhash]",
                    "for the exact " + type + "imum, sort by [body_fp.simhash] " + order
                            + " with [size] 1 and [docvalue_fields] "
                            + "[body_fp.simhash]: the hit's value is that fingerprint in hex");
            String sortAndValue = "\"size\": 1, \"sort\": [{\"body_fp.simhash\": \"" + order + "\"}], "
                    + "\"docvalue_fields\": [\"body_fp.simhash\"]";
            Map<String, Object> sorted =
                    search("{" + sortAndValue + ", \"aggs\": {\"top\": {\"top_hits\": {" + sortAndValue + "}}}}");
            assertEquals(0, shardFailures(sorted));
            Map<String, Object> hit = hits(sorted).get(0);
            assertEquals(type, List.of(expected), field(hit, "fields").get("body_fp.simhash"));
            long signed = ((Number) ((List<?>) hit.get("sort")).get(0)).longValue();
            assertEquals(type + " as the sort value", Long.parseUnsignedLong(expected, 16) ^ Long.MIN_VALUE, signed);
            List<Map<String, Object>> topHits = (List<Map<String, Object>>)
                    field(sorted, "aggregations.top.hits").get("hits");
            assertEquals(
                    type + " by top_hits",
                    List.of(expected),
                    field(topHits.get(0), "fields").get("body_fp.simhash"));
        }
    }

    /** Sorting by the fingerprint works with any query, in unsigned order, and pages with search_after in hex. */
    public void testSortBySimhashWithAnyQuery() throws IOException {
        createIndex();
        List<String> expected = storedSimhashesInUnsignedOrder();
        for (String query : List.of(
                "{\"match_all\": {}}",
                "{\"exists\": {\"field\": \"body_fp.simhash\"}}",
                "{\"bool\": {\"filter\": [{\"match_all\": {}}]}}")) {
            List<String> sorted = new ArrayList<>();
            Map<String, Object> response = search("{\"size\": 100, \"query\": " + query
                    + ", \"sort\": [{\"body_fp.simhash\": \"asc\"}], " + "\"docvalue_fields\": [\"body_fp.simhash\"]}");
            assertEquals(0, shardFailures(response));
            for (Map<String, Object> hit : hits(response)) {
                sorted.add((String) ((List<?>) field(hit, "fields").get("body_fp.simhash")).get(0));
            }
            assertEquals(query, expected, sorted);
        }
        Map<String, Object> after =
                search("{\"size\": 100, \"query\": {\"match_all\": {}}, \"sort\": [{\"body_fp.simhash\": \"asc\"}], "
                        + "\"search_after\": [\"" + expected.get(4)
                        + "\"], \"docvalue_fields\": [\"body_fp.simhash\"]}");
        List<String> rest = new ArrayList<>();
        for (Map<String, Object> hit : hits(after)) {
            rest.add((String) ((List<?>) field(hit, "fields").get("body_fp.simhash")).get(0));
        }
        assertEquals(expected.subList(5, expected.size()), rest);
        // search_after that is no fingerprint: SimhashDocValueFormatTests; a sort on a minhash field:
        // FingerprintFieldsSingleNodeTests#testDocValueFieldsOnFingerprintFields.
    }

    /** The signature a minhash field shows for a stored object: its value, or (format 2) its set's. */
    private static String signatureShown(Map<String, Object> minhash) {
        if (minhash.get("value") != null) {
            return (String) minhash.get("value");
        }
        String shingles = (String) minhash.get("shingles");
        int schemeHash = ShingleSetCodec.schemeHashOf(shingles);
        byte[] set = ShingleSetCodec.decodePayload(shingles, schemeHash);
        return SignatureCodec.encode(
                FingerprintFormat.signatureOfSet(
                        ShingleSetCodec.values(set, 0, set.length), ShingleSetCodec.signatureLengthOf(shingles)),
                schemeHash,
                FingerprintFormat.COMPACT);
    }

    /**
     * docvalue_fields and fields on fingerprint fields: values on every hit of every shard, or a
     * 400 naming [format]; never a 200 with some shards' hits missing.
     */
    @SuppressWarnings("unchecked")
    public void testFetchingFingerprintFieldsFromEveryShard() throws IOException {
        createIndex();
        Map<String, Object> response =
                search("{\"size\": 100, \"_source\": [\"body_fp.simhash.value\", \"body_fp.minhash\"], "
                        + "\"docvalue_fields\": [\"body_fp.minhash\", {\"field\": \"body_fp.simhash\", \"format\": \"hex\"}], "
                        + "\"fields\": [\"body_fp.minhash\", {\"field\": \"body_fp.simhash\", \"format\": \"hex\"}]}");
        assertEquals(0, shardFailures(response));
        assertEquals(TEXTS.size(), hits(response).size());
        for (Map<String, Object> hit : hits(response)) {
            Map<String, Object> fp = field(hit, "_source.body_fp");
            String minhash = signatureShown((Map<String, Object>) fp.get("minhash"));
            String simhash = (String) ((Map<String, Object>) fp.get("simhash")).get("value");
            Map<String, Object> fields = field(hit, "fields");
            assertEquals(hit.get("_id").toString(), List.of(minhash), fields.get("body_fp.minhash"));
            assertEquals(hit.get("_id").toString(), List.of(simhash), fields.get("body_fp.simhash"));
        }
        for (String fetched : List.of("docvalue_fields", "fields")) {
            for (String format : List.of("epoch_millis", "0.00", "HEX", "binary")) {
                assertSearchRejected(
                        "{\"" + fetched + "\": [{\"field\": \"body_fp.simhash\", \"format\": \"" + format + "\"}]}",
                        "[format] [" + format + "] is not supported on [simhash] field [body_fp.simhash]");
                assertSearchRejected(
                        "{\"" + fetched + "\": [{\"field\": \"body_fp.minhash\", \"format\": \"" + format + "\"}]}",
                        "[format] [" + format + "] is not supported on [minhash] field [body_fp.minhash]");
            }
            assertSearchRejected(
                    "{\"" + fetched + "\": [{\"field\": \"body_fp.*\", \"format\": \"yyyy\"}]}", "[format] [yyyy]");
        }
        // A format on another field is no business of ours.
        assertEquals(0, shardFailures(search("{\"docvalue_fields\": [{\"field\": \"body_fp.content_hash\"}]}")));
    }

    /** Odd but valid text is fingerprinted; nothing is silently lost to a split or stray surrogate. */
    public void testOddTextIsFingerprintedWithoutSilentLoss() throws IOException {
        for (String text : TEXTS) {
            Map<String, Object> fingerprint = simulate("{\"field\": \"body\"}", text);
            assertTrue(text + " -> " + fingerprint, tokens(fingerprint) > 0);
            assertNotNull(text, fingerprint.get("simhash"));
            assertNotNull(text, fingerprint.get("minhash"));
        }
        // Cut between the halves of an emoji: the cut moves before it, and the words before it stay.
        String beforeEmoji = "hello world ";
        Map<String, Object> truncated = simulate(
                "{\"field\": \"body\", \"max_chars\": " + (beforeEmoji.length() + 1) + ", \"truncate\": true}",
                beforeEmoji + "😀 more words after");
        assertEquals(true, truncated.get("truncated"));
        assertEquals(2, tokens(truncated));
        assertEquals(simulate("{\"field\": \"body\"}", "hello world").get("simhash"), truncated.get("simhash"));
        // A stray half of a surrogate pair, at the end or inside, costs no token.
        String words = "lone surrogates must not cost these words their fingerprint";
        int clean = tokens(simulate("{\"field\": \"body\"}", words));
        assertEquals(clean, tokens(simulate("{\"field\": \"body\"}", words + " \uD83D")));
        assertEquals(clean, tokens(simulate("{\"field\": \"body\"}", "\uDE00 " + words)));
        assertEquals(1, tokens(simulate("{\"field\": \"body\"}", "hello\uD83D")));
        // One token repeated is one feature, still a fingerprint.
        assertNotNull(simulate("{\"field\": \"body\"}", "spam ".repeat(10_000)).get("simhash"));
    }

    /**
     * A bad processor option, a configuration key no processor takes, a bad mapping parameter and a value
     * that is not one fingerprint are 400s naming the parameter on a real node. Every such refusal is in the
     * parser's own tests ({@code NearDupFingerprintProcessorFactoryTests}, {@code MinhashFieldMapperTests},
     * {@code SimhashFieldMapperTests}); the unknown key is refused by the node's pipeline, not by our factory.
     */
    public void testBadConfigurationsNameTheParameter() throws IOException {
        createIndex();
        for (String[] bad : new String[][] {
            {"{\"field\": \"body\", \"num_hashes\": 1025}", "[num_hashes] must be in [1, 1024], got [1025]"},
            {"{\"field\": \"body\", \"colour\": \"blue\"}", "colour"}
        }) {
            assertBadRequest(
                    "PUT",
                    "/_ingest/pipeline/bad",
                    "{\"processors\": [{\"near_dup_fingerprint\": " + bad[0] + "}]}",
                    bad[1]);
        }
        assertBadRequest(
                "PUT",
                "/bad-mapping",
                "{\"mappings\": {\"properties\": {\"f\": {\"type\": \"minhash\", \"threshold\": 1.5}}}}",
                "[threshold] must be in (0, 1), got [1.5]");
        assertBadRequest(
                "PUT",
                "/" + INDEX + "/_doc/bad?pipeline=_none",
                "{\"body_fp\": {\"minhash\": \"!!!not base64!!!\"}}",
                "[minhash] field [body_fp.minhash]",
                "base64");
        // A number beyond int range was a 500 on PUT _mapping (issue 40): a 400 naming the parameter, at index
        // creation and in a mapping update alike.
        send("PUT", "/mapped", "{\"mappings\": {\"properties\": {\"text\": {\"type\": \"text\"}}}}");
        for (String[] bad : new String[][] {
            {"num_hashes", "1e19", "[num_hashes] must be an integer, got [1.0E19]"},
            {"bands", "1e19", "[bands] must be an integer, got [1.0E19]"},
            {"rows", "10000000000000000000", "[rows] must be an integer, got [10000000000000000000]"},
            {"containment_sampling", "2147483648", "[containment_sampling] must be an integer, got [2147483648]"},
            {"containment_sampling", "-1", "[containment_sampling] must be in [1, 64], got [-1]"}
        }) {
            String field = "{\"type\": \"minhash\", \"containment\": true, \"" + bad[0] + "\": " + bad[1] + "}";
            assertBadRequest("PUT", "/bad-mapping", "{\"mappings\": {\"properties\": {\"f\": " + field + "}}}", bad[2]);
            assertBadRequest("PUT", "/mapped/_mapping", "{\"properties\": {\"f\": " + field + "}}", bad[2]);
        }
    }

    /**
     * An outsized document's scratch is charged while it is fingerprinted and given back after it;
     * what stays is at most one small scratch per thread, and deleting the pipeline changes nothing.
     */
    @SuppressWarnings("unchecked")
    public void testScratchReturnsToASmallBoundAfterAnOutsizedDocument() throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/big-fp",
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", " + "\"max_chars\": 10000000}}]}");
        send(
                "PUT",
                "/big",
                "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}, \"mappings\": {\"properties\": {"
                        + "\"body\": {\"type\": \"text\", \"index\": false}, \"body_fp\": {\"type\": \"object\", \"enabled\": false}}}}");
        long droppedBefore = ((Number) scratchStats().get("dropped")).longValue();
        StringBuilder huge = new StringBuilder();
        int words = 4 * FingerprintScratchPool.MAX_KEPT_SCRATCH_ENTRIES;
        for (int i = 0; i < words; i++) {
            huge.append('w').append(i).append(' ');
        }
        Map<String, Object> indexed =
                send("PUT", "/big/_doc/huge?pipeline=big-fp&refresh=true", "{\"body\": \"" + huge + "\"}");
        assertEquals("created", indexed.get("result"));
        Map<String, Object> fp = (Map<String, Object>)
                field(send("GET", "/big/_doc/huge", null), "_source").get("body_fp");
        assertEquals(words, tokens(fp));

        Map<String, Object> after = scratchStats();
        long maxKept = ((Number) after.get("max_kept_bytes_per_thread")).longValue();
        assertEquals(FingerprintScratchPool.maxKeptBytes(), maxKept);
        assertTrue(after.toString(), ((Number) after.get("dropped")).longValue() > droppedBefore);
        long threads = ((Number) after.get("threads")).longValue();
        long bytes = ((Number) after.get("bytes")).longValue();
        assertTrue(after.toString(), bytes <= threads * maxKept);
        assertTrue("what an outsized text needed is far more than what is held: " + after, words * 44L > 4 * bytes);

        send("DELETE", "/_ingest/pipeline/big-fp", null);
        assertEquals(bytes, ((Number) scratchStats().get("bytes")).longValue());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> scratchStats() throws IOException {
        Map<String, Object> nodes = (Map<String, Object>)
                send("GET", "/_plugins/neardup/stats", null).get("nodes");
        assertEquals(1, nodes.size());
        return (Map<String, Object>)
                ((Map<String, Object>) nodes.values().iterator().next()).get("fingerprint_scratch");
    }

    /** near_dup_collapse leaves size-0 searches alone and adds no empty profile. */
    public void testCollapseLeavesCountsAloneAndAddsNoProfile() throws IOException {
        createIndex();
        send(
                "PUT",
                "/_search/pipeline/hostile-dedup",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": 50}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"body_fp.simhash\", \"max_distance\": 8}}]}");
        Map<String, Object> counted = send(
                "POST",
                SEARCH + "?search_pipeline=hostile-dedup",
                "{\"size\": 0, \"query\": {\"match_all\": "
                        + "{}}, \"aggs\": {\"c\": {\"cardinality\": {\"field\": \"body_fp.simhash\"}}}}");
        assertFalse(counted.toString(), counted.containsKey("ext"));
        assertFalse(counted.toString(), counted.containsKey("profile"));
        assertEquals(TEXTS.size(), ((Number) field(counted, "hits.total").get("value")).intValue());
        Map<String, Object> collapsed = send(
                "POST",
                SEARCH + "?search_pipeline=hostile-dedup",
                "{\"size\": 20, \"query\": " + "{\"match_all\": {}}}");
        assertTrue(collapsed.toString(), field(collapsed, "ext").containsKey("near_dup_collapse"));
        assertFalse(collapsed.toString(), collapsed.containsKey("profile"));
        assertTrue(
                "the near-duplicate pairs fold: " + collapsed, hits(collapsed).size() < TEXTS.size());
    }
}
