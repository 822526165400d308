/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.DataStreamTemplates;
import io.neardup.NearDupPlugin;
import io.neardup.compat.LuceneApi;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;
import org.opensearch.transport.client.Client;

/**
 * {@code near_dup_lookup} into many indices: a data stream rolled over with the core {@code _rollover} API, a pattern,
 * a list; the answer against brute force over every document indexed before (Hamming distances of the simhashes
 * given, computed here), the index of the match written beside its {@code _id}.
 */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 1, numClientNodes = 0, supportsDedicatedMasters = false)
public class LookupIndicesTests extends OpenSearchIntegTestCase {

    private static final int DISTANCE = 3;
    private static final String MAPPING = PlantedSimhashes.MAPPING;

    /** A search queue far smaller than a bulk's lookups ask shards: a quarter of it bounds them. */
    private static final int SEARCH_QUEUE = 40;

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected Settings nodeSettings(int nodeOrdinal) {
        return Settings.builder()
                .put(super.nodeSettings(nodeOrdinal))
                .put(NearDupLookupProcessor.Factory.SEARCH_QUEUE_SIZE, SEARCH_QUEUE)
                .build();
    }

    private void putPipeline(String name, String lookup) {
        putPipeline(client(), name, lookup);
    }

    /** A pipeline {@code name} of one {@code near_dup_lookup}, configured by the JSON object {@code lookup}. */
    static void putPipeline(Client client, String name, String lookup) {
        client.admin()
                .cluster()
                .preparePutPipeline(
                        name,
                        new BytesArray("{\"processors\": [{\"near_dup_lookup\": " + lookup + "}]}"),
                        XContentType.JSON)
                .get();
    }

    /** A data stream template for {@code stream}: one to three shards a backing index, its pipeline the default. */
    private void putStreamTemplate(String stream, String pipeline, Settings extra) {
        putStreamTemplate(client(), stream, pipeline, between(1, 3), extra);
    }

    /** A data stream template for {@code stream}: {@code shards} shards a backing index, its pipeline the default. */
    static void putStreamTemplate(Client client, String stream, String pipeline, int shards, Settings extra) {
        DataStreamTemplates.put(
                client,
                stream,
                Settings.builder()
                        .put("index.number_of_shards", shards)
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", pipeline)
                        .put(extra)
                        .build(),
                MAPPING);
    }

    private void deleteStream(String stream) {
        DataStreamTemplates.delete(client(), stream);
    }

    private record Doc(String id, long simhash) {}

    private static String hex(long simhash) {
        return String.format(Locale.ROOT, "%016x", simhash);
    }

