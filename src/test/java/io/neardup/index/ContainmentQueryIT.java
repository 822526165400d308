/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.opensearch.client.Request;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * Containment over HTTP on the real node: man pages of the demo corpus embedded, lightly edited, in hosts 1.5 to 10
 * times their length made of other pages, through the pipeline into an index of several shards. Every hit is checked
 * against the exact containment of shingle sets built without the plugin ({@link ShingleTruth}), in both directions;
 * each refused input is a 400 naming what is wrong.
 */
public class ContainmentQueryIT extends NearDupRestTestCase {

    private static final String INDEX = "containment";
    private static final String PIPELINE = "containment-fp";
    private static final int SHARDS = 3;
    private static final double[] RATIOS = {1.5, 4, 10};
    private static final int ARTICLES = 4;

    private static final String MAPPING = """
        {"settings": {"number_of_shards": %d, "number_of_replicas": 0, "index.default_pipeline": "%s"},
         "mappings": {"properties": {
           "text": {"type": "text"},
           "text_fp": {"properties": {
             "simhash": {"type": "simhash"},
             "minhash": {"type": "minhash", "containment": true},
             "content_hash": {"type": "keyword"}}}}}}""";

    private static String json(Map<String, Object> body) throws IOException {
        try (XContentBuilder builder = JsonXContent.contentBuilder()) {
            return builder.map(body).toString();
        }
    }

    private static String containmentQuery(String like, double min, String contained) {
        return "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": " + like + ", \"min_containment\": "
                + min + ", \"contained\": \"" + contained + "\"}}";
    }

    private static String likeText(String text) throws IOException {
        return json(Map.of("text", text));
    }

    /**
     * Shard number → a routing value that sends a document there, from the node's own answer: hosts of every article
     * are spread over all the shards, whatever the hash of their ids.
     */
    @SuppressWarnings("unchecked")
    private static List<String> routingPerShard() throws IOException {
        String[] routing = new String[SHARDS];
        int found = 0;
        for (int r = 0; found < SHARDS && r < 1000; r++) {
            Map<String, Object> shards = send("GET", "/" + INDEX + "/_search_shards?routing=r" + r, null);
            List<List<Map<String, Object>>> groups = (List<List<Map<String, Object>>>) shards.get("shards");
            int shard = ((Number) groups.get(0).get(0).get("shard")).intValue();
            if (routing[shard] == null) {
                routing[shard] = "r" + r;
                found++;
            }
        }
        assertEquals("a routing value for each shard", SHARDS, found);
        return List.of(routing);
    }

