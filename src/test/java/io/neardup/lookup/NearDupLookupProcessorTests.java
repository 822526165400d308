/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.match.NearDupLookupAction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.action.support.WriteRequest;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.plugins.ActionPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/** {@code near_dup_lookup} on a real node against brute force over the arrival order. */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 1)
public class NearDupLookupProcessorTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class, LookupRequestCounter.class);
    }

    /** Counts the lookup's shard requests sent from the node that ingests. */
    public static final class LookupRequestCounter extends Plugin implements ActionPlugin {
        static final AtomicInteger SENT = new AtomicInteger();

        @Override
        public List<ActionFilter> getActionFilters() {
            return List.of(new ActionFilter.Simple() {
                @Override
                public int order() {
                    return 0;
                }

                @Override
                protected boolean apply(String action, ActionRequest request, ActionListener<?> listener) {
                    if (action.equals(NearDupLookupAction.NAME)) {
                        SENT.incrementAndGet();
                    }
                    return true;
                }
            });
        }
    }

    private static final String KINDS_MAPPING = "{\"properties\": {\"fp\": {\"properties\": {"
            + "\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"},"
            + " \"text\": {\"type\": \"keyword\"}}}}}";

    private void lookupIndex(String index, String processor) {
        pipelineIndex(
                index,
                "{\"near_dup_lookup\": " + processor + "}",
                "{\"properties\": {\"fp\": " + "{\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}");
    }

    /** An index of 1 to 3 shards whose default pipeline, {@code lookup-<index>}, runs {@code processors}. */
    private void pipelineIndex(String index, String processors, String mapping) {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "lookup-" + index, new BytesArray("{\"processors\": [" + processors + "]}"), XContentType.JSON)
                .get();
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", between(1, 3))
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "lookup-" + index))
                .setMapping(mapping));
    }

    /**
     * Documents arrive in random batches, refreshed between batches: each gets {@code duplicate_of}
     * exactly when an earlier document (in an earlier batch, found by the search, or earlier in its
     * own batch, found among the recent fingerprints) is within the distance, and then one of the closest.
     */
    @SuppressWarnings("unchecked")
    public void testDuplicateOfIsSetExactlyWhenAnEarlierDocumentIsNear() throws Exception {
        int distance = 3;
        lookupIndex(
                "arrivals",
                "{\"field\": \"fp.simhash\", \"max_distance\": " + distance + ", \"target_field\": \"dup\"}");
        Random random = random();
        List<String> order = new ArrayList<>();
        Map<String, Long> fps = new HashMap<>();
        for (int g = 0; g < 60; g++) {
            long base = random.nextLong();
            for (int c = 0; c < randomFrom(1, 1, 2, 3, 5); c++) {
                long fp = base;
                for (int flips = between(0, 2); flips > 0; flips--) {
                    fp ^= 1L << random.nextInt(64);
                }
                String id = "g" + g + "c" + c;
                fps.put(id, fp);
                order.add(id);
            }
        }
        Collections.shuffle(order, random);
        Map<String, Integer> batchOf = new HashMap<>();
        int batch = 0;
        for (int from = 0; from < order.size(); batch++) {
            int to = Math.min(order.size(), from + between(1, 2 * NearDupLookupProcessor.DOCUMENTS_PER_REQUEST + 10));
            BulkRequestBuilder bulk = client().prepareBulk();
            for (String id : order.subList(from, to)) {
                bulk.add(client().prepareIndex("arrivals")
                        .setId(id)
                        .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(fps.get(id))))));
                batchOf.put(id, batch);
            }
            BulkResponse response = bulk.get();
            for (BulkItemResponse item : response.getItems()) {
                assertFalse(item.getFailureMessage(), item.isFailed());
            }
            refresh("arrivals");
            from = to;
        }
        Map<String, Map<String, Object>> written = new HashMap<>();
        for (SearchHit hit :
                client().prepareSearch("arrivals").setSize(1000).get().getHits()) {
            written.put(hit.getId(), (Map<String, Object>) hit.getSourceAsMap().get("dup"));
        }
        int duplicates = 0;
        for (int i = 0; i < order.size(); i++) {
            String id = order.get(i);
            int closest = Integer.MAX_VALUE;
            for (int j = 0; j < i; j++) {
                closest = Math.min(closest, Long.bitCount(fps.get(id) ^ fps.get(order.get(j))));
            }
            Map<String, Object> value = written.get(id);
            assertNotNull(id, value);
            if (closest <= distance) {
                duplicates++;
                String of = (String) value.get("duplicate_of");
                assertNotNull(id + " has an earlier near-duplicate at " + closest + " bits: " + value, of);
                assertTrue(id + " -> " + of + " must be earlier", order.indexOf(of) < i);
                assertEquals(id + " -> " + of, closest, Long.bitCount(fps.get(id) ^ fps.get(of)));
                assertEquals(1 - closest / 64.0, ((Number) value.get("similarity")).doubleValue(), 1e-6);
                assertEquals(false, value.get("representative"));
                if (batchOf.get(of) < batchOf.get(id)) {
                    assertEquals(
                            "joins the cluster of the document it copies",
                            written.get(of).get("cluster"),
                            value.get("cluster"));
                }
            } else {
                assertEquals(
                        id + " has none within " + distance + " bits",
                        Map.of("cluster", id, "representative", true),
                        value);
            }
        }
        assertTrue("the corpus has copies: " + duplicates, duplicates >= 20);
    }

    /**
     * A bulk's documents share their shard requests: one a shard for each {@link
     * NearDupLookupProcessor#DOCUMENTS_PER_REQUEST} of them, where a request a document and a shard was sent before;
     * each still gets its own answer (its closest searchable document, or none).
     */
    @SuppressWarnings("unchecked")
    public void testABulksDocumentsShareTheirShardRequests() {
        int shards = between(1, 3);
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "lookup-shared",
                        new BytesArray(
                                "{\"processors\": [{\"near_dup_lookup\": {\"field\": \"fp.simhash\","
                                        + " \"index\": \"shared-originals\", \"max_distance\": 3, \"target_field\": \"dup\"}}]}"),
                        XContentType.JSON)
                .get();
        String mapping = "{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}";
        assertAcked(prepareCreate("shared-originals")
                .setSettings(
                        Settings.builder().put("index.number_of_shards", shards).put("index.number_of_replicas", 0))
                .setMapping(mapping));
        assertAcked(prepareCreate("shared-copies")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 1)
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "lookup-shared"))
                .setMapping(mapping));
        Random random = random();
        long[] originals = new long[200];
        BulkRequestBuilder indexed = client().prepareBulk().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
        for (int i = 0; i < originals.length; i++) {
            originals[i] = random.nextLong();
            indexed.add(client().prepareIndex("shared-originals")
                    .setId("o" + i)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(originals[i])))));
        }
        assertFalse(indexed.get().buildFailureMessage(), indexed.get().hasFailures());
        int copies = 2 * NearDupLookupProcessor.DOCUMENTS_PER_REQUEST + between(1, 60);
        Map<String, Integer> copyOf = new HashMap<>();
        BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
        for (int i = 0; i < copies; i++) {
            // Half are near copies of an original (each of another), half far from every one (by chance alone).
            int of = random.nextBoolean() ? i : -1;
            long fp = of < 0 ? random.nextLong() : originals[of] ^ (1L << random.nextInt(64));
            copyOf.put("c" + i, of);
            bulk.add(client().prepareIndex("shared-copies")
                    .setId("c" + i)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(fp)))));
        }
        LookupRequestCounter.SENT.set(0);
        BulkResponse response = bulk.get();
        assertFalse(response.buildFailureMessage(), response.hasFailures());
        int chunks = (copies + NearDupLookupProcessor.DOCUMENTS_PER_REQUEST - 1)
                / NearDupLookupProcessor.DOCUMENTS_PER_REQUEST;
        assertEquals(
                "one request a shard for each chunk of the bulk", chunks * shards, LookupRequestCounter.SENT.get());
        for (SearchHit hit :
                client().prepareSearch("shared-copies").setSize(copies).get().getHits()) {
            Map<String, Object> dup = (Map<String, Object>) hit.getSourceAsMap().get("dup");
            int of = copyOf.get(hit.getId());
            if (of >= 0) {
                assertEquals(hit.getId() + " " + dup, "o" + of, dup.get("duplicate_of"));
            } else {
                assertNull(hit.getId() + " " + dup, dup.get("duplicate_of"));
            }
        }
    }

    /**
     * A bulk looked up through a pattern over indices whose {@code minhash} fields differ in what a query reads from them
     * (fingerprint format 1 beside 2, another banding) and one that is the same as another: a document's query is built
     * once and searched in every index of the same field, and each index still answers with its own field's query (a
     * query of format 2 band terms finds nothing in the format 1 index).
     */
    @SuppressWarnings("unchecked")
    public void testABulksQueriesAreSharedOnlyByIndicesWhoseFieldsQueryAlike() {
        String mapping = "{\"properties\": {\"body\": {\"type\": \"text\"}, \"fp\": {\"properties\": {"
                + "\"minhash\": {\"type\": \"minhash\"%s}}}}}";
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "alike-fingerprint",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\","
                                + " \"target_field\": \"fp\"}}]}"),
                        XContentType.JSON)
                .get();
        String[] originals = {"alike-o-format2", "alike-o-format1", "alike-o-floor", "alike-o-format2-again"};
        String[] fieldOptions = {"", "", ", \"min_similarity_floor\": 0.7", ""};
        String[] formats = {"2", "1", "2", "2"};
        for (int i = 0; i < originals.length; i++) {
            assertAcked(prepareCreate(originals[i])
                    .setSettings(Settings.builder()
                            .put("index.number_of_shards", between(1, 2))
                            .put("index.number_of_replicas", 0)
                            .put("index.neardup.fingerprint_format", formats[i])
                            .put("index.default_pipeline", "alike-fingerprint"))
                    .setMapping(String.format(java.util.Locale.ROOT, mapping, fieldOptions[i])));
        }
        pipelineIndex(
                "alike-copies",
                "{\"near_dup_fingerprint\": {\"field\": \"body\", \"target_field\": \"fp\"}},"
                        + " {\"near_dup_lookup\": {\"field\": \"fp.minhash\", \"index\": \"alike-o-*\","
                        + " \"min_similarity\": 0.8, \"target_field\": \"dup\"}}",
                String.format(java.util.Locale.ROOT, mapping, ""));
        Random random = random();
        int perIndex = 40;
        Map<String, String> textOf = new HashMap<>();
        BulkRequestBuilder indexed = client().prepareBulk().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
        for (String index : originals) {
            for (int i = 0; i < perIndex; i++) {
                StringBuilder text = new StringBuilder();
                for (int w = 0; w < 40; w++) {
                    text.append("w").append(random.nextInt(100_000)).append(' ');
                }
                textOf.put(index + "/o" + i, text.toString());
                indexed.add(client().prepareIndex(index).setId("o" + i).setSource(Map.of("body", text.toString())));
            }
        }
        BulkResponse originalsIndexed = indexed.get();
        assertFalse(originalsIndexed.buildFailureMessage(), originalsIndexed.hasFailures());
        // Every original has the same _id in each index: only the index tells the copies apart.
        List<String> keys = new ArrayList<>(textOf.keySet());
        Collections.shuffle(keys, random);
        BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
        for (int c = 0; c < keys.size(); c++) {
            bulk.add(client().prepareIndex("alike-copies")
                    .setId("c" + c)
                    .setSource(Map.of("body", textOf.get(keys.get(c)))));
        }
        BulkResponse copied = bulk.get();
        assertFalse(copied.buildFailureMessage(), copied.hasFailures());
        for (int c = 0; c < keys.size(); c++) {
            Map<String, Object> dup = dupOf("alike-copies", "c" + c);
            String[] original = keys.get(c).split("/");
            assertEquals(keys.get(c) + " " + dup, original[1], dup.get("duplicate_of"));
            assertEquals(keys.get(c) + " " + dup, original[0], dup.get("duplicate_of_index"));
        }
    }

    /** Two copies in one bulk request: the second is found among the recent fingerprints, and only there (the search cannot see the first yet). */
    @SuppressWarnings("unchecked")
    public void testCopiesInOneBulkAreFoundAmongTheRecentFingerprints() {
        for (int recentSize : new int[] {0, 10}) {
            String index = "bulk-" + recentSize;
            lookupIndex(
                    index,
                    "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"recent_size\": " + recentSize + "}");
            assertFalse(client().prepareBulk()
                    .add(client().prepareIndex(index)
                            .setId("first")
                            .setSource(Map.of("fp", Map.of("simhash", "0123456789abcdef"))))
                    .add(client().prepareIndex(index)
                            .setId("second")
                            .setSource(Map.of("fp", Map.of("simhash", "0123456789abcdee"))))
                    .setRefreshPolicy("true")
                    .get()
                    .hasFailures());
            Map<String, Object> second = (Map<String, Object>)
                    client().prepareGet(index, "second").get().getSourceAsMap().get("dup");
            if (recentSize == 0) {
                assertEquals(
                        "without recent fingerprints the refresh window hides the first copy",
                        Map.of("cluster", "second", "representative", true),
                        second);
            } else {
                assertEquals("first", second.get("duplicate_of"));
                assertEquals("first", second.get("cluster"));
            }
        }
    }

    /** What the window missed, a {@code _near_dup_clusters} run over the recent documents repairs: the two originals become one cluster. */
    @SuppressWarnings("unchecked")
    public void testAClustersRunOverRecentDocumentsRepairsTheWindow() throws Exception {
        lookupIndex("window", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"recent_size\": 0}");
        assertAcked(client().admin()
                .indices()
                .preparePutMapping("window")
                .setSource(
                        "{\"properties\": {\"batch\": {\"type\": "
                                + "\"keyword\"}, \"dup\": {\"properties\": {\"cluster\": {\"type\": \"keyword\"}, \"duplicate_of\": {\"type\": "
                                + "\"keyword\"}, \"representative\": {\"type\": \"boolean\"}}}}}",
                        XContentType.JSON));
        assertFalse(client().prepareBulk()
                .add(client().prepareIndex("window")
                        .setId("a")
                        .setSource(Map.of("batch", "recent", "fp", Map.of("simhash", "0123456789abcdef"))))
                .add(client().prepareIndex("window")
                        .setId("b")
                        .setSource(Map.of("batch", "recent", "fp", Map.of("simhash", "0123456789abcdee"))))
                .setRefreshPolicy("true")
                .get()
                .hasFailures());
        assertEquals(
                true,
                ((Map<String, Object>) client().prepareGet("window", "b")
                                .get()
                                .getSourceAsMap()
                                .get("dup"))
                        .get("representative"));
        try (org.opensearch.core.xcontent.XContentParser parser =
                org.opensearch.common.xcontent.json.JsonXContent.jsonXContent.createParser(
                        new org.opensearch.core.xcontent.NamedXContentRegistry(
                                new org.opensearch.search.SearchModule(Settings.EMPTY, List.of()).getNamedXContents()),
                        org.opensearch.core.xcontent.DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                        "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"query\": {\"term\": "
                                + "{\"batch\": \"recent\"}}}")) {
            client().execute(
                            io.neardup.clusters.NearDupClustersAction.INSTANCE,
                            io.neardup.clusters.NearDupClustersRequest.parse("window", parser)
                                    .refresh(true))
                    .actionGet();
        }
        Map<String, Object> a = (Map<String, Object>)
                client().prepareGet("window", "a").get().getSourceAsMap().get("dup");
        Map<String, Object> b = (Map<String, Object>)
                client().prepareGet("window", "b").get().getSourceAsMap().get("dup");
        assertEquals("one cluster now", a.get("cluster"), b.get("cluster"));
        assertEquals(2, a.get("size"));
        assertNotEquals("one representative", a.get("representative"), b.get("representative"));
    }

    public void testBadConfigurationsFailThePipelinePutNamingTheOption() {
        for (String[] bad : new String[][] {
            {"{\"target_field\": \"d\"}", "[field] required property is missing"},
            {"{\"field\": \"fp.simhash\"}", "[target_field] required property is missing"},
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"_id\"}",
                "[target_field] must be a field path outside the metadata"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"max_distance\": 9}",
                "[max_distance] must be in [0, 8], got [9]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_similarity\": 1.5}",
                "[min_similarity] must be in (0, 1], got [1.5]"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"max_candidates\": 0}",
                "[max_candidates] must be in [1, 1000], got [0]"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"timeout\": \"0s\"}",
                "[timeout] must be more than [0s]"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"timeout\": \"1h\"}",
                "[timeout] must be in [0s, 5m]"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"recent_size\": 1000000}",
                "[recent_size] must be in [0, 100000], got [1000000]"
            },
            {"{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"mode\": \"psm\"}", "[mode] does not apply"},
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 0.4}",
                "[min_containment] must be in [0.5, 1], got [0.4]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 1.01}",
                "[min_containment] must be in [0.5, 1], got [1.01]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": \"most\"}",
                "[min_containment] must be a number, got [most]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 0.8, "
                        + "\"contained\": \"host\"}",
                "[contained] must be [like] or [document], got [host]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"contained\": \"like\"}",
                "[contained] goes with [min_containment]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 0.8, "
                        + "\"min_similarity\": 0.8}",
                "[min_similarity] does not apply with [min_containment]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 0.8, "
                        + "\"verification\": \"exact\"}",
                "[verification]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"min_containment\": 0.8, "
                        + "\"min_band_matches\": 2}",
                "[min_band_matches]"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"max_distance\": 2, \"min_containment\": 0.8}",
                "[min_containment] cannot be combined with [max_distance]"
            },
            {"{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"colour\": 1}", "colour"}
        }) {
            Exception e = expectThrows(
                    Exception.class,
                    () -> client().admin()
                            .cluster()
                            .preparePutPipeline(
                                    "bad",
                                    new BytesArray("{\"processors\": [{\"near_dup_lookup\": " + bad[0] + "}]}"),
                                    XContentType.JSON)
                            .get());
            assertTrue(bad[0] + " -> " + e.getMessage(), e.getMessage().contains(bad[1]));
        }
    }

    /**
     * The lookup index (by default each document's own) is not known when the pipeline is PUT: its mapping decides the
     * field's kind at the document, which fails with a 400 naming the option that does not apply. No decision by the
     * field's name: a simhash field under any name is looked up by [max_distance].
     */
    public void testTheFieldsKindComesFromTheLookupIndexsMapping() {
        String[][] cases = {
            {"{\"field\": \"fp.text\", \"target_field\": \"d\"}", "[field] [fp.text] is not mapped as [simhash]"},
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"min_similarity\": 0.8}",
                "[min_similarity] applies to [minhash] fields; [fp.simhash] is a [simhash] field: use [max_distance]"
            },
            {
                "{\"field\": \"fp.minhash\", \"target_field\": \"d\", \"max_distance\": 2}",
                "[max_distance] applies to [simhash] fields; [fp.minhash] is a [minhash] field"
            },
            {
                "{\"field\": \"fp.simhash\", \"target_field\": \"d\", \"min_containment\": 0.8}",
                "[min_containment] applies to [minhash] fields; [fp.simhash] is a [simhash] field"
            }
        };
        for (int i = 0; i < cases.length; i++) {
            pipelineIndex("kinds-" + i, "{\"near_dup_lookup\": " + cases[i][0] + "}", KINDS_MAPPING);
            BulkItemResponse item = client().prepareBulk()
                    .add(client().prepareIndex("kinds-" + i)
                            .setId("a")
                            .setSource(
                                    Map.of("fp", Map.of("simhash", "00000000000000ff", "minhash", "x", "text", "x"))))
                    .get()
                    .getItems()[0];
            assertTrue(cases[i][0], item.isFailed());
            assertEquals(RestStatus.BAD_REQUEST, item.status());
            assertTrue(item.getFailureMessage(), item.getFailureMessage().contains("[near_dup_lookup] " + cases[i][1]));
        }
        pipelineIndex(
                "named-freely",
                "{\"near_dup_lookup\": {\"field\": \"fp.sh\", \"max_distance\": 0, \"target_field\": \"d\"}}",
                "{\"properties\": {\"fp\": {\"properties\": {\"sh\": {\"type\": \"simhash\"}}}}}");
        for (String id : new String[] {"a", "b"}) {
            client().prepareIndex("named-freely")
                    .setId(id)
                    .setSource(Map.of("fp", Map.of("sh", "00000000000000ff")))
                    .setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE)
                    .get();
        }
        assertEquals(
                "a",
                ((Map<?, ?>) client().prepareGet("named-freely", "b")
                                .get()
                                .getSourceAsMap()
                                .get("d"))
                        .get("cluster"));
    }

    public void testAMissingLookupIndexOrFingerprintIsAClearIngestFailure() {
        lookupIndex("orphans", "{\"field\": \"fp.simhash\", \"index\": \"no-such-index\", \"target_field\": \"dup\"}");
        BulkItemResponse item = client().prepareBulk()
                .add(client().prepareIndex("orphans")
                        .setId("a")
                        .setSource(Map.of("fp", Map.of("simhash", "00000000000000ff"))))
                .get()
                .getItems()[0];
        assertTrue(item.isFailed());
        assertTrue(item.getFailureMessage(), item.getFailureMessage().contains("no such index [no-such-index]"));
        item = client().prepareBulk()
                .add(client().prepareIndex("orphans").setId("b").setSource(Map.of("text", "no fingerprint")))
                .get()
                .getItems()[0];
        assertTrue(item.isFailed());
        assertTrue(item.getFailureMessage(), item.getFailureMessage().contains("no fingerprint at [fp.simhash]"));
    }

    /**
     * Issue 40: a text without tokens has no fingerprint ({@code near_dup_fingerprint} writes {@code tokens: 0} and
     * neither a simhash nor a MinHash), and the lookup failed it as if the pipeline had no fingerprint processor, so
     * such a document was never indexed. It now passes unchanged, on either kind of field, while a document whose
     * fingerprint object is absent, or holds tokens but not the field's kind, still fails.
     */
    @SuppressWarnings("unchecked")
    public void testATextWithoutTokensPassesTheLookupUnchanged() {
        List<Object> tokenless = List.of("", "   ", "\ufeff\u200b", List.of(), List.of("", " "));
        for (String kind : new String[] {"simhash", "minhash"}) {
            String index = "tokenless-" + kind;
            pipelineIndex(
                    index,
                    "{\"near_dup_fingerprint\": {\"field\": \"body\", \"target_field\": \"fp\"}}, {\"near_dup_lookup\": "
                            + "{\"field\": \"fp." + kind + "\", \"target_field\": \"dup\"}}",
                    "{\"properties\": {\"body\": {\"type\": \"text\"}, \"fp\": {\"properties\": {"
                            + "\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"}}}}}");
            BulkRequestBuilder bulk = client().prepareBulk();
            for (int i = 0; i < tokenless.size(); i++) {
                bulk.add(client().prepareIndex(index).setId("empty-" + i).setSource(Map.of("body", tokenless.get(i))));
            }
            bulk.add(client().prepareIndex(index).setId("words").setSource(Map.of("body", ARTICLE)));
            for (BulkItemResponse item : bulk.get().getItems()) {
                assertFalse(kind + " " + item.getId() + ": " + item.getFailureMessage(), item.isFailed());
            }
            for (int i = 0; i < tokenless.size(); i++) {
                Map<String, Object> source =
                        client().prepareGet(index, "empty-" + i).get().getSourceAsMap();
                Map<String, Object> fp = (Map<String, Object>) source.get("fp");
                assertEquals(kind + " " + tokenless.get(i) + ": " + fp, 0, fp.get("tokens"));
                assertFalse(fp.toString(), fp.containsKey(kind));
                assertFalse("nothing compared, nothing written: " + source, source.containsKey("dup"));
            }
            assertEquals(Map.of("cluster", "words", "representative", true), dupOf(index, "words"));
        }

        lookupIndex("half-fingerprinted", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}");
        BulkItemResponse[] items = client().prepareBulk()
                .add(client().prepareIndex("half-fingerprinted")
                        .setId("no-tokens")
                        .setSource(Map.of("fp", Map.of("tokens", 0))))
                .add(client().prepareIndex("half-fingerprinted")
                        .setId("tokens-but-no-simhash")
                        .setSource(Map.of("fp", Map.of("tokens", 12))))
                .add(client().prepareIndex("half-fingerprinted")
                        .setId("no-object")
                        .setSource(Map.of("text", "some words")))
                .get()
                .getItems();
        assertFalse(items[0].getFailureMessage(), items[0].isFailed());
        for (BulkItemResponse item : List.of(items[1], items[2])) {
            assertTrue(item.getId(), item.isFailed());
            assertTrue(
                    item.getFailureMessage(),
                    item.getFailureMessage()
                            .contains("no fingerprint at [fp.simhash]; place this processor after "
                                    + "[near_dup_fingerprint]"));
        }
    }

    /**
     * The document's MinHash fingerprint is read as the field reads it (issue 40): a [scheme] that disagrees with the
     * signature's header is a clear ingest failure, as it is when the field indexes the value.
     */
    public void testAMinhashFingerprintIsReadAsTheFieldReadsIt() {
        pipelineIndex(
                "checked",
                "{\"near_dup_lookup\": {\"field\": \"fp.minhash\", \"target_field\": \"dup\"}}",
                "{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}}}}}");
        int hash = 0x2586f90f;
        String value = SignatureCodec.encode(new int[128], hash);
        BulkItemResponse item = client().prepareBulk()
                .add(client().prepareIndex("checked")
                        .setId("a")
                        .setSource(Map.of("fp", Map.of("minhash", Map.of("value", value, "scheme", "nd1-12345678")))))
                .get()
                .getItems()[0];
        assertTrue(item.isFailed());
        assertTrue(
                item.getFailureMessage(),
                item.getFailureMessage()
                        .contains("signature header has scheme hash 2586f90f but [scheme] is [nd1-12345678]"));
    }

    private static final String CONTAINMENT_MAPPING = """
        {"properties": {"body": {"type": "text"},
          "body_fp": {"properties": {"simhash": {"type": "simhash"},
                                     "minhash": {"type": "minhash", "containment": %s}}},
          "dup": {"properties": {"contained_in": {"type": "keyword"}, "contains": {"type": "keyword"},
                                 "containment": {"type": "float"}}}}}""";

    /** An index whose pipeline fingerprints {@code body} and then runs the lookup {@code processor}. */
    private void containmentIndex(String index, String processor, boolean containmentMapped) {
        pipelineIndex(
                index,
                "{\"near_dup_fingerprint\": {\"field\": \"body\"}}, {\"near_dup_lookup\": " + processor + "}",
                String.format(java.util.Locale.ROOT, CONTAINMENT_MAPPING, containmentMapped));
    }

    private static final String ARTICLE = "the quick brown fox jumps over the lazy dog while the farmer sleeps "
            + "under an old oak tree near the river bank and dreams of a quiet harvest season";
    private static final String HOST = "breaking news today markets rose sharply in early trading " + ARTICLE
            + " weather will be sunny tomorrow with light winds from the west and no rain expected";

    @SuppressWarnings("unchecked")
    private Map<String, Object> dupOf(String index, String id) {
        return (Map<String, Object>)
                client().prepareGet(index, id).get().getSourceAsMap().get("dup");
    }

    /**
     * Host and article in one bulk, so that the second is found only among the recent fingerprints (the search cannot
     * see the first yet): both directions are flagged there with the exact containment, and without a window nothing is.
     */
    public void testContainmentInOneBulkIsFoundAmongTheRecentFingerprints() {
        for (int recentSize : new int[] {0, 10}) {
            for (String contained : new String[] {"like", "document"}) {
                String index = "contain-bulk-" + contained + "-" + recentSize;
                containmentIndex(
                        index,
                        "{\"field\": \"body_fp.minhash\", \"min_containment\": 0.8, \"contained\": \"" + contained
                                + "\", \"target_field\": \"dup\", \"recent_size\": " + recentSize + "}",
                        true);
                // like: the article arrives second and lies inside the host; document: the host arrives second and
                // holds the article.
                String[] order = contained.equals("like")
                        ? new String[] {"host", HOST, "article", ARTICLE}
                        : new String[] {"article", ARTICLE, "host", HOST};
                assertFalse(client().prepareBulk()
                        .add(client().prepareIndex(index).setId(order[0]).setSource(Map.of("body", order[1])))
                        .add(client().prepareIndex(index).setId(order[2]).setSource(Map.of("body", order[3])))
                        .setRefreshPolicy("true")
                        .get()
                        .hasFailures());
                Map<String, Object> second = dupOf(index, order[2]);
                assertNull("the first had nothing earlier to compare with", dupOf(index, order[0]));
                if (recentSize == 0) {
                    assertNull("without recent fingerprints the refresh window hides the first", second);
                } else {
                    String idField = contained.equals("like") ? "contained_in" : "contains";
                    assertEquals(Map.of(idField, order[0], "containment", 1.0), second);
                }
            }
        }
    }

    /** A later document is looked up by the search: its containment is the query's score, and no cluster is written. */
    public void testContainmentOfASearchableDocumentIsTheQueryScore() {
        containmentIndex(
                "contain-indexed",
                "{\"field\": \"body_fp.minhash\", \"min_containment\": 0.5, \"target_field\": \"dup\", "
                        + "\"recent_size\": 0}",
                true);
        client().prepareIndex("contain-indexed")
                .setId("host")
                .setSource(Map.of("body", HOST))
                .setRefreshPolicy("true")
                .get();
        // Three of the article's words replaced: some of its shingles are no longer in the host.
        String edited = ARTICLE.replace("lazy", "sleepy").replace("harvest", "summer");
        client().prepareIndex("contain-indexed")
                .setId("edited")
                .setSource(Map.of("body", edited, "dup", Map.of("contains", "stale")))
                .setRefreshPolicy("true")
                .get();
        Map<String, Object> flag = dupOf("contain-indexed", "edited");
        assertEquals("host", flag.get("contained_in"));
        double containment = ((Number) flag.get("containment")).doubleValue();
        assertTrue("edited, so below 1: " + containment, containment >= 0.5 && containment < 1);
        assertFalse("containment is not an equivalence: no cluster", flag.containsKey("cluster"));
        assertEquals("what the document arrived with in the object stays", "stale", flag.get("contains"));
        // A stranger: nothing found, and a stale answer it arrived with is removed.
        client().prepareIndex("contain-indexed")
                .setId("stranger")
                .setSource(Map.of(
                        "body",
                        "an entirely different sentence about trains and stations in winter",
                        "dup",
                        Map.of("contained_in", "host", "containment", 0.9)))
                .setRefreshPolicy("true")
                .get();
        assertEquals(Map.of(), dupOf("contain-indexed", "stranger"));
    }

    /** A field not mapped with containment fails each document with a 400 naming the field and the mapping parameter. */
    public void testAFieldWithoutContainmentIsAClearIngestFailure() {
        containmentIndex(
                "contain-unmapped",
                "{\"field\": \"body_fp.minhash\", \"min_containment\": 0.8, \"target_field\": \"dup\"}",
                false);
        BulkItemResponse item = client().prepareBulk()
                .add(client().prepareIndex("contain-unmapped").setId("a").setSource(Map.of("body", ARTICLE)))
                .get()
                .getItems()[0];
        assertTrue(item.isFailed());
        assertEquals(org.opensearch.core.rest.RestStatus.BAD_REQUEST, item.status());
        assertTrue(
                item.getFailureMessage(),
                item.getFailureMessage().contains("[body_fp.minhash] mapped with [containment: true]"));
    }
}
