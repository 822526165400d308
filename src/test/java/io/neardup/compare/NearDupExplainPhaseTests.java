/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import static org.hamcrest.Matchers.containsString;

import io.neardup.DemoCorpus;
import io.neardup.NearDupPlugin;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.ResourceNotFoundException;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.document.DocumentField;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/** {@code ext.near_dup_explain} adds to each hit what {@code _near_dup/_compare} answers for the like text and the hit's text. */
public class NearDupExplainPhaseTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    public void testEachHitIsExplainedAsCompareExplainsItsPair() throws IOException {
        Map<String, String> docs = indexTwoReleases("docs");
        String like = docs.values().iterator().next();

        SearchResponse response = client().prepareSearch("docs")
                .setQuery(QueryBuilders.matchAllQuery())
                .setSize(10)
                .setSource(new SearchSourceBuilder()
                        .query(QueryBuilders.matchAllQuery())
                        .ext(List.of(new NearDupExplainExt(like, "body", null, 100_000, 1_000_000))))
                .get();
        assertEquals(3, response.getHits().getHits().length);
        for (SearchHit hit : response.getHits().getHits()) {
            DocumentField explained = hit.field(NearDupExplainExt.NAME);
            if (hit.getId().equals("none")) {
                assertNull("a hit without the field gets nothing", explained);
                continue;
            }
            NearDupCompareResponse compared = client().execute(
                            NearDupCompareAction.INSTANCE,
                            new NearDupCompareRequest(
                                    new NearDupCompareRequest.Side("a", like, null, null, null),
                                    new NearDupCompareRequest.Side("b", docs.get(hit.getId()), null, null, null),
                                    "fp",
                                    null,
                                    100_000))
                    .actionGet();
            assertEquals(
                    hit.getId(),
                    NearDupCompareResponse.explanation(compared.result(), compared.simhashDistance()),
                    explained.getValue());
        }
        // past the shard's total, the measures only
        SearchResponse capped = client().prepareSearch("docs")
                .setSource(new SearchSourceBuilder()
                        .query(QueryBuilders.idsQuery().addIds(docs.keySet().toArray(String[]::new)))
                        .ext(List.of(new NearDupExplainExt(like, "body", null, 100_000, 0))))
                .get();
        assertEquals(2, capped.getHits().getHits().length);
        for (SearchHit hit : capped.getHits().getHits()) {
            Map<?, ?> explained = (Map<?, ?>) hit.field(NearDupExplainExt.NAME).getValue();
            Map<?, ?> whole = null;
            for (SearchHit uncapped : response.getHits().getHits()) {
                if (uncapped.getId().equals(hit.getId())) {
                    whole = (Map<?, ?>) uncapped.field(NearDupExplainExt.NAME).getValue();
                }
            }
            assertEquals(hit.getId(), true, explained.get("truncated"));
            assertEquals(hit.getId(), List.of(), explained.get("shared"));
            assertEquals(hit.getId(), whole.get("jaccard"), explained.get("jaccard"));
            assertEquals(hit.getId(), whole.get("containment"), explained.get("containment"));
        }
    }

    /**
     * {@code like} by {@code _id}, in the searched index or another, explains each hit as the document's text does; a
     * missing document is a 404 naming it, a document without the field a 400.
     */
    public void testLikeByIdIsTheLikedDocumentsText() throws IOException {
        Map<String, String> docs = indexTwoReleases("docs");
        indexTwoReleases("elsewhere");
        String id = docs.keySet().iterator().next();
        Map<String, Object> byText =
                explanations("docs", "{\"like\": {\"text\": " + json(docs.get(id)) + "}, \"field\": \"body\"}");
        assertEquals(byText.toString(), 2, byText.size());
        assertEquals(byText, explanations("docs", "{\"like\": {\"_id\": " + json(id) + "}, \"field\": \"body\"}"));
        assertEquals(
                byText,
                explanations(
                        "docs",
                        "{\"like\": {\"_index\": \"elsewhere\", \"_id\": " + json(id)
                                + ", \"field\": \"body\"}, \"field\": \"body\"}"));

        ResourceNotFoundException missing = expectThrows(
                ResourceNotFoundException.class,
                () -> explanations("docs", "{\"like\": {\"_id\": \"no-such\"}, \"field\": \"body\"}"));
        assertThat(
                missing.getMessage(),
                containsString("[near_dup_explain.like._id] document [no-such] not found in index [docs]"));
        IllegalArgumentException noIndex = expectThrows(
                IllegalArgumentException.class,
                () -> explanations("docs,elsewhere", "{\"like\": {\"_id\": " + json(id) + "}, \"field\": \"body\"}"));
        assertThat(noIndex.getMessage(), containsString("[near_dup_explain.like._index] is needed"));
        IllegalArgumentException noText = expectThrows(
                IllegalArgumentException.class,
                () -> explanations("docs", "{\"like\": {\"_id\": \"none\"}, \"field\": \"body\"}"));
        assertThat(
                noText.getMessage(),
                containsString("[near_dup_explain.like.field] [body] of document [none] in index [docs] has no value"));
    }

    /** Each hit's {@code near_dup_explain}, by {@code _id}, of a match-all search of {@code indices} with this ext. */
    private Map<String, Object> explanations(String indices, String ext) throws IOException {
        NearDupExplainExt parsed;
        try (XContentParser parser = createParser(XContentType.JSON.xContent(), ext)) {
            parsed = NearDupExplainExt.parse(parser);
        }
        SearchResponse response = client().prepareSearch(indices.split(","))
                .setSource(new SearchSourceBuilder()
                        .query(QueryBuilders.matchAllQuery())
                        .ext(List.of(parsed)))
                .get();
        Map<String, Object> byId = new HashMap<>();
        for (SearchHit hit : response.getHits().getHits()) {
            DocumentField explained = hit.field(NearDupExplainExt.NAME);
            if (explained != null) {
                byId.put(hit.getId(), explained.getValue());
            }
        }
        return byId;
    }

    private static String json(String text) throws IOException {
        return BytesReference.bytes(XContentFactory.jsonBuilder().value(text)).utf8ToString();
    }

    /**
     * {@code max_total_chars} holds per request: each of the 4 shards explains at most a quarter of it, in whole hits
     * and then a truncated one, the rest of its hits get the measures only; the characters explained add up to at most
     * the cap (before, each shard had the whole cap, and every hit here was explained in full).
     */
    public void testTheCapPerRequestIsSplitOverTheShards() throws IOException {
        createIndex("many", 4);
        String text = "the quick brown fox jumps over the lazy dog and runs far away ".repeat(20);
        int length = text.length();
        BulkRequestBuilder bulk = client().prepareBulk("many");
        for (int i = 0; i < 40; i++) {
            bulk.add(client().prepareIndex("many").setId("d" + i).setSource(Map.of("body", text)));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        int total = 4 * (2 * length + length / 2); // a share of two hits and a half on each shard
        SearchResponse response = client().prepareSearch("many")
                .setSource(new SearchSourceBuilder()
                        .query(QueryBuilders.matchAllQuery())
                        .size(40)
                        .ext(List.of(new NearDupExplainExt(text, "body", null, 100_000, total))))
                .get();
        assertEquals(40, response.getHits().getHits().length);
        Map<Integer, List<Map<?, ?>>> byShard = new HashMap<>();
        for (SearchHit hit : response.getHits().getHits()) {
            byShard.computeIfAbsent(hit.getShard().getShardId().id(), shard -> new java.util.ArrayList<>())
                    .add((Map<?, ?>) hit.field(NearDupExplainExt.NAME).getValue());
        }
        long explainedInAll = 0;
        boolean someMeasuresOnly = false;
        for (Map.Entry<Integer, List<Map<?, ?>>> shard : byShard.entrySet()) {
            long whole = shard.getValue().stream()
                    .filter(explained -> Boolean.FALSE.equals(explained.get("truncated")))
                    .count();
            assertEquals("shard " + shard.getKey(), Math.min(2, shard.getValue().size()), whole);
            long explainedOnShard = 0;
            for (Map<?, ?> explained : shard.getValue()) {
                assertEquals(1.0, explained.get("jaccard")); // the measures, always
                explainedOnShard += explainedChars(explained);
                someMeasuresOnly |= ((List<?>) explained.get("shared")).isEmpty();
            }
            assertTrue("shard " + shard.getKey() + ": " + explainedOnShard, explainedOnShard <= total / 4);
            explainedInAll += explainedOnShard;
        }
        assertTrue(explainedInAll + " > " + total, explainedInAll <= total);
        assertTrue("some hit past its shard's share gets the measures only", someMeasuresOnly);
    }

    /** How far into the hit's text its passages reach. */
    @SuppressWarnings("unchecked")
    private static long explainedChars(Map<?, ?> explained) {
        long end = 0;
        for (Map<String, List<Integer>> passage : (List<Map<String, List<Integer>>>) explained.get("shared")) {
            end = Math.max(end, passage.get("b").get(1));
        }
        for (List<Integer> only : (List<List<Integer>>) explained.get("only_b")) {
            end = Math.max(end, only.get(1));
        }
        return end;
    }

    /** An index of {@code shards} shards whose default pipeline {@code fp} fingerprints {@code body} where it has one. */
    private void createIndex(String index, int shards) {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray(
                                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", \"ignore_missing\": true}}]}"),
                        XContentType.JSON)
                .get();
        client().admin()
                .indices()
                .prepareCreate(index)
                .setSettings(
                        Settings.builder().put("index.number_of_shards", shards).put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"body\": {\"type\": \"text\"}, \"body_fp\": {\"properties\": "
                        + "{\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"}}}}}")
                .get();
    }

    /** The pipeline {@code fp}, and an index of two shards holding two releases of a man page and a document without {@code body}. */
    private Map<String, String> indexTwoReleases(String index) throws IOException {
        createIndex(index, 2);
        Map<String, String> docs = DemoCorpus.twoReleases();
        BulkRequestBuilder bulk = client().prepareBulk(index);
        docs.forEach(
                (id, text) -> bulk.add(client().prepareIndex(index).setId(id).setSource(Map.of("body", text))));
        bulk.add(client().prepareIndex(index).setId("none").setSource(Map.of("other", "no body here")));
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        return docs;
    }

    /** What a coordinating node sends its shards (and a like not read yet) reads back equal, and renders as parsed. */
    @SuppressWarnings("unchecked")
    public void testExtsRoundTripOnTheWireAndAsJson() throws IOException {
        for (String json : List.of(
                "{\"like\": {\"text\": \"a text\"}, \"field\": \"body\", \"max_explained_chars\": 5, \"max_total_chars\": 7}",
                "{\"like\": {\"_id\": \"1\"}, \"field\": \"body\", \"fingerprint\": \"body_fp.minhash\"}",
                "{\"like\": {\"_index\": \"i\", \"_id\": \"1\", \"field\": \"title\"}, \"field\": \"body\"}")) {
            NearDupExplainExt ext;
            try (XContentParser parser = createParser(XContentType.JSON.xContent(), json)) {
                ext = NearDupExplainExt.parse(parser);
            }
            BytesStreamOutput out = new BytesStreamOutput();
            ext.writeTo(out);
            assertEquals(json, ext, new NearDupExplainExt(out.bytes().streamInput()));
            XContentBuilder rendered = XContentFactory.jsonBuilder().startObject();
            ext.toXContent(rendered, ToXContent.EMPTY_PARAMS);
            Map<String, Object> asMap = XContentHelper.convertToMap(
                            BytesReference.bytes(rendered.endObject()), false, XContentType.JSON)
                    .v2();
            try (XContentParser parser = createParser(
                    XContentType.JSON.xContent(),
                    BytesReference.bytes(XContentFactory.jsonBuilder()
                            .map((Map<String, Object>) asMap.get(NearDupExplainExt.NAME))))) {
                assertEquals(json, ext, NearDupExplainExt.parse(parser));
            }
        }
    }

    public void testBadExtsNameTheKey() throws IOException {
        Map<String, String> refusals = Map.of(
                "{\"like\": {\"text\": \"x\"}, \"field\": \"body\", \"size\": 3}",
                        "[near_dup_explain] has unknown key [size]",
                "{\"like\": {\"text\": \"x\"}}", "[near_dup_explain] needs [like] and [field]",
                "{\"like\": {\"text\": \"x\", \"_id\": \"1\"}, \"field\": \"body\"}",
                        "[near_dup_explain.like] takes [text] or [_id] with [_index] and [field], not both",
                "{\"like\": {\"_index\": \"i\"}, \"field\": \"body\"}", "[near_dup_explain.like] needs [text] or [_id]",
                "{\"like\": {\"_id\": \"\"}, \"field\": \"body\"}", "[near_dup_explain.like._id] must not be empty",
                "{\"like\": {\"_id\": \"1\", \"pipeline\": \"p\"}, \"field\": \"body\"}",
                        "[near_dup_explain.like] has unknown key [pipeline]",
                "{\"like\": \"x\", \"field\": \"body\"}", "[near_dup_explain.like] must be an object",
                "{\"like\": {\"text\": \"x\"}, \"field\": \"body\", \"max_total_chars\": -1}",
                        "[near_dup_explain.max_total_chars] must be an integer");
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            try (XContentParser parser = createParser(XContentType.JSON.xContent(), refusal.getKey())) {
                IllegalArgumentException e =
                        expectThrows(IllegalArgumentException.class, () -> NearDupExplainExt.parse(parser));
                assertThat(refusal.getKey(), e.getMessage(), containsString(refusal.getValue()));
            }
        }
    }
}
