/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.core.common.bytes.BytesReference;

/**
 * {@code POST _near_dup/_compare} over HTTP on the real node: two releases of a demo man page compared by id, the
 * answer's shape and passages checked against the texts; refusals are 400s naming the parameter, a missing document
 * a 404 naming it, never a 500.
 */
public class NearDupCompareIT extends NearDupRestTestCase {
    private static final String PATH = "/_near_dup/_compare";

    private static String side(String id) {
        return "{\"_index\": \"compare-demo\", \"_id\": \"" + id + "\", \"field\": \"text\"}";
    }

    @SuppressWarnings("unchecked")
    public void testTwoReleasesOfAPageAndTheRefusals() throws IOException {
        DemoCorpus.load(client(), "compare-demo");
        Map<String, String> docs = DemoCorpus.twoReleases();
        List<String> ids = List.copyOf(docs.keySet());
        String textA = docs.get(ids.get(0)), textB = docs.get(ids.get(1));
        Map<String, Object> answer =
                send("POST", PATH, "{\"a\": " + side(ids.get(0)) + ", \"b\": " + side(ids.get(1)) + "}");

        assertEquals(DemoCorpus.PIPELINE, answer.get("pipeline"));
        double jaccard = ((Number) answer.get("jaccard")).doubleValue();
        double truth = ShingleTruth.jaccard(ShingleTruth.shingles(textA, 3), ShingleTruth.shingles(textB, 3));
        assertEquals(truth, jaccard, 0.01);
        Map<String, Object> containment = (Map<String, Object>) answer.get("containment");
        assertTrue(containment.toString(), ((Number) containment.get("a_in_b")).doubleValue() >= jaccard);
        assertTrue(containment.toString(), ((Number) containment.get("b_in_a")).doubleValue() >= jaccard);
        assertTrue(answer.toString(), answer.get("simhash_distance") instanceof Integer);
        assertEquals(false, answer.get("truncated"));
        List<Map<String, List<Integer>>> shared = (List<Map<String, List<Integer>>>) answer.get("shared");
        assertFalse(shared.isEmpty());
        for (Map<String, List<Integer>> passage : shared) {
            List<Integer> a = passage.get("a"), b = passage.get("b");
            assertEquals(
                    passage.toString(),
                    ShingleTruth.words(textA.substring(a.get(0), a.get(1))),
                    ShingleTruth.words(textB.substring(b.get(0), b.get(1))));
        }
        for (String only : List.of("only_a", "only_b")) {
            assertTrue(answer.toString(), answer.get(only) instanceof List<?>);
        }

        // the same answer for the texts themselves, with the pipeline named
        Map<String, Object> asTexts = send(
                "POST",
                PATH,
                "{\"a\": {\"text\": " + quoted(textA) + "}, \"b\": {\"text\": " + quoted(textB) + "}, \"pipeline\": \""
                        + DemoCorpus.PIPELINE + "\"}");
        assertEquals(answer, asTexts);

        // each hit of a search explained against a text, as the comparison explains the pair
        Map<String, Object> searched = send(
                "POST",
                "/compare-demo/_search",
                "{\"query\": {\"ids\": {\"values\": [\"" + ids.get(0) + "\", \"" + ids.get(1) + "\"]}}, "
                        + "\"_source\": false, \"ext\": {\"near_dup_explain\": {\"like\": {\"text\": " + quoted(textA)
                        + "}, \"field\": \"text\"}}}");
        assertEquals(2, hits(searched).size());
        for (Map<String, Object> hit : hits(searched)) {
            Map<String, Object> explained = ((List<Map<String, Object>>)
                            ((Map<String, Object>) hit.get("fields")).get("near_dup_explain"))
                    .get(0);
            assertEquals(hit.toString(), hit.get("_id").equals(ids.get(0)) ? 1.0 : jaccard, explained.get("jaccard"));
        }
        assertBadRequest(
                "POST",
                "/compare-demo/_search",
                "{\"ext\": {\"near_dup_explain\": {\"like\": {\"text\": \"x\"}, \"field\": \"text\", \"top\": 1}}}",
                "[near_dup_explain] has unknown key [top]");

        // odd texts: emoji, CJK, control characters, a lone half of a surrogate pair (replaced, as at ingest)
        Map<String, Object> odd = send(
                "POST",
                PATH,
                "{\"a\": {\"text\": \"party 🎉 time \\ud83d with 東京は日本 and \\u0007 bells\"}, "
                        + "\"b\": {\"text\": \"party 🎉 time with 東京は日本 and bells \\ude00\"}, \"pipeline\": \""
                        + DemoCorpus.PIPELINE + "\"}");
        assertTrue(odd.toString(), ((Number) odd.get("jaccard")).doubleValue() > 0);

        String texts = "\"a\": {\"text\": \"one two three\"}, \"b\": {\"text\": \"one two four\"}";
        assertBadRequest("POST", PATH, "{" + texts + ", \"c\": 1}", "unknown key [c]");
        assertBadRequest("POST", PATH, "{" + texts + "}", "[pipeline] is needed");
        assertBadRequest("POST", PATH, "{" + texts + ", \"max_explained_chars\": -5}", "[max_explained_chars]");
        assertBadRequest("POST", PATH, "{" + texts + ", \"max_explained_chars\": 1.5}", "[max_explained_chars]");
        assertBadRequest(
                "POST",
                PATH,
                "{\"a\": {\"text\": \"x\", \"_id\": \"1\"}, \"b\": {\"text\": \"y\"}}",
                "[a] takes [text] or [_index], [_id] and [field], not both");
        assertBadRequest(
                "POST",
                PATH,
                "{\"a\": {\"_index\": \"compare-demo\", \"_id\": \"" + ids.get(0)
                        + "\", \"field\": \"nope\"}, \"b\": {\"text\": \"y\"}}",
                "[a.field] [nope] is not mapped in index [compare-demo]");
        assertBadRequest("POST", PATH, "{\"a\": null, \"b\": {\"text\": \"y\"}}", "[a] must be an object");
        assertBadRequest(
                "POST", PATH, "{\"a\": {\"text\": null}, \"b\": {\"text\": \"y\"}}", "[a.text] must be a string");
        assertBadRequest("POST", PATH, "{}", "[a] is missing");
        assertBadRequest("POST", PATH, null, "needs a body");
        expectRefused(400, "POST", PATH, "[1, 2]");
        expectRefused(400, "POST", PATH, "not json");
        String missing = expectRefused(
                404, "POST", PATH, "{\"a\": " + side(ids.get(0)) + ", \"b\": " + side("no-such-page") + "}");
        assertTrue(missing, missing.contains("[b._id] document [no-such-page] not found in index [compare-demo]"));
        expectRefused(
                404,
                "POST",
                PATH,
                "{\"a\": {\"_index\": \"no-such-index\", \"_id\": \"1\", \"field\": \"text\"}, \"b\": {\"text\": \"y\"}}");
    }

    private static String quoted(String text) throws IOException {
        return BytesReference.bytes(XContentFactory.jsonBuilder().value(text)).utf8ToString();
    }
}
