/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import static org.hamcrest.Matchers.containsString;

import io.neardup.DemoCorpus;
import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import io.neardup.core.ShingleAlignment;
import io.neardup.core.SimhashCodec;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opensearch.ResourceNotFoundException;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * {@code _near_dup/_compare} on a node: two releases of a man page of the demo corpus, read by id and given as texts,
 * checked against the words' shingles ({@link ShingleTruth}) and the stored simhashes; each bad input a 400 naming it.
 */
public class NearDupCompareTests extends OpenSearchSingleNodeTestCase {
    private static final String MAPPING = """
        {"properties": {"body": {"type": "text"},
          "body_fp": {"properties": {"simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}}}}}""";

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected boolean resetNodeAfterTest() {
        return true;
    }

    private void setUpIndex(String pipelineBody) {
        client().admin()
                .cluster()
                .preparePutPipeline("fp", new BytesArray(pipelineBody), XContentType.JSON)
                .get();
        client().admin()
                .indices()
                .prepareCreate("docs")
                .setSettings(Settings.builder().put("index.number_of_shards", 2).put("index.default_pipeline", "fp"))
                .setMapping(MAPPING)
                .get();
    }

    private void setUpIndex() {
        setUpIndex("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}");
    }

    private void index(Map<String, String> docs) {
        BulkRequestBuilder bulk = client().prepareBulk("docs");
        docs.forEach(
                (id, text) -> bulk.add(client().prepareIndex("docs").setId(id).setSource(Map.of("body", text))));
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    private NearDupCompareResponse compare(String body) throws IOException {
        return client().execute(NearDupCompareAction.INSTANCE, request(body)).actionGet();
    }

    private NearDupCompareRequest request(String body) throws IOException {
        try (XContentParser parser = createParser(XContentType.JSON.xContent(), body)) {
            return NearDupCompareRequest.parse(parser.map());
        }
    }

    private static String json(String text) {
        return "\""
                + text.replace("\\", "\\\\")
                        .replace("\"", "\\\"")
                        .replace("\n", "\\n")
                        .replace("\t", "\\t") + "\"";
    }

    public void testDocumentsByIdAndAsTextsAgreeWithTheWords() throws IOException {
        setUpIndex();
        Map<String, String> docs = DemoCorpus.twoReleases();
        index(docs);
        List<String> ids = List.copyOf(docs.keySet());
        String textA = docs.get(ids.get(0)), textB = docs.get(ids.get(1));

        NearDupCompareResponse byId = compare("{\"a\": {\"_index\": \"docs\", \"_id\": \"" + ids.get(0)
                + "\", \"field\": \"body\"}, \"b\": {\"_index\": \"docs\", \"_id\": \"" + ids.get(1)
                + "\", \"field\": \"body\"}}");
        NearDupCompareResponse byText = compare("{\"a\": {\"text\": " + json(textA) + "}, \"b\": {\"text\": "
                + json(textB) + "}, \"pipeline\": \"fp\"}");
        assertEquals(byId.result(), byText.result());
        assertEquals(byId.simhashDistance(), byText.simhashDistance());

        ShingleAlignment.Result result = byId.result();
        Set<String> shinglesA = ShingleTruth.shingles(textA, 3), shinglesB = ShingleTruth.shingles(textB, 3);
        assertEquals(
                ShingleTruth.jaccard(shinglesA, shinglesB),
                result.jaccard(),
                2.0 / (shinglesA.size() + shinglesB.size()));
        assertEquals(ShingleTruth.containment(shinglesA, shinglesB), result.containmentAInB(), 2.0 / shinglesA.size());
        assertEquals(ShingleTruth.containment(shinglesB, shinglesA), result.containmentBInA(), 2.0 / shinglesB.size());
        assertFalse(result.shared().isEmpty());
        for (ShingleAlignment.Passage passage : result.shared()) {
            List<String> wordsA = ShingleTruth.words(
                    textA.substring(passage.a().start(), passage.a().end()));
            assertEquals(
                    passage.toString(),
                    wordsA,
                    ShingleTruth.words(
                            textB.substring(passage.b().start(), passage.b().end())));
            assertTrue(passage + " holds " + wordsA, wordsA.size() >= 3);
        }
        assertFalse(result.truncated());

        // the distance of the simhashes the pipeline stored
        Map<String, Object> sourceA =
                client().prepareGet("docs", ids.get(0)).get().getSourceAsMap();
        Map<String, Object> sourceB =
                client().prepareGet("docs", ids.get(1)).get().getSourceAsMap();
        assertEquals(Long.bitCount(storedSimhash(sourceA) ^ storedSimhash(sourceB)), byId.simhashDistance());
    }

    @SuppressWarnings("unchecked")
    private static long storedSimhash(Map<String, Object> source) {
        Map<String, Object> fp = (Map<String, Object>) source.get("body_fp");
        return SimhashCodec.parseHex((String) ((Map<String, Object>) fp.get("simhash")).get("value"));
    }

    public void testACapExplainsTheStartAndSaysSo() throws IOException {
        setUpIndex();
        String texts = "{\"a\": {\"text\": " + json("the quick brown fox jumps over the lazy dog ".repeat(50))
                + "}, \"b\": {\"text\": "
                + json("and a cat and the quick brown fox jumps over the lazy dog ".repeat(40))
                + "}, \"pipeline\": \"fp\"";
        NearDupCompareResponse whole = compare(texts + "}");
        NearDupCompareResponse capped = compare(texts + ", \"max_explained_chars\": 100}");
        assertFalse(whole.result().truncated());
        assertTrue(capped.result().truncated());
        assertFalse(capped.result().shared().isEmpty());
        for (ShingleAlignment.Passage passage : capped.result().shared()) {
            assertTrue(
                    passage.toString(), passage.a().end() <= 100 && passage.b().end() <= 100);
        }
        assertEquals(whole.result().jaccard(), capped.result().jaccard(), 0.0);
        assertEquals(whole.result().containmentAInB(), capped.result().containmentAInB(), 0.0);
        assertEquals(whole.simhashDistance(), capped.simhashDistance());
    }

    public void testAMissingDocumentIsNotFoundNamingIt() throws IOException {
        setUpIndex();
        index(Map.of("one", "some text of a document"));
        ResourceNotFoundException e = expectThrows(
                ResourceNotFoundException.class,
                () -> compare("{\"a\": {\"_index\": \"docs\", \"_id\": \"one\", \"field\": \"body\"}, "
                        + "\"b\": {\"_index\": \"docs\", \"_id\": \"two\", \"field\": \"body\"}}"));
        assertThat(e.getMessage(), containsString("[b._id] document [two] not found in index [docs]"));
    }

    public void testRefusalsNameTheParameter() throws IOException {
        setUpIndex();
        index(Map.of("one", "some text of a document", "bare", "other text"));
        Map<String, String> refusals = new HashMap<>();
        refusals.put(
                "{\"a\": {\"_index\": \"docs\", \"_id\": \"one\", \"field\": \"nope\"}, \"b\": {\"text\": \"x\"}}",
                "[a.field] [nope] is not mapped in index [docs]");
        refusals.put(
                "{\"a\": {\"text\": \"some text\"}, \"b\": {\"text\": \"x\"}}",
                "[pipeline] is needed to fingerprint the texts compared");
        refusals.put(
                "{\"a\": {\"text\": \"some text\"}, \"b\": {\"text\": \"x\"}, \"pipeline\": \"missing\"}",
                "[pipeline] [missing] does not exist");
        refusals.put(
                "{\"a\": {\"text\": \"some text\"}, \"b\": {\"text\": \"x\"}, \"pipeline\": \"fp\", "
                        + "\"fingerprint\": \"other.minhash\"}",
                "[fingerprint] [other.minhash]: pipeline [fp] has no [near_dup_fingerprint] processor writing a MinHash");
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> compare(refusal.getKey()));
            assertThat(refusal.getKey(), e.getMessage(), containsString(refusal.getValue()));
        }
    }

    public void testAPipelineWithoutShingleSetsIsRefused() throws IOException {
        setUpIndex("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", \"outputs\": [\"simhash\", "
                + "\"minhash\"]}}]}");
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> compare("{\"a\": {\"text\": \"some text\"}, \"b\": {\"text\": \"x\"}, \"pipeline\": \"fp\"}"));
        assertThat(e.getMessage(), containsString("[fingerprint] [body_fp.minhash] has no shingle sets"));
    }

    public void testBadBodiesAreRefusedNamingTheKey() {
        Map<String, String> refusals = new LinkedHashMap<>();
        refusals.put("{\"a\": {\"text\": \"x\"}, \"b\": {\"text\": \"y\"}, \"c\": 1}", "has unknown key [c]");
        refusals.put("{\"a\": {\"text\": \"x\"}}", "[b] is missing");
        refusals.put("{\"a\": {\"text\": \"x\", \"_id\": \"1\"}, \"b\": {\"text\": \"y\"}}", "[a] takes [text] or");
        refusals.put("{\"a\": {\"text\": \"x\"}, \"b\": {\"_id\": \"1\", \"field\": \"f\"}}", "[b._index] is missing");
        refusals.put("{\"a\": {\"text\": \"x\"}, \"b\": {\"txt\": \"y\"}}", "[b] has unknown key [txt]");
        refusals.put("{\"a\": {\"text\": 3}, \"b\": {\"text\": \"y\"}}", "[a.text] must be a string, got [3]");
        refusals.put("{\"a\": \"x\", \"b\": {\"text\": \"y\"}}", "[a] must be an object");
        refusals.put(
                "{\"a\": {\"text\": \"x\"}, \"b\": {\"text\": \"y\"}, \"max_explained_chars\": -1}",
                "[max_explained_chars] must be an integer in [0, 10000000], got [-1]");
        refusals.put(
                "{\"a\": {\"text\": \"x\"}, \"b\": {\"text\": \"y\"}, \"max_explained_chars\": \"many\"}",
                "[max_explained_chars] must be an integer");
        refusals.put(
                "{\"a\": {\"text\": \"x\"}, \"b\": {\"text\": \"y\"}, \"max_explained_chars\": 1e12}",
                "[max_explained_chars] must be an integer");
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> request(refusal.getKey()));
            assertThat(refusal.getKey(), e.getMessage(), containsString(refusal.getValue()));
        }
    }
}
