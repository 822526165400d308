/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code near_dup_window} + {@code near_dup_collapse} over HTTP on the real node, on the demo corpus (2 shards):
 * each collapsed page is checked against a greedy collapse computed here from the same window fetched
 * without the pipeline.
 */
public class NearDupCollapseIT extends NearDupRestTestCase {

    private static final String INDEX = "manpages";
    private static final int WINDOW = 200;

    private static Map<String, Object> search(String pipeline, String body) throws IOException {
        return send("POST", "/" + INDEX + "/_search" + (pipeline == null ? "" : "?search_pipeline=" + pipeline), body);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> ext(Map<String, Object> response) {
        Map<String, Object> ext = (Map<String, Object>) response.get("ext");
        return ext == null ? null : (Map<String, Object>) ext.get("near_dup_collapse");
    }

    private static void putPipeline(String name, String body) throws IOException {
        send("PUT", "/_search/pipeline/" + name, body);
    }

    private static String body(String query, int from, int size) {
        return "{\"from\": " + from + ", \"size\": " + size
                + ", \"_source\": [\"group\", \"text_fp.simhash\", \"text_fp.minhash\"], " + "\"query\": " + query
                + "}";
    }

    /** One expected group: its leader and the ids folded into it, in rank order. */
    private record Group(String leader, List<String> folded) {}

    @SuppressWarnings("unchecked")
    private static Object fingerprint(Map<String, Object> hit, String kind) {
        Map<String, Object> source = (Map<String, Object>) hit.get("_source");
        Map<String, Object> fp = (Map<String, Object>) source.get("text_fp");
        return fp == null ? null : fp.get(kind);
    }

    /** The greedy collapse of the window, brute force: each hit against the leaders before it, in rank order. */
    @SuppressWarnings("unchecked")
    private static List<Group> reference(List<Map<String, Object>> window, String kind, double threshold) {
        List<Group> groups = new ArrayList<>();
        List<Object> leaderFps = new ArrayList<>();
        for (Map<String, Object> hit : window) {
            Map<String, Object> fp = (Map<String, Object>) fingerprint(hit, kind);
            String id = (String) hit.get("_id");
            Group into = null;
            if (fp != null) {
                for (int g = 0; g < groups.size() && into == null; g++) {
                    Map<String, Object> leader = (Map<String, Object>) leaderFps.get(g);
                    if (leader != null
                            && leader.get("scheme").equals(fp.get("scheme"))
                            && near(leader, fp, kind, threshold)) {
                        into = groups.get(g);
                    }
                }
            }
            if (into == null) {
                groups.add(new Group(id, new ArrayList<>()));
                leaderFps.add(fp);
            } else {
                into.folded().add(id);
            }
        }
        return groups;
    }

    private static boolean near(Map<String, Object> a, Map<String, Object> b, String kind, double threshold) {
        String va = (String) a.get("value");
        String vb = (String) b.get("value");
        if (kind.equals("simhash")) {
            return Long.bitCount(Long.parseUnsignedLong(va, 16) ^ Long.parseUnsignedLong(vb, 16)) <= threshold;
        }
        // A format 2 fingerprint has its set and no signature: the scheme hash is in the set's header.
        int hash =
                va != null ? SignatureCodec.schemeHashOf(va) : ShingleSetCodec.schemeHashOf((String) a.get("shingles"));
        if (a.get("shingles") instanceof String sa && b.get("shingles") instanceof String sb) {
            return ShingleTruth.jaccard(values(sa, hash), values(sb, hash))
                    >= threshold; // the processor wrote sets: exact Jaccard
        }
        return MinHasher.jaccard(SignatureCodec.decode(va, 128, hash), SignatureCodec.decode(vb, 128, hash))
                >= threshold;
    }

    private static Set<Integer> values(String encoded, int schemeHash) {
        byte[] payload = ShingleSetCodec.decodePayload(encoded, schemeHash);
        Set<Integer> set = new HashSet<>();
        for (int v : ShingleSetCodec.values(payload, 0, payload.length)) {
            set.add(v);
        }
        return set;
    }

    /**
     * Pages of {@code size} through the pipeline equal the reference collapse of the window fetched without it;
     * returns how many hits were folded.
     */
    @SuppressWarnings("unchecked")
    private static int assertCollapsedPages(String pipeline, String query, String kind, double threshold, int size)
            throws IOException {
        Map<String, Object> plain = search("_none", body(query, 0, WINDOW));
        List<Map<String, Object>> window = hits(plain);
        assertNull(ext(plain));
        List<Group> expected = reference(window, kind, threshold);
        int foldedTotal = window.size() - expected.size();
        Set<String> seen = new HashSet<>();
        List<String> allPages = new ArrayList<>();
        for (int from = 0; from < expected.size() + size; from += size) {
            Map<String, Object> response = search(pipeline, body(query, from, size));
            assertEquals(
                    "hits.total is the engine's count",
                    ((Map<String, Object>) plain.get("hits")).get("total"),
                    ((Map<String, Object>) response.get("hits")).get("total"));
            List<Map<String, Object>> page = hits(response);
            List<Group> expectedPage =
                    expected.subList(Math.min(from, expected.size()), Math.min(from + size, expected.size()));
            assertEquals(query + " from " + from, expectedPage.size(), page.size());
            for (int i = 0; i < page.size(); i++) {
                Map<String, Object> hit = page.get(i);
                Group group = expectedPage.get(i);
                assertEquals(query + " from " + from + " #" + i, group.leader(), hit.get("_id"));
                Map<String, Object> fields = (Map<String, Object>) hit.get("fields");
                assertEquals(group.leader(), List.of(group.folded().size()), fields.get("_near_dup.folded"));
                List<String> ids =
                        group.folded().subList(0, Math.min(10, group.folded().size()));
                assertEquals(group.leader(), ids.isEmpty() ? null : ids, fields.get("_near_dup.ids"));
                assertTrue(
                        "page starting at " + from + " repeats " + hit.get("_id"), seen.add((String) hit.get("_id")));
                allPages.add((String) hit.get("_id"));
            }
            Map<String, Object> ext = ext(response);
            assertEquals(WINDOW, ext.get("window"));
            assertEquals(window.size(), ext.get("hits"));
            assertEquals(expected.size(), ext.get("groups"));
            assertEquals(foldedTotal, ext.get("folded"));
            assertEquals(from, ext.get("from"));
            assertEquals(size, ext.get("size"));
        }
        assertEquals(
                "the pages together are the collapsed window",
                expected.stream().map(Group::leader).toList(),
                allPages);
        return foldedTotal;
    }

    public void testSimhashCollapseWithStablePagingOverSeveralQueries() throws IOException {
        DemoCorpus.load(client(), INDEX);
        putPipeline(
                "dedup",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": " + WINDOW + "}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"text_fp.simhash\", \"max_distance\": 3}}]}");
        String match = "{\"match\": {\"text\": \"file directory\"}}";
        int folded = assertCollapsedPages("dedup", match, "simhash", 3, 10);
        assertTrue(
                "the demo corpus holds releases of the same page: something must fold, folded " + folded, folded > 10);

        // the representative is the best-ranked copy, and the folded ones really are near-duplicates of it
        Map<String, Object> plain = search("_none", body(match, 0, WINDOW));
        List<String> rank = hits(plain).stream().map(h -> (String) h.get("_id")).toList();
        Map<String, Object> firstPage = search("dedup", body(match, 0, 30));
        int checked = 0;
        for (Map<String, Object> hit : hits(firstPage)) {
            @SuppressWarnings("unchecked")
            List<String> ids = (List<String>) ((Map<String, Object>) hit.get("fields")).get("_near_dup.ids");
            for (String id : ids == null ? List.<String>of() : ids) {
                assertTrue(
                        id + " folded into a worse-ranked " + hit.get("_id"),
                        rank.indexOf(id) > rank.indexOf((String) hit.get("_id")));
                checked++;
            }
        }
        assertTrue("no folded ids on the first 30 groups", checked > 0);

        assertCollapsedPages(
                "dedup",
                "{\"bool\": {\"must\": [{\"match\": {\"text\": \"options\"}}], \"filter\": [{\"exists\": "
                        + "{\"field\": \"group\"}}]}}",
                "simhash",
                3,
                25);
        assertCollapsedPages(
                "dedup",
                "{\"function_score\": {\"query\": {\"match\": {\"text\": \"print\"}}, \"functions\": "
                        + "[{\"random_score\": {\"seed\": 7, \"field\": \"_seq_no\"}}]}}",
                "simhash",
                3,
                7);
        String someId = (String) hits(search("_none", body(match, 0, 1))).get(0).get("_id");
        assertCollapsedPages(
                "dedup",
                "{\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": {\"_id\": \"" + someId
                        + "\"}, \"max_distance\": 8, \"mode\": \"exact\", \"include_self\": true}}",
                "simhash",
                3,
                2);
    }

    public void testMinhashCollapse() throws IOException {
        DemoCorpus.load(client(), INDEX);
        putPipeline(
                "dedup-minhash",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": " + WINDOW + "}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"text_fp.minhash\", \"min_similarity\": 0.8}}]}");
        int folded = assertCollapsedPages(
                "dedup-minhash", "{\"match\": {\"text\": \"file directory\"}}", "minhash", 0.8, 20);
        assertTrue("folded " + folded, folded > 0);
        Map<String, Object> ext =
                ext(search("dedup-minhash", body("{\"match\": {\"text\": \"file directory\"}}", 0, 20)));
        assertEquals("the hits' _source carries their shingle sets", "exact", ext.get("verification"));

        // Without _source in the response: `fields` renders the signature alone (the estimate), its format
        // [object] the stored object with the shingle set (exact Jaccard, the same page as from _source).
        String query = "{\"match\": {\"text\": \"file directory\"}}";
        String withoutSource = "{\"size\": 20, \"_source\": false, \"query\": " + query + ", \"fields\": [";
        Map<String, Object> signatures = search("dedup-minhash", withoutSource + "\"text_fp.minhash\"]}");
        assertEquals("estimate", ext(signatures).get("verification"));
        Map<String, Object> objects =
                search("dedup-minhash", withoutSource + "{\"field\": \"text_fp.minhash\", \"format\": \"object\"}]}");
        assertEquals("exact", ext(objects).get("verification"));
        List<Object> fromSource = new ArrayList<>();
        hits(search("dedup-minhash", body(query, 0, 20))).forEach(hit -> fromSource.add(hit.get("_id")));
        List<Object> fromFields = new ArrayList<>();
        hits(objects).forEach(hit -> fromFields.add(hit.get("_id")));
        assertEquals(fromSource, fromFields);
    }

    /** With index.search.default_pipeline every search of the index is collapsed; search_pipeline=_none turns it off. */
    public void testDefaultPipeline() throws IOException {
        DemoCorpus.load(client(), INDEX);
        putPipeline(
                "dedup",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": " + WINDOW + "}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"text_fp.simhash\"}}]}");
        send("PUT", "/" + INDEX + "/_settings", "{\"index.search.default_pipeline\": \"dedup\"}");
        String query = "{\"match\": {\"text\": \"file directory\"}}";
        int folded = assertCollapsedPages(null, query, "simhash", 3, 50);
        assertTrue(folded > 0);
        Map<String, Object> off = search("_none", body(query, 0, 10));
        assertNull(ext(off));
        assertEquals(10, hits(off).size());
        // aggregation-only searches are left alone
        Map<String, Object> aggs =
                search(null, "{\"size\": 0, \"aggs\": {\"g\": {\"terms\": {\"field\": \"group\"}}}}");
        assertEquals(0, hits(aggs).size());
        assertNotNull(aggs.get("aggregations"));
    }

    /** The demo's request: fingerprints from docvalue_fields (no _source), folded exactly as when read from _source. */
    @SuppressWarnings("unchecked")
    public void testDemoRequestReadsDocValueFields() throws IOException {
        DemoCorpus.load(client(), INDEX);
        putPipeline(
                "dedup",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": 200}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"text_fp.simhash\", \"max_distance\": 3}}]}");
        String query = "{\"match\": {\"text\": \"copy files\"}}";
        Map<String, Object> fromDocValues = search(
                "dedup",
                "{\"query\": " + query + ", \"_source\": [\"group\"], \"docvalue_fields\": [\"text_fp.simhash\"]}");
        Map<String, Object> fromSource = search("dedup", body(query, 0, 10));
        assertEquals(
                hits(fromSource).stream().map(h -> h.get("_id")).toList(),
                hits(fromDocValues).stream().map(h -> h.get("_id")).toList());
        assertEquals(0, ext(fromDocValues).get("without_fingerprint"));
        Map<String, Object> example = null;
        for (Map<String, Object> hit : hits(fromDocValues)) {
            Map<String, Object> fields = (Map<String, Object>) hit.get("fields");
            assertEquals(
                    ((Map<String, Object>) hits(fromSource)
                                    .get(hits(fromDocValues).indexOf(hit))
                                    .get("fields"))
                            .get("_near_dup.ids"),
                    fields.get("_near_dup.ids"));
            if (example == null && ((List<Integer>) fields.get("_near_dup.folded")).get(0) > 0) {
                example = hit;
            }
        }
        assertNotNull("the demo search folds something on its first page", example);
        logger.info("demo search, a collapsed hit: {}; ext: {}", example, ext(fromDocValues));
    }

    public void testBadPipelinesAndFields() throws IOException {
        DemoCorpus.load(client(), INDEX);
        assertBadRequest(
                "PUT",
                "/_search/pipeline/bad",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": 10001}}]}",
                "[window] must be in [1, 10000], got [10001]");
        assertBadRequest(
                "PUT",
                "/_search/pipeline/bad",
                "{\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"f\", " + "\"max_distance\": 17}}]}",
                "[max_distance] must be in [0, 16], got [17]");
        assertBadRequest(
                "PUT",
                "/_search/pipeline/bad",
                "{\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"f\", " + "\"min_similarity\": 0}}]}",
                "[min_similarity] must be in (0, 1], got [0.0]");
        assertBadRequest(
                "PUT",
                "/_search/pipeline/bad",
                "{\"response_processors\": [{\"near_dup_collapse\": {\"max_distance\": 3}}]}",
                "[field] required property is missing");
        assertBadRequest(
                "PUT",
                "/_search/pipeline/bad",
                "{\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"f\", " + "\"colour\": \"red\"}}]}",
                "doesn't support one or more provided configuration parameters: [colour]");
        // a field that is not a fingerprint is only known at search time
        putPipeline("text", "{\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"group\"}}]}");
        assertBadRequest(
                "POST",
                "/" + INDEX + "/_search?search_pipeline=text",
                "{\"query\": {\"match_all\": {}}}",
                "[near_dup_collapse] field [group] of hit [",
                "is neither a simhash (16 hex characters) nor a minhash signature");
        // a field the hits do not have: nothing folded, nothing dropped
        putPipeline(
                "missing",
                "{\"request_processors\": [{\"near_dup_window\": {\"window\": 50}}], "
                        + "\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"nope.simhash\"}}]}");
        Map<String, Object> response = search("missing", "{\"from\": 5, \"size\": 20, \"query\": {\"match_all\": {}}}");
        assertEquals(20, hits(response).size());
        Map<String, Object> ext = ext(response);
        assertEquals(50, ext.get("without_fingerprint"));
        assertEquals(0, ext.get("folded"));
        Map<String, Object> plain = search("_none", "{\"from\": 5, \"size\": 20, \"query\": {\"match_all\": {}}}");
        assertEquals(
                hits(plain).stream().map(h -> h.get("_id")).toList(),
                hits(response).stream().map(h -> h.get("_id")).toList());
    }
}