    /**
     * A data stream rolled over three times, each generation refreshed before the next: every document's answer is
     * the closest document of every earlier generation (none beyond the distance), and the index named with it is the
     * backing index that holds it, whichever generation that is.
     */
    @SuppressWarnings("unchecked")
    public void testALookupIntoADataStreamFindsCopiesInEveryGeneration() throws Exception {
        String stream = "pages";
        putPipeline(
                "pages-lookup",
                "{\"field\": \"fp.simhash\", \"max_distance\": " + DISTANCE + ", \"target_field\": \"dup\"}");
        putStreamTemplate(stream, "pages-lookup", Settings.EMPTY);
        try {
            Random random = random();
            List<Doc> earlier = new ArrayList<>();
            Map<String, String> indexOf = new HashMap<>();
            int generations = 4;
            for (int generation = 1; generation <= generations; generation++) {
                List<Doc> batch = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    String id = "g" + generation + "-" + i;
                    long simhash = earlier.isEmpty() || random.nextBoolean()
                            ? random.nextLong()
                            : PlantedSimhashes.flipBits(
                                    random,
                                    earlier.get(random.nextInt(earlier.size())).simhash(),
                                    between(0, 2));
                    batch.add(new Doc(id, simhash));
                }
                // One document at a time, refreshed: each sees every earlier one through the search.
                for (Doc doc : batch) {
                    var response = client().prepareIndex(stream)
                            .setId(doc.id())
                            .setOpType(DocWriteRequest.OpType.CREATE)
                            .setSource(Map.of(
                                    "@timestamp", "2026-11-27T00:00:00Z", "fp", Map.of("simhash", hex(doc.simhash()))))
                            .setRefreshPolicy("true")
                            .get();
                    indexOf.put(doc.id(), response.getIndex());
                    Map<String, Object> dup = (Map<String, Object>) client().prepareSearch(stream)
                            .setQuery(QueryBuilders.idsQuery().addIds(doc.id()))
                            .get()
                            .getHits()
                            .getAt(0)
                            .getSourceAsMap()
                            .get("dup");
                    int closest = Integer.MAX_VALUE;
                    for (Doc before : earlier) {
                        closest = Math.min(closest, Long.bitCount(before.simhash() ^ doc.simhash()));
                    }
                    if (closest > DISTANCE) {
                        assertEquals(
                                doc.id(),
                                Map.of(
                                        "cluster",
                                        doc.id(),
                                        "cluster_index",
                                        indexOf.get(doc.id()),
                                        "representative",
                                        true),
                                dup);
                    } else {
                        String original = (String) dup.get("duplicate_of");
                        assertNotNull(doc.id() + " " + dup, original);
                        long originalHash = earlier.stream()
                                .filter(d -> d.id().equals(original))
                                .findFirst()
                                .orElseThrow()
                                .simhash();
                        assertEquals(doc.id(), closest, Long.bitCount(originalHash ^ doc.simhash()));
                        assertEquals(doc.id(), indexOf.get(original), dup.get("duplicate_of_index"));
                        // The cluster, an _id, with the index of its document: unique across the generations.
                        assertEquals(doc.id(), indexOf.get((String) dup.get("cluster")), dup.get("cluster_index"));
                    }
                    earlier.add(doc);
                }
                if (generation < generations) {
                    assertAcked(client().admin()
                            .indices()
                            .prepareRolloverIndex(stream)
                            .get());
                }
            }
            assertEquals(
                    "every generation took documents",
                    generations,
                    indexOf.values().stream().distinct().count());
        } finally {
            deleteStream(stream);
        }
    }

    /**
     * The recent window belongs to the data stream, not to its write index: a copy indexed right after a rollover,
     * before any refresh, finds its original indexed right before it, and names the backing index it went to. (A
     * window is a node's: the suite has one node, so that both documents are ingested on it.)
     */
    @SuppressWarnings("unchecked")
    public void testTheRecentWindowSurvivesARollover() throws Exception {
        String stream = "unrefreshed";
        // A long recent_ttl: the rollover between the two documents may take seconds on a busy machine.
        putPipeline(
                "unrefreshed-lookup",
                "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"recent_ttl\": \"10m\"}");
        putStreamTemplate(
                stream,
                "unrefreshed-lookup",
                Settings.builder().put("index.refresh_interval", "-1").build());
        try {
            String first = client().prepareIndex(stream)
                    .setId("original")
                    .setOpType(DocWriteRequest.OpType.CREATE)
                    .setSource(
                            Map.of("@timestamp", "2026-11-27T00:00:00Z", "fp", Map.of("simhash", "0123456789abcdef")))
                    .get()
                    .getIndex();
            assertAcked(client().admin().indices().prepareRolloverIndex(stream).get());
            String second = client().prepareIndex(stream)
                    .setId("copy")
                    .setOpType(DocWriteRequest.OpType.CREATE)
                    .setSource(
                            Map.of("@timestamp", "2026-11-27T00:00:01Z", "fp", Map.of("simhash", "0123456789abcdee")))
                    .get()
                    .getIndex();
            assertNotEquals(first, second);
            client().admin().indices().prepareRefresh(stream).get();
            Map<String, Object> dup = (Map<String, Object>)
                    client().prepareGet(second, "copy").get().getSourceAsMap().get("dup");
            assertEquals("original", dup.get("duplicate_of"));
            assertEquals(first, dup.get("duplicate_of_index"));
            assertEquals("original", dup.get("cluster"));
            assertEquals(first, dup.get("cluster_index"));
        } finally {
            deleteStream(stream);
        }
    }

    /**
     * Content-hash {@code _id}s (elastic/elasticsearch#44794): after a rollover a copy of the same {@code _id} goes to
     * the next generation, another document, and finds its original of that {@code _id} in the older one by its shards
     * (no recent window here: the document is left out of its own index's answers only, not of every index's).
     */
    @SuppressWarnings("unchecked")
    public void testTheSameIdInAnOlderGenerationIsAnotherDocument() throws Exception {
        String stream = "hashed";
        putPipeline("hashed-lookup", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"recent_size\": 0}");
        putStreamTemplate(stream, "hashed-lookup", Settings.EMPTY);
        try {
            Map<String, Object> source =
                    Map.of("@timestamp", "2026-11-27T00:00:00Z", "fp", Map.of("simhash", "0123456789abcdef"));
            String first = client().prepareIndex(stream)
                    .setId("h1")
                    .setOpType(DocWriteRequest.OpType.CREATE)
                    .setSource(source)
                    .get()
                    .getIndex();
            client().admin().indices().prepareRefresh(stream).get();
            Map<String, Object> alone = dupOf(first, "h1");
            assertTrue("nothing before it: " + alone, alone == null || alone.get("duplicate_of") == null);
            assertAcked(client().admin().indices().prepareRolloverIndex(stream).get());
            String second = client().prepareIndex(stream)
                    .setId("h1")
                    .setOpType(DocWriteRequest.OpType.CREATE)
                    .setSource(source)
                    .get()
                    .getIndex();
            assertNotEquals(first, second);
            client().admin().indices().prepareRefresh(stream).get();
            Map<String, Object> dup = dupOf(second, "h1");
            assertEquals("h1", dup.get("duplicate_of"));
            assertEquals(first, dup.get("duplicate_of_index"));
            assertEquals(first, dup.get("cluster_index"));
        } finally {
            deleteStream(stream);
        }
    }

    /**
     * A pattern over daily indices: two documents of the same {@code _id} in two indices are told apart by the index
     * written beside the {@code _id}; {@code max_indices} searches only the newest, and ties go to the older index.
     */
    @SuppressWarnings("unchecked")
    public void testAPatternNamesTheIndexOfTheMatchAndIsBoundedByMaxIndices() throws Exception {
        putPipeline("daily-lookup", "{\"field\": \"fp.simhash\", \"index\": \"daily-*\", \"target_field\": \"dup\"}");
        putPipeline(
                "daily-newest",
                "{\"field\": \"fp.simhash\", \"index\": \"daily-*\", \"max_indices\": 1, \"target_field\": \"dup\"}");
        for (int day = 1; day <= 5; day++) {
            assertAcked(prepareCreate("daily-" + day)
                    .setSettings(Settings.builder()
                            .put("index.number_of_shards", between(1, 2))
                            .put("index.number_of_replicas", 0))
                    .setMapping(MAPPING));
            // The same _id on every day, each day's own text.
            client().prepareIndex("daily-" + day)
                    .setId("same")
                    .setSource(Map.of("fp", Map.of("simhash", hex(0x1111111111111111L * day))))
                    .setRefreshPolicy("true")
                    .get();
        }
        assertAcked(prepareCreate("incoming")
                .setSettings(Settings.builder().put("index.number_of_replicas", 0))
                .setMapping(MAPPING));
        BulkResponse bulk = client().prepareBulk()
                .add(client().prepareIndex("incoming")
                        .setId("copy-of-2")
                        .setPipeline("daily-lookup")
                        .setSource(Map.of("fp", Map.of("simhash", hex(0x2222222222222222L ^ 1)))))
                .add(client().prepareIndex("incoming")
                        .setId("copy-of-2-newest-only")
                        .setPipeline("daily-newest")
                        .setSource(Map.of("fp", Map.of("simhash", hex(0x2222222222222222L ^ 1)))))
                .add(client().prepareIndex("incoming")
                        .setId("copy-of-5-newest-only")
                        .setPipeline("daily-newest")
                        .setSource(Map.of("fp", Map.of("simhash", hex(0x5555555555555555L)))))
                .setRefreshPolicy("true")
                .get();
        assertFalse(bulk.buildFailureMessage(), bulk.hasFailures());
        Map<String, Object> copy = dupOf("incoming", "copy-of-2");
        assertEquals("same", copy.get("duplicate_of"));
        assertEquals("daily-2", copy.get("duplicate_of_index"));
        assertEquals(
                Map.of("cluster", "copy-of-2-newest-only", "cluster_index", "incoming", "representative", true),
                dupOf("incoming", "copy-of-2-newest-only"));
        assertEquals("daily-5", dupOf("incoming", "copy-of-5-newest-only").get("duplicate_of_index"));

        // A tie: the same text on day 3 and day 4; the older index wins, whatever shard answers first.
        client().prepareIndex("daily-4")
                .setId("tie")
                .setSource(Map.of("fp", Map.of("simhash", hex(0x3333333333333333L))))
                .setRefreshPolicy("true")
                .get();
        client().prepareIndex("incoming")
                .setId("copy-of-3")
                .setPipeline("daily-lookup")
                .setSource(Map.of("fp", Map.of("simhash", hex(0x3333333333333333L))))
                .setRefreshPolicy("true")
                .get();
        assertEquals("daily-3", dupOf("incoming", "copy-of-3").get("duplicate_of_index"));
        assertEquals("same", dupOf("incoming", "copy-of-3").get("duplicate_of"));
    }

    /**
     * A bulk whose lookups ask far more shards than the search queue holds (200 documents into 12 indices: 2,400 shard
     * requests, a queue of 40): they wait for a place instead of being rejected, so every document is looked up and
     * finds the original it copies, in whichever index.
     */
    public void testABulkIntoManyIndicesWaitsForTheSearchQueueInsteadOfFailing() {
        putPipeline("wide-lookup", "{\"field\": \"fp.simhash\", \"index\": \"wide-*\", \"target_field\": \"dup\"}");
        int indices = 12;
        long[] originals = new long[indices];
        for (int i = 0; i < indices; i++) {
            assertAcked(prepareCreate("wide-" + i)
                    .setSettings(
                            Settings.builder().put("index.number_of_shards", 1).put("index.number_of_replicas", 0))
                    .setMapping(MAPPING));
            originals[i] = random().nextLong();
            client().prepareIndex("wide-" + i)
                    .setId("original")
                    .setSource(Map.of("fp", Map.of("simhash", hex(originals[i]))))
                    .get();
        }
        client().admin().indices().prepareRefresh("wide-*").get();
        assertAcked(prepareCreate("copies")
                .setSettings(Settings.builder().put("index.number_of_replicas", 0))
                .setMapping(MAPPING));
        int copies = 200;
        var bulk = client().prepareBulk();
        for (int k = 0; k < copies; k++) {
            // One bit off its original, another bit for each copy of it: a copy is closer to its original (1) than to
            // any other copy (2), so the recent window never answers instead.
            bulk.add(client().prepareIndex("copies")
                    .setId("copy-" + k)
                    .setPipeline("wide-lookup")
                    .setSource(Map.of("fp", Map.of("simhash", hex(originals[k % indices] ^ (1L << (k / indices)))))));
        }
        BulkResponse response = bulk.setRefreshPolicy("true").get();
        assertFalse(response.buildFailureMessage(), response.hasFailures());
        for (int k = 0; k < copies; k++) {
            Map<String, Object> dup = dupOf("copies", "copy-" + k);
            assertEquals("copy-" + k, "original", dup.get("duplicate_of"));
            assertEquals("copy-" + k, "wide-" + (k % indices), dup.get("duplicate_of_index"));
        }
    }

    /**
     * A date math {@code index} ({@code <dated-{now/d}>}, today's index) is resolved when the document is looked up,
     * as a write resolves it: one concrete index, so the layout is one index's.
     */
    public void testADateMathIndexIsLookedUpInTheIndexItNamesNow() throws Exception {
        putPipeline(
                "dated-lookup",
                "{\"field\": \"fp.simhash\", \"index\": \"<dated-{now/d}>\", \"target_field\": \"dup\"}");
        String today = "dated-"
                + java.time.LocalDate.now(java.time.ZoneOffset.UTC)
                        .format(java.time.format.DateTimeFormatter.ofPattern("yyyy.MM.dd", Locale.ROOT));
        assertAcked(prepareCreate(today)
                .setSettings(Settings.builder().put("index.number_of_replicas", 0))
                .setMapping(MAPPING));
        client().prepareIndex(today)
                .setId("original")
                .setSource(Map.of("fp", Map.of("simhash", "0123456789abcdef")))
                .setRefreshPolicy("true")
                .get();
        assertAcked(prepareCreate("dated-sink").setMapping(MAPPING));
        client().prepareIndex("dated-sink")
                .setId("copy")
                .setPipeline("dated-lookup")
                .setSource(Map.of("fp", Map.of("simhash", "0123456789abcdee")))
                .setRefreshPolicy("true")
                .get();
        assertEquals(
                Map.of(
                        "cluster",
                        "original",
                        "duplicate_of",
                        "original",
                        "similarity",
                        1 - 1 / 64.0,
                        "representative",
                        false),
                dupOf("dated-sink", "copy"));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> dupOf(String index, String id) {
        return (Map<String, Object>)
                client().prepareGet(index, id).get().getSourceAsMap().get("dup");
    }

    /** Each bad bound fails the pipeline PUT naming it; a pattern that names nothing, or indices mapping the field as two kinds, fail each document naming them. */
    public void testRefusals() {
        for (String bad : new String[] {
            "\"max_indices\": 0",
            "\"max_indices\": 1001",
            "\"max_indices\": \"x\"",
            "\"max_age\": \"x\"",
            "\"max_age\": \"0s\"",
            "\"max_age\": -1"
        }) {
            String option = bad.substring(1, bad.indexOf('"', 1));
            Exception e = expectThrows(
                    Exception.class,
                    () -> putPipeline("bad", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", " + bad + "}"));
            assertTrue(bad + ": " + e.getMessage(), e.getMessage().contains("[" + option + "]"));
        }
        putPipeline("nothing", "{\"field\": \"fp.simhash\", \"index\": \"nothing-*\", \"target_field\": \"dup\"}");
        assertAcked(prepareCreate("kinds-simhash").setMapping(MAPPING));
        assertAcked(prepareCreate("kinds-minhash")
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"minhash\"}}}}}"));
        putPipeline("kinds", "{\"field\": \"fp.simhash\", \"index\": \"kinds-*\", \"target_field\": \"dup\"}");
        assertAcked(prepareCreate("sink").setMapping(MAPPING));
        BulkItemResponse[] items = client().prepareBulk()
                .add(client().prepareIndex("sink")
                        .setId("a")
                        .setPipeline("nothing")
                        .setSource(Map.of("fp", Map.of("simhash", "00000000000000ff"))))
                .add(client().prepareIndex("sink")
                        .setId("b")
                        .setPipeline("kinds")
                        .setSource(Map.of("fp", Map.of("simhash", "00000000000000ff"))))
                .get()
                .getItems();
        // in the request's order: OpenSearch 2.19 answers a bulk whose every item failed in its pipeline with the
        // items in the order their pipelines failed (each with its right item id)
        Arrays.sort(items, Comparator.comparingInt(BulkItemResponse::getItemId));
        assertTrue(items[0].isFailed());
        assertTrue(
                items[0].getFailureMessage(),
                items[0].getFailureMessage().contains("[index] [nothing-*] names no index"));
        assertTrue(items[1].isFailed());
        assertTrue(
                items[1].getFailureMessage(),
                items[1].getFailureMessage().contains("in [kinds-simhash]")
                        && items[1].getFailureMessage().contains("in [kinds-minhash]"));
        assertEquals(
                0,
                LuceneApi.count(client().prepareSearch("sink")
                        .setSize(0)
                        .get()
                        .getHits()
                        .getTotalHits()));
    }
}
