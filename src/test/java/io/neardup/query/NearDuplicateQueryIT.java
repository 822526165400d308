/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opensearch.client.Request;

/** The query over HTTP on the real node, checked against brute force over the documents' own fingerprints. */
public class NearDuplicateQueryIT extends NearDupRestTestCase {

    private static final String INDEX = "manpages";

    private static Map<String, Object> search(String body) throws IOException {
        return send("POST", "/" + INDEX + "/_search", body);
    }

    private static Set<String> ids(Map<String, Object> response) {
        Set<String> ids = new HashSet<>();
        hits(response).forEach(hit -> ids.add((String) hit.get("_id")));
        return ids;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String[]> fingerprints() throws IOException {
        Map<String, String[]> all = new HashMap<>();
        for (Map<String, Object> hit :
                hits(search("{\"size\": 1000, \"_source\": [\"text_fp.simhash\", \"text\", \"group\"]}"))) {
            Map<String, Object> source = (Map<String, Object>) hit.get("_source");
            Map<String, Object> simhash =
                    (Map<String, Object>) ((Map<String, Object>) source.get("text_fp")).get("simhash");
            all.put((String) hit.get("_id"), new String[] {
                (String) simhash.get("value"),
                (String) source.get("text"),
                (String) simhash.get("margins"),
                (String) source.get("group")
            });
        }
        return all;
    }

    private static Set<String> bruteForce(Map<String, String[]> all, String hex, int maxDistance, String exclude) {
        long query = Long.parseUnsignedLong(hex, 16);
        Set<String> expected = new HashSet<>();
        all.forEach((id, fp) -> {
            if (id.equals(exclude) == false
                    && Long.bitCount(Long.parseUnsignedLong(fp[0], 16) ^ query) <= maxDistance) {
                expected.add(id);
            }
        });
        return expected;
    }

    private static String query(String like, String extra) {
        return "{\"size\": 1000, \"_source\": false, \"query\": {\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": "
                + like + extra + "}}}";
    }

    private static void assertBadRequest(String body, String... reasonParts) throws IOException {
        assertBadRequest("POST", "/" + INDEX + "/_search", body, reasonParts);
    }

    public void testExactModeByIdEqualsBruteForceAndPsmFindsASubset() throws IOException {
        DemoCorpus.load(client(), INDEX);
        Map<String, String[]> all = fingerprints();
        int queriesWithNeighbours = 0;
        int neighbours = 0;
        int foundByPsm = 0;
        for (Map.Entry<String, String[]> doc : all.entrySet()) {
            String like = "{\"_id\": \"" + doc.getKey() + "\"}";
            for (int h : new int[] {3, 6}) {
                Set<String> expected = bruteForce(all, doc.getValue()[0], h, doc.getKey());
                Set<String> exact = ids(search(query(like, ", \"max_distance\": " + h + ", \"mode\": \"exact\"")));
                assertEquals(doc.getKey() + " h=" + h, expected, exact);
                Set<String> psm = ids(search(query(like, ", \"max_distance\": " + h)));
                assertTrue(doc.getKey() + " psm " + psm + " exact " + exact, exact.containsAll(psm));
                if (h == 3 && expected.isEmpty() == false) {
                    queriesWithNeighbours++;
                    neighbours += expected.size();
                    foundByPsm += psm.size();
                }
            }
        }
        assertTrue("the demo corpus has near-duplicates within 3 bits", queriesWithNeighbours > 20);
        // Tiny segments make p small, so 64 flip sets cover nearly every prefix at distance <= 3.
        assertTrue("psm recall " + foundByPsm + "/" + neighbours, foundByPsm >= 0.9 * neighbours);
    }

    @SuppressWarnings("unchecked")
    public void testTextSimhashScoresExplainAndComposition() throws IOException {
        DemoCorpus.load(client(), INDEX);
        Map<String, String[]> all = fingerprints();
        String id = all.keySet().iterator().next();
        String[] doc = all.get(id);

        // a text is fingerprinted by the index's own pipeline: the document itself comes first, at distance 0
        String text = doc[1].replace("\\", "\\\\")
                .replace("\"", "\\\"")
                .replace("\n", "\\n")
                .replace("\t", "\\t");
        List<Map<String, Object>> byText = hits(search(query("{\"text\": \"" + text + "\"}", "")));
        assertEquals(1.0, ((Number) byText.get(0).get("_score")).doubleValue(), 0.0);
        assertTrue(byText.stream().anyMatch(h -> h.get("_id").equals(id)));

        // a fingerprint with margins runs PSM; without margins only exact mode can run
        Set<String> bySimhash =
                ids(search(query("{\"simhash\": \"" + doc[0] + "\", \"margins\": \"" + doc[2] + "\"}", "")));
        assertTrue(bySimhash.contains(id));
        assertEquals(
                bruteForce(all, doc[0], 3, null),
                ids(search(query("{\"simhash\": \"" + doc[0] + "\"}", ", \"mode\": \"exact\""))));
        assertBadRequest(
                query("{\"simhash\": \"" + doc[0] + "\"}", ""),
                "mode [psm] ranks the query's weak bits by its margins");

        // the document itself is excluded unless asked for
        assertFalse(ids(search(query("{\"_id\": \"" + id + "\"}", ""))).contains(id));
        assertTrue(ids(search(query("{\"_id\": \"" + id + "\"}", ", \"include_self\": true")))
                .contains(id));

        // closer documents score higher: score = 1 - distance / 64
        long q = Long.parseUnsignedLong(doc[0], 16);
        for (Map<String, Object> hit : hits(
                search(query("{\"simhash\": \"" + doc[0] + "\"}", ", \"mode\": \"exact\", \"max_distance\": 8")))) {
            int distance = Long.bitCount(Long.parseUnsignedLong(all.get((String) hit.get("_id"))[0], 16) ^ q);
            assertEquals(
                    (String) hit.get("_id"), 1.0 - distance / 64.0, ((Number) hit.get("_score")).doubleValue(), 1e-6);
        }

        // bool composition: the same query as a filter, minus the document's own group
        String group = doc[3];
        Map<String, Object> filtered = search(
                "{\"size\": 1000, \"track_total_hits\": true, \"query\": {\"bool\": {\"filter\": [{\"near_duplicate\": "
                        + "{\"field\": \"text_fp.simhash\", \"like\": {\"_id\": \"" + id
                        + "\"}, \"max_distance\": 8, \"mode\": \"exact\"}}], "
                        + "\"must_not\": [{\"term\": {\"group\": \"" + group
                        + "\"}}]}}, \"aggs\": {\"groups\": {\"terms\": {\"field\": \"group\"}}}}");
        Set<String> expected = bruteForce(all, doc[0], 8, id);
        expected.removeIf(other -> all.get(other)[3].equals(group));
        assertEquals(expected, ids(filtered));
        assertEquals(
                expected.size(),
                ((Number) ((Map<String, Object>) ((Map<String, Object>) filtered.get("hits")).get("total"))
                                .get("value"))
                        .intValue());

        // _explain names the distance
        Map<String, Object> explanation = send(
                "POST",
                "/" + INDEX + "/_explain/"
                        + java.net.URLEncoder.encode((String) byText.get(0).get("_id"), StandardCharsets.UTF_8),
                "{\"query\": {\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": {\"simhash\": \"" + doc[0]
                        + "\"}, \"mode\": \"exact\"}}}");
        assertTrue(explanation.toString(), explanation.toString().contains("hamming distance"));
    }

    public void testBadInputIsA400WithAReason() throws IOException {
        DemoCorpus.load(client(), INDEX);
        assertBadRequest(
                query("{\"_id\": \"no-such-document\"}", ""),
                "document [no-such-document] not found in index [manpages]");
        assertBadRequest(query("{\"simhash\": \"12345\"}", ""), "simhash must be 16 hex characters");
        assertBadRequest(
                query("{\"_id\": \"x\"}", ", \"max_distance\": 99"), "[max_distance] must be in [0, 8], got [99]");
        assertBadRequest(query("{\"_id\": \"x\"}", ", \"max_flips\": 1000000"), "[max_flips] must be in [1, 10000]");
        assertBadRequest(
                query("{\"simhash\": \"00000000000000ff\", \"scheme\": \"nd1-00000000\"}", ", \"mode\": \"exact\""),
                "the query fingerprint has scheme [nd1-00000000] but field [text_fp.simhash] holds scheme [nd1-");
        assertBadRequest(
                "{\"query\": {\"near_duplicate\": {\"field\": \"group\", \"like\": {\"_id\": \"x\"}}}}",
                "field [group] is of type [keyword], expected [simhash] or [minhash]");
        assertBadRequest(
                "{\"query\": {\"near_duplicate\": {\"field\": \"nowhere\", \"like\": {\"_id\": \"x\"}}}}",
                "field [nowhere] is not mapped");
        assertBadRequest(
                query("{\"text\": \"x\", \"pipeline\": \"missing\"}", ""), "pipeline [missing] does not exist");
        assertBadRequest(query("{\"text\": \"!!! ???\"}", ""), "has no tokens after analysis");
        Map<String, Object> none =
                search("{\"query\": {\"near_duplicate\": {\"field\": \"nowhere\", \"like\": {\"_id\": \"x\"}, "
                        + "\"ignore_unmapped\": true}}}");
        assertTrue(hits(none).isEmpty());
    }

    @SuppressWarnings("unchecked")
    public void testStatsEndpointReportsStructuresAndWork() throws IOException {
        DemoCorpus.load(client(), INDEX);
        search(query("{\"_id\": \"" + fingerprints().keySet().iterator().next() + "\"}", ""));
        Map<String, Object> stats = send("GET", "/_plugins/neardup/stats", null);
        Map<String, Object> nodes = (Map<String, Object>) stats.get("nodes");
        assertEquals(1, nodes.size());
        Map<String, Object> node =
                (Map<String, Object>) nodes.values().iterator().next();
        Map<String, Object> structures = (Map<String, Object>) node.get("segment_structures");
        Map<String, Object> queries = (Map<String, Object>) node.get("queries");
        assertTrue(stats.toString(), ((Number) structures.get("entries")).longValue() > 0);
        assertTrue(stats.toString(), ((Number) structures.get("bytes")).longValue() > 0);
        assertTrue(stats.toString(), ((Number) queries.get("lookups")).longValue() > 0);
        Map<String, Object> breakers = send("GET", "/_nodes/stats/breaker", null);
        assertTrue(
                "the plugin's circuit breaker is registered: " + breakers,
                breakers.toString().contains("neardup"));
    }

    private static int equalBands(int[] a, int[] b, LshBanding banding) {
        int equal = 0;
        for (int band = 0; band < banding.bands(); band++) {
            int from = band * banding.rows();
            equal += java.util.Arrays.equals(a, from, from + banding.rows(), b, from, from + banding.rows()) ? 1 : 0;
        }
        return equal;
    }

    /** Every document's exact Jaccard to every other, from its text with Lucene's StandardAnalyzer (not the plugin's hashes). */
    @SuppressWarnings("unchecked")
    private static Map<String, Set<String>> truthShingles(String index) throws IOException {
        Map<String, Set<String>> shingles = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/" + index + "/_search", "{\"size\": 1000, \"_source\": [\"text\"]}"))) {
            shingles.put(
                    (String) hit.get("_id"),
                    ShingleTruth.shingles((String) ((Map<String, Object>) hit.get("_source")).get("text"), 3));
        }
        return shingles;
    }

