/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opensearch.client.Request;

/**
 * {@code near_dup_lookup} after {@code near_dup_fingerprint} on a real node: the demo corpus arrives
 * in random bulks, and each page is flagged as a copy exactly when an earlier page's 3-word
 * shingles overlap it by Jaccard >= 0.5 (truth computed here from the texts).
 */
public class NearDupLookupIT extends NearDupRestTestCase {

    private static final double TAU = 0.5;

    private static void put(String path, String body) throws IOException {
        Request request = new Request("PUT", path);
        request.setJsonEntity(body);
        client().performRequest(request);
    }

    private static String index(String name, String pipeline) throws IOException {
        put(
                "/" + name,
                DemoCorpus.INDEX_SETUP.replace(
                        "\"index.default_pipeline\": \"fingerprints\"",
                        "\"index.default_pipeline\": \"" + pipeline + "\""));
        return name;
    }

    /** Loads the demo lines in this order, in bulks of random sizes refreshed in between; returns id → text. */
    @SuppressWarnings("unchecked")
    private static List<String[]> load(String index, List<String> lines) throws IOException {
        List<String[]> arrivals = new ArrayList<>();
        for (int from = 0; from < lines.size(); ) {
            int to = Math.min(lines.size(), from + between(1, 60));
            StringBuilder bulk = new StringBuilder();
            for (String line : lines.subList(from, to)) {
                Map<String, Object> doc = org.opensearch.common.xcontent.XContentHelper.convertToMap(
                        org.opensearch.common.xcontent.json.JsonXContent.jsonXContent, line, false);
                arrivals.add(new String[] {(String) doc.get("id"), (String) doc.get("text")});
                bulk.append("{\"index\": {\"_id\": \"")
                        .append(doc.get("id"))
                        .append("\"}}\n")
                        .append(line)
                        .append('\n');
            }
            Request request = new Request("POST", "/" + index + "/_bulk?refresh=true");
            request.setJsonEntity(bulk.toString());
            Map<String, Object> response = entityAsMap(client().performRequest(request));
            assertEquals(response.toString(), false, response.get("errors"));
            from = to;
        }
        return arrivals;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> flags(String index) throws IOException {
        Request search = new Request("POST", "/" + index + "/_search");
        search.setJsonEntity("{\"size\": 1000, \"_source\": [\"text_dup\"]}");
        Map<String, Map<String, Object>> result = new HashMap<>();
        for (Map<String, Object> hit : hits(entityAsMap(client().performRequest(search)))) {
            result.put((String) hit.get("_id"), (Map<String, Object>)
                    ((Map<String, Object>) hit.get("_source")).get("text_dup"));
        }
        return result;
    }

    public void testEachPageIsFlaggedWhenAnEarlierPageIsANearDuplicate() throws Exception {
        put(
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        put("/_ingest/pipeline/flag", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}}]}""");
        List<String> lines = new ArrayList<>(DemoCorpus.lines());
        Collections.shuffle(lines, random());
        List<String[]> arrivals = load(index("flagged", "flag"), lines);
        Map<String, Map<String, Object>> flags = flags("flagged");
        List<Set<String>> shingles = new ArrayList<>();
        for (String[] arrival : arrivals) {
            shingles.add(ShingleTruth.shingles(arrival[1], 3));
        }
        int expectedCopies = 0;
        int missed = 0;
        for (int i = 0; i < arrivals.size(); i++) {
            double best = 0;
            for (int j = 0; j < i; j++) {
                best = Math.max(best, ShingleTruth.jaccard(shingles.get(i), shingles.get(j)));
            }
            Map<String, Object> flag = flags.get(arrivals.get(i)[0]);
            String of = (String) flag.get("duplicate_of");
            if (of != null) {
                int j = indexOf(arrivals, of);
                assertTrue(arrivals.get(i)[0] + " -> " + of + " must be earlier", j >= 0 && j < i);
                double similarity = ShingleTruth.jaccard(shingles.get(i), shingles.get(j));
                assertTrue(
                        "no false flag: " + arrivals.get(i)[0] + " -> " + of + " at " + similarity,
                        similarity >= TAU - 1e-9);
                assertEquals(similarity, ((Number) flag.get("similarity")).doubleValue(), 1e-6);
            }
            if (best >= TAU) {
                expectedCopies++;
                missed += of == null ? 1 : 0;
            }
        }
        assertTrue("the demo has copies: " + expectedCopies, expectedCopies >= 100);
        // LSH finds a pair at the threshold with probability >= 0.99 (min_band_matches is chosen for that), so a copy
        // is missed only when every earlier near-duplicate is: at most 3% leaves room for chance on ~200 copies.
        assertTrue("missed " + missed + " of " + expectedCopies, missed <= expectedCopies * 0.03);
    }

    private static int indexOf(List<String[]> arrivals, String id) {
        for (int i = 0; i < arrivals.size(); i++) {
            if (arrivals.get(i)[0].equals(id)) {
                return i;
            }
        }
        return -1;
    }

    /** The README's drop pipeline: copies never reach the index. */
    public void testStockDropKeepsCopiesOut() throws Exception {
        put(
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        put("/_ingest/pipeline/drop-copies", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}},
              {"drop": {"if": "ctx.text_dup?.duplicate_of != null"}}]}""");
        List<String> lines = DemoCorpus.lines();
        load(index("deduplicated", "drop-copies"), lines);
        Map<String, Map<String, Object>> kept = flags("deduplicated");
        assertTrue("copies were dropped: " + kept.size() + " of " + lines.size(), kept.size() < lines.size() - 50);
        kept.forEach((id, flag) -> assertEquals(id, Map.of("cluster", id, "representative", true), flag));
    }
}
