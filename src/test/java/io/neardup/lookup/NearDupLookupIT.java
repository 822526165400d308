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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseListener;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.Strings;
import org.opensearch.core.xcontent.MediaTypeRegistry;

/**
 * {@code near_dup_lookup} after {@code near_dup_fingerprint} on a real node: the demo corpus arrives
 * in random bulks, and each page is flagged as a copy exactly when an earlier page's 3-word
 * shingles overlap it by Jaccard >= 0.5 (truth computed here from the texts); and, with {@code min_containment},
 * each text embedded in a host is flagged inside it, each host as holding it, by the exact containment.
 */
public class NearDupLookupIT extends NearDupRestTestCase {

    private static final double TAU = 0.5;

    private static String index(String name, String pipeline) throws IOException {
        send(
                "PUT",
                "/" + name,
                DemoCorpus.INDEX_SETUP.replace(
                        "\"index.default_pipeline\": \"fingerprints\"",
                        "\"index.default_pipeline\": \"" + pipeline + "\""));
        return name;
    }

    /** Loads the demo lines in this order, in bulks of random sizes refreshed in between; returns id → text. */
    @SuppressWarnings("unchecked")
    private static List<String[]> load(String index, List<String> lines) throws IOException {
        return load(index, lines, "index", "");
    }

