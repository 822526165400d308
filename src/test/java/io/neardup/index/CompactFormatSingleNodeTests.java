/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupPlugin;
import io.neardup.compat.DerivedSourceSupport;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * The same documents through the same pipeline into an index of each fingerprint format, with stored and derived
 * source: the compact format stores no signature where there is a set, and answers every query as format 1 does.
 */
public class CompactFormatSingleNodeTests extends OpenSearchSingleNodeTestCase {
    private static final String MAPPING = """
        {"properties": {"body": {"type": "text"}, "title": {"type": "keyword"},
          "body_fp": {"properties": {"simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}}}}}""";

    private static final String[] GROUPS = {
        "the quick brown fox jumps over the lazy dog while the farmer watches the sheep in the green field near the old"
                + " barn and the river runs quietly past the mill towards the sea under a grey autumn sky",
        "install the package with the system package manager then edit the configuration file in the etc directory and"
                + " restart the service so that the new settings take effect on every host of the cluster",
        "a library for reading and writing compressed archives in several formats including tar zip and cpio with"
                + " support for sparse files extended attributes and access control lists on most platforms",
        "the committee met on tuesday to discuss the budget for the coming year and agreed to postpone the vote on the"
                + " new building until the architects present revised plans at the next meeting in march"
    };

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected boolean resetNodeAfterTest() {
        return true;
    }

    /** Each group's text and two edits of it: a word changed, a word dropped. */
    private static List<String> texts() {
        List<String> texts = new ArrayList<>();
        for (String text : GROUPS) {
            texts.add(text);
            texts.add(text.replaceFirst(" the ", " a "));
            texts.add(text.substring(text.indexOf(' ') + 1));
        }
        return texts;
    }

