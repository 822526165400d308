/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.DataStreamTemplates;
import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import io.neardup.core.FingerprintFormat;
import io.neardup.index.IndexFingerprintFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntConsumer;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;
import org.opensearch.threadpool.ThreadPool;

/**
 * {@code _near_dup_clusters} over many indices: a data stream rolled over with the core {@code _rollover} API, a comma
 * list, on two nodes. The run over the stream must give every document the cluster the same run gives it over one
 * index holding the same documents, and that must be the exact components; documents of the same {@code _id} in two
 * indices are two documents.
 */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 2)
public class NearDupClustersAcrossIndicesTests extends OpenSearchIntegTestCase {

    private static final String MAPPING =
            "{\"properties\": {\"@timestamp\": {\"type\": \"date\"}, \"fp\": {\"properties\":"
                    + " {\"minhash\": {\"type\": \"minhash\"}, \"simhash\": {\"type\": \"simhash\"}}},"
                    + " \"rank\": {\"type\": \"integer\"}}}";

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** A document of the tests: its text, its rank (the representative's sort) and the generation it is written in. */
    private record Doc(String text, int rank, int generation) {}

    /** Groups of near-copies of random texts (0–4 word edits each), each copy in a random one of {@code generations}. */
    private static Map<String, Doc> texts(int groups, int generations) {
        Map<String, Doc> docs = new TreeMap<>();
        for (List<String> group : NearDupClustersTests.nearCopyGroups(groups)) {
            for (String text : group) {
                docs.put("t" + docs.size(), new Doc(text, between(0, 5), between(1, generations)));
            }
        }
        return docs;
    }

    private static Map<String, Object> source(Doc doc) {
        return Map.of(
                "@timestamp", "2026-11-2" + doc.generation() + "T00:00:00Z", "text", doc.text(), "rank", doc.rank());
    }

    /** Writes {@code docs} into the data stream {@code stream}, generation by generation, rolling it over between them. */
    private void writeRollingOver(String stream, Map<String, Doc> docs, int generations) {
        writeRollingOver(stream, docs, generations, generation -> {});
    }

    /** As above; {@code beforeRollover} runs before each rollover, with the generation it starts. */
    private void writeRollingOver(String stream, Map<String, Doc> docs, int generations, IntConsumer beforeRollover) {
        for (int generation = 1; generation <= generations; generation++) {
            if (generation > 1) {
                beforeRollover.accept(generation);
                assertAcked(
                        client().admin().indices().prepareRolloverIndex(stream).get());
            }
            BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy("true");
            for (Map.Entry<String, Doc> doc : docs.entrySet()) {
                if (doc.getValue().generation() == generation) {
                    bulk.add(client().prepareIndex(stream)
                            .setId(doc.getKey())
                            .setOpType(DocWriteRequest.OpType.CREATE)
                            .setSource(source(doc.getValue())));
                }
            }
            if (bulk.numberOfActions() > 0) {
                BulkResponse written = bulk.get();
                assertFalse(written.buildFailureMessage(), written.hasFailures());
            }
        }
    }

    private void writeOneIndex(String index, Map<String, Doc> docs) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", between(1, 3))
                        .put("index.number_of_replicas", between(0, 1))
                        .put("index.default_pipeline", "fp"))
                .setMapping(MAPPING));
        BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy("true");
        docs.forEach(
                (id, doc) -> bulk.add(client().prepareIndex(index).setId(id).setSource(source(doc))));
        if (bulk.numberOfActions() > 0) {
            assertFalse(bulk.get().hasFailures());
        }
    }

    /** A written assignment and the index of the document holding it. */
    private record Written(String index, Map<String, Object> assignment) {}

    /** What {@code target} holds in each document of {@code name}, by {@code _id} (unique across the indices here). */
    @SuppressWarnings("unchecked")
    private static Map<String, Written> assignments(String name, String target) {
        Map<String, Written> written = new HashMap<>();
        for (SearchHit hit : client().prepareSearch(name).setSize(10_000).get().getHits()) {
            Object value = hit.getSourceAsMap().get(target);
            if (value != null) {
                assertNull("one document a _id", written.put(hit.getId(), new Written(hit.getIndex(), (Map<
                                String, Object>)
                        value)));
            }
        }
        return written;
    }

    private Map<String, Long> mappingVersions(Collection<String> indices) {
        Map<String, Long> versions = new TreeMap<>();
        for (String index : new HashSet<>(indices)) {
            versions.put(index, clusterService().state().metadata().index(index).getMappingVersion());
        }
        return versions;
    }

    private static Map<String, String> indexOfEachDocument(String name) {
        Map<String, String> indexOf = new HashMap<>();
        for (SearchHit hit : client().prepareSearch(name).setSize(10_000).get().getHits()) {
            indexOf.put(hit.getId(), hit.getIndex());
        }
        return indexOf;
    }

    public void testARolledOverDataStreamIsClusteredAsOneIndexHoldingItsDocuments() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        DataStreamTemplates.put(
                client(),
                "pages",
                Settings.builder()
                        .put("index.number_of_shards", between(1, 3))
                        .put("index.number_of_replicas", between(0, 1))
                        .put("index.default_pipeline", "fp")
                        .build(),
                MAPPING);
        int generations = 3;
        Map<String, Doc> docs = texts(40, generations);
        writeRollingOver("pages", docs, generations);
        writeOneIndex("pages-in-one", docs);
        Map<String, String> indexOf = indexOfEachDocument("pages");
        assertEquals(
                "the stream's documents span its generations", generations, new HashSet<>(indexOf.values()).size());

        String minhash = minhashRunEqualsOneIndexAndTheTruth("pages", "pages-in-one", docs, indexOf);

        // The same on the simhash field: the stream's partition and representatives are the one index's.
        String simhash = "{\"field\": \"fp.simhash\", \"target_field\": \"near\", "
                + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}}";
        ClusterRequests.run(client(), "pages", simhash);
        ClusterRequests.run(client(), "pages-in-one", simhash);
        Map<String, Written> streamNear = assignments("pages", "near");
        Map<String, Written> oneNear = assignments("pages-in-one", "near");
        assertEquals(oneNear.keySet(), streamNear.keySet());
        assertFalse("the simhash run finds clusters", oneNear.isEmpty());
        for (Map.Entry<String, Written> e : streamNear.entrySet()) {
            Map<String, Object> inStream = new HashMap<>(e.getValue().assignment());
            assertEquals(indexOf.get((String) inStream.get("cluster")), inStream.remove("cluster_index"));
            assertEquals(e.getKey(), oneNear.get(e.getKey()).assignment(), inStream);
        }

        // A run again finds every assignment in place: nothing rewritten, and no mapping updated (the target is
        // mapped).
        Map<String, Long> mappingVersions = mappingVersions(indexOf.values());
        NearDupClustersResponse again = ClusterRequests.run(client(), "pages", minhash);
        assertEquals(mappingVersions, mappingVersions(indexOf.values()));
        assertEquals(0, again.counts().updated());
        assertEquals(assignments("pages", "dup").size(), again.counts().noops());
        DataStreamTemplates.delete(client(), "pages");
    }

    /**
     * Runs {@code _near_dup_clusters} on the minhash field over {@code stream} and over {@code oneIndex} (the same
     * documents), and checks every document: the assignment over the stream is the one over one index, beside the
     * representative's backing index, and both are the exact components. Returns the run's body.
     */
    private String minhashRunEqualsOneIndexAndTheTruth(
            String stream, String oneIndex, Map<String, Doc> docs, Map<String, String> indexOf) throws Exception {
        double tau = randomFrom(0.7, 0.8, 0.9);
        String minhash = "{\"field\": \"fp.minhash\", \"min_similarity\": " + tau + ", \"target_field\": \"dup\", "
                + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}}";
        NearDupClustersResponse overStream = ClusterRequests.run(client(), stream, minhash);
        NearDupClustersResponse overOne = ClusterRequests.run(client(), oneIndex, minhash);
        assertEquals(overOne.clusteredDocuments(), overStream.clusteredDocuments());
        assertTrue(overStream.failures().toString(), overStream.failures().isEmpty());

        // The exact truth, computed without the plugin: components of the pairs whose shingle sets' Jaccard is >= tau.
        List<String> ids = new ArrayList<>(docs.keySet());
        Map<String, Set<String>> shingles = new HashMap<>();
        docs.forEach((id, doc) -> shingles.put(id, ShingleTruth.shingles(doc.text(), 3)));
        Map<String, Set<String>> expected = NearDupClustersTests.components(
                ids, (a, b) -> ShingleTruth.jaccard(shingles.get(a), shingles.get(b)) >= tau);
        Map<String, Written> overStreamWritten = assignments(stream, "dup");
        Map<String, Written> one = assignments(oneIndex, "dup");
        for (String id : ids) {
            Set<String> cluster = expected.get(id);
            if (cluster.size() < 2) {
                assertNull(id + " is in no cluster", overStreamWritten.get(id));
                assertNull(id + " is in no cluster", one.get(id));
                continue;
            }
            String representative = cluster.stream()
                    .min((a, b) -> docs.get(a).rank() == docs.get(b).rank()
                            ? a.compareTo(b)
                            : Integer.compare(docs.get(a).rank(), docs.get(b).rank()))
                    .orElseThrow();
            Map<String, Object> inStream = overStreamWritten.get(id).assignment();
            assertEquals(id, representative, inStream.get("cluster"));
            assertEquals(
                    id + " names its representative's backing index",
                    indexOf.get(representative),
                    inStream.get("cluster_index"));
            assertEquals(id, cluster.size(), inStream.get("size"));
            assertEquals(id, id.equals(representative), inStream.get("representative"));
            assertEquals(
                    id + " is written in its own backing index",
                    indexOf.get(id),
                    overStreamWritten.get(id).index());
            Map<String, Object> inOne = new HashMap<>(inStream);
            inOne.remove("cluster_index");
            assertEquals(
                    id + ": the same cluster as over one index", one.get(id).assignment(), inOne);
        }

        return minhash;
    }

    /**
     * A data stream upgraded in place: its first generation of fingerprint format 1, the next ones of format 2 (the
     * template's setting changed before the rollover, as a new plugin's default changes it). Format 1 signatures are
     * not those of the sets, so the band join across the two looks format 1 documents up by their sets' format 2
     * signatures: every pair is found, and the run over the stream is the run over one index of one format.
     */
    public void testADataStreamOfTwoFingerprintFormatsIsClusteredAsOneIndexOfOneFormat() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        Settings.Builder settings = Settings.builder()
                .put("index.number_of_shards", between(1, 2))
                .put("index.number_of_replicas", between(0, 1))
                .put("index.default_pipeline", "fp");
        String format = IndexFingerprintFormat.SETTING.getKey();
        DataStreamTemplates.put(
                client(),
                "upgraded",
                settings.put(format, FingerprintFormat.SIGNATURE.number()).build(),
                MAPPING);
        int generations = 3;
        Map<String, Doc> docs = texts(40, generations);
        writeRollingOver(
                "upgraded",
                docs,
                generations,
                generation -> DataStreamTemplates.put(
                        client(),
                        "upgraded",
                        settings.put(format, FingerprintFormat.COMPACT.number()).build(),
                        MAPPING));
        writeOneIndex("upgraded-in-one", docs);
        Map<String, String> indexOf = indexOfEachDocument("upgraded");
        Set<String> formats = new HashSet<>();
        for (String index : new HashSet<>(indexOf.values())) {
            formats.add(
                    client().admin().indices().prepareGetSettings(index).get().getSetting(index, format));
        }
        assertEquals("both formats hold documents", Set.of("1", "2"), formats);
        minhashRunEqualsOneIndexAndTheTruth("upgraded", "upgraded-in-one", docs, indexOf);
        DataStreamTemplates.delete(client(), "upgraded");
    }

    /**
     * The daily job: after a full run, the stream rolls over and new documents arrive (copies of older ones, and new
     * twins); a run whose {@code query} selects the new day reads only those, matches them against every generation,
     * and leaves every document with the assignment a full run over the whole stream gives it.
     */
    public void testAQueryRunJoinsTheNewDaysDocumentsToClustersOfOlderGenerations() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        DataStreamTemplates.put(
                client(),
                "daily",
                Settings.builder()
                        .put("index.number_of_shards", between(1, 2))
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "fp")
                        .build(),
                MAPPING);
        Map<String, Doc> docs = texts(15, 1);
        writeRollingOver("daily", docs, 1);
        String run = "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"%s\", "
                + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}%s}";
        ClusterRequests.run(client(), "daily", String.format(java.util.Locale.ROOT, run, "dup", ""));

        List<String> older = new ArrayList<>(docs.keySet());
        Map<String, Doc> newDay = new TreeMap<>();
        for (int i = 0; i < 4; i++) {
            newDay.put("new-" + i, new Doc(docs.get(randomFrom(older)).text() + " again", 100 + i, 2));
        }
        String twin = texts(1, 1).values().iterator().next().text();
        newDay.put("twin-a", new Doc(twin, 100, 2));
        newDay.put("twin-b", new Doc(twin + " too", 101, 2));
        assertAcked(client().admin().indices().prepareRolloverIndex("daily").get());
        BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy("true");
        newDay.forEach((id, doc) -> bulk.add(client().prepareIndex("daily")
                .setId(id)
                .setOpType(DocWriteRequest.OpType.CREATE)
                .setSource(source(doc))));
        assertFalse(bulk.get().hasFailures());

        NearDupClustersResponse daily = ClusterRequests.run(
                client(),
                "daily",
                String.format(
                        java.util.Locale.ROOT,
                        run,
                        "dup",
                        ", \"query\": {\"range\": {\"@timestamp\": {\"gte\": \"2026-11-22\"}}}"));
        assertEquals(
                "only the new day is scanned", newDay.size(), daily.counts().scanned());
        ClusterRequests.run(client(), "daily", String.format(java.util.Locale.ROOT, run, "full", ""));
        Map<String, Written> incremental = assignments("daily", "dup");
        Map<String, Written> full = assignments("daily", "full");
        assertEquals(full.keySet(), incremental.keySet());
        for (Map.Entry<String, Written> e : full.entrySet()) {
            assertEquals(
                    e.getKey(),
                    e.getValue().assignment(),
                    incremental.get(e.getKey()).assignment());
        }
        Map<String, String> indexOf = indexOfEachDocument("daily");
        assertEquals(
                indexOf.get("twin-a"), incremental.get("twin-b").assignment().get("cluster_index"));
        for (int i = 0; i < 4; i++) {
            Map<String, Object> copy = incremental.get("new-" + i).assignment();
            assertNotEquals(
                    "a copy joins a cluster of the older generation",
                    indexOf.get("new-" + i),
                    copy.get("cluster_index"));
        }
        DataStreamTemplates.delete(client(), "daily");
    }

    /**
     * A document of {@code _id} x in one index and an unrelated one of the same {@code _id} in another: the near-copy
     * of the first joins the first alone, and the representative names its index.
     */
    public void testTheSameIdInTwoIndicesIsTwoDocuments() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        Map<String, Doc> none = Map.of();
        writeOneIndex("older", none);
        writeOneIndex("newer", none);
        String text = texts(1, 1).values().iterator().next().text();
        String unrelated = texts(1, 1).values().iterator().next().text();
        client().prepareIndex("older")
                .setId("x")
                .setSource(source(new Doc(text, 0, 1)))
                .get();
        client().prepareIndex("newer")
                .setId("x")
                .setSource(source(new Doc(unrelated, 0, 2)))
                .get();
        client().prepareIndex("newer")
                .setId("y")
                .setSource(source(new Doc(text + " one more", 0, 2)))
                .get();
        client().admin().indices().prepareRefresh("older", "newer").get();

        NearDupClustersResponse response = ClusterRequests.run(
                client(),
                "older,newer",
                "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"dup\"}");
        assertEquals(2, response.clusteredDocuments());
        assertEquals(1, response.largest().size());
        assertEquals("x", response.largest().get(0).id());
        assertEquals("older", response.largest().get(0).index());
        Map<String, Object> copy = (Map<String, Object>)
                client().prepareGet("newer", "y").get().getSourceAsMap().get("dup");
        assertEquals(Map.of("cluster", "x", "cluster_index", "older", "size", 2, "representative", false), copy);
        assertEquals(
                Map.of("cluster", "x", "cluster_index", "older", "size", 2, "representative", true),
                client().prepareGet("older", "x").get().getSourceAsMap().get("dup"));
        assertNull(
                "the other x is in no cluster",
                client().prepareGet("newer", "x").get().getSourceAsMap().get("dup"));
    }

    /**
     * A document of {@code _id} x in one index and its near-copy of the same {@code _id} in another (a page indexed again
     * in a newer generation): two documents, which a run pairs with a {@code query} as without one, on the parts and
     * with the graph on the coordinating node (before 2026-11-28 a run with a query left a match of the same {@code _id}
     * out in every index, so the copy was never found).
     */
    public void testTheSameIdInTwoIndicesIsPairedByARunWithAQuery() throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        Map<String, Doc> none = Map.of();
        writeOneIndex("first", none);
        writeOneIndex("second", none);
        String text = texts(1, 1).values().iterator().next().text();
        client().prepareIndex("first")
                .setId("x")
                .setSource(source(new Doc(text, 0, 1)))
                .get();
        client().prepareIndex("second")
                .setId("x")
                .setSource(source(new Doc(text + " one more", 0, 2)))
                .get();
        client().admin().indices().prepareRefresh("first", "second").get();
        String run = "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"";
        String newer = "\", \"query\": {\"term\": {\"_index\": \"second\"}}}";
        Map<String, Object> representative =
                Map.of("cluster", "x", "cluster_index", "first", "size", 2, "representative", true);
        Map<String, Object> copy = Map.of("cluster", "x", "cluster_index", "first", "size", 2, "representative", false);
        for (String target : List.of("full", "queried", "graph")) {
            String body = run + target + (target.equals("full") ? "\"}" : newer);
            NearDupClustersResponse response = target.equals("graph")
                    ? ClusterRequests.runWithTheGraphOnTheCoordinator(
                            client(), internalCluster().getInstance(ThreadPool.class), "first,second", body)
                    : ClusterRequests.run(client(), "first,second", body);
            assertEquals(target, 2, response.clusteredDocuments());
            assertEquals(
                    target,
                    representative,
                    client().prepareGet("first", "x").get().getSourceAsMap().get(target));
            assertEquals(
                    target,
                    copy,
                    client().prepareGet("second", "x").get().getSourceAsMap().get(target));
        }
    }

    /** Indices that map the field as different kinds, or differently, cannot be compared: refused naming both, before any write. */
    public void testIndicesThatMapTheFieldDifferentlyAreRefusedNamingBoth() throws Exception {
        assertAcked(prepareCreate("kind-a").setMapping("{\"properties\": {\"fp\": {\"type\": \"simhash\"}}}"));
        assertAcked(prepareCreate("kind-b").setMapping("{\"properties\": {\"fp\": {\"type\": \"minhash\"}}}"));
        assertAcked(prepareCreate("kind-c")
                .setMapping("{\"properties\": {\"fp\": {\"type\": \"minhash\", \"num_hashes\": 64}}}"));
        client().prepareIndex("kind-a")
                .setId("a")
                .setSource(Map.of("fp", "0123456789abcdef"))
                .setRefreshPolicy("true")
                .get();
        String body = "{\"field\": \"fp\", \"target_field\": \"dup\"}";
        assertThat(
                expectThrows(IllegalArgumentException.class, () -> ClusterRequests.run(client(), "kind-a,kind-b", body))
                        .getMessage(),
                allOf(containsString("[kind-a]"), containsString("[kind-b]")));
        assertThat(
                expectThrows(IllegalArgumentException.class, () -> ClusterRequests.run(client(), "kind-b,kind-c", body))
                        .getMessage(),
                allOf(containsString("[kind-b]"), containsString("[kind-c]"), containsString("alike")));
        assertThat(
                expectThrows(IllegalArgumentException.class, () -> ClusterRequests.run(client(), "kind-x*", body))
                        .getMessage(),
                containsString("names no index"));
        assertNull(
                "nothing mapped",
                client().admin()
                                        .indices()
                                        .prepareGetMappings("kind-a")
                                        .get()
                                        .mappings()
                                        .get("kind-a")
                                        .sourceAsMap()
                                        .get("properties")
                                instanceof Map<?, ?> p
                        ? ((Map<?, ?>) p).get("dup")
                        : null);
    }
}