    /** Ids of documents with at least one other document of Jaccard >= 0.5, then the rest, up to {@code limit}. */
    private static List<String> queryIds(Map<String, Set<String>> shingles, int limit) {
        List<String> withCopies = new java.util.ArrayList<>(), without = new java.util.ArrayList<>();
        for (String id : shingles.keySet().stream().sorted().toList()) {
            boolean copied = shingles.entrySet().stream()
                    .anyMatch(e -> e.getKey().equals(id) == false
                            && ShingleTruth.jaccard(shingles.get(id), e.getValue()) >= 0.5);
            (copied ? withCopies : without).add(id);
        }
        withCopies.addAll(without);
        return withCopies.subList(0, Math.min(limit, withCopies.size()));
    }

    private static Map<String, Object> minhashSearch(String index, String id, String options) throws IOException {
        org.opensearch.client.Response response = client().performRequest(request(
                "POST",
                "/" + index + "/_search",
                "{\"size\": 1000, \"_source\": false, \"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\", "
                        + "\"like\": {\"_id\": \"" + id + "\"}" + options + "}}}"));
        assertTrue(
                options + " " + response.getWarnings(), response.getWarnings().isEmpty());
        return entityAsMap(response);
    }

    /**
     * The duel of the acceptance list: on an index whose banding makes every document sharing one of
     * 128 MinHash values a candidate (128 bands of 1 row, min_band_matches 1), the result is exactly
     * {other documents with exact Jaccard >= tau}, scored by that Jaccard, at every tau. A pair with
     * J >= 0.5 shares no value with probability 0.5^128. Scores may differ from the truth by a
     * 32-bit shingle-hash collision, about 1e-4 for the longest pages, hence the 1e-3 tolerance.
     */
    public void testMinhashEqualsExactJaccardWhereEveryCandidateIsRead() throws IOException {
        String index = "manpages_every_candidate";
        DemoCorpus.load(
                client(),
                index,
                DemoCorpus.INDEX_SETUP.replace("\"num_hashes\": 128}", "\"bands\": 128, \"rows\": 1}"));
        Map<String, Set<String>> shingles = truthShingles(index);
        int pairs = 0;
        for (String id : queryIds(shingles, 40)) {
            for (double tau : new double[] {0.5, 0.6, 0.7, 0.8, 0.9, 0.95}) {
                Map<String, Double> expected = new HashMap<>();
                shingles.forEach((other, set) -> {
                    double jaccard = ShingleTruth.jaccard(shingles.get(id), set);
                    if (other.equals(id) == false && jaccard >= tau) {
                        expected.put(other, jaccard);
                    }
                });
                Map<String, Double> found = new HashMap<>();
                hits(minhashSearch(index, id, ", \"min_similarity\": " + tau + ", \"min_band_matches\": 1"))
                        .forEach(hit -> found.put((String) hit.get("_id"), ((Number) hit.get("_score")).doubleValue()));
                assertEquals(id + " tau=" + tau, expected.keySet(), found.keySet());
                expected.forEach((other, jaccard) -> assertEquals(id + " ~ " + other, jaccard, found.get(other), 1e-3));
                pairs += expected.size();
            }
        }
        assertTrue("releases of a page are near-duplicates: " + pairs, pairs > 40);
    }