    private void putPipeline() {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}"),
                        XContentType.JSON)
                .get();
    }

    private void createIndex(String index, FingerprintFormat format, boolean derived) {
        Settings.Builder settings = Settings.builder()
                .put("index.number_of_shards", 1)
                .put("index.default_pipeline", "fp")
                .put(IndexFingerprintFormat.SETTING.getKey(), format.number());
        if (derived) {
            settings.put("index.derived_source.enabled", true);
        }
        client().admin()
                .indices()
                .prepareCreate(index)
                .setSettings(settings)
                .setMapping(MAPPING)
                .get();
        List<String> texts = texts();
        for (int i = 0; i < texts.size(); i++) {
            client().prepareIndex(index)
                    .setId("d" + i)
                    .setSource(Map.of("body", texts.get(i)))
                    .get();
        }
        client().admin().indices().prepareRefresh(index).get();
    }

    private static QueryBuilder nearDuplicate(String json) {
        return QueryBuilders.wrapperQuery("{\"near_duplicate\": " + json + "}");
    }

    private static byte[] payload(Map<String, Object> minhash) {
        String shingles = (String) minhash.get("shingles");
        return ShingleSetCodec.decodePayload(shingles, ShingleSetCodec.schemeHashOf(shingles));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> fingerprint(String index, String id) {
        return (Map<String, Object>)
                client().prepareGet(index, id).get().getSourceAsMap().get("body_fp");
    }

    /** Each document's near-duplicates (like its _id) at 0.5, with their scores. */
    private Map<String, Map<String, Float>> answers(String index) {
        Map<String, Map<String, Float>> answers = new LinkedHashMap<>();
        for (int i = 0; i < texts().size(); i++) {
            SearchResponse response = client().prepareSearch(index)
                    .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\": {\"_id\": \"d" + i
                            + "\"}, \"min_similarity\": 0.5}"))
                    .setSize(100)
                    .get();
            Map<String, Float> hits = new LinkedHashMap<>();
            for (SearchHit hit : response.getHits().getHits()) {
                hits.put(hit.getId(), hit.getScore());
            }
            answers.put("d" + i, hits);
        }
        return answers;
    }

    @SuppressWarnings("unchecked")
    public void testCompactStoresNoSignatureAndAnswersAsFormatOne() {
        putPipeline();
        createIndex("one", FingerprintFormat.SIGNATURE, false);
        createIndex("two", FingerprintFormat.COMPACT, false);
        // derived source where the release has it (3.2 and newer; elsewhere a third index with _source)
        createIndex("two_derived", FingerprintFormat.COMPACT, DerivedSourceSupport.AVAILABLE);
        for (int i = 0; i < texts().size(); i++) {
            Map<String, Object> one = fingerprint("one", "d" + i);
            Map<String, Object> two = fingerprint("two", "d" + i);
            Map<String, Object> minhashOne = (Map<String, Object>) one.get("minhash");
            Map<String, Object> minhashTwo = (Map<String, Object>) two.get("minhash");
            assertEquals(java.util.Set.of("value", "shingles", "scheme"), minhashOne.keySet());
            assertEquals(java.util.Set.of("shingles", "scheme"), minhashTwo.keySet());
            // The same set; format 2's header also gives the length of the signature it stands for.
            assertArrayEquals(payload(minhashOne), payload(minhashTwo));
            assertEquals(128, ShingleSetCodec.signatureLengthOf((String) minhashTwo.get("shingles")));
            assertEquals(one.get("simhash"), two.get("simhash"));
            // Derived source rebuilds what the processor wrote, string for string.
            assertEquals(two, fingerprint("two_derived", "d" + i));
        }
        Map<String, Map<String, Float>> expected = answers("one");
        int pairs = expected.values().stream().mapToInt(Map::size).sum();
        assertTrue("near-duplicates were found: " + expected, pairs >= 2 * GROUPS.length * 2);
        assertEquals(expected, answers("two"));
        assertEquals(expected, answers("two_derived"));
    }

    /** fields and docvalue_fields show a compact document's signature: its set's, with format 2's header. */
    public void testFetchShowsTheSetsSignature() {
        putPipeline();
        createIndex("two", FingerprintFormat.COMPACT, false);
        SearchResponse fetched = client().prepareSearch("two")
                .addFetchField("body_fp.minhash")
                .setSize(100)
                .get();
        SearchResponse docValues = client().prepareSearch("two")
                .addDocValueField("body_fp.minhash")
                .setSize(100)
                .get();
        assertEquals(texts().size(), fetched.getHits().getHits().length);
        Map<String, Object> fromDocValues = new LinkedHashMap<>();
        for (SearchHit hit : docValues.getHits().getHits()) {
            fromDocValues.put(hit.getId(), hit.field("body_fp.minhash").getValue());
        }
        for (SearchHit hit : fetched.getHits().getHits()) {
            String signature = hit.field("body_fp.minhash").getValue();
            assertEquals(hit.getId(), signature, fromDocValues.get(hit.getId()));
            assertEquals(FingerprintFormat.COMPACT, SignatureCodec.formatOf(signature));
            assertEquals(128, SignatureCodec.decode(signature).length);
        }
    }

    /**
     * A liked document of the other format: a compact field derives its signature from a format 1 document's set; a
     * format 1 field compares a compact document's set by sets alone (issue 41: a data stream upgraded in place holds
     * both, and its format 1 generation failed the query's shard).
     */
    public void testLikeFromTheOtherFormat() {
        putPipeline();
        createIndex("one", FingerprintFormat.SIGNATURE, false);
        createIndex("two", FingerprintFormat.COMPACT, false);
        SearchResponse fromOne = client().prepareSearch("two")
                .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\": {\"_id\": \"d0\","
                        + " \"_index\": \"one\"}, \"min_similarity\": 0.5}"))
                .get();
        List<String> ids = java.util.Arrays.stream(fromOne.getHits().getHits())
                .map(SearchHit::getId)
                .toList();
        // d0 itself is left out by its _id, as a liked document is.
        assertTrue(ids.toString(), ids.containsAll(List.of("d1", "d2")));

        // A compact document's set has no format 1 signature: the format 1 field compares it by the sets alone (every
        // document with a set verified), with the answer the same set gets from the format 1 document.
        SearchResponse fromTwo = client().prepareSearch("one")
                .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\":"
                        + " {\"_id\": \"d0\", \"_index\": \"two\"}, \"min_similarity\": 0.5, \"include_self\": true}"))
                .get();
        SearchResponse fromOneItself = client().prepareSearch("one")
                .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\":"
                        + " {\"_id\": \"d0\", \"_index\": \"one\"}, \"min_similarity\": 0.5, \"include_self\": true}"))
                .get();
        assertEquals(0, fromTwo.getFailedShards());
        assertEquals(hitsAndScores(fromOneItself), hitsAndScores(fromTwo));
        assertTrue(
                hitsAndScores(fromTwo).toString(),
                hitsAndScores(fromTwo).keySet().containsAll(List.of("d0", "d1", "d2")));
    }

    private static Map<String, Float> hitsAndScores(SearchResponse response) {
        Map<String, Float> scores = new java.util.TreeMap<>();
        for (SearchHit hit : response.getHits().getHits()) {
            scores.put(hit.getId(), hit.getScore());
        }
        return scores;
    }

    /** One pipeline, one bulk, two indices: each document is written in its own index's format. */
    @SuppressWarnings("unchecked")
    public void testOnePipelineWritesEachIndexItsFormat() {
        putPipeline();
        for (FingerprintFormat format : FingerprintFormat.values()) {
            client().admin()
                    .indices()
                    .prepareCreate("f" + format.number())
                    .setSettings(Settings.builder()
                            .put("index.number_of_shards", 1)
                            .put(IndexFingerprintFormat.SETTING.getKey(), format.number()))
                    .setMapping(MAPPING)
                    .get();
        }
        org.opensearch.action.bulk.BulkRequestBuilder bulk =
                client().prepareBulk().setRefreshPolicy("true");
        for (int i = 0; i < 4; i++) {
            bulk.add(client().prepareIndex("f" + (1 + i % 2))
                    .setId("d" + i)
                    .setPipeline("fp")
                    .setSource(Map.of("body", GROUPS[i])));
        }
        assertFalse(bulk.get().buildFailureMessage(), bulk.get().hasFailures());
        for (int i = 0; i < 4; i++) {
            String index = "f" + (1 + i % 2);
            Map<String, Object> minhash =
                    (Map<String, Object>) fingerprint(index, "d" + i).get("minhash");
            assertEquals(index, i % 2 == 0, minhash.containsKey("value"));
        }
    }

    /**
     * near_dup_lookup in an index of the other format: a format 1 document's set serves a compact lookup index, and a
     * compact document's set is compared by sets in a format 1 index: the same match, the same similarity.
     */
    @SuppressWarnings("unchecked")
    public void testLookupInAnIndexOfTheOtherFormat() {
        putPipeline();
        createIndex("one", FingerprintFormat.SIGNATURE, false);
        createIndex("two", FingerprintFormat.COMPACT, false);
        for (String lookupIndex : List.of("one", "two")) {
            client().admin()
                    .cluster()
                    .preparePutPipeline(
                            "lookup-" + lookupIndex,
                            new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}},"
                                    + " {\"near_dup_lookup\": {\"field\": \"body_fp.minhash\", \"index\": \""
                                    + lookupIndex + "\", \"min_similarity\": 0.5, \"target_field\": \"body_dup\"}}]}"),
                            XContentType.JSON)
                    .get();
        }
        // A format 1 document looked up in the compact index finds the copy there.
        client().admin()
                .indices()
                .prepareCreate("new-one")
                .setSettings(Settings.builder().put(IndexFingerprintFormat.SETTING.getKey(), 1))
                .setMapping(MAPPING)
                .get();
        client().prepareIndex("new-one")
                .setId("x")
                .setPipeline("lookup-two")
                .setSource(Map.of("body", texts().get(1)))
                .get();
        Map<String, Object> dup = (Map<String, Object>)
                client().prepareGet("new-one", "x").get().getSourceAsMap().get("body_dup");
        assertNotNull(dup);
        assertTrue(dup.toString(), List.of("d0", "d1", "d2").contains(dup.get("duplicate_of")));

        // A compact document looked up in the format 1 index is compared there by its set (issue 41).
        client().prepareIndex("two")
                .setId("y")
                .setPipeline("lookup-one")
                .setSource(Map.of("body", texts().get(1)))
                .get();
        Map<String, Object> fromCompact = (Map<String, Object>)
                client().prepareGet("two", "y").get().getSourceAsMap().get("body_dup");
        assertNotNull(fromCompact);
        assertEquals(fromCompact.toString(), dup.get("duplicate_of"), fromCompact.get("duplicate_of"));
        assertEquals(fromCompact.toString(), dup.get("similarity"), fromCompact.get("similarity"));
    }

    /** A compact fingerprint given as like (its set, no signature) finds what its document's _id finds. */
    @SuppressWarnings("unchecked")
    public void testLikeGivenAsACompactFingerprint() {
        putPipeline();
        createIndex("two", FingerprintFormat.COMPACT, false);
        Map<String, Object> minhash =
                (Map<String, Object>) fingerprint("two", "d0").get("minhash");
        SearchResponse byId = client().prepareSearch("two")
                .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\": {\"_id\": \"d0\"},"
                        + " \"min_similarity\": 0.5, \"include_self\": true}"))
                .get();
        SearchResponse bySet = client().prepareSearch("two")
                .setQuery(nearDuplicate("{\"field\": \"body_fp.minhash\", \"like\": {\"shingles\": \""
                        + minhash.get("shingles") + "\", \"scheme\": \"" + minhash.get("scheme") + "\"},"
                        + " \"min_similarity\": 0.5}"))
                .get();
        Map<String, Float> expected = new LinkedHashMap<>();
        for (SearchHit hit : byId.getHits().getHits()) {
            expected.put(hit.getId(), hit.getScore());
        }
        Map<String, Float> found = new LinkedHashMap<>();
        for (SearchHit hit : bySet.getHits().getHits()) {
            found.put(hit.getId(), hit.getScore());
        }
        assertTrue(found.toString(), found.containsKey("d0"));
        assertEquals(expected, found);
    }
}
