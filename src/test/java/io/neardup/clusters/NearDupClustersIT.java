/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.ShingleTruth;
import io.neardup.core.PartitionedClusters;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code _near_dup_clusters} over HTTP on a real node, with the demo corpus loaded through the pipeline. */
public class NearDupClustersIT extends NearDupRestTestCase {

    private static final String CLUSTER_BY_MINHASH = """
        {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup",
         "representative": {"sort": [{"text_fp.tokens": "desc"}, "_id"]}}""";

    private static Map<String, Object> search(String index, String body) throws IOException {
        return send("POST", "/" + index + "/_search", body);
    }

    private static Map<String, Map<String, Object>> assignments(String index) throws IOException {
        return assignments(index, "text_dup");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> assignments(String index, String target) throws IOException {
        Map<String, Map<String, Object>> result = new HashMap<>();
        for (Map<String, Object> hit : hits(search(index, "{\"size\": 1000, \"_source\": [\"" + target + "\"]}"))) {
            Object value = ((Map<String, Object>) hit.get("_source")).get(target);
            if (value != null) {
                result.put((String) hit.get("_id"), (Map<String, Object>) value);
            }
        }
        return result;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> awaitTask(String taskId) throws IOException {
        Map<String, Object> task = send("GET", "/_tasks/" + taskId + "?wait_for_completion=true&timeout=120s", null);
        assertEquals(task.toString(), Boolean.TRUE, task.get("completed"));
        return task;
    }

    /**
     * Starts a run writing one document a bulk at {@code requestsPerSecond}, in the background, and waits (up to a
     * minute) until it has written {@code updated} documents; its task id.
     */
    @SuppressWarnings("unchecked")
    private static String startSlowRun(String index, String requestsPerSecond, int updated) throws Exception {
        String taskId = (String) send(
                        "POST",
                        "/" + index + "/_near_dup_clusters?wait_for_completion=false&scroll_size=1&requests_per_second="
                                + requestsPerSecond,
                        CLUSTER_BY_MINHASH)
                .get("task");
        for (int attempt = 0; attempt < 600; attempt++) {
            Map<String, Object> running = send("GET", "/_tasks/" + taskId, null);
            Map<String, Object> status =
                    (Map<String, Object>) ((Map<String, Object>) running.get("task")).get("status");
            if ((Integer) status.get("updated") >= updated) {
                break;
            }
            Thread.sleep(100);
        }
        return taskId;
    }

    @SuppressWarnings("unchecked")
    public void testClustersAsATaskThenCollapseAndFilterOnThem() throws Exception {
        String index = "clusters-demo";
        int documents = DemoCorpus.load(client(), index);
        String taskId = (String) send(
                        "POST",
                        "/" + index + "/_near_dup_clusters?wait_for_completion=false&refresh=true",
                        CLUSTER_BY_MINHASH)
                .get("task");
        assertNotNull(taskId);
        Map<String, Object> task = awaitTask(taskId);
        Map<String, Object> status = (Map<String, Object>) ((Map<String, Object>) task.get("task")).get("status");
        assertEquals("done", status.get("phase"));
        Map<String, Object> response = (Map<String, Object>) task.get("response");
        assertEquals(documents, response.get("scanned"));
        int clusters = (Integer) response.get("clusters");
        int clustered = (Integer) response.get("clustered_documents");
        assertTrue(
                "the demo holds several releases of many pages: " + response, clusters >= 20 && clustered > clusters);
        assertEquals(clustered, response.get("updated"));
        assertEquals(List.of(), response.get("failures"));
        // What the run held: no graph on the coordinating node (a run without a query clusters on the shards' parts);
        // on the one data node, the parts (at least each clustered document's node and member); the task's final status
        // says the same.
        long coordinatorBytes = ((Number) response.get("coordinator_bytes")).longValue();
        assertEquals(response.toString(), 0, coordinatorBytes);
        assertTrue(
                response.toString(),
                ((Number) response.get("data_node_bytes")).longValue()
                        >= (long) clustered * (PartitionedClusters.BYTES_PER_NODE + ClusterMembers.BYTES_PER_MEMBER));
        assertEquals(coordinatorBytes, ((Number) status.get("coordinator_bytes")).longValue());
        assertEquals(response.get("data_node_bytes"), status.get("data_node_bytes"));

        // Every member holds the whole assignment; each cluster has one representative, whose _id is the cluster id.
        Map<String, Map<String, Object>> written = assignments(index);
        assertEquals(clustered, written.size());
        Map<String, Integer> sizes = new HashMap<>();
        Map<String, Integer> representatives = new HashMap<>();
        written.forEach((id, value) -> {
            String cluster = (String) value.get("cluster");
            sizes.merge(cluster, 1, Integer::sum);
            if (Boolean.TRUE.equals(value.get("representative"))) {
                assertEquals(cluster, id);
                representatives.merge(cluster, 1, Integer::sum);
            }
        });
        assertEquals(clusters, sizes.size());
        written.forEach((id, value) -> assertEquals(id, sizes.get((String) value.get("cluster")), value.get("size")));
        sizes.keySet().forEach(cluster -> assertEquals(cluster, Integer.valueOf(1), representatives.get(cluster)));

        // Stock collapse on the cluster id: one hit per cluster; stock filtering hides the copies.
        Map<String, Object> collapsed = search(index, """
            {"size": 1000, "query": {"exists": {"field": "text_dup.cluster"}}, "collapse": {"field": "text_dup.cluster"},
             "_source": false}""");
        assertEquals(clusters, hits(collapsed).size());
        Map<String, Object> originals = search(index, """
            {"size": 0, "track_total_hits": true, "query": {"bool": {"must_not": {"term": {"text_dup.representative": false}}}}}""");
        assertEquals(
                documents - (clustered - clusters),
                ((Map<String, Object>) ((Map<String, Object>) originals.get("hits")).get("total")).get("value"));

        // Again: nothing changes, nothing is written.
        Map<String, Object> again = send("POST", "/" + index + "/_near_dup_clusters?refresh=true", CLUSTER_BY_MINHASH);
        assertEquals(0, again.get("updated"));
        assertEquals(clustered, again.get("noops"));
        assertEquals(written, assignments(index));
    }

    @SuppressWarnings("unchecked")
    public void testACancelledRunLeavesEachDocumentUntouchedOrFullyAssigned() throws Exception {
        String index = "clusters-cancel";
        DemoCorpus.load(client(), index);
        // One write a second: the run is still writing when it is cancelled.
        String taskId = startSlowRun(index, "1", 2);
        send("POST", "/_tasks/" + taskId + "/_cancel", null);
        Map<String, Object> response = (Map<String, Object>) awaitTask(taskId).get("response");
        assertNotNull("the answer says it was cancelled: " + response, response.get("canceled"));
        send("POST", "/" + index + "/_refresh", null);
        Map<String, Map<String, Object>> written = assignments(index);
        assertEquals(response.get("updated"), written.size());
        assertTrue(
                "cancelled while writing: " + written.size(),
                written.size() >= 2 && written.size() < (Integer) response.get("clustered_documents") + 1);
        for (Map<String, Object> value : written.values()) {
            assertEquals(
                    value.toString(),
                    Map.of(
                            "cluster",
                            value.get("cluster"),
                            "size",
                            value.get("size"),
                            "representative",
                            value.get("representative")),
                    value);
            assertNotNull(value.get("cluster"));
            assertTrue(value.get("size") instanceof Integer);
            assertTrue(value.get("representative") instanceof Boolean);
        }
    }

    /**
     * {@code _rethrottle} over HTTP, as {@code _update_by_query}'s: a run writing one document every two seconds,
     * rethrottled to unlimited after its first write, answers with the new rate and then writes the rest at once;
     * what does not apply is a 400 or a 404.
     */
    @SuppressWarnings("unchecked")
    public void testRethrottleChangesARunningRunsRate() throws Exception {
        String index = "clusters-rethrottle";
        DemoCorpus.load(client(), index);
        String taskId = startSlowRun(index, "0.5", 1);
        Map<String, Object> status = (Map<String, Object>)
                ((Map<String, Object>) send("GET", "/_tasks/" + taskId, null).get("task")).get("status");
        assertEquals(0.5, ((Number) status.get("requests_per_second")).doubleValue(), 0);
        Map<String, Object> rethrottled =
                send("POST", "/_near_dup_clusters/" + taskId + "/_rethrottle?requests_per_second=-1", "");
        Map<String, Object> node = (Map<String, Object>) ((Map<String, Object>) rethrottled.get("nodes"))
                .values()
                .iterator()
                .next();
        Map<String, Object> task = (Map<String, Object>) ((Map<String, Object>) node.get("tasks")).get(taskId);
        assertEquals(
                -1.0,
                ((Number) ((Map<String, Object>) task.get("status")).get("requests_per_second")).doubleValue(),
                0);
        Map<String, Object> response = (Map<String, Object>) awaitTask(taskId).get("response");
        assertEquals(response.get("clustered_documents"), response.get("updated"));

        String missing = taskId.substring(0, taskId.indexOf(':')) + ":" + Long.MAX_VALUE;
        for (String[] refused : new String[][] {
            {"/_near_dup_clusters/" + missing + "/_rethrottle?requests_per_second=10", "404", "is missing"},
            {"/_near_dup_clusters/" + taskId + "/_rethrottle", "400", "[requests_per_second] is required"},
            {"/_near_dup_clusters/" + taskId + "/_rethrottle?requests_per_second=0", "400", "must be > 0"},
            {"/_near_dup_clusters/not-a-task/_rethrottle?requests_per_second=10", "400", "task id"}
        }) {
            String reason = expectRefused(Integer.parseInt(refused[1]), "POST", refused[0], "");
            assertTrue(reason, reason.contains(refused[2]));
        }
    }

    public void testBadRequestsAre400sNamingTheParameter() throws Exception {
        String index = "clusters-bad";
        DemoCorpus.load(client(), index);
        String path = "/" + index + "/_near_dup_clusters";
        assertBadRequest("POST", path, "{\"target_field\": \"d\"}", "[field] is required");
        assertBadRequest("POST", path, "{\"field\": \"text_fp.simhash\"}", "requires [target_field]");
        assertBadRequest(
                "POST", path, "{\"field\": \"text\", \"target_field\": \"d\"}", "[field] [text] is of type [text]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"group\"}",
                "[group] is mapped as [keyword]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\", \"max_distance\": 9}",
                "[max_distance] must be in [0, 8]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\", \"linkage\": \"complete\"}",
                "[linkage] must be [single] or [leader]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\", \"colour\": 1}",
                "unknown option [colour]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.minhash\", \"target_field\": \"d\", \"min_similarity\": \"high\"}",
                "[min_similarity] must be a number");
        assertBadRequest(
                "POST", path + "?slices=many", "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\"}", "[slices]");
        // 0 ran as auto (issue 40); _update_by_query refuses it.
        assertBadRequest(
                "POST",
                path + "?slices=0",
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\"}",
                "[slices] must be in [1, 64] or [auto], got [0]");
        assertBadRequest(
                "POST",
                path + "?scroll_size=0",
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\"}",
                "[scroll_size]");
        assertBadRequest(
                "POST",
                path + "?conflicts=ignore",
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\"}",
                "[conflicts]");
        assertBadRequest("POST", path, "{\"field\": \"text_fp.simhash\", \"target_field\": \"_id\"}", "[target_field]");
        assertBadRequest(
                "POST",
                path,
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\", \"representative\": {\"sort\": "
                        + "[{\"text\": \"asc\"}]}}",
                "Text fields are not optimised");
        expectRefused(
                404,
                "POST",
                "/no-such-index/_near_dup_clusters",
                "{\"field\": \"text_fp.simhash\", \"target_field\": \"d\"}");
        assertTrue("nothing was written", assignments(index).isEmpty());
    }

    /**
     * A {@code simhash} run (the shards' self-join: 2 shards, windows of a few documents) against
     * the connected components of every pair within the distance, computed here from the stored
     * fingerprints.
     */
    @SuppressWarnings("unchecked")
    public void testSimhashRunEqualsTheComponentsOfAllPairsWithinTheDistance() throws Exception {
        String index = "clusters-simhash";
        int documents = DemoCorpus.load(client(), index);
        int distance = 6;
        Map<String, Object> response = send(
                "POST",
                "/" + index + "/_near_dup_clusters?refresh=true&slices=auto&scroll_size=" + between(5, 60),
                "{\"field\": \"text_fp.simhash\", \"max_distance\": " + distance + ", \"target_field\": \"text_dup\"}");
        assertEquals(documents, response.get("scanned"));
        List<String> ids = new java.util.ArrayList<>();
        List<Long> fingerprints = new java.util.ArrayList<>();
        for (Map<String, Object> hit : hits(
                search(index, "{\"size\": 1000, \"_source\": false, \"docvalue_fields\": [\"text_fp.simhash\"]}"))) {
            ids.add((String) hit.get("_id"));
            String hex = ((List<String>) ((Map<String, Object>) hit.get("fields")).get("text_fp.simhash")).get(0);
            fingerprints.add(Long.parseUnsignedLong(hex, 16));
        }
        assertEquals(documents, ids.size());
        int[] parent = new int[ids.size()];
        for (int i = 0; i < parent.length; i++) {
            parent[i] = i;
        }
        long pairs = 0;
        for (int a = 0; a < ids.size(); a++) {
            for (int b = a + 1; b < ids.size(); b++) {
                if (Long.bitCount(fingerprints.get(a) ^ fingerprints.get(b)) <= distance) {
                    pairs++;
                    parent[root(parent, a)] = root(parent, b);
                }
            }
        }
        assertTrue("the demo's releases of one page are within " + distance + " bits: " + pairs, pairs > 50);
        assertEquals("every pair found once", pairs, ((Number) response.get("matches")).longValue());
        Map<String, Map<String, Object>> written = assignments(index);
        for (int a = 0; a < ids.size(); a++) {
            for (int b = a + 1; b < ids.size(); b++) {
                boolean together = root(parent, a) == root(parent, b);
                Map<String, Object> first = written.get(ids.get(a));
                Map<String, Object> second = written.get(ids.get(b));
                boolean writtenTogether =
                        first != null && second != null && first.get("cluster").equals(second.get("cluster"));
                assertEquals(ids.get(a) + " and " + ids.get(b), together, writtenTogether);
            }
        }
    }

    /**
     * A {@code minhash} run (the band join within and across 2 shards) against the connected components of
     * every pair of documents with exact Jaccard at least τ, computed here from the texts ({@link ShingleTruth}:
     * the standard analyzer's words, 3-shingles as strings), not from anything the plugin stored. The banding
     * can miss a pair just above τ by design; the demo corpus and the hash seeds are fixed, so a miss would
     * fail here every time, naming the pair and its Jaccard, and none does at these τ.
     */
    @SuppressWarnings("unchecked")
    public void testMinhashRunEqualsTheComponentsOfExactJaccard() throws Exception {
        String index = "clusters-exact";
        int documents = DemoCorpus.load(client(), index);
        List<String> ids = new java.util.ArrayList<>();
        List<Set<String>> shingles = new java.util.ArrayList<>();
        for (Map<String, Object> hit : hits(search(index, "{\"size\": 1000, \"_source\": [\"text\"]}"))) {
            ids.add((String) hit.get("_id"));
            shingles.add(ShingleTruth.shingles((String) ((Map<String, Object>) hit.get("_source")).get("text"), 3));
        }
        assertEquals(documents, ids.size());
        for (double tau : new double[] {0.5, 0.8}) {
            String target = "exact_" + Math.round(tau * 10);
            Map<String, Object> response = send(
                    "POST",
                    "/" + index + "/_near_dup_clusters?refresh=true",
                    "{\"field\": \"text_fp.minhash\", \"min_similarity\": " + tau + ", \"target_field\": \"" + target
                            + "\"}");
            assertEquals(documents, response.get("scanned"));
            int[] parent = new int[ids.size()];
            for (int i = 0; i < parent.length; i++) {
                parent[i] = i;
            }
            double[][] similarity = new double[ids.size()][ids.size()];
            long pairs = 0;
            for (int a = 0; a < ids.size(); a++) {
                for (int b = a + 1; b < ids.size(); b++) {
                    similarity[a][b] = ShingleTruth.jaccard(shingles.get(a), shingles.get(b));
                    if (similarity[a][b] >= tau) {
                        pairs++;
                        parent[root(parent, a)] = root(parent, b);
                    }
                }
            }
            assertTrue("the demo's releases of one page are alike: " + pairs + " pairs at " + tau, pairs > 50);
            Map<String, Map<String, Object>> written = assignments(index, target);
            assertFalse(written.isEmpty());
            for (int a = 0; a < ids.size(); a++) {
                for (int b = a + 1; b < ids.size(); b++) {
                    Map<String, Object> first = written.get(ids.get(a));
                    Map<String, Object> second = written.get(ids.get(b));
                    boolean writtenTogether = first != null
                            && second != null
                            && first.get("cluster").equals(second.get("cluster"));
                    assertEquals(
                            ids.get(a) + " and " + ids.get(b) + " (Jaccard " + similarity[a][b] + ") at " + tau,
                            root(parent, a) == root(parent, b),
                            writtenTogether);
                }
            }
        }
    }

    /**
     * Issue 41's acceptance, "an alias over 5 daily indices" and "an index pattern": texts of random words (no two
     * alike), each written 1 to 4 times over five daily indices behind an alias, under {@code _id}s that repeat in
     * every index, so that the expected partition is known by construction: the copies of one text. {@code
     * _near_dup_clusters} over the alias and over {@code logs-*} finds it: each copy's assignment written into the copy's
     * own index, every copy of a text naming the same representative (a copy, by index and {@code _id}) and the
     * text's number of copies, the representative marked, no assignment on a text written once.
     */
    @SuppressWarnings("unchecked")
    public void testClustersOverAnAliasOfFiveDailyIndicesAndOverAPatternAreTheCopiesOfEachText() throws Exception {
        send(
                "PUT",
                "/_ingest/pipeline/" + DemoCorpus.PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        List<String> days =
                List.of("logs-2026.11.01", "logs-2026.11.02", "logs-2026.11.03", "logs-2026.11.04", "logs-2026.11.05");
        java.util.Random random = new java.util.Random(random().nextLong());
        List<String> texts = new java.util.ArrayList<>();
        for (int t = 0; t < 30; t++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 40; w++) {
                text.append(w == 0 ? "" : " ").append("w").append(Integer.toString(random.nextInt(1_000_000), 36));
            }
            texts.add(text.toString());
        }
        // (index/_id) -> the text it is a copy of; each text's copies.
        Map<String, Integer> textOf = new HashMap<>();
        Map<Integer, Set<String>> copiesOf = new HashMap<>();
        for (int d = 0; d < days.size(); d++) {
            send(
                    "PUT",
                    "/" + days.get(d),
                    DemoCorpus.INDEX_SETUP.replace("\"number_of_shards\": 2", "\"number_of_shards\": " + (1 + d % 2)));
            StringBuilder bulk = new StringBuilder();
            for (int k = 0; k < 12; k++) {
                int text = random.nextInt(texts.size());
                textOf.put(days.get(d) + "/" + k, text);
                copiesOf.computeIfAbsent(text, x -> new java.util.HashSet<>()).add(days.get(d) + "/" + k);
                bulk.append("{\"index\": {\"_id\": \"")
                        .append(k)
                        .append("\"}}\n{\"text\": \"")
                        .append(texts.get(text))
                        .append("\"}\n");
            }
            Map<String, Object> response = send("POST", "/" + days.get(d) + "/_bulk?refresh=true", bulk.toString());
            assertEquals(response.toString(), false, response.get("errors"));
        }
        putAlias("logs", days);
        assertTrue(
                "some text has copies in two indices",
                copiesOf.values().stream()
                        .anyMatch(c -> c.stream()
                                        .map(key -> key.split("/")[0])
                                        .distinct()
                                        .count()
                                > 1));

        for (String name : List.of("logs", "logs-*")) {
            String target = name.equals("logs") ? "by_alias" : "by_pattern";
            Map<String, Object> response = send(
                    "POST",
                    "/" + name + "/_near_dup_clusters?refresh=true",
                    "{\"field\": \"text_fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"" + target + "\"}");
            assertEquals(response.toString(), textOf.size(), response.get("scanned"));
            Map<String, Map<String, Object>> written = new HashMap<>();
            for (Map<String, Object> hit :
                    hits(search("logs-*", "{\"size\": 1000, \"_source\": [\"" + target + "\"]}"))) {
                Object value = ((Map<String, Object>) hit.get("_source")).get(target);
                if (value != null) {
                    // Read from the hit of the copy's own index: the assignment was written there.
                    written.put(hit.get("_index") + "/" + hit.get("_id"), (Map<String, Object>) value);
                }
            }
            Set<String> representatives = new java.util.HashSet<>();
            for (Map.Entry<Integer, Set<String>> text : copiesOf.entrySet()) {
                Set<String> copies = text.getValue();
                if (copies.size() == 1) {
                    assertNull(
                            name + ": " + copies + " is written once",
                            written.get(copies.iterator().next()));
                    continue;
                }
                String representative = null;
                for (String copy : copies) {
                    Map<String, Object> assignment = written.get(copy);
                    assertNotNull(name + ": " + copy + " is a copy of " + copies, assignment);
                    String named = assignment.get("cluster_index") + "/" + assignment.get("cluster");
                    assertTrue(name + ": " + copy + " names a copy, " + named, copies.contains(named));
                    representative = representative == null ? named : representative;
                    assertEquals(name + ": " + copy, representative, named);
                    assertEquals(name + ": " + copy, copies.size(), assignment.get("size"));
                    assertEquals(name + ": " + copy, copy.equals(named), assignment.get("representative"));
                }
                representatives.add(representative);
            }
            assertEquals(
                    name + ": one representative a text written more than once",
                    copiesOf.values().stream().filter(c -> c.size() > 1).count(),
                    representatives.size());
            assertEquals(
                    name + ": no assignment but on copies",
                    copiesOf.values().stream()
                            .filter(c -> c.size() > 1)
                            .mapToInt(Set::size)
                            .sum(),
                    written.size());
        }
    }

    private static int root(int[] parent, int node) {
        while (parent[node] != node) {
            node = parent[node] = parent[parent[node]];
        }
        return node;
    }
}