    /**
     * On the default banding (floor 0.5: 42 bands of 3 rows) with the automatic min_band_matches, exact
     * verification never returns a document below tau, and finds the pairs at or above it: each with
     * probability >= 0.99 by construction (most are far above tau, so more). The aggregate recall is
     * asserted >= 0.97, leaving room for the binomial spread of a few hundred pairs.
     */
    public void testMinhashDefaultBandingIsPreciseAndFindsAlmostEveryPairAtEveryThreshold() throws IOException {
        DemoCorpus.load(client(), INDEX);
        Map<String, Set<String>> shingles = truthShingles(INDEX);
        int truePairs = 0, foundPairs = 0;
        for (String id : queryIds(shingles, 40)) {
            for (double tau : new double[] {0.5, 0.7, 0.8, 0.9, 0.95}) {
                Set<String> expected = new HashSet<>();
                shingles.forEach((other, set) -> {
                    if (other.equals(id) == false && ShingleTruth.jaccard(shingles.get(id), set) >= tau) {
                        expected.add(other);
                    }
                });
                Set<String> found = ids(minhashSearch(INDEX, id, ", \"min_similarity\": " + tau));
                assertTrue(
                        id + " tau=" + tau + " returned documents below tau: " + found + " vs " + expected,
                        expected.containsAll(found));
                truePairs += expected.size();
                foundPairs += found.size();
            }
        }
        assertTrue("pairs: " + truePairs, truePairs > 40);
        assertTrue("recall " + foundPairs + " / " + truePairs, foundPairs >= 0.97 * truePairs);
    }

