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
import java.util.List;
import java.util.Map;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.document.DocumentField;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
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
                .prepareCreate("docs")
                .setSettings(Settings.builder().put("index.number_of_shards", 2).put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"body\": {\"type\": \"text\"}, \"body_fp\": {\"properties\": "
                        + "{\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"}}}}}")
                .get();
        Map<String, String> docs = DemoCorpus.twoReleases();
        BulkRequestBuilder bulk = client().prepareBulk("docs");
        docs.forEach(
                (id, text) -> bulk.add(client().prepareIndex("docs").setId(id).setSource(Map.of("body", text))));
        bulk.add(client().prepareIndex("docs").setId("none").setSource(Map.of("other", "no body here")));
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
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

    public void testBadExtsNameTheKey() throws IOException {
        Map<String, String> refusals = Map.of(
                "{\"like\": {\"text\": \"x\"}, \"field\": \"body\", \"size\": 3}",
                        "[near_dup_explain] has unknown key [size]",
                "{\"like\": {\"text\": \"x\"}}", "[near_dup_explain] needs [like] and [field]",
                "{\"like\": {\"_index\": \"i\", \"_id\": \"1\", \"field\": \"body\"}, \"field\": \"body\"}",
                        "[near_dup_explain.like] takes [text]",
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