    /** As {@link #load(String, List)}, with the bulk's operation and fields put first in each document. */
    @SuppressWarnings("unchecked")
    private static List<String[]> load(String index, List<String> lines, String operation, String extraFields)
            throws IOException {
        List<String[]> arrivals = new ArrayList<>();
        for (int from = 0; from < lines.size(); ) {
            int to = Math.min(lines.size(), from + between(1, 60));
            StringBuilder bulk = new StringBuilder();
            for (String line : lines.subList(from, to)) {
                Map<String, Object> doc = org.opensearch.common.xcontent.XContentHelper.convertToMap(
                        org.opensearch.common.xcontent.json.JsonXContent.jsonXContent, line, false);
                arrivals.add(new String[] {(String) doc.get("id"), (String) doc.get("text")});
                bulk.append("{\"")
                        .append(operation)
                        .append("\": {\"_id\": \"")
                        .append(doc.get("id"))
                        .append("\"}}\n{")
                        .append(extraFields)
                        .append(line.substring(1))
                        .append('\n');
            }
            Map<String, Object> response = send("POST", "/" + index + "/_bulk?refresh=true", bulk.toString());
            assertEquals(response.toString(), false, response.get("errors"));
            from = to;
        }
        return arrivals;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> flags(String index) throws IOException {
        Map<String, Map<String, Object>> result = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/" + index + "/_search", "{\"size\": 1000, \"_source\": [\"text_dup\"]}"))) {
            result.put((String) hit.get("_id"), (Map<String, Object>)
                    ((Map<String, Object>) hit.get("_source")).get("text_dup"));
        }
        return result;
    }

    public void testEachPageIsFlaggedWhenAnEarlierPageIsANearDuplicate() throws Exception {
        send(
                "PUT",
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        send("PUT", "/_ingest/pipeline/flag", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}}]}""");
        List<String> lines = new ArrayList<>(DemoCorpus.lines());
        Collections.shuffle(lines, random());
        List<String[]> arrivals = load(index("flagged", "flag"), lines);
        assertFlaggedAsTheTruth(arrivals, flags("flagged"), null);
    }

    /**
     * Issue 41: the same through a data stream rolled over (the core {@code _rollover} API) three times while the
     * pages arrive, the lookup on the stream (the document's own {@code _index}): each page is flagged when a page of
     * any earlier generation is a near-duplicate, and the index it names is the backing index that holds that page.
     */
    public void testEachPageIsFlaggedAcrossTheGenerationsOfADataStream() throws Exception {
        send("PUT", "/_ingest/pipeline/flag-stream", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}}]}""");
        send("PUT", "/_index_template/pages-stream", """
            {"index_patterns": ["pages-stream"], "data_stream": {}, "priority": 100,
             "template": {
               "settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "flag-stream"},
               "mappings": {"properties": {
                 "@timestamp": {"type": "date"}, "text": {"type": "text"},
                 "text_fp": {"properties": {"minhash": {"type": "minhash", "num_hashes": 128}}}}}}}""");
        List<String> lines = new ArrayList<>(DemoCorpus.lines());
        Collections.shuffle(lines, random());
        List<String[]> arrivals = new ArrayList<>();
        int generation = lines.size() / 4 + 1;
        for (int from = 0; from < lines.size(); from += generation) {
            if (from > 0) {
                send("POST", "/pages-stream/_rollover", null);
            }
            List<String> batch = lines.subList(from, Math.min(lines.size(), from + generation));
            arrivals.addAll(load("pages-stream", batch, "create", "\"@timestamp\": \"2026-11-27T00:00:00Z\", "));
        }
        Map<String, Map<String, Object>> flags = flags("pages-stream");
        Map<String, String> backingIndexOf = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/pages-stream/_search", "{\"size\": 1000, \"_source\": false}"))) {
            backingIndexOf.put((String) hit.get("_id"), (String) hit.get("_index"));
        }
        assertEquals(4, backingIndexOf.values().stream().distinct().count());
        assertFlaggedAsTheTruth(arrivals, flags, backingIndexOf);
    }

    /**
     * Issue 41, rollover during a bulk: bulks with planted copies (simhashes given, the truth by construction) go
     * through the lookup into a data stream over HTTP while {@code POST _rollover} runs three times from another
     * thread, each sent while a bulk is in flight: no item fails, every document is in the stream once, every copy
     * names its original and the backing index that holds it, and every original names its own (the names a rollover
     * between a bulk's ingest and its write made wrong are corrected as the write begins).
     */
    @SuppressWarnings("unchecked")
    public void testRolloversDuringBulksFailNoDocumentAndMissNoCopy() throws Exception {
        send("PUT", "/_ingest/pipeline/racing-lookup", """
            {"processors": [{"near_dup_lookup": {"field": "fp.simhash", "max_distance": DISTANCE, "target_field": "dup",
              "recent_ttl": "10m", "recent_size": 100000}}]}""".replace("DISTANCE", "" + PlantedSimhashes.DISTANCE));
        send("PUT", "/_index_template/racing", """
            {"index_patterns": ["racing"], "data_stream": {}, "priority": 100,
             "template": {
               "settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "racing-lookup"},
               "mappings": MAPPING}}""".replace("MAPPING", PlantedSimhashes.MAPPING));
        int bulkCount = 12;
        List<List<PlantedSimhashes.Doc>> bulks = PlantedSimhashes.plant(random(), bulkCount, 30);
        // Bulks 1, 5 and 9 each release one rollover once sent.
        List<CountDownLatch> released = List.of(new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1));
        AtomicReference<Throwable> rolloverFailure = new AtomicReference<>();
        Thread roller = new Thread(
                () -> {
                    try {
                        for (CountDownLatch latch : released) {
                            assertTrue(latch.await(60, TimeUnit.SECONDS));
                            Map<String, Object> response = send("POST", "/racing/_rollover", null);
                            assertEquals(response.toString(), true, response.get("rolled_over"));
                        }
                    } catch (Exception | AssertionError e) {
                        rolloverFailure.set(e);
                    }
                },
                "rollover-racing-bulks");
        List<PlantedSimhashes.Doc> docs = new ArrayList<>();
        roller.start();
        try {
            for (int k = 0; k < bulkCount; k++) {
                StringBuilder bulk = new StringBuilder();
                for (PlantedSimhashes.Doc doc : bulks.get(k)) {
                    docs.add(doc);
                    bulk.append("{\"create\": {\"_id\": \"")
                            .append(doc.id())
                            .append("\"}}\n{\"@timestamp\": \"2026-11-27T00:00:00Z\", \"fp\": {\"simhash\": \"")
                            .append(doc.hex())
                            .append("\"}}\n");
                }
                CompletableFuture<Response> sent = new CompletableFuture<>();
                client().performRequestAsync(request("POST", "/racing/_bulk", bulk.toString()), new ResponseListener() {
                    @Override
                    public void onSuccess(Response response) {
                        sent.complete(response);
                    }

                    @Override
                    public void onFailure(Exception e) {
                        sent.completeExceptionally(e);
                    }
                });
                if (k % 4 == 1) {
                    released.get(k / 4).countDown();
                }
                Map<String, Object> response = entityAsMap(sent.get(60, TimeUnit.SECONDS));
                assertEquals("bulk " + k + ": " + response, false, response.get("errors"));
            }
        } finally {
            released.forEach(CountDownLatch::countDown);
            roller.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertNull("rollovers: " + rolloverFailure.get(), rolloverFailure.get());

        send("POST", "/racing/_refresh", null);
        Map<String, Map<String, Object>> dupOf = new HashMap<>();
        Set<String> backingIndices = new HashSet<>();
        Map<String, String> indexOf = new HashMap<>();
        for (Map<String, Object> hit : hits(
                send("POST", "/racing/_search", "{\"size\": " + (docs.size() + 1) + ", \"_source\": [\"dup\"]}"))) {
            assertNull("twice: " + hit.get("_id"), dupOf.put((String) hit.get("_id"), (Map<String, Object>)
                    ((Map<String, Object>) hit.get("_source")).get("dup")));
            backingIndices.add((String) hit.get("_index"));
            indexOf.put((String) hit.get("_id"), (String) hit.get("_index"));
        }
        assertEquals(docs.size(), dupOf.size());
        assertTrue("the generations took documents: " + backingIndices, backingIndices.size() > 1);
        PlantedSimhashes.assertEveryCopyNamesItsOriginal(docs, dupOf::get, backingIndices, bulkCount);
        for (PlantedSimhashes.Doc doc : docs) {
            Map<String, Object> dup = dupOf.get(doc.id());
            String holder = indexOf.get(doc.originalOf() == null ? doc.id() : doc.originalOf());
            assertEquals(doc.id() + " " + dup, holder, dup.get("cluster_index"));
            if (doc.originalOf() != null) {
                assertEquals(doc.id() + " " + dup, holder, dup.get("duplicate_of_index"));
            }
        }
    }

    /** The five daily indices of {@link #testCopiesOfPagesOfEachOfFiveDailyIndicesAreFlaggedByAliasAndByPattern}. */
    private static final List<String> DAYS =
            List.of("days-2026.11.01", "days-2026.11.02", "days-2026.11.03", "days-2026.11.04", "days-2026.11.05");

    /**
     * Issue 41's acceptance, "an alias over 5 daily indices" and "an index pattern": demo pages split over {@link #DAYS}
     * behind the alias {@code days} (the last its write index), each index's {@code _id}s counting from 0 so that every
     * {@code _id} is in all five; then exact copies and near-copies (one word replaced, 3% of the words) of pages of
     * each day, and pages never indexed, go through the lookup by the alias and by {@code days-*}. Each sent document
     * that names a page names it by index and {@code _id}, and that page's exact Jaccard with it (computed here from
     * the texts) reaches τ; each whose nearest indexed page is at τ + 0.05 or more is flagged (just above τ, LSH may
     * miss by design); each exact copy names its original, so the copies name every one of the five indices.
     */
    public void testCopiesOfPagesOfEachOfFiveDailyIndicesAreFlaggedByAliasAndByPattern() throws Exception {
        double tau = 0.8;
        send(
                "PUT",
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        List<String> lines = new ArrayList<>(DemoCorpus.lines());
        Collections.shuffle(lines, random());
        int perDay = 40;
        // (index, _id) -> text, and each day's texts in _id order.
        Map<String, String> indexed = new HashMap<>();
        List<List<String>> daysTexts = new ArrayList<>();
        for (int d = 0; d < DAYS.size(); d++) {
            index(DAYS.get(d), DemoCorpus.PIPELINE);
            StringBuilder bulk = new StringBuilder();
            List<String> texts = new ArrayList<>();
            for (int k = 0; k < perDay; k++) {
                String line = lines.get(d * perDay + k);
                String text = (String) XContentHelper.convertToMap(JsonXContent.jsonXContent, line, false)
                        .get("text");
                texts.add(text);
                indexed.put(DAYS.get(d) + "/" + k, text);
                bulk.append("{\"index\": {\"_id\": \"")
                        .append(k)
                        .append("\"}}\n")
                        .append(line)
                        .append('\n');
            }
            daysTexts.add(texts);
            Map<String, Object> response = send("POST", "/" + DAYS.get(d) + "/_bulk?refresh=true", bulk.toString());
            assertEquals(response.toString(), false, response.get("errors"));
        }
        putAlias("days", DAYS);

        Map<String, Set<String>> shingles = new HashMap<>();
        indexed.forEach((key, text) -> shingles.put(key, ShingleTruth.shingles(text, 3)));

        // Sent: from each day exact copies of two pages found nowhere else (other releases of a page can be the same
        // text, and then the copy names the older index), near-copies of two more, and pages never indexed.
        Random random = new Random(random().nextLong());
        List<String> vocabulary = words(String.join(" ", daysTexts.get(0)));
        List<String> sent = new ArrayList<>();
        Map<Integer, String> exactCopyOf = new HashMap<>();
        for (int d = 0; d < DAYS.size(); d++) {
            List<Integer> order = new ArrayList<>();
            for (int k = 0; k < perDay; k++) {
                order.add(k);
            }
            Collections.shuffle(order, random);
            int exact = 0;
            int near = 0;
            for (int k : order) {
                String key = DAYS.get(d) + "/" + k;
                String text = daysTexts.get(d).get(k);
                boolean unique = shingles.entrySet().stream()
                        .noneMatch(e ->
                                e.getKey().equals(key) == false && e.getValue().equals(shingles.get(key)));
                if (exact < 2 && unique) {
                    exactCopyOf.put(sent.size(), key);
                    sent.add(text);
                    exact++;
                } else if (near < 2) {
                    List<String> words = words(text);
                    sent.add(edited(words, vocabulary, near == 0 ? 1.0 / words.size() : 0.03, random));
                    near++;
                }
            }
            assertEquals(DAYS.get(d) + " has pages found nowhere else", 2, exact);
        }
        for (String line : lines.subList(DAYS.size() * perDay, DAYS.size() * perDay + 20)) {
            sent.add((String) XContentHelper.convertToMap(JsonXContent.jsonXContent, line, false)
                    .get("text"));
        }

        for (String lookupIndex : List.of("days", "days-*")) {
            String sink = lookupIndex.equals("days") ? "sent-by-alias" : "sent-by-pattern";
            send("PUT", "/_ingest/pipeline/" + sink, """
                {"processors": [
                  {"near_dup_fingerprint": {"field": "text"}},
                  {"near_dup_lookup": {"field": "text_fp.minhash", "index": "INDEX", "min_similarity": TAU,
                                       "target_field": "text_dup", "recent_size": 0}}]}""".replace("INDEX", lookupIndex)
                    .replace("TAU", "" + tau));
            index(sink, sink);
            StringBuilder bulk = new StringBuilder();
            for (int i = 0; i < sent.size(); i++) {
                String text = sent.get(i);
                bulk.append("{\"index\": {\"_id\": \"").append(i).append("\"}}\n");
                bulk.append(Strings.toString(MediaTypeRegistry.JSON, (b, p) -> b.field("text", text)))
                        .append('\n');
            }
            Map<String, Object> response = send("POST", "/" + sink + "/_bulk?refresh=true", bulk.toString());
            assertEquals(response.toString(), false, response.get("errors"));
            Map<String, Map<String, Object>> flags = flags(sink);
            Set<String> named = new HashSet<>();
            int copies = 0;
            for (int i = 0; i < sent.size(); i++) {
                Set<String> own = ShingleTruth.shingles(sent.get(i), 3);
                double best = 0;
                for (Set<String> other : shingles.values()) {
                    best = Math.max(best, ShingleTruth.jaccard(own, other));
                }
                Map<String, Object> flag = flags.get(String.valueOf(i));
                String of = flag == null ? null : (String) flag.get("duplicate_of");
                String where = lookupIndex + ": sent " + i + " (nearest indexed page at " + best + ") -> " + flag;
                if (of != null) {
                    String key = flag.get("duplicate_of_index") + "/" + of;
                    assertTrue(where + " names an indexed page by index and _id", shingles.containsKey(key));
                    double similarity = ShingleTruth.jaccard(own, shingles.get(key));
                    assertTrue(where + " at " + similarity, similarity >= tau - 1e-9);
                    assertEquals(where, similarity, ((Number) flag.get("similarity")).doubleValue(), 1e-6);
                    if (exactCopyOf.containsKey(i)) {
                        assertEquals(where + " names its original", exactCopyOf.get(i), key);
                        named.add((String) flag.get("duplicate_of_index"));
                    }
                }
                copies += best >= tau ? 1 : 0;
                if (best >= tau + 0.05 || exactCopyOf.containsKey(i)) {
                    assertNotNull(where + " is flagged", of);
                }
            }
            assertTrue("copies sent: " + copies, copies >= exactCopyOf.size());
            assertEquals(lookupIndex + ": the exact copies name every day", new HashSet<>(DAYS), named);
        }
    }

    /**
     * Each page is flagged as a copy exactly when an earlier page's 3-word shingles overlap it by Jaccard >= {@link
     * #TAU}, allowing for LSH's misses; with {@code backingIndexOf}, the index named beside {@code duplicate_of} is the
     * one that holds it.
     */
    private static void assertFlaggedAsTheTruth(
            List<String[]> arrivals, Map<String, Map<String, Object>> flags, Map<String, String> backingIndexOf) {
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
                assertEquals(
                        flag.toString(),
                        backingIndexOf == null ? null : backingIndexOf.get(of),
                        flag.get("duplicate_of_index"));
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

    /** The README's drop pipeline: copies never reach the index; a text without tokens does. */
    @SuppressWarnings("unchecked")
    public void testStockDropKeepsCopiesOut() throws Exception {
        send(
                "PUT",
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        send("PUT", "/_ingest/pipeline/drop-copies", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup"}},
              {"drop": {"if": "ctx.text_dup?.duplicate_of != null"}}]}""");
        List<String> lines = DemoCorpus.lines();
        load(index("deduplicated", "drop-copies"), lines);
        Map<String, Map<String, Object>> kept = flags("deduplicated");
        assertTrue("copies were dropped: " + kept.size() + " of " + lines.size(), kept.size() < lines.size() - 50);
        kept.forEach((id, flag) -> assertEquals(id, Map.of("cluster", id, "representative", true), flag));
        // A text without tokens has no fingerprint, nothing to compare: it passes the lookup and is indexed, unflagged
        // (issue 40: a 400 "the document has no fingerprint", and never indexed).
        for (String tokenless : new String[] {"\"\"", "\"   \"", "\"\\ufeff\\u200b\"", "[]"}) {
            Map<String, Object> response =
                    send("POST", "/deduplicated/_doc?refresh=true", "{\"text\": " + tokenless + "}");
            assertEquals(tokenless + ": " + response, "created", response.get("result"));
            Map<String, Object> source =
                    (Map<String, Object>) send("GET", "/deduplicated/_doc/" + response.get("_id"), null)
                            .get("_source");
            assertFalse(source.toString(), source.containsKey("text_dup"));
        }
    }

    /** The demo corpus's index with containment on its minhash field, and the two containment lookups' targets mapped. */
    private static final String CONTAINMENT_SETUP = """
        {"settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "%s"},
         "mappings": {"properties": {
           "text": {"type": "text"},
           "text_fp": {"properties": {
             "simhash": {"type": "simhash"},
             "minhash": {"type": "minhash", "num_hashes": 128, "containment": true},
             "content_hash": {"type": "keyword"}}},
           "inside": {"properties": {"contained_in": {"type": "keyword"}, "containment": {"type": "float"}}},
           "holds": {"properties": {"contains": {"type": "keyword"}, "containment": {"type": "float"}}}}}}""";

    private static final double[] RATIOS = {1.2, 3, 10};

    private static List<String> words(String text) {
        return List.of(text.trim().split("\\s+"));
    }

    /** {@code words} with each replaced, at {@code rate}, by a word of the vocabulary. */
    private static String edited(List<String> words, List<String> vocabulary, double rate, Random random) {
        List<String> out = new ArrayList<>(words);
        for (int i = 0; i < out.size(); i++) {
            if (random.nextDouble() < rate) {
                out.set(i, vocabulary.get(random.nextInt(vocabulary.size())));
            }
        }
        return String.join(" ", out);
    }

    /**
     * Man pages (60 to 400 words) as articles, each embedded with 0-5% word edits at a random position in hosts 1.2 to
     * 10 times its length made of other pages, and its first half alone; and other pages as they are (the demo has
     * releases of one page, which contain each other too). Id → text.
     */
    private static Map<String, String> containmentCorpus(Random random) throws IOException {
        List<String> texts = new ArrayList<>();
        for (String line : DemoCorpus.lines()) {
            texts.add((String) XContentHelper.convertToMap(JsonXContent.jsonXContent, line, false)
                    .get("text"));
        }
        List<String> vocabulary = words(String.join(" ", texts.subList(0, 20)));
        Map<String, String> docs = new LinkedHashMap<>();
        int articles = 0;
        for (int i = 0; i < texts.size() && articles < 8; i += 5) {
            List<String> article = words(texts.get(i));
            if (article.size() < 60 || article.size() > 400) {
                continue;
            }
            docs.put("article-" + articles, String.join(" ", article));
            for (double ratio : RATIOS) {
                List<String> filler = new ArrayList<>();
                for (int j = i + 1; filler.size() < article.size() * (ratio - 1); j += 3) {
                    filler.addAll(words(texts.get(j % texts.size())));
                }
                filler = filler.subList(0, (int) (article.size() * (ratio - 1)));
                int at = random.nextInt(filler.size() + 1);
                docs.put(
                        "host-" + articles + "-" + ratio,
                        String.join(" ", filler.subList(0, at)) + " "
                                + edited(article, vocabulary, random.nextDouble() * 0.05, random) + " "
                                + String.join(" ", filler.subList(at, filler.size())));
            }
            docs.put("half-" + articles, String.join(" ", article.subList(0, article.size() / 2)));
            articles++;
        }
        for (int i = 2; i < texts.size(); i += 13) {
            docs.put("page-" + i, texts.get(i));
        }
        return docs;
    }

    /**
     * Hosts, embedded texts and pages arrive in random bulks, refreshed in between, through one pipeline with both
     * containment lookups: {@code inside} ({@code contained: like}) and {@code holds} ({@code contained: document}).
     * Each flag names an earlier document at the exact containment (truth from the texts, without the plugin), the
     * highest there is; every document with an earlier one well above the threshold is flagged; no cluster is written.
     */
    @SuppressWarnings("unchecked")
    public void testEachTextIsFlaggedInsideAnEarlierHostAndEachHostAsHoldingAnEarlierText() throws Exception {
        double min = randomFrom(0.7, 0.8, 0.9);
        send("PUT", "/_ingest/pipeline/contain", String.format(java.util.Locale.ROOT, """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_containment": %s, "contained": "like",
                                   "target_field": "inside"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_containment": %s, "contained": "document",
                                   "target_field": "holds"}}]}""", min, min));
        send("PUT", "/contained", String.format(java.util.Locale.ROOT, CONTAINMENT_SETUP, "contain"));
        Map<String, String> docs = containmentCorpus(new Random(random().nextLong()));
        List<String> order = new ArrayList<>(docs.keySet());
        Collections.shuffle(order, random());
        for (int from = 0; from < order.size(); ) {
            int to = Math.min(order.size(), from + between(1, 15));
            StringBuilder bulk = new StringBuilder();
            for (String id : order.subList(from, to)) {
                bulk.append("{\"index\": {\"_id\": \"").append(id).append("\"}}\n");
                bulk.append(Strings.toString(MediaTypeRegistry.JSON, (b, p) -> b.field("text", docs.get(id))))
                        .append('\n');
            }
            Map<String, Object> response = send("POST", "/contained/_bulk?refresh=true", bulk.toString());
            assertEquals(response.toString(), false, response.get("errors"));
            from = to;
        }
        Map<String, Map<String, Object>> sources = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/contained/_search", "{\"size\": 1000, \"_source\": [\"inside\", \"holds\"]}"))) {
            sources.put((String) hit.get("_id"), (Map<String, Object>) hit.get("_source"));
        }
        assertEquals(docs.size(), sources.size());
        Map<String, Set<String>> shingles = new HashMap<>();
        docs.forEach((id, text) -> shingles.put(id, ShingleTruth.shingles(text, 3)));
        for (String[] direction : new String[][] {{"inside", "contained_in"}, {"holds", "contains"}}) {
            boolean like = direction[0].equals("inside");
            int flagged = 0, nearThreshold = 0;
            for (int i = 0; i < order.size(); i++) {
                String id = order.get(i);
                double best = 0;
                for (String earlier : order.subList(0, i)) {
                    best = Math.max(
                            best,
                            like
                                    ? ShingleTruth.containment(shingles.get(id), shingles.get(earlier))
                                    : ShingleTruth.containment(shingles.get(earlier), shingles.get(id)));
                }
                Map<String, Object> flag = (Map<String, Object>) sources.get(id).get(direction[0]);
                String of = flag == null ? null : (String) flag.get(direction[1]);
                if (of == null) {
                    assertNull(id + " " + direction[0] + ": nothing found, nothing written: " + flag, flag);
                    if (best >= min + 0.1) {
                        fail(id + " " + direction[0] + ": an earlier document at " + best + " was not found");
                    }
                    nearThreshold += best >= min ? 1 : 0;
                    continue;
                }
                flagged++;
                assertEquals(id + " " + direction[0] + ": " + flag, Set.of(direction[1], "containment"), flag.keySet());
                int j = order.indexOf(of);
                assertTrue(id + " -> " + of + " must be earlier", j >= 0 && j < i);
                double truth = like
                        ? ShingleTruth.containment(shingles.get(id), shingles.get(of))
                        : ShingleTruth.containment(shingles.get(of), shingles.get(id));
                double written = ((Number) flag.get("containment")).doubleValue();
                assertEquals(id + " " + direction[0] + " " + of, truth, written, 1e-6);
                assertTrue(id + " -> " + of + " at " + truth + " < " + min, truth >= min - 1e-9);
                if (best >= min + 0.1) {
                    assertEquals(id + " " + direction[0] + ": the highest containment", best, written, 1e-6);
                }
            }
            logger.info(
                    "{}: {} of {} flagged at min_containment {}, {} near the threshold unflagged",
                    direction[0],
                    flagged,
                    order.size(),
                    min,
                    nearThreshold);
            assertTrue(direction[0] + ": the corpus has containments: " + flagged, flagged >= 8);
        }
    }

    /** Each bad containment option fails the pipeline PUT naming it; a field mapped without containment fails each document. */
    public void testBadContainmentConfigurationsAreRefused() throws Exception {
        for (String[] bad : new String[][] {
            {"\"field\": \"text_fp.minhash\", \"min_containment\": 0.3", "[min_containment] must be in [0.5, 1]"},
            {"\"field\": \"text_fp.minhash\", \"min_containment\": true", "[min_containment] must be a number"},
            {
                "\"field\": \"text_fp.minhash\", \"min_containment\": 0.8, \"contained\": \"both\"",
                "[contained] must be [like] or [document], got [both]"
            },
            {"\"field\": \"text_fp.minhash\", \"contained\": \"document\"", "[contained] goes with [min_containment]"},
            {
                "\"field\": \"text_fp.minhash\", \"min_containment\": 0.8, \"min_similarity\": 0.8",
                "[min_similarity] does not apply with [min_containment]"
            },
            {"\"field\": \"text_fp.minhash\", \"min_containment\": 0.8, \"verification\": \"exact\"", "[verification]"},
            {"\"field\": \"text_fp.minhash\", \"min_containment\": 0.8, \"min_band_matches\": 2", "[min_band_matches]"}
        }) {
            assertBadRequest(
                    "PUT",
                    "/_ingest/pipeline/bad",
                    "{\"processors\": [{\"near_dup_lookup\": {" + bad[0] + ", \"target_field\": \"d\"}}]}",
                    bad[1]);
        }
        send("PUT", "/_ingest/pipeline/contain-plain", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_containment": 0.8, "target_field": "inside"}}]}""");
        index("plain", "contain-plain");
        assertBadRequest(
                "PUT",
                "/plain/_doc/a",
                "{\"text\": \"a page whose index has no containment on its minhash field\"}",
                "[text_fp.minhash] mapped with [containment: true]");
    }
}