    /**
     * verification: estimate is the previous contract, checked against brute force over the stored
     * signatures: shares >= m bands and the fraction of equal values is >= tau.
     */
    @SuppressWarnings("unchecked")
    public void testMinhashEstimateEqualsVerifiedLshCandidates() throws IOException {
        DemoCorpus.load(client(), INDEX);
        Map<String, int[]> signatures = new HashMap<>();
        // The signatures as the field shows them: stored, or (format 2) its set's.
        for (Map<String, Object> hit :
                hits(search("{\"size\": 1000, \"_source\": false, \"docvalue_fields\": [\"text_fp.minhash\"]}"))) {
            String encoded = ((List<String>) ((Map<String, Object>) hit.get("fields")).get("text_fp.minhash")).get(0);
            signatures.put((String) hit.get("_id"), SignatureCodec.decode(encoded));
        }
        LshBanding banding = LshBanding.forFloor(0.5, 128); // the mapping's default floor: 42 x 3
        int withMatches = 0;
        for (String id : signatures.keySet().stream().sorted().limit(60).toList()) {
            for (int m : new int[] {1, 2, 10}) {
                Map<String, Double> expected = new HashMap<>();
                signatures.forEach((other, signature) -> {
                    double similarity = MinHasher.jaccard(signatures.get(id), signature);
                    if (other.equals(id) == false
                            && equalBands(signatures.get(id), signature, banding) >= m
                            && similarity >= 0.8) {
                        expected.put(other, similarity);
                    }
                });
                Map<String, Double> scores = new HashMap<>();
                hits(minhashSearch(
                                INDEX,
                                id,
                                ", \"min_similarity\": 0.8, \"verification\": \"estimate\", \"min_band_matches\": "
                                        + m))
                        .forEach(
                                hit -> scores.put((String) hit.get("_id"), ((Number) hit.get("_score")).doubleValue()));
                assertEquals(id + " m=" + m, expected.keySet(), scores.keySet());
                expected.forEach((other, similarity) -> assertEquals(similarity, scores.get(other), 1e-6));
                withMatches += m == 1 && expected.isEmpty() == false ? 1 : 0;
            }
        }
        assertTrue("releases of a page share bands: " + withMatches, withMatches > 5);
    }