    /**
     * Articles (80 to 400 words), each as it is, inside hosts of every ratio (about one word in fifty edited), and
     * its first half alone; the hosts of each article one on each shard. Returns id → text.
     */
    private static Map<String, String> indexCorpus(Random random) throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\", \"target_field\": \"text_fp\"}}]}");
        send("PUT", "/" + INDEX, String.format(java.util.Locale.ROOT, MAPPING, SHARDS, PIPELINE));
        List<String> routing = routingPerShard();
        Map<String, String> docs = new LinkedHashMap<>();
        StringBuilder bulk = new StringBuilder();
        for (EmbeddedTexts.Doc doc : EmbeddedTexts.build(random, ARTICLES, RATIOS, 23)) {
            add(bulk, docs, doc.id(), doc.ratioIndex() < 0 ? null : routing.get(doc.ratioIndex() % SHARDS), doc.text());
        }
        Map<String, Object> response = send("POST", "/" + INDEX + "/_bulk?refresh=true", bulk.toString());
        assertEquals(response.toString(), false, response.get("errors"));
        return docs;
    }

    private static void add(StringBuilder bulk, Map<String, String> docs, String id, String routing, String text)
            throws IOException {
        Map<String, Object> action = new LinkedHashMap<>();
        action.put("_id", id);
        if (routing != null) {
            action.put("routing", routing);
        }
        bulk.append(json(Map.of("index", action))).append('\n');
        bulk.append(json(Map.of("text", text))).append('\n');
        docs.put(id, text);
    }

    /** id → score of every hit. */
    private static Map<String, Double> scores(String query) throws IOException {
        Map<String, Double> scores = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/" + INDEX + "/_search", "{\"size\": 1000, \"query\": " + query + "}"))) {
            scores.put((String) hit.get("_id"), ((Number) hit.get("_score")).doubleValue());
        }
        return scores;
    }

    public void testHitsAreTheExactContainmentsInBothDirectionsFromEveryShard() throws IOException {
        Map<String, String> docs = indexCorpus(new Random(random().nextLong()));
        Map<String, Set<String>> shingles = new HashMap<>();
        docs.forEach((id, text) -> shingles.put(id, ShingleTruth.shingles(text, 3)));
        double min = randomFrom(0.7, 0.8, 0.9);
        int checked = 0;
        for (String likeId : docs.keySet()) {
            if (likeId.startsWith("article-") == false && likeId.startsWith("host-") == false) {
                continue;
            }
            for (String contained : List.of("like", "document")) {
                String query = containmentQuery(likeText(docs.get(likeId)), min, contained);
                Map<String, Double> hits = scores(query);
                for (String id : docs.keySet()) {
                    double truth = contained.equals("like")
                            ? ShingleTruth.containment(shingles.get(likeId), shingles.get(id))
                            : ShingleTruth.containment(shingles.get(id), shingles.get(likeId));
                    Double score = hits.get(id);
                    String pair = likeId + " " + contained + " " + id + " at " + min;
                    if (score != null) {
                        assertEquals(pair, truth, score, 1e-6);
                        assertTrue(pair + ": " + truth, truth >= min);
                    } else {
                        assertTrue(pair + ": containment " + truth + " not found", truth < min + 0.1);
                    }
                }
                checked++;
            }
        }
        assertEquals(ARTICLES * (1 + RATIOS.length) * 2, checked);

        // Each article lies in all its hosts, which are on every shard: one query finds them all.
        Map<String, Object> response = send(
                "POST",
                "/" + INDEX + "/_search",
                "{\"size\": 100, \"explain\": true, \"query\": "
                        + containmentQuery(likeText(docs.get("article-0")), 0.7, "like") + "}");
        Set<String> shardsHit = new TreeSet<>();
        Set<String> ids = new HashSet<>();
        for (Map<String, Object> hit : hits(response)) {
            shardsHit.add((String) hit.get("_shard"));
            ids.add((String) hit.get("_id"));
        }
        for (double ratio : RATIOS) {
            assertTrue(ids + " holds host-0-" + ratio, ids.contains("host-0-" + ratio));
        }
        assertEquals(response.toString(), SHARDS, shardsHit.size());
        assertEquals(SHARDS, ((Number) ((Map<?, ?>) response.get("_shards")).get("successful")).intValue());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> explain(String id, String query) throws IOException {
        Request request = new Request("POST", "/" + INDEX + "/_explain/" + id);
        request.addParameter("routing", routingOf(id));
        request.setJsonEntity("{\"query\": " + query + "}");
        return entityAsMap(client().performRequest(request));
    }

    /** The routing the document was indexed with: its own id unless it is a host, found by a search. */
    private static String routingOf(String id) throws IOException {
        for (Map<String, Object> hit : hits(
                send("POST", "/" + INDEX + "/_search", "{\"query\": {\"ids\": {\"values\": [\"" + id + "\"]}}}"))) {
            Object routing = hit.get("_routing");
            return routing == null ? id : (String) routing;
        }
        throw new AssertionError("no document [" + id + "]");
    }

    public void testExplainSaysWhichShareWasFound() throws IOException {
        Map<String, String> docs = indexCorpus(new Random(random().nextLong()));
        Set<String> article = ShingleTruth.shingles(docs.get("article-1"), 3);
        String host = "host-1-" + RATIOS[RATIOS.length - 1];
        Set<String> hostShingles = ShingleTruth.shingles(docs.get(host), 3);
        int common = (int) Math.round(ShingleTruth.containment(article, hostShingles) * article.size());

        Map<String, Object> inside = explain(host, containmentQuery(likeText(docs.get("article-1")), 0.7, "like"));
        assertEquals(inside.toString(), true, inside.get("matched"));
        assertTrue(
                inside.toString(),
                inside.toString()
                        .contains(common + " of the " + article.size()
                                + " shingles of the query's text are in the document (exact containment"));

        Map<String, Object> madeOf = explain("article-1", containmentQuery(likeText(docs.get(host)), 0.7, "document"));
        assertEquals(madeOf.toString(), true, madeOf.get("matched"));
        assertTrue(
                madeOf.toString(),
                madeOf.toString()
                        .contains(common + " of the " + article.size()
                                + " shingles of the document are in the query's text (exact containment"));

        // Half of the article is in it entirely, but the article is not in its half: no match, and why.
        Map<String, Object> notInHalf =
                explain("half-1", containmentQuery(likeText(docs.get("article-1")), 0.7, "like"));
        assertEquals(notInHalf.toString(), false, notInHalf.get("matched"));
        assertTrue(
                notInHalf.toString(),
                notInHalf.toString().contains("shingles of the query's text are in the document"));
        Map<String, Object> halfInside =
                explain("half-1", containmentQuery(likeText(docs.get("article-1")), 0.7, "document"));
        assertEquals(halfInside.toString(), true, halfInside.get("matched"));
    }

    private static void assertRefused(String query, String... reasonParts) throws IOException {
        assertBadRequest("POST", "/" + INDEX + "/_search", "{\"query\": " + query + "}", reasonParts);
    }

    public void testEachRefusedInputIsA400WithItsReason() throws IOException {
        Map<String, String> docs = indexCorpus(new Random(random().nextLong()));
        String like = likeText(docs.get("article-0"));
        assertRefused(
                containmentQuery(like, 0.3, "like"),
                "[near_duplicate] [min_containment] must be in [0.5, 1], got [0.3]");
        assertRefused(
                containmentQuery(like, 1.5, "like"),
                "[near_duplicate] [min_containment] must be in [0.5, 1], got [1.5]");
        assertRefused(
                "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": " + like
                        + ", \"contained\": \"like\"}}",
                "[near_duplicate] [contained] goes with [min_containment]");
        assertRefused(
                containmentQuery(like, 0.8, "both"),
                "[near_duplicate] [contained] must be [like] or [document], got [both]");
        assertRefused(
                "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": " + like
                        + ", \"min_containment\": 0.8, \"min_similarity\": 0.8}}",
                "[near_duplicate] [min_similarity] does not apply with [min_containment]");
        assertRefused(
                "{\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": " + like
                        + ", \"min_containment\": 0.8}}",
                "[near_duplicate] [min_containment] applies to [minhash] fields; [text_fp.simhash] is a [simhash] field");
        String signatureOnly = SignatureCodec.encode(new int[128], 0, FingerprintFormat.COMPACT);
        assertRefused(
                containmentQuery("{\"minhash\": \"" + signatureOnly + "\"}", 0.8, "like"),
                "[near_duplicate] [min_containment] compares shingle sets, and the query fingerprint has none");

        // The same field mapped without containment: refused by the shards, still a 400 naming the mapping.
        send(
                "PUT",
                "/plain",
                String.format(java.util.Locale.ROOT, MAPPING, 2, PIPELINE).replace(", \"containment\": true", ""));
        send("PUT", "/plain/_doc/1?refresh=true", json(Map.of("text", docs.get("article-0"))));
        assertBadRequest(
                "POST",
                "/plain/_search",
                "{\"query\": " + containmentQuery(like, 0.8, "like") + "}",
                "[near_duplicate] [min_containment] needs field [text_fp.minhash] mapped with [containment: true], "
                        + "and it is not");
        // Without those mistakes, the same query answers.
        assertTrue(scores(containmentQuery(like, 0.8, "like")).containsKey("article-0"));
    }
}
