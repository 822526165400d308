/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.core.Hamming;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole index-time path on the real node: the demo corpus through the pipeline into an index
 * sorted by its simhash field.
 */
public class FingerprintIndexIT extends NearDupRestTestCase {

    private static int loadDemoCorpus() throws IOException {
        return DemoCorpus.load(client(), "manpages");
    }

    @SuppressWarnings("unchecked")
    private static String simhashInSource(Map<String, Object> hit) {
        Map<String, Object> fp = (Map<String, Object>) ((Map<String, Object>) hit.get("_source")).get("text_fp");
        return (String) ((Map<String, Object>) fp.get("simhash")).get("value");
    }

    @SuppressWarnings("unchecked")
    public void testDemoCorpusIsFingerprintedIntoASimhashSortedIndex() throws IOException {
        int documents = loadDemoCorpus();
        Map<String, Object> all = send("POST", "/manpages/_search", """
            {"size": 1000, "_source": ["group", "text_fp.simhash", "text_fp.content_hash"],
             "docvalue_fields": ["text_fp.simhash"], "sort": [{"text_fp.simhash": "asc"}]}""");
        List<Map<String, Object>> hits = hits(all);
        assertEquals(documents, hits.size());

        List<String> sorted = new ArrayList<>();
        Map<String, List<Long>> byGroup = new HashMap<>();
        for (Map<String, Object> hit : hits) {
            String inSource = simhashInSource(hit);
            List<Object> docValues = (List<Object>) ((Map<String, Object>) hit.get("fields")).get("text_fp.simhash");
            assertEquals("docvalue_fields renders the stored fingerprint as hex", List.of(inSource), docValues);
            sorted.add(inSource);
            String group = (String) ((Map<String, Object>) hit.get("_source")).get("group");
            byGroup.computeIfAbsent(group, g -> new ArrayList<>()).add(Long.parseUnsignedLong(inSource, 16));
        }
        List<String> expected = new ArrayList<>(sorted);
        expected.sort(null); // lowercase hex of equal length sorts like the unsigned value
        assertEquals("sorting by the field orders fingerprints as unsigned values", expected, sorted);

        // Releases of one man page are near-duplicates; pages of different groups are not.
        double within = 0;
        int withinPairs = 0;
        List<Long> representatives = new ArrayList<>();
        for (List<Long> group : byGroup.values()) {
            representatives.add(group.get(0));
            for (int i = 1; i < group.size(); i++) {
                within += Hamming.distance(group.get(0), group.get(i));
                withinPairs++;
            }
        }
        double between = 0;
        int betweenPairs = 0;
        for (int i = 1; i < representatives.size(); i++) {
            between += Hamming.distance(representatives.get(i - 1), representatives.get(i));
            betweenPairs++;
        }
        within /= withinPairs;
        between /= betweenPairs;
        // The gap is large on this corpus (several bits against ~25); half of it still fails a broken simhash.
        assertTrue("mean distance within groups " + within + ", between groups " + between, within < between / 2);
    }

    @SuppressWarnings("unchecked")
    public void testTermExistsAndContentHashQueries() throws IOException {
        loadDemoCorpus();
        Map<String, Object> one =
                hits(send("POST", "/manpages/_search", "{\"size\": 1}")).get(0);
        String simhash = simhashInSource(one);
        String contentHash = (String)
                ((Map<String, Object>) ((Map<String, Object>) one.get("_source")).get("text_fp")).get("content_hash");

        List<Map<String, Object>> byTerm = hits(send(
                "POST",
                "/manpages/_search",
                "{\"query\": {\"term\": {\"text_fp.simhash\": \"" + simhash.toUpperCase(java.util.Locale.ROOT)
                        + "\"}}}"));
        assertTrue(byTerm.stream().anyMatch(h -> h.get("_id").equals(one.get("_id"))));
        byTerm.forEach(h -> assertEquals(simhash, simhashInSource(h)));

        List<Map<String, Object>> exact = hits(send(
                "POST",
                "/manpages/_search",
                "{\"query\": {\"term\": {\"text_fp.content_hash\": \"" + contentHash + "\"}}}"));
        assertTrue(exact.stream().anyMatch(h -> h.get("_id").equals(one.get("_id"))));

        Map<String, Object> exists =
                send("POST", "/manpages/_count", "{\"query\": {\"exists\": {\"field\": \"text_fp.simhash\"}}}");
        Map<String, Object> total = send("POST", "/manpages/_count", null);
        assertEquals(total.get("count"), exists.get("count"));
    }

    public void testMalformedFingerprintsAreRejectedWithTheFieldName() throws IOException {
        send("PUT", "/manpages", DemoCorpus.INDEX_SETUP);
        assertBadRequest(
                "PUT",
                "/manpages/_doc/bad?pipeline=_none",
                "{\"text_fp\": {\"simhash\": \"not-hex\"}}",
                "text_fp.simhash");
        assertBadRequest(
                "PUT",
                "/manpages/_doc/bad?pipeline=_none",
                "{\"text_fp\": {\"minhash\": {\"value\": \"AQAAAAAAAAAB\"}}}",
                "text_fp.minhash");

        send(
                "PUT",
                "/manpages/_doc/bare?refresh=true&pipeline=_none",
                "{\"text_fp\": {\"simhash\": \"00000000000000FF\"}}");

        // A numeric aggregation over fingerprints is a 400 with the reason, not a 500; sorting with any query works.
        assertBadRequest(
                "POST",
                "/manpages/_search",
                "{\"size\": 0, \"aggs\": {\"a\": {\"avg\": {\"field\": \"text_fp.simhash\"}}}}",
                "[simhash] fields hold fingerprints, not numbers");
        Map<String, Object> sorted = send(
                "POST",
                "/manpages/_search",
                "{\"query\": {\"match_all\": {}}, \"sort\": " + "[{\"text_fp.simhash\": \"asc\"}]}");
        assertEquals(1, hits(sorted).size());
    }
}
