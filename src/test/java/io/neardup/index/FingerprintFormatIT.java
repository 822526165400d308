/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.common.xcontent.support.XContentMapValues;

/**
 * On the real node: an index of format 1 (as every index created before format 2) moves to format 2 by a reindex
 * through the pipeline, and answers the same; a reindex without the pipeline cannot mix the formats.
 */
public class FingerprintFormatIT extends NearDupRestTestCase {
    private static final String FORMAT_ONE = DemoCorpus.INDEX_SETUP.replace(
            "\"index.default_pipeline\": \"fingerprints\"",
            "\"index.default_pipeline\": \"fingerprints\", \"index.neardup.fingerprint_format\": 1");

    private static String encode(String id) {
        return java.net.URLEncoder.encode(id, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static Object setting(String index) throws IOException {
        return XContentMapValues.extractValue(
                index + ".settings.index.neardup.fingerprint_format", send("GET", "/" + index + "/_settings", null));
    }

    /** Each document's hits by MinHash at 0.5 (like its _id), with their scores. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> answers(String index, List<String> ids) throws IOException {
        Map<String, Map<String, Object>> answers = new HashMap<>();
        for (String id : ids) {
            Map<String, Object> response = send(
                    "POST",
                    "/" + index + "/_search",
                    "{\"size\": 100, \"_source\": false, \"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\","
                            + " \"like\": {\"_id\": \"" + id + "\"}, \"min_similarity\": 0.5}}}");
            Map<String, Object> hits = new HashMap<>();
            for (Map<String, Object> hit :
                    (List<Map<String, Object>>) XContentMapValues.extractValue("hits.hits", response)) {
                hits.put((String) hit.get("_id"), hit.get("_score"));
            }
            answers.put(id, hits);
        }
        return answers;
    }

    @SuppressWarnings("unchecked")
    public void testReindexThroughThePipelineMovesAnIndexToFormatTwo() throws IOException {
        int documents = DemoCorpus.load(client(), "old", FORMAT_ONE);
        assertEquals("1", setting("old"));
        send("PUT", "/new", DemoCorpus.INDEX_SETUP);
        assertEquals("a new index gets format 2", "2", setting("new"));

        Map<String, Object> reindexed = send(
                "POST",
                "/_reindex?refresh=true",
                "{\"source\": {\"index\": \"old\"}, \"dest\": {\"index\": \"new\", \"pipeline\": \"fingerprints\"}}");
        assertEquals(documents, reindexed.get("created"));
        List<String> ids = DemoCorpus.lines().stream()
                .map(line -> line.substring(line.indexOf(": \"") + 3, line.indexOf("\", ")))
                .toList();
        for (String id : ids.subList(0, 20)) {
            Map<String, Object> oldMinhash = (Map<String, Object>) XContentMapValues.extractValue(
                    "_source.text_fp.minhash", send("GET", "/old/_doc/" + encode(id), null));
            Map<String, Object> newMinhash = (Map<String, Object>) XContentMapValues.extractValue(
                    "_source.text_fp.minhash", send("GET", "/new/_doc/" + encode(id), null));
            assertTrue(oldMinhash.containsKey("value"));
            assertFalse(newMinhash.containsKey("value"));
            String oldSet = (String) oldMinhash.get("shingles");
            String newSet = (String) newMinhash.get("shingles");
            assertArrayEquals(
                    ShingleSetCodec.decodePayload(oldSet, ShingleSetCodec.schemeHashOf(oldSet)),
                    ShingleSetCodec.decodePayload(newSet, ShingleSetCodec.schemeHashOf(newSet)));
        }
        Map<String, Map<String, Object>> before = answers("old", ids);
        assertTrue(before.values().stream().mapToInt(Map::size).sum() > 10);
        assertEquals("exact Jaccard: the same hits and scores in both formats", before, answers("new", ids));
    }

    public void testReindexWithoutThePipelineIntoTheOtherFormatIsRefused() throws IOException {
        DemoCorpus.load(client(), "old", FORMAT_ONE);
        send(
                "PUT",
                "/new",
                DemoCorpus.INDEX_SETUP.replace(
                        "\"index.default_pipeline\": \"fingerprints\"", "\"index.default_pipeline\": \"_none\""));
        String reason = expectRefused(
                400,
                "POST",
                "/_reindex?refresh=true",
                "{\"source\": {\"index\": \"old\"}, \"dest\": {\"index\": \"new\"}}");
        assertTrue(
                reason,
                reason.contains("minhash signature is of fingerprint format 1 (stored signature), expected fingerprint"
                        + " format 2 (compact), the format of this index"));
    }
}
