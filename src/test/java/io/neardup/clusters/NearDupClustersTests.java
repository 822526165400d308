/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.DataStreamTemplates;
import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import io.neardup.core.SimhashCodec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.cluster.metadata.DataStream;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.search.SearchModule;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/**
 * {@code _near_dup_clusters} on random indices of several shards over two data nodes, against
 * clusterings computed here by brute force from the fingerprints as indexed: every pair compared.
 */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 2)
public class NearDupClustersTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** Documents: groups of fingerprints within a few bits of a base, and unrelated ones; {@code rank} decides representatives. */
    private Map<String, Long> indexSimhashes(String index, int groups, int maxFlip) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", between(1, 5))
                        .put("index.number_of_replicas", between(0, 1)))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": "
                        + "{\"type\": \"simhash\"}}}, \"rank\": {\"type\": \"integer\"}}}"));
        Random random = random();
        Map<String, Long> fingerprints = new HashMap<>();
        BulkRequestBuilder bulk = client().prepareBulk();
        int doc = 0;
        for (int g = 0; g < groups; g++) {
            long base = random.nextLong();
            int copies = randomFrom(0, 0, 1, 1, 2, 3, 6);
            for (int c = 0; c <= copies; c++) {
                long fp = base;
                for (int flips = between(0, maxFlip); flips > 0; flips--) {
                    fp ^= 1L << random.nextInt(64);
                }
                String id = "d" + doc++;
                fingerprints.put(id, fp);
                bulk.add(client().prepareIndex(index)
                        .setId(id)
                        .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(fp)), "rank", between(0, 20))));
            }
        }
        // A document without a fingerprint is left alone and counted.
        bulk.add(client().prepareIndex(index).setId("plain").setSource(Map.of("rank", 1)));
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        return fingerprints;
    }

    private NearDupClustersResponse run(String index, String body) throws Exception {
        return run(index, body, request -> {});
    }

    private NearDupClustersResponse run(
            String index, String body, java.util.function.Consumer<NearDupClustersRequest> options) throws Exception {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents()),
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                body)) {
            NearDupClustersRequest request =
                    NearDupClustersRequest.parse(index, parser).refresh(true);
            options.accept(request);
            return client().execute(NearDupClustersDryRunAction.of(request), request)
                    .actionGet();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> assignments(String index, String targetField) {
        Map<String, Map<String, Object>> result = new HashMap<>();
        SearchResponse response = client().prepareSearch(index).setSize(10_000).get();
        for (SearchHit hit : response.getHits()) {
            Object value = hit.getSourceAsMap().get(targetField);
            if (value != null) {
                result.put(hit.getId(), (Map<String, Object>) value);
            }
        }
        return result;
    }

    private static Map<String, Integer> ranks(String index) {
        Map<String, Integer> ranks = new HashMap<>();
        for (SearchHit hit : client().prepareSearch(index).setSize(10_000).get().getHits()) {
            ranks.put(hit.getId(), (Integer) hit.getSourceAsMap().get("rank"));
        }
        return ranks;
    }

    /** Brute force: connected components of the pairs {@code near} says are near-duplicates. */
    static Map<String, Set<String>> components(List<String> ids, java.util.function.BiPredicate<String, String> near) {
        Map<String, Set<String>> componentOf = new HashMap<>();
        for (String id : ids) {
            componentOf.put(id, new HashSet<>(Set.of(id)));
        }
        for (int a = 0; a < ids.size(); a++) {
            for (int b = a + 1; b < ids.size(); b++) {
                if (near.test(ids.get(a), ids.get(b)) && componentOf.get(ids.get(a)) != componentOf.get(ids.get(b))) {
                    Set<String> merged = componentOf.get(ids.get(a));
                    merged.addAll(componentOf.get(ids.get(b)));
                    for (String member : componentOf.get(ids.get(b))) {
                        componentOf.put(member, merged);
                    }
                }
            }
        }
        return componentOf;
    }

    /** Representative order of the requests below: {@code rank} ascending, then {@code _id}. */
    private static String best(Set<String> members, Map<String, Integer> ranks) {
        return members.stream()
                .min((a, b) -> ranks.get(a).equals(ranks.get(b))
                        ? a.compareTo(b)
                        : Integer.compare(ranks.get(a), ranks.get(b)))
                .orElseThrow();
    }

    private static void assertWritten(
            Map<String, Set<String>> expected, Map<String, Map<String, Object>> written, Map<String, Integer> ranks) {
        for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
            Set<String> cluster = e.getValue();
            Map<String, Object> value = written.get(e.getKey());
            if (cluster.size() < 2) {
                assertNull(e.getKey() + " is in no cluster", value);
                continue;
            }
            assertNotNull(e.getKey() + " is in " + cluster, value);
            String representative = best(cluster, ranks);
            assertEquals(e.getKey(), representative, value.get("cluster"));
            assertEquals(e.getKey(), cluster.size(), value.get("size"));
            assertEquals(e.getKey(), e.getKey().equals(representative), value.get("representative"));
        }
        assertEquals(
                "nothing written outside the expected clusters",
                expected.values().stream().filter(c -> c.size() >= 2).count(),
                written.size());
    }

    public void testSingleLinkageEqualsConnectedComponentsOfAllPairs() throws Exception {
        int distance = between(2, 5);
        Map<String, Long> fps = indexSimhashes("single", between(20, 60), distance);
        NearDupClustersResponse response = run(
                "single",
                "{\"field\": \"fp.simhash\", \"max_distance\": " + distance
                        + ", \"target_field\": \"dup\", \"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}}",
                r -> r.scrollSize(between(1, 50)).slices(between(0, 3)));
        List<String> ids = new ArrayList<>(fps.keySet());
        Map<String, Set<String>> expected =
                components(ids, (a, b) -> Long.bitCount(fps.get(a) ^ fps.get(b)) <= distance);
        Map<String, Integer> ranks = ranks("single");
        assertWritten(expected, assignments("single", "dup"), ranks);
        long clusters = new HashSet<>(expected.values())
                .stream().filter(c -> c.size() >= 2).count();
        assertEquals(clusters, response.counts().clusters());
        assertEquals(fps.size() + 1, response.counts().scanned());
        assertEquals(1, response.counts().noFingerprint());
        assertEquals(0, response.counts().versionConflicts());
        assertTrue(response.failures().isEmpty());
        assertEquals(Arrays.stream(response.sizeHistogram()).sum(), clusters);
        // The shards' self-join reports every pair exactly once, whatever the windows (scroll_size) and shards.
        long pairs = 0;
        for (int a = 0; a < ids.size(); a++) {
            for (int b = a + 1; b < ids.size(); b++) {
                pairs += Long.bitCount(fps.get(ids.get(a)) ^ fps.get(ids.get(b))) <= distance ? 1 : 0;
            }
        }
        assertEquals(pairs, response.counts().matches());

        // Run again: same clusters, nothing to write; the ids are stable.
        NearDupClustersResponse again = run(
                "single",
                "{\"field\": \"fp.simhash\", \"max_distance\": " + distance
                        + ", \"target_field\": \"dup\", \"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}}");
        assertEquals(0, again.counts().updated());
        assertEquals(response.clusteredDocuments(), again.counts().noops());
        assertWritten(expected, assignments("single", "dup"), ranks);
    }

    public void testLeaderLinkageMatchesTheReference() throws Exception {
        int distance = between(3, 6);
        Map<String, Long> fps = indexSimhashes("leader", between(20, 50), distance);
        run(
                "leader",
                "{\"field\": \"fp.simhash\", \"max_distance\": " + distance
                        + ", \"target_field\": \"dup\", "
                        + "\"linkage\": \"leader\", \"representative\": {\"sort\": [{\"rank\": \"asc\"}]}}");
        Map<String, Integer> ranks = ranks("leader");
        List<String> order = new ArrayList<>(fps.keySet());
        order.sort((a, b) ->
                ranks.get(a).equals(ranks.get(b)) ? a.compareTo(b) : Integer.compare(ranks.get(a), ranks.get(b)));
        // Reference: in rank order, join the closest leader within the distance (ties: the better ranked), else lead.
        Map<String, String> leaderOf = new HashMap<>();
        List<String> leaders = new ArrayList<>();
        for (String id : order) {
            String best = null;
            for (String leader : leaders) {
                int d = Long.bitCount(fps.get(id) ^ fps.get(leader));
                if (d <= distance && (best == null || d < Long.bitCount(fps.get(id) ^ fps.get(best)))) {
                    best = leader;
                }
            }
            if (best == null) {
                leaders.add(id);
                leaderOf.put(id, id);
            } else {
                leaderOf.put(id, best);
            }
        }
        Map<String, Set<String>> expected = new HashMap<>();
        Map<String, Set<String>> byLeader = new HashMap<>();
        leaderOf.forEach((id, leader) ->
                byLeader.computeIfAbsent(leader, k -> new HashSet<>()).add(id));
        leaderOf.forEach((id, leader) -> expected.put(id, byLeader.get(leader)));
        Map<String, Map<String, Object>> written = assignments("leader", "dup");
        for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
            Map<String, Object> value = written.get(e.getKey());
            if (e.getValue().size() < 2) {
                assertNull(e.getKey(), value);
            } else {
                assertEquals(e.getKey(), leaderOf.get(e.getKey()), value.get("cluster"));
                assertEquals(e.getKey(), e.getValue().size(), value.get("size"));
            }
        }
    }

    /** One shard (the band join within it) and several on two nodes, with replicas (the look-ups across shards). */
    public void testMinhashClustersEqualComponentsOfExactJaccard() throws Exception {
        minhashClustersEqualComponentsOfExactJaccard(1, 0);
        minhashClustersEqualComponentsOfExactJaccard(between(2, 4), between(0, 1));
    }

    /** {@code groups} random texts of 80 words, each with 0 to 4 near-copies (0–4 word edits each). */
    static List<List<String>> nearCopyGroups(int groups) {
        Random random = random();
        List<List<String>> all = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            StringBuilder base = new StringBuilder();
            for (int w = 0; w < 80; w++) {
                base.append("w").append(random.nextInt(5000)).append(' ');
            }
            List<String> group = new ArrayList<>();
            for (int c = 0; c <= randomFrom(0, 0, 1, 2, 4); c++) {
                String text = base.toString();
                for (int edits = between(0, 4); edits > 0; edits--) {
                    text = text.replaceFirst("w" + random.nextInt(5000) + " ", "x ");
                    text = text.replaceFirst(" w", " z w");
                }
                group.add(text);
            }
            all.add(group);
        }
        return all;
    }

    /** Groups of near-copies of random texts (0–4 word edits each) in a new index through the fingerprint pipeline: id → text. */
    private Map<String, String> indexMinhashTexts(String index, int shards, int replicas) throws Exception {
        ClusterRequests.putFingerprintPipeline(client());
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", shards)
                        .put("index.number_of_replicas", replicas)
                        .put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}, "
                        + "\"simhash\": {\"type\": \"simhash\"}}}, \"rank\": {\"type\": \"integer\"}}}"));
        Map<String, String> texts = new HashMap<>();
        BulkRequestBuilder bulk = client().prepareBulk();
        for (List<String> group : nearCopyGroups(30)) {
            for (String text : group) {
                String id = "t" + texts.size();
                texts.put(id, text);
                bulk.add(client().prepareIndex(index).setId(id).setSource(Map.of("text", text, "rank", between(0, 5))));
            }
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        return texts;
    }

    private void minhashClustersEqualComponentsOfExactJaccard(int shards, int replicas) throws Exception {
        String index = "texts-" + shards;
        Map<String, String> texts = indexMinhashTexts(index, shards, replicas);
        double tau = randomFrom(0.7, 0.8, 0.9);
        run(
                index,
                "{\"field\": \"fp.minhash\", \"min_similarity\": " + tau + ", \"target_field\": \"dup\", "
                        + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}}");
        Map<String, Set<String>> shingles = new HashMap<>();
        texts.forEach((id, text) -> shingles.put(id, ShingleTruth.shingles(text, 3)));
        Map<String, Set<String>> expected =
                components(new ArrayList<>(texts.keySet()), (a, b) -> jaccard(shingles.get(a), shingles.get(b)) >= tau);
        assertWritten(expected, assignments(index, "dup"), ranks(index));
    }

    /**
     * Leader linkage on a {@code minhash} field through the shards' band join equals the same run
     * through the pages (a {@code match_all} query: one {@code near_duplicate} query a document),
     * document by document: cluster, size and representative.
     */
    public void testMinhashLeaderLinkageThroughTheJoinEqualsThePages() throws Exception {
        // One shard: the join within it (where single linkage would skip connected pairs); several: across shards.
        for (int shards : new int[] {1, between(2, 4)}) {
            String index = "leader-mh-" + shards;
            indexMinhashTexts(index, shards, between(0, 1));
            String body = "{\"field\": \"fp.minhash\", \"min_similarity\": " + randomFrom(0.5, 0.7, 0.9)
                    + ", \"linkage\": \"leader\", \"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}";
            run(index, body + ", \"target_field\": \"joined\"}");
            run(index, body + ", \"target_field\": \"paged\", \"query\": {\"match_all\": {}}}");
            Map<String, Map<String, Object>> joined = assignments(index, "joined");
            assertFalse("near-copies were clustered", joined.isEmpty());
            assertEquals("shards: " + shards, assignments(index, "paged"), joined);
        }
    }

    /**
     * {@code min_similarity} on a {@code simhash} field goes through the shards' block join, each
     * neighbour verified on the sibling {@code minhash} field: the same clusters as the pages (a
     * {@code match_all} query; {@code mode: exact}, so both gather every neighbour within the distance).
     */
    public void testSimhashVerifiedOnMinhashThroughTheJoinEqualsThePages() throws Exception {
        for (int shards : new int[] {1, between(2, 4)}) {
            String index = "verified-sh-" + shards;
            indexMinhashTexts(index, shards, between(0, 1));
            // Far enough for edited copies to be neighbours, and a threshold that rejects some of them.
            String body = "{\"field\": \"fp.simhash\", \"mode\": \"exact\", \"max_distance\": 8, \"min_similarity\": "
                    + randomFrom(0.85, 0.9, 0.95)
                    + ", \"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}";
            run(index, body + ", \"target_field\": \"joined\"}");
            run(index, body + ", \"target_field\": \"paged\", \"query\": {\"match_all\": {}}}");
            Map<String, Map<String, Object>> joined = assignments(index, "joined");
            assertEquals("shards: " + shards, assignments(index, "paged"), joined);
        }
    }

    private static double jaccard(Set<String> a, Set<String> b) {
        Set<String> union = new HashSet<>(a);
        union.addAll(b);
        Set<String> intersection = new HashSet<>(a);
        intersection.retainAll(b);
        return union.isEmpty() ? 0 : (double) intersection.size() / union.size();
    }

    /** A {@code query} run assigns only the new documents, joining the existing clusters (ids kept, sizes updated). */
    public void testQueryRunJoinsNewDocumentsToExistingClusters() throws Exception {
        Map<String, Long> fps = indexSimhashes("incremental", between(10, 30), 2);
        String body = "{\"field\": \"fp.simhash\", \"max_distance\": 3, \"target_field\": \"dup\", "
                + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}";
        run("incremental", body + "}");
        Map<String, Map<String, Object>> before = assignments("incremental", "dup");
        // New documents: a copy of some document (a clustered one when there is one), and a pair of new twins.
        String copied = before.isEmpty() ? "d0" : before.keySet().iterator().next();
        long twin = random().nextLong();
        client().prepareIndex("incremental")
                .setId("new-copy")
                .setSource(Map.of(
                        "fp", Map.of("simhash", SimhashCodec.toHex(fps.get(copied))), "rank", 100, "batch", "new"))
                .get();
        client().prepareIndex("incremental")
                .setId("new-a")
                .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(twin)), "rank", 100, "batch", "new"))
                .get();
        client().prepareIndex("incremental")
                .setId("new-b")
                .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(twin ^ 1)), "rank", 101, "batch", "new"))
                .get();
        refresh("incremental");
        NearDupClustersResponse response = run("incremental", body + ", \"query\": {\"term\": {\"batch\": \"new\"}}}");
        assertEquals("only the new documents are scanned", 3, response.counts().scanned());
        fps.put("new-copy", fps.get(copied));
        fps.put("new-a", twin);
        fps.put("new-b", twin ^ 1);
        Map<String, Set<String>> expected =
                components(new ArrayList<>(fps.keySet()), (a, b) -> Long.bitCount(fps.get(a) ^ fps.get(b)) <= 3);
        Map<String, Integer> ranks = ranks("incremental");
        Map<String, Map<String, Object>> after = assignments("incremental", "dup");
        assertWritten(expected, after, ranks);
        if (before.containsKey(copied)) {
            assertEquals(
                    "the cluster id is kept",
                    before.get(copied).get("cluster"),
                    after.get("new-copy").get("cluster"));
        }
        assertEquals("new-a", after.get("new-b").get("cluster"));
    }

    /** With {@code singletons} every fingerprinted document gets a cluster; a later full run without it clears those again. */
    public void testSingletonsAndClearingStaleAssignments() throws Exception {
        Map<String, Long> fps = indexSimhashes("singletons", between(10, 30), 2);
        String body = "{\"field\": \"fp.simhash\", \"max_distance\": 2, \"target_field\": \"dup\", "
                + "\"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}";
        run("singletons", body + ", \"singletons\": true}");
        Map<String, Set<String>> expected =
                components(new ArrayList<>(fps.keySet()), (a, b) -> Long.bitCount(fps.get(a) ^ fps.get(b)) <= 2);
        Map<String, Map<String, Object>> written = assignments("singletons", "dup");
        assertEquals("every fingerprinted document, not the one without a fingerprint", fps.keySet(), written.keySet());
        long alone = expected.values().stream().filter(c -> c.size() == 1).count();
        for (Map.Entry<String, Set<String>> e : expected.entrySet()) {
            if (e.getValue().size() == 1) {
                assertEquals(Map.of("cluster", e.getKey(), "size", 1, "representative", true), written.get(e.getKey()));
            }
        }
        NearDupClustersResponse withoutSingletons = run("singletons", body + "}");
        assertEquals(alone, withoutSingletons.cleared());
        assertEquals(
                withoutSingletons.clusteredDocuments(),
                withoutSingletons.counts().noops());
        assertWritten(expected, assignments("singletons", "dup"), ranks("singletons"));
    }

    /**
     * Documents changed while the run writes are version conflicts, never overwritten: with
     * {@code conflicts=proceed} each one keeps its change and no assignment, and is counted.
     */
    public void testDocumentsChangedDuringTheWritesAreConflictsNotOverwritten() throws Exception {
        Map<String, Long> fps = indexSimhashes("conflicts", 30, 1);
        java.util.concurrent.Future<NearDupClustersResponse> running;
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY,
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                "{\"field\": \"fp.simhash\", \"max_distance\": 1, " + "\"target_field\": \"dup\"}")) {
            // One document a bulk, five a second: slow enough to change documents while it writes.
            NearDupClustersRequest request = NearDupClustersRequest.parse("conflicts", parser)
                    .scrollSize(1)
                    .requestsPerSecond(5)
                    .abortOnVersionConflict(false)
                    .refresh(true);
            running = client().execute(NearDupClustersAction.INSTANCE, request);
        }
        ClusterRequests.awaitFirstWrite(client());
        BulkRequestBuilder touch = client().prepareBulk();
        fps.keySet()
                .forEach(id -> touch.add(client().prepareUpdate("conflicts", id).setDoc(Map.of("touched", true))));
        assertFalse(touch.setRefreshPolicy("true").get().hasFailures());
        NearDupClustersResponse response = running.get();
        assertTrue(
                "some writes came after the change: " + response.counts(),
                response.counts().versionConflicts() >= 1);
        int keptChangeWithoutAssignment = 0;
        for (SearchHit hit :
                client().prepareSearch("conflicts").setSize(1000).get().getHits()) {
            Map<String, Object> source = hit.getSourceAsMap();
            if (fps.containsKey(hit.getId())) {
                assertEquals("every change survives: " + hit.getId(), true, source.get("touched"));
                if (source.get("dup") == null) {
                    keptChangeWithoutAssignment++;
                }
            }
        }
        long unclustered =
                components(new ArrayList<>(fps.keySet()), (a, b) -> Long.bitCount(fps.get(a) ^ fps.get(b)) <= 1)
                        .values()
                        .stream()
                        .filter(c -> c.size() == 1)
                        .count();
        assertEquals(response.counts().versionConflicts(), keptChangeWithoutAssignment - unclustered);
        // Each conflict is reported, up to the cap on the failures a response lists.
        assertEquals(
                Math.min(response.counts().versionConflicts(), WriteOutcome.MAX_FAILURES_REPORTED),
                response.failures().size());
    }

    /** A query run whose document leaves a pair clears the member left behind too, not only the one it matched. */
    public void testAQueryRunClearsTheMemberAClusterLeavesAlone() throws Exception {
        assertAcked(prepareCreate("leaving")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", between(1, 3))
                        .put("index.number_of_replicas", 0))
                .setMapping(
                        "{\"properties\": {\"fp\": {\"properties\": {\"simhash\": " + "{\"type\": \"simhash\"}}}}}"));
        client().prepareIndex("leaving")
                .setId("a")
                .setSource(Map.of("fp", Map.of("simhash", "0000000000000000")))
                .get();
        client().prepareIndex("leaving")
                .setId("b")
                .setSource(Map.of("fp", Map.of("simhash", "0000000000000001")))
                .get();
        refresh("leaving");
        String body = "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"";
        run("leaving", body + "}");
        assertEquals(2, assignments("leaving", "dup").size());
        // An update (the assignment stays in the document): b is now far from a.
        client().prepareUpdate("leaving", "b")
                .setDoc(Map.of("fp", Map.of("simhash", "ff00000000000000")))
                .get();
        refresh("leaving");
        NearDupClustersResponse response = run("leaving", body + ", \"query\": {\"ids\": {\"values\": [\"b\"]}}}");
        assertEquals(response.counts() + " " + response.failures(), 2, response.cleared());
        assertTrue("neither is in a cluster now", assignments("leaving", "dup").isEmpty());
    }

    /** A dry run reads and reports, and writes nothing: not even the target field's mapping. */
    public void testDryRunWritesNothing() throws Exception {
        indexSimhashes("dry", 20, 1);
        NearDupClustersResponse response =
                run("dry", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}", r -> r.dryRun(true));
        assertEquals(0, response.counts().updated());
        assertTrue(assignments("dry", "dup").isEmpty());
        assertNull(
                client().admin()
                                        .indices()
                                        .prepareGetMappings("dry")
                                        .get()
                                        .mappings()
                                        .get("dry")
                                        .sourceAsMap()
                                        .get("properties")
                                instanceof Map<?, ?> properties
                        ? properties.get("dup")
                        : null);
    }

    /** An option of the other field kind is a 400 naming it, as the query answers, before anything is written. */
    public void testOptionsOfTheOtherFieldKindAreRefused() throws Exception {
        indexMinhashTexts("kinds", 1, 0);
        for (String option : List.of("\"max_distance\": 3", "\"mode\": \"exact\"", "\"max_flips\": 8")) {
            String name = option.substring(1, option.indexOf('"', 1));
            assertThat(
                    expectThrows(
                                    IllegalArgumentException.class,
                                    () -> run(
                                            "kinds",
                                            "{\"field\": \"fp.minhash\", " + option + ", \"target_field\": \"dup\"}"))
                            .getMessage(),
                    org.hamcrest.Matchers.containsString("[_near_dup_clusters] [" + name
                            + "] applies to [simhash] fields; [fp.minhash] is a [minhash] field"));
        }
        assertThat(
                expectThrows(
                                IllegalArgumentException.class,
                                () -> run(
                                        "kinds",
                                        "{\"field\": \"fp.simhash\", \"verification\": \"estimate\", "
                                                + "\"target_field\": \"dup\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[verification] on a [simhash] field goes with [min_similarity]"));
        assertTrue(assignments("kinds", "dup").isEmpty());
    }

    /**
     * A data stream of one generation runs (its assignments written into the backing index, by its name);
     * NearDupClustersAcrossIndicesTests rolls one over.
     */
    public void testADataStreamOfOneGenerationRunsAsOneIndex() throws Exception {
        DataStreamTemplates.put(
                client(),
                "clustered-stream",
                Settings.builder().put("index.number_of_replicas", 0).build(),
                "{\"properties\": {\"@timestamp\": {\"type\": \"date\"}, \"fp\":"
                        + " {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}");
        BulkRequestBuilder bulk = client().prepareBulk().setRefreshPolicy("true");
        for (String[] doc :
                new String[][] {{"a", "0123456789abcdef"}, {"b", "0123456789abcdee"}, {"c", "fedcba9876543210"}}) {
            bulk.add(client().prepareIndex("clustered-stream")
                    .setId(doc[0])
                    .setOpType(DocWriteRequest.OpType.CREATE)
                    .setSource(Map.of("@timestamp", "2026-11-27T00:00:00Z", "fp", Map.of("simhash", doc[1]))));
        }
        assertFalse(bulk.get().hasFailures());
        NearDupClustersResponse response =
                run("clustered-stream", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}");
        assertEquals(2, response.clusteredDocuments());
        Map<String, Map<String, Object>> assigned = assignments("clustered-stream", "dup");
        assertEquals(assigned.toString(), Set.of("a", "b"), assigned.keySet());
        // The representative's index is named already, so that the layout holds once the stream rolls over.
        assertEquals(
                Map.of(
                        "cluster",
                        "a",
                        "cluster_index",
                        DataStream.getDefaultBackingIndexName("clustered-stream", 1),
                        "size",
                        2,
                        "representative",
                        false),
                assigned.get("b"));
        DataStreamTemplates.delete(client(), "clustered-stream");
    }

    public void testBadRequestsFailBeforeAnyWrite() throws Exception {
        indexSimhashes("bad", 10, 1);
        assertAcked(client().admin()
                .indices()
                .preparePutMapping("bad")
                .setSource(
                        "{\"properties\": {\"taken\": {\"type\": \"text\"}, "
                                + "\"half\": {\"properties\": {\"cluster\": {\"type\": \"long\"}}}}}",
                        XContentType.JSON));
        expectThrows(
                IndexNotFoundException.class,
                () -> run("missing", "{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}"));
        assertThat(
                expectThrows(
                                IllegalArgumentException.class,
                                () -> run("bad", "{\"field\": \"rank\", \"target_field\": \"dup\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString(
                        "[field] [rank] is of type [integer], expected [simhash] or [minhash]"));
        assertThat(
                expectThrows(
                                IllegalArgumentException.class,
                                () -> run("bad", "{\"field\": \"nope\", \"target_field\": \"dup\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[field] [nope] is not mapped"));
        assertThat(
                expectThrows(
                                IllegalArgumentException.class,
                                () -> run("bad", "{\"field\": \"fp.simhash\", \"target_field\": " + "\"taken\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[taken] is mapped as [text]"));
        assertThat(
                expectThrows(
                                IllegalArgumentException.class,
                                () -> run("bad", "{\"field\": \"fp.simhash\", \"target_field\": " + "\"half\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[half.cluster] is mapped as [long]"));
        assertThat(
                expectThrows(
                                Exception.class,
                                () -> run(
                                        "bad",
                                        "{\"field\": \"fp.simhash\", \"max_distance\": 99, "
                                                + "\"target_field\": \"dup\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[max_distance] must be in [0, 8]"));
        assertThat(
                expectThrows(
                                Exception.class,
                                () -> run("bad", "{\"field\": \"fp.simhash\", \"target_field\": \"fp.dup\"}"))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("would overwrite the fingerprints"));
        assertTrue(assignments("bad", "dup").isEmpty());
    }
    /**
     * A run with {@code dest} records, one record a document in a new index, what the same run writes into the
     * documents, each with the version it was clustered at; the documents are left as they were. Over one index and
     * over two whose {@code _id}s collide (the record's {@code _id} then names the index). Its index taken is a 400.
     */
    public void testARunWithDestRecordsWhatItWouldWriteIntoTheDocuments() throws Exception {
        indexSimhashes("dest_a", 25, 3);
        indexSimhashes("dest_b", 25, 3);
        for (String indices : List.of("dest_a", "dest_a,dest_b")) {
            boolean many = indices.contains(",");
            String records = many ? "records_many" : "records_one";
            boolean singletons = randomBoolean();
            String options = "\"field\": \"fp.simhash\", \"max_distance\": 3, \"singletons\": " + singletons
                    + ", \"representative\": {\"sort\": [{\"rank\": \"asc\"}, \"_id\"]}";
            Map<String, Map<String, Object>> before = documents(indices, "dup_" + records);
            NearDupClustersResponse recorded =
                    run(indices, "{" + options + ", \"dest\": {\"index\": \"" + records + "\"}}");
            assertEquals("the documents are left as they were", before, documents(indices, "dup_" + records));
            NearDupClustersResponse inPlace =
                    run(indices, "{" + options + ", \"target_field\": \"dup_" + records + "\"}");
            assertTrue(recorded.toString(), recorded.counts().clusters() > 0);
            assertEquals(inPlace.counts().clusters(), recorded.counts().clusters());
            assertEquals(inPlace.counts().updated(), recorded.counts().updated());
            assertEquals(0, recorded.failures().size());

            Map<String, Map<String, Object>> expected = new HashMap<>();
            documents(indices, "dup_" + records).forEach((key, doc) -> {
                if (doc.get("assignment") != null) {
                    expected.put(key, (Map<String, Object>) doc.get("assignment"));
                }
            });
            Map<String, Map<String, Object>> written = new HashMap<>();
            for (SearchHit hit :
                    client().prepareSearch(records).setSize(10_000).get().getHits()) {
                Map<String, Object> record = new HashMap<>(hit.getSourceAsMap());
                String key = record.remove("index") + ":" + record.remove("id");
                assertEquals(many ? key : key.substring(key.indexOf(':') + 1), hit.getId());
                Map<String, Object> version = before.get(key);
                assertEquals(key, version.get("seq_no"), ((Number) record.remove("seq_no")).longValue());
                assertEquals(key, version.get("primary_term"), ((Number) record.remove("primary_term")).longValue());
                assertNull(key + " recorded twice", written.put(key, record));
            }
            assertEquals(expected, written);
            Map<String, Object> mapping = client().admin()
                    .indices()
                    .prepareGetMappings(records)
                    .get()
                    .mappings()
                    .get(records)
                    .sourceAsMap();
            assertEquals(Map.of("neardup_records", 1), mapping.get("_meta"));
            assertEquals("strict", mapping.get("dynamic"));

            assertEquals(
                    "[dest.index] [" + records + "] exists already: a run with [dest] creates the index it writes its"
                            + " records into; delete it, or name another",
                    expectThrows(
                                    IllegalArgumentException.class,
                                    () -> run(indices, "{" + options + ", \"dest\": {\"index\": \"" + records + "\"}}"))
                            .getMessage());
        }
        // A dry run writes nothing, so dest does not apply to it; nor is an index made.
        assertThat(
                expectThrows(
                                Exception.class,
                                () -> run(
                                        "dest_a",
                                        "{\"field\": \"fp.simhash\", \"dest\": {\"index\": \"dry\"}}",
                                        request -> request.dryRun(true)))
                        .getMessage(),
                org.hamcrest.Matchers.containsString("[dest] does not apply to a dry run, which writes nothing"));
        assertFalse(indexExists("dry"));
    }

    /** Each document of {@code indices} by {@code <index>:<_id>}: its {@code seq_no}, {@code primary_term} and {@code target}. */
    private static Map<String, Map<String, Object>> documents(String indices, String target) {
        Map<String, Map<String, Object>> documents = new HashMap<>();
        for (SearchHit hit : client().prepareSearch(indices.split(","))
                .setSize(10_000)
                .seqNoAndPrimaryTerm(true)
                .get()
                .getHits()) {
            Map<String, Object> document = new HashMap<>();
            document.put("seq_no", hit.getSeqNo());
            document.put("primary_term", hit.getPrimaryTerm());
            document.put("assignment", hit.getSourceAsMap().get(target));
            documents.put(hit.getIndex() + ":" + hit.getId(), document);
        }
        return documents;
    }
}