    /**
     * A simhash query with min_similarity is the simhash neighbours (exact mode, brute force over the
     * stored simhashes) whose exact Jaccard, from the texts, is at least tau; scored by that Jaccard.
     */
    public void testSimhashWithMinSimilarityIsTheNeighboursAtOrAboveTau() throws IOException {
        DemoCorpus.load(client(), INDEX);
        Map<String, String[]> all = fingerprints();
        Map<String, Set<String>> shingles = truthShingles(INDEX);
        int pairs = 0;
        for (String id : queryIds(shingles, 30)) {
            for (double tau : new double[] {0.5, 0.8, 0.9}) {
                Map<String, Double> expected = new HashMap<>();
                for (String other : bruteForce(all, all.get(id)[0], 8, id)) {
                    double jaccard = ShingleTruth.jaccard(shingles.get(id), shingles.get(other));
                    if (jaccard >= tau) {
                        expected.put(other, jaccard);
                    }
                }
                Map<String, Double> found = new HashMap<>();
                hits(search(query(
                                "{\"_id\": \"" + id + "\"}",
                                ", \"mode\": \"exact\", \"max_distance\": 8, \"min_similarity\": " + tau)))
                        .forEach(hit -> found.put((String) hit.get("_id"), ((Number) hit.get("_score")).doubleValue()));
                assertEquals(id + " tau=" + tau, expected.keySet(), found.keySet());
                expected.forEach((other, jaccard) -> assertEquals(id + " ~ " + other, jaccard, found.get(other), 1e-3));
                pairs += expected.size();
            }
        }
        assertTrue("pairs: " + pairs, pairs > 20);
        String id = all.keySet().iterator().next();
        assertBadRequest(
                query(
                        "{\"simhash\": \"" + all.get(id)[0] + "\", \"margins\": \"" + all.get(id)[2] + "\"}",
                        ", \"min_similarity\": 0.8"),
                "[min_similarity] on [simhash] field [text_fp.simhash] needs the query document's MinHash "
                        + "signature: query by [_id] or [text]");
        assertBadRequest(
                query("{\"_id\": \"" + id + "\"}", ", \"verification\": \"estimate\""),
                "[verification] on a [simhash] field goes with [min_similarity]");
        assertBadRequest(
                query("{\"_id\": \"" + id + "\"}", ", \"min_similarity\": 1.5"),
                "[min_similarity] must be in (0, 1], got [1.5]");

        send(
                "PUT",
                "/lonely",
                "{\"mappings\": {\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}}");
        send("PUT", "/lonely/_doc/1?refresh=true", "{\"fp\": {\"simhash\": \"00000000000000ff\"}}");
        assertTrue(
                expectRefused(
                                400,
                                "POST",
                                "/lonely/_search",
                                "{\"query\": {\"near_duplicate\": {\"field\": \"fp.simhash\", \"like\": {\"_id\": \"1\"}, \"mode\": "
                                        + "\"exact\", \"min_similarity\": 0.8}}}")
                        .contains(
                                "verifies candidates on the [minhash] field [fp.minhash] of the same fingerprint object, which is not mapped as [minhash]"));
    }

    @SuppressWarnings("unchecked")
    private static long gets() throws IOException {
        Map<String, Object> stats = send("GET", "/" + INDEX + "/_stats/get", null);
        Map<String, Object> total = (Map<String, Object>) ((Map<String, Object>) stats.get("_all")).get("total");
        return ((Number) ((Map<String, Object>) total.get("get")).get("total")).longValue();
    }

    /**
     * like._id with like._index is read once per request, by the query's rewrite on the coordinating
     * node; without _index, once in each index searched (one here, of 2 shards), by the same rewrite, and
     * no shard reads it. Either way the answer is the same, and a missing document is a 400.
     */
    public void testLikeByIdIsFetchedOnceWhenTheIndexIsNamed() throws IOException {
        DemoCorpus.load(client(), INDEX);
        String id = fingerprints().keySet().stream().sorted().findFirst().orElseThrow();
        long before = gets();
        Set<String> withIndex =
                ids(search(query("{\"_id\": \"" + id + "\", \"_index\": \"" + INDEX + "\"}", ", \"max_distance\": 8")));
        assertEquals("one GET for the whole request", 1, gets() - before);
        before = gets();
        Set<String> withoutIndex = ids(search(query("{\"_id\": \"" + id + "\"}", ", \"max_distance\": 8")));
        assertEquals("one GET for the one index searched", 1, gets() - before);
        assertEquals(withIndex, withoutIndex);
        assertBadRequest(
                query("{\"_id\": \"no-such-document\", \"_index\": \"" + INDEX + "\"}", ""),
                "document [no-such-document] not found in index [manpages]");
    }

    /** A stored near_duplicate query percolates a document (a one-document index: nothing cached, nothing charged). */
    public void testPercolatingADocumentAgainstAStoredQuery() throws IOException {
        send(
                "PUT",
                "/stored-queries",
                "{\"mappings\": {\"properties\": {\"query\": {\"type\": \"percolator\"}, \"fp\": {\"properties\": "
                        + "{\"simhash\": {\"type\": \"simhash\"}}}}}}");
        send(
                "PUT",
                "/stored-queries/_doc/near-ff?refresh=true",
                "{\"query\": {\"near_duplicate\": {\"field\": \"fp.simhash\", \"like\": {\"simhash\": "
                        + "\"00000000000000ff\"}, \"mode\": \"exact\", \"max_distance\": 3}}}");
        for (String[] doc : new String[][] {{"00000000000000fe", "1"}, {"ffffffffffffffff", "0"}}) {
            assertEquals(
                    doc[0],
                    Integer.parseInt(doc[1]),
                    hits(send(
                                    "POST",
                                    "/stored-queries/_search",
                                    "{\"query\": {\"percolate\": {\"field\": \"query\", \"document\": {\"fp\": "
                                            + "{\"simhash\": \"" + doc[0] + "\"}}}}}"))
                            .size());
        }
    }

    public void testMinhashWarnsBelowItsBandingAndRejectsOptionsOfTheOtherType() throws IOException {
        DemoCorpus.load(client(), INDEX);
        String id = fingerprints().keySet().iterator().next();
        Request request = request(
                "POST",
                "/" + INDEX + "/_search",
                "{\"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"_id\": \"" + id
                        + "\"}, \"min_similarity\": 0.3}}}");
        request.setOptions(TOLERATING_WARNINGS);
        org.opensearch.client.Response response = client().performRequest(request);
        assertTrue(
                response.getWarnings().toString(),
                response.getWarnings().stream()
                        .anyMatch(
                                w -> w.contains(
                                        "min_similarity [0.3] with min_band_matches 1 on [text_fp.minhash] (42 bands of 3 rows) misses "
                                                + "documents: one at that similarity becomes a candidate with probability 0.68; this field serves min_similarity >= 0.47")));

        String minhash =
                "{\"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"_id\": \"" + id + "\"}";
        assertBadRequest(
                minhash + ", \"max_distance\": 3}}}",
                "[max_distance] applies to [simhash] fields; [text_fp.minhash] is a " + "[minhash] field");
        assertBadRequest(
                minhash + ", \"min_band_matches\": 50}}}",
                "[min_band_matches] is 50 but field [text_fp.minhash] has only 42 bands");
        assertBadRequest(
                minhash + ", \"verification\": \"maybe\"}}}",
                "[verification] must be [auto] or [estimate], got [maybe]");
        assertBadRequest(
                query("{\"_id\": \"" + id + "\"}", ", \"min_band_matches\": 2"),
                "[min_band_matches] applies to [minhash] fields");
        assertBadRequest(
                "{\"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"minhash\": \""
                        + SignatureCodec.encode(new int[128], 7) + "\", \"shingles\": \""
                        + io.neardup.core.ShingleSetCodec.encode(new int[] {1}, 8)
                        + "\"}}}}",
                "[like.minhash]: shingle set was made by another fingerprint scheme: scheme hash 00000008, expected 00000007");
        assertBadRequest(
                "{\"query\": {\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"simhash\": "
                        + "\"00000000000000ff\"}}}}",
                "[like.simhash] cannot be compared with [minhash] field");
    }
}
