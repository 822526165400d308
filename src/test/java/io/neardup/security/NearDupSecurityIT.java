/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.security;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;
import org.opensearch.client.RestClient;

/**
 * Every feature of the plugin beside the real Security plugin, for users whose roles hide documents
 * (DLS), hide the fingerprint object (FLS), mask the fingerprint fields, or grant nothing: a
 * restricted user sees what the admin sees minus what the role hides, refused requests change
 * nothing, and the permissions the README names are enough.
 *
 * <p>The corpus: groups of near-copies (a text and copies with two words changed) whose members
 * are spread over team {@code a} and team {@code b}, so that every hidden document has visible
 * near-duplicates that a leak would show.
 */
public class NearDupSecurityIT extends SecurityRestTestCase {

    private static final String INDEX = "sec-docs";
    private static final String TEAM_A_ONLY = "sec-docs-team-a";
    private static final int GROUPS = 8;
    private static final int COPIES = 4;

    private static final String MAPPING = """
        {"settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "sec-fp"},
         "mappings": {"properties": {
           "team": {"type": "keyword"},
           "text": {"type": "text"},
           "text_fp": {"properties": {
             "simhash": {"type": "simhash"},
             "minhash": {"type": "minhash"},
             "content_hash": {"type": "keyword"}}}}}}""";

    private static final String SIMHASH_QUERY = "{\"near_duplicate\": {\"field\": \"text_fp.simhash\", \"like\": "
            + "{\"text\": %s}, \"mode\": \"exact\", \"max_distance\": 8}}";
    private static final String MINHASH_QUERY = "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": "
            + "{\"text\": %s}, \"min_similarity\": 0.5}}";

    /** id → {team, text}, the same for every test of the class. */
    private static Map<String, String[]> corpus() {
        Random random = new Random(20261124L);
        Map<String, String[]> documents = new HashMap<>();
        for (int g = 0; g < GROUPS; g++) {
            List<String> words = new ArrayList<>();
            for (int w = 0; w < 60; w++) {
                words.add("w" + random.nextInt(5_000));
            }
            for (int c = 0; c < COPIES; c++) {
                List<String> copy = new ArrayList<>(words);
                if (c > 0) {
                    copy.set(random.nextInt(copy.size()), "edit" + g + "x" + c);
                    copy.set(random.nextInt(copy.size()), "edit" + g + "y" + c);
                }
                documents.put("g" + g + "c" + c, new String[] {(g + c) % 2 == 0 ? "a" : "b", String.join(" ", copy)});
            }
        }
        return documents;
    }

    /** The pipeline {@code sec-fp}: the text's fingerprints into {@code text_fp}. */
    private static void putFingerprintPipeline() throws IOException {
        send(
                client(),
                "PUT",
                "/_ingest/pipeline/sec-fp",
                "{\"processors\": [{\"near_dup_fingerprint\": "
                        + "{\"field\": \"text\", \"target_field\": \"text_fp\"}}]}");
    }

    private void setUpCorpus(boolean teamAOnlyCopy) throws IOException {
        putFingerprintPipeline();
        send("PUT", "/" + INDEX, MAPPING);
        if (teamAOnlyCopy) {
            send("PUT", "/" + TEAM_A_ONLY, MAPPING);
        }
        StringBuilder all = new StringBuilder();
        StringBuilder teamA = new StringBuilder();
        for (Map.Entry<String, String[]> doc : corpus().entrySet()) {
            String line = "{\"index\": {\"_id\": \"" + doc.getKey() + "\"}}\n{\"team\": \"" + doc.getValue()[0]
                    + "\", \"text\": \"" + doc.getValue()[1] + "\"}\n";
            all.append(line);
            if (doc.getValue()[0].equals("a")) {
                teamA.append(line);
            }
        }
        assertEquals(
                false,
                send("POST", "/" + INDEX + "/_bulk?refresh=true", all.toString())
                        .get("errors"));
        if (teamAOnlyCopy) {
            assertEquals(
                    false,
                    send("POST", "/" + TEAM_A_ONLY + "/_bulk?refresh=true", teamA.toString())
                            .get("errors"));
        }
    }

    private static Set<String> ids(RestClient client, String index, String query) throws IOException {
        Map<String, Object> response =
                send(client, "POST", "/" + index + "/_search", "{\"size\": 1000, \"query\": " + query + "}");
        Set<String> ids = new TreeSet<>();
        for (Map<String, Object> hit : hits(response)) {
            ids.add((String) hit.get("_id"));
        }
        return ids;
    }

    private static String quoted(String text) {
        return "\"" + text + "\"";
    }

    private static Set<String> teamA(Set<String> ids) {
        Map<String, String[]> corpus = corpus();
        Set<String> visible = new TreeSet<>();
        for (String id : ids) {
            if (corpus.get(id)[0].equals("a")) {
                visible.add(id);
            }
        }
        return visible;
    }

    public void testQueriesUnderDocumentLevelSecuritySeeTheAdminsAnswerMinusHiddenDocuments() throws IOException {
        setUpCorpus(false);
        putRole("sec_dls_a", role().index(INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls", "sec_dls_a");
        int crossTeam = 0;
        for (String[] doc : corpus().values()) {
            for (String template : List.of(SIMHASH_QUERY, MINHASH_QUERY)) {
                String query = String.format(java.util.Locale.ROOT, template, quoted(doc[1]));
                Set<String> admin = ids(client(), INDEX, query);
                Set<String> restricted = ids(userClient("sec_dls"), INDEX, query);
                assertEquals(query, teamA(admin), restricted);
                crossTeam += admin.size() - restricted.size();
            }
        }
        assertTrue("hidden near-duplicates exist to leak: " + crossTeam, crossTeam > 0);
    }

    /**
     * The admin's queries build the segments' shared structures first; a user whose role hides
     * ({@code ~text_fp}) or masks the fingerprint fields then gets what an index without them
     * gives: no hits, and no server error.
     */
    public void testHiddenOrMaskedFingerprintsAnswerNothingAfterAnotherUserBuiltTheStructures() throws IOException {
        setUpCorpus(false);
        putHiddenAndMaskedFingerprintUsers();
        String text = corpus().get("g0c0")[1];
        for (String template : List.of(SIMHASH_QUERY, MINHASH_QUERY)) {
            String query = String.format(java.util.Locale.ROOT, template, quoted(text));
            assertEquals(query, COPIES, ids(client(), INDEX, query).size());
            for (String user : List.of("sec_fls_user", "sec_mask_user")) {
                Map<String, Object> response =
                        send(userClient(user), "POST", "/" + INDEX + "/_search", "{\"query\": " + query + "}");
                assertEquals(user + " " + response, List.of(), hits(response));
                assertEquals(user + " " + response, 0, ((Map<?, ?>) response.get("_shards")).get("failed"));
            }
            // Stock queries agree: for these users the fields hold nothing.
            String exists = "{\"exists\": {\"field\": \""
                    + (template == SIMHASH_QUERY ? "text_fp.simhash" : "text_fp.minhash") + "\"}}";
            assertEquals(Set.of(), ids(userClient("sec_fls_user"), INDEX, exists));
        }
        // The admin still gets every copy from the same structures.
        assertEquals(
                COPIES,
                ids(client(), INDEX, String.format(java.util.Locale.ROOT, SIMHASH_QUERY, quoted(text)))
                        .size());
    }

    /**
     * In an index with derived source, OpenSearch rebuilds {@code _source} through the reader the Security plugin gives
     * the user: a fingerprint hidden by field-level security or masked comes back to no one who may not read it, and
     * masking is no server error (the masked doc values are not rebuilt into a fingerprint).
     */
    @SuppressWarnings("unchecked")
    public void testDerivedSourceShowsNoHiddenOrMaskedFingerprint() throws IOException {
        String version = nodeVersion();
        assumeFalse(
                "OpenSearch " + version
                        + " has no derived source (2.x, 3.0 and 3.1 refuse index.derived_source.enabled)",
                version.matches("2\\..*|3\\.[01]\\..*"));
        send(
                client(),
                "PUT",
                "/_ingest/pipeline/sec-fp",
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\", \"target_field\": \"text_fp\"}}]}");
        String index = "sec-derived";
        send(
                client(),
                "PUT",
                "/" + index,
                MAPPING.replace(
                        "\"number_of_replicas\": 0,",
                        "\"number_of_replicas\": 0, \"index.derived_source.enabled\": true,"));
        String[] doc = corpus().get("g1c0");
        send(
                client(),
                "PUT",
                "/" + index + "/_doc/one?refresh=true",
                "{\"team\": \"" + doc[0] + "\", \"text\": \"" + doc[1] + "\"}");
        putRole("sec_derived_fls", role().index(index).allow("read").fls("~text_fp"));
        putRole("sec_derived_mask", role().index(index).allow("read").masked("text_fp.simhash", "text_fp.minhash"));
        putUser("sec_derived_fls_user", "sec_derived_fls");
        putUser("sec_derived_mask_user", "sec_derived_mask");

        Map<String, Object> admin = (Map<String, Object>) ((Map<String, Object>)
                        send("GET", "/" + index + "/_doc/one", null).get("_source"))
                .get("text_fp");
        assertTrue(admin.toString(), admin.get("simhash") instanceof Map && admin.get("minhash") instanceof Map);
        for (String user : List.of("sec_derived_fls_user", "sec_derived_mask_user")) {
            Map<String, Object> source =
                    (Map<String, Object>) send(userClient(user), "GET", "/" + index + "/_doc/one", null)
                            .get("_source");
            Map<String, Object> fp = (Map<String, Object>) source.get("text_fp");
            assertTrue(
                    user + " " + source,
                    fp == null || (fp.containsKey("simhash") == false && fp.containsKey("minhash") == false));
            Map<String, Object> searched = send(
                    userClient(user),
                    "POST",
                    "/" + index + "/_search",
                    "{\"fields\": [{\"field\": \"text_fp.simhash\", \"format\": \"object\"}, "
                            + "{\"field\": \"text_fp.minhash\", \"format\": \"object\"}]}");
            assertEquals(user + " " + searched, 0, ((Map<?, ?>) searched.get("_shards")).get("failed"));
            Map<String, Object> hit = hits(searched).get(0);
            assertFalse(user + " " + hit, String.valueOf(hit).contains(String.valueOf(admin.get("minhash"))));
        }
        Map<String, Object> masked = (Map<String, Object>)
                ((Map<String, Object>) send(userClient("sec_derived_mask_user"), "GET", "/" + index + "/_doc/one", null)
                                .get("_source"))
                        .get("text_fp");
        assertEquals("what is not masked is shown", admin.get("content_hash"), masked.get("content_hash"));
    }

    private static Map<String, Object> clusters(RestClient client, String index, String field, boolean dryRun)
            throws IOException {
        String body = field.endsWith("simhash")
                ? "{\"field\": \"text_fp.simhash\", \"max_distance\": 8, \"target_field\": \"dup\"}"
                : "{\"field\": \"text_fp.minhash\", \"min_similarity\": 0.5, \"target_field\": \"dup\"}";
        Map<String, Object> response =
                send(client, "POST", "/" + index + "/_near_dup_clusters?dry_run=" + dryRun, body);
        // What the run took and held differs with what the shards read (a DLS reader skips documents, not segments),
        // not with the answer.
        response.remove("took");
        response.remove("coordinator_bytes");
        response.remove("data_node_bytes");
        return response;
    }

    /** A DLS user's dry run answers as the admin's on an index holding only the documents that user may see. */
    public void testClustersDryRunUnderDocumentLevelSecurityIsThatOfTheVisibleDocumentsAlone() throws IOException {
        setUpCorpus(true);
        putRole("sec_dls_a", role().index(INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls", "sec_dls_a");
        for (String field : List.of("text_fp.simhash", "text_fp.minhash")) {
            Map<String, Object> visibleAlone = clusters(client(), TEAM_A_ONLY, field, true);
            Map<String, Object> restricted = clusters(userClient("sec_dls"), INDEX, field, true);
            Map<String, Object> admin = clusters(client(), INDEX, field, true);
            assertEquals(field, visibleAlone, restricted);
            assertNotEquals(field + ": the hidden documents cluster too", admin, restricted);
        }
    }

    /** Users {@code sec_fls_user}, whose role hides {@code text_fp} ({@code ~text_fp}), and {@code sec_mask_user}, whose role masks its fingerprints. */
    private void putHiddenAndMaskedFingerprintUsers() throws IOException {
        putRole("sec_fls", role().index(INDEX).allow("read").fls("~text_fp"));
        putRole("sec_mask", role().index(INDEX).allow("read").masked("text_fp.simhash", "text_fp.minhash"));
        putUser("sec_fls_user", "sec_fls");
        putUser("sec_mask_user", "sec_mask");
    }

    /**
     * A user whose role hides ({@code ~text_fp}) or masks the fingerprint fields clusters nothing: the
     * joins read the band terms, simhash values, signatures and shingle sets through that user's reader,
     * after the admin's runs built the segments' shared structures; no match to tell that hidden
     * fingerprints are alike, no server error.
     */
    public void testClustersOfHiddenOrMaskedFingerprintsFindNothing() throws IOException {
        setUpCorpus(false);
        putHiddenAndMaskedFingerprintUsers();
        for (String field : List.of("text_fp.simhash", "text_fp.minhash")) {
            Map<String, Object> admin = clusters(client(), INDEX, field, true);
            assertTrue(field + ": the admin finds the copies " + admin, (Integer) admin.get("clusters") > 0);
            for (String user : List.of("sec_fls_user", "sec_mask_user")) {
                Map<String, Object> restricted = clusters(userClient(user), INDEX, field, true);
                String what = field + " for " + user + ": " + restricted;
                assertEquals(what, 0, restricted.get("matches"));
                assertEquals(what, 0, restricted.get("clusters"));
                assertEquals(what, 0, restricted.get("clustered_documents"));
                assertEquals(what, List.of(), restricted.get("failures"));
            }
        }
    }

    /**
     * Finding is a read, writing is a write: {@code read} on the index runs the dry run and is
     * refused the real run (which then writes nothing); {@code read} and {@code write} run it; a
     * role on another index is refused both.
     */
    @SuppressWarnings("unchecked")
    public void testClustersPermissionsAreTheIndexsReadAndWrite() throws IOException {
        setUpCorpus(false);
        putRole("sec_read", role().index(INDEX).allow("read"));
        putRole("sec_read_write", role().index(INDEX).allow("read", "write"));
        putRole("sec_elsewhere", role().index("sec-other").allow("read", "write"));
        putUser("sec_reader", "sec_read");
        putUser("sec_writer", "sec_read_write");
        putUser("sec_stranger", "sec_elsewhere");
        for (String field : List.of("text_fp.simhash", "text_fp.minhash")) {
            assertEquals(
                    Boolean.TRUE,
                    clusters(userClient("sec_reader"), INDEX, field, true).get("dry_run"));
            expectRefused(
                    403,
                    userClient("sec_reader"),
                    "POST",
                    "/" + INDEX + "/_near_dup_clusters?dry_run=false",
                    "{\"field\": \"" + field + "\", \"target_field\": \"dup\"}");
            expectRefused(
                    403,
                    userClient("sec_stranger"),
                    "POST",
                    "/" + INDEX + "/_near_dup_clusters?dry_run=true",
                    "{\"field\": \"" + field + "\", \"target_field\": \"dup\"}");
            assertEquals(Set.of(), ids(client(), INDEX, "{\"exists\": {\"field\": \"dup\"}}"));
        }
        Map<String, Object> written = clusters(userClient("sec_writer"), INDEX, "text_fp.minhash", false);
        assertEquals(written.toString(), List.of(), written.get("failures"));
        // refresh=true would also need indices:admin/refresh, as for _update_by_query: the admin refreshes here.
        send("POST", "/" + INDEX + "/_refresh", null);
        assertEquals(
                GROUPS * COPIES,
                ids(client(), INDEX, "{\"exists\": {\"field\": \"dup.cluster\"}}")
                        .size());
    }

    /**
     * A run with {@code dest} writes nothing into the documents: it needs {@code read} on them, as a dry run, and the
     * permissions to create and write its own index. Refused where the user may not create that index (no index made,
     * nothing written); under document-level security its records are of the documents the user may see alone.
     */
    @SuppressWarnings("unchecked")
    public void testClustersIntoDestNeedReadOnTheIndexAndCreateAndWriteOnDest() throws IOException {
        setUpCorpus(false);
        putRole("sec_read_only", role().index(INDEX).allow("read"));
        putRole(
                "sec_recorder",
                role().index(INDEX).allow("read").index("sec-records-*").allow("create_index", "write", "read"));
        putRole(
                "sec_dls_recorder",
                role().index(INDEX)
                        .allow("read")
                        .dls("{\"term\": {\"team\": \"a\"}}")
                        .index("sec-records-*")
                        .allow("create_index", "write", "read"));
        putUser("sec_reader_only", "sec_read_only");
        putUser("sec_recorder_user", "sec_recorder");
        putUser("sec_dls_recorder_user", "sec_dls_recorder");
        String body = "{\"field\": \"text_fp.minhash\", \"min_similarity\": 0.5, \"dest\": {\"index\": \"%s\"}}";

        expectRefused(
                403,
                userClient("sec_reader_only"),
                "POST",
                "/" + INDEX + "/_near_dup_clusters",
                String.format(java.util.Locale.ROOT, body, "sec-records-refused"));
        assertEquals(
                404,
                client().performRequest(new org.opensearch.client.Request("HEAD", "/sec-records-refused"))
                        .getStatusLine()
                        .getStatusCode());

        Set<String> all = recordAs("sec_recorder_user", body, "sec-records-all");
        assertEquals(GROUPS * COPIES, all.size());
        assertEquals(
                "nothing written into the documents",
                Set.of(),
                ids(client(), INDEX, "{\"exists\": {\"field\": \"dup\"}}"));

        Set<String> teamARecords = recordAs("sec_dls_recorder_user", body, "sec-records-team-a");
        assertFalse(teamARecords.isEmpty());
        assertEquals("only the documents the user may see are recorded", teamA(all), teamARecords);
        for (Map<String, Object> hit :
                hits(send("POST", "/sec-records-team-a/_search", "{\"size\": 1000, \"query\": {\"match_all\": {}}}"))) {
            String cluster = (String) ((Map<String, Object>) hit.get("_source")).get("cluster");
            assertTrue(
                    "a cluster named by a hidden document: " + cluster,
                    teamA(Set.of(cluster)).contains(cluster));
        }
    }

    /**
     * The ids of the records {@code user}'s run on the corpus wrote into {@code dest} ({@code body} names it where it
     * holds {@code %s}), checking it failed nothing.
     */
    private Set<String> recordAs(String user, String body, String dest) throws IOException {
        Map<String, Object> response = send(
                userClient(user),
                "POST",
                "/" + INDEX + "/_near_dup_clusters",
                String.format(java.util.Locale.ROOT, body, dest));
        assertEquals(response.toString(), List.of(), response.get("failures"));
        send("POST", "/" + dest + "/_refresh", null);
        return ids(client(), dest, "{\"match_all\": {}}");
    }

    private static Map<String, Object> dupOf(String index, String id) throws IOException {
        @SuppressWarnings("unchecked")
        Map<String, Object> source = (Map<String, Object>)
                send("GET", "/" + index + "/_doc/" + id, null).get("_source");
        @SuppressWarnings("unchecked")
        Map<String, Object> dup = (Map<String, Object>) source.get("dup");
        return dup;
    }

    private static void indexOne(RestClient client, String index, String id, String team, String text)
            throws IOException {
        Map<String, Object> response = send(
                client, "PUT", "/" + index + "/_doc/" + id, "{\"team\": \"" + team + "\", \"text\": \"" + text + "\"}");
        assertEquals(response.toString(), "created", response.get("result"));
    }

    /**
     * The lookup's window of not yet searchable documents never crosses users: a copy indexed by one
     * user is not named to another; within one user it is. A document whose lookup is refused is
     * not stored and is named to no one.
     */
    public void testTheLookupWindowNeverCrossesUsersNorHoldsRefusedDocuments() throws IOException {
        String index = "sec-lookup";
        send("PUT", "/_ingest/pipeline/sec-lookup", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text", "target_field": "text_fp"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "dup",
                                   "recent_ttl": "10m"}}]}""");
        send(
                client(),
                "PUT",
                "/" + index,
                MAPPING.replace("sec-fp", "sec-lookup")
                        .replace("\"number_of_replicas\": 0", "\"number_of_replicas\": 0, \"refresh_interval\": -1"));
        putRole("sec_lookup_rw", role().index(index).allow("read", "write"));
        putRole("sec_lookup_write_only", role().index(index).allow("write"));
        putUser("sec_alice", "sec_lookup_rw");
        putUser("sec_bob", "sec_lookup_rw");
        putUser("sec_mallory", "sec_lookup_write_only");
        String text = corpus().get("g1c0")[1];
        String copy = corpus().get("g1c1")[1];
        // Refused: the lookup needs indices:data/read/near_dup_lookup on the index.
        expectRefused(
                403,
                userClient("sec_mallory"),
                "PUT",
                "/" + index + "/_doc/refused",
                "{\"team\": \"a\", \"text\": \"" + text + "\"}");
        indexOne(userClient("sec_alice"), index, "alice-1", "a", copy);
        indexOne(userClient("sec_bob"), index, "bob-1", "b", text);
        indexOne(userClient("sec_alice"), index, "alice-2", "a", text);
        send("POST", "/" + index + "/_refresh", null);
        expectRefused(404, client(), "GET", "/" + index + "/_doc/refused", null);
        assertEquals(Map.of("cluster", "alice-1", "representative", true), dupOf(index, "alice-1"));
        assertEquals(
                "bob may not be told of alice's unrefreshed copy",
                Map.of("cluster", "bob-1", "representative", true),
                dupOf(index, "bob-1"));
        assertEquals("alice-1", dupOf(index, "alice-2").get("duplicate_of"));
    }

    /**
     * The lookup's search runs as the indexing user: a copy of a document that user's role hides
     * (by DLS, or by hiding the fingerprint object) is not named.
     */
    public void testTheLookupSearchesOnlyWhatTheIndexingUserMaySee() throws IOException {
        String index = "sec-lookup-search";
        send("PUT", "/_ingest/pipeline/sec-lookup", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text", "target_field": "text_fp"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "dup"}}]}""");
        send("PUT", "/" + index, MAPPING.replace("sec-fp", "sec-lookup"));
        putRole("sec_lookup_dls", role().index(index).allow("read", "write").dls("{\"term\": {\"team\": \"a\"}}"));
        putRole("sec_lookup_fls", role().index(index).allow("read", "write").fls("~text_fp"));
        putUser("sec_dls_writer", "sec_lookup_dls");
        putUser("sec_fls_writer", "sec_lookup_fls");
        indexOne(client(), index, "hidden-b", "b", corpus().get("g2c0")[1]);
        indexOne(client(), index, "visible-a", "a", corpus().get("g3c0")[1]);
        send("POST", "/" + index + "/_refresh", null);
        indexOne(userClient("sec_dls_writer"), index, "dls-copy-of-b", "a", corpus().get("g2c1")[1]);
        indexOne(userClient("sec_dls_writer"), index, "dls-copy-of-a", "a", corpus().get("g3c1")[1]);
        indexOne(userClient("sec_fls_writer"), index, "fls-copy-of-a", "a", corpus().get("g3c2")[1]);
        indexOne(client(), index, "admin-copy-of-b", "b", corpus().get("g2c2")[1]);
        assertEquals(Map.of("cluster", "dls-copy-of-b", "representative", true), dupOf(index, "dls-copy-of-b"));
        assertEquals("visible-a", dupOf(index, "dls-copy-of-a").get("duplicate_of"));
        assertEquals(Map.of("cluster", "fls-copy-of-a", "representative", true), dupOf(index, "fls-copy-of-a"));
        assertEquals("hidden-b", dupOf(index, "admin-copy-of-b").get("duplicate_of"));
    }

    /**
     * Issue 41: a lookup into a pattern of daily indices, run by a user who may read one of them under DLS and not
     * the other: its matches come from the visible documents of the readable day alone, so no {@code _id} of the
     * other day, nor a hidden one, is ever written; a user who may read none of them has the document refused.
     */
    public void testALookupIntoManyIndicesNamesOnlyWhatTheIndexingUserMayRead() throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/sec-fp",
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        send("PUT", "/_ingest/pipeline/sec-days", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text", "target_field": "text_fp"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "index": "sec-day-*",
                                   "target_field": "dup"}}]}""");
        for (String day : new String[] {"sec-day-1", "sec-day-2"}) {
            send("PUT", "/" + day, MAPPING);
        }
        send("PUT", "/sec-incoming", MAPPING.replace("sec-fp", "sec-days"));
        indexOne(client(), "sec-day-1", "visible", "a", corpus().get("g5c0")[1]);
        indexOne(client(), "sec-day-1", "hidden", "b", corpus().get("g6c0")[1]);
        indexOne(client(), "sec-day-2", "forbidden", "a", corpus().get("g6c1")[1]);
        send("POST", "/sec-day-*/_refresh", null);
        putRole("sec_days_reader", role().index("sec-day-1").allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putRole("sec_incoming_rw", role().index("sec-incoming").allow("read", "write"));
        putUser("sec_day_one", "sec_days_reader", "sec_incoming_rw");
        putUser("sec_no_day", "sec_incoming_rw");
        indexOne(userClient("sec_day_one"), "sec-incoming", "copy-of-visible", "a", corpus().get("g5c1")[1]);
        indexOne(userClient("sec_day_one"), "sec-incoming", "copy-of-hidden", "a", corpus().get("g6c2")[1]);
        indexOne(client(), "sec-incoming", "admin-copy", "a", corpus().get("g6c3")[1]);
        Map<String, Object> visible = dupOf("sec-incoming", "copy-of-visible");
        assertEquals("visible", visible.get("duplicate_of"));
        assertEquals("sec-day-1", visible.get("duplicate_of_index"));
        assertEquals(
                "neither the DLS-hidden document of day 1 nor the forbidden day 2 is named",
                Map.of("cluster", "copy-of-hidden", "cluster_index", "sec-incoming", "representative", true),
                dupOf("sec-incoming", "copy-of-hidden"));
        Map<String, Object> admin = dupOf("sec-incoming", "admin-copy");
        assertEquals("the admin sees the hidden document: the closest", "hidden", admin.get("duplicate_of"));
        assertEquals("sec-day-1", admin.get("duplicate_of_index"));
        expectRefused(
                403,
                userClient("sec_no_day"),
                "PUT",
                "/sec-incoming/_doc/refused",
                "{\"team\": \"a\", \"text\": \"" + corpus().get("g5c2")[1] + "\"}");
    }

    /**
     * {@code _near_dup_clusters} on a data stream rolled over with {@code _rollover}: a user who may read its first
     * generation under DLS (team a) and its second whole gets the clusters of the documents it may read alone, each
     * named with its backing index; the document hidden in the first generation is neither clustered nor the reason
     * its copy in the second is. A user who may read the first generation alone runs over what a search of the stream
     * covers for it (a 403 where the search is one): never a document of the generation it may not read.
     */
    public void testClustersOverARolledOverDataStreamSeeOnlyWhatTheUserMayRead() throws IOException {
        putFingerprintPipeline();
        send("PUT", "/_index_template/sec-stream", """
            {"index_patterns": ["sec-stream"], "data_stream": {}, "priority": 100,
             "template": {"settings": {"number_of_replicas": 0, "index.default_pipeline": "sec-fp"},
                          "mappings": {"properties": {"@timestamp": {"type": "date"}, "team": {"type": "keyword"},
                                       "text": {"type": "text"}, "text_fp": {"properties": {
                                         "simhash": {"type": "simhash"}, "minhash": {"type": "minhash"},
                                         "content_hash": {"type": "keyword"}}}}}}}""");
        String[][] generations = {
            {"visible", "a", "g5c0", "hidden", "b", "g6c0"}, {"visible-copy", "a", "g5c1", "hidden-copy", "a", "g6c1"}
        };
        for (int g = 0; g < generations.length; g++) {
            if (g > 0) {
                send("POST", "/sec-stream/_rollover", null);
            }
            for (int d = 0; d < generations[g].length; d += 3) {
                Map<String, Object> created = send(
                        "PUT",
                        "/sec-stream/_create/" + generations[g][d] + "?refresh=true",
                        "{\"@timestamp\": \"2026-11-2" + (g + 1) + "T00:00:00Z\", \"team\": \""
                                + generations[g][d + 1] + "\", \"text\": \"" + corpus().get(generations[g][d + 2])[1]
                                + "\"}");
                assertEquals(created.toString(), "created", created.get("result"));
            }
        }
        String first = ".ds-sec-stream-000001";
        String second = ".ds-sec-stream-000002";
        putRole("sec_stream_first_dls", role().index(first).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putRole("sec_stream_second", role().index("sec-stream", second).allow("read"));
        putUser("sec_stream_reader", "sec_stream_first_dls", "sec_stream_second");
        putUser("sec_stream_first_only", "sec_stream_first_dls");
        String body = "{\"field\": \"text_fp.minhash\", \"min_similarity\": 0.5, \"target_field\": \"dup\"}";

        Map<String, Object> admin = send("POST", "/sec-stream/_near_dup_clusters?dry_run=true", body);
        assertEquals(admin.toString(), 4, admin.get("clustered_documents"));
        // What the Security plugin lets the user read of the stream, as its search answers: the run sees that alone.
        Set<String> readable = ids(userClient("sec_stream_reader"), "sec-stream", "{\"match_all\": {}}");
        assertFalse("DLS hides the first generation's team b document", readable.contains("hidden"));
        assertEquals(Set.of("visible", "visible-copy", "hidden-copy"), readable);
        Map<String, Object> reader =
                send(userClient("sec_stream_reader"), "POST", "/sec-stream/_near_dup_clusters?dry_run=true", body);
        assertEquals(reader.toString(), 2, reader.get("clustered_documents"));
        assertEquals(
                reader.toString(),
                List.of(Map.of("cluster", "visible", "cluster_index", first, "size", 2)),
                reader.get("largest_clusters"));

        int searched;
        try {
            send(userClient("sec_stream_first_only"), "POST", "/sec-stream/_search", "{\"size\": 0}");
            searched = 200;
        } catch (ResponseException e) {
            searched = e.getResponse().getStatusLine().getStatusCode();
        }
        if (searched == 200) {
            Map<String, Object> firstOnly = send(
                    userClient("sec_stream_first_only"), "POST", "/sec-stream/_near_dup_clusters?dry_run=true", body);
            assertEquals(firstOnly.toString(), 0, firstOnly.get("clustered_documents"));
        } else {
            expectRefused(
                    searched,
                    userClient("sec_stream_first_only"),
                    "POST",
                    "/sec-stream/_near_dup_clusters?dry_run=true",
                    body);
        }
        send("DELETE", "/_data_stream/sec-stream", null);
        send("DELETE", "/_index_template/sec-stream", null);
    }

    /** A pipeline named in {@code like.pipeline} is read only by a user who may read pipelines; the index's own needs nothing more. */
    public void testLikePipelineNeedsThePipelineReadPermission() throws IOException {
        setUpCorpus(false);
        putRole("sec_reader_only", role().index(INDEX).allow("read"));
        putRole(
                "sec_pipeline_reader",
                role().cluster("cluster:admin/ingest/pipeline/get").index(INDEX).allow("read"));
        putUser("sec_plain_reader", "sec_reader_only");
        putUser("sec_pipeline_user", "sec_pipeline_reader");
        String text = quoted(corpus().get("g4c0")[1]);
        String byDefault = String.format(java.util.Locale.ROOT, MINHASH_QUERY, text);
        String named = "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"text\": " + text
                + ", \"pipeline\": \"sec-fp\"}, \"min_similarity\": 0.5}}";
        String unknown = named.replace("sec-fp", "no-such-pipeline");
        assertEquals(
                COPIES, ids(userClient("sec_plain_reader"), INDEX, byDefault).size());
        assertEquals(COPIES, ids(userClient("sec_pipeline_user"), INDEX, named).size());
        for (String query : List.of(named, unknown)) {
            expectRefused(
                    403,
                    userClient("sec_plain_reader"),
                    "POST",
                    "/" + INDEX + "/_search",
                    "{\"query\": " + query + "}");
        }
        expectRefused(
                400, userClient("sec_pipeline_user"), "POST", "/" + INDEX + "/_search", "{\"query\": " + unknown + "}");
    }

    /** Collapsing under DLS folds only visible hits: no hidden _id is listed. */
    @SuppressWarnings("unchecked")
    public void testCollapseUnderDocumentLevelSecurityListsNoHiddenDocument() throws IOException {
        setUpCorpus(false);
        send("PUT", "/_search/pipeline/sec-dedup", """
            {"request_processors": [{"near_dup_window": {"window": 100}}],
             "response_processors": [{"near_dup_collapse": {"field": "text_fp.minhash", "min_similarity": 0.5}}]}""");
        putRole("sec_dls_a", role().index(INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls", "sec_dls_a");
        String search = "{\"size\": 100, \"query\": {\"match_all\": {}}}";
        Map<String, Object> admin = send("POST", "/" + INDEX + "/_search?search_pipeline=sec-dedup", search);
        Map<String, Object> restricted =
                send(userClient("sec_dls"), "POST", "/" + INDEX + "/_search?search_pipeline=sec-dedup", search);
        Set<String> listed = new TreeSet<>();
        for (Map<String, Object> hit : hits(restricted)) {
            listed.add((String) hit.get("_id"));
            Map<String, Object> fields = (Map<String, Object>) hit.get("fields");
            if (fields != null && fields.get("_near_dup.ids") != null) {
                listed.addAll((List<String>) fields.get("_near_dup.ids"));
            }
        }
        assertEquals(teamA(corpus().keySet()), listed);
        assertEquals(GROUPS, hits(admin).size());
        assertEquals(GROUPS, hits(restricted).size());
    }

    /**
     * A DLS user's writing run is refused by the Security plugin per document (it allows no update
     * under DLS or FLS): no server error, and nothing is written, not even to the documents it sees.
     */
    public void testAWritingRunUnderDocumentLevelSecurityWritesNothing() throws IOException {
        setUpCorpus(false);
        putRole(
                "sec_dls_writer_role",
                role().index(INDEX).allow("read", "write").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls_writer", "sec_dls_writer_role");
        Request request = request(
                "POST",
                "/" + INDEX + "/_near_dup_clusters",
                "{\"field\": \"text_fp.simhash\", \"max_distance\": 8, \"target_field\": \"dup\"}");
        int status;
        String body;
        try {
            Response response = userClient("sec_dls_writer").performRequest(request);
            status = response.getStatusLine().getStatusCode();
            body = new String(
                    response.getEntity().getContent().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(body, body.contains("\"failures\":[{"));
        } catch (ResponseException e) {
            status = e.getResponse().getStatusLine().getStatusCode();
            body = e.getMessage();
        }
        if (nodeVersion().startsWith("2.")) {
            // Security 2.x refuses any bulk holding an update under document-level security, through the bulk's
            // listener with its own exception, whose status is 500: the run fails with it and writes nothing.
            assertTrue(
                    status + " " + body,
                    status < 500
                            || body.contains("Update is not supported when FLS or DLS or Fieldmasking is activated"));
        } else {
            assertTrue(status + " " + body, status < 500);
        }
        send("POST", "/" + INDEX + "/_refresh", null);
        assertEquals(Set.of(), ids(client(), INDEX, "{\"exists\": {\"field\": \"dup\"}}"));
    }

    /** The Security node's OpenSearch version, as it answers {@code GET /}. */
    @SuppressWarnings("unchecked")
    private static String nodeVersion() throws IOException {
        return (String) ((Map<String, Object>) send(client(), "GET", "/", null).get("version")).get("number");
    }

    /** As {@code _update_by_query}: a run as a task, its result read back by the user who started it. */
    @SuppressWarnings("unchecked")
    public void testAClustersTaskRunsAndReportsForAUserGrantedTheIndex() throws IOException {
        setUpCorpus(false);
        putRole(
                "sec_task_role",
                role().cluster("cluster:monitor/task/get").index(INDEX).allow("read", "write"));
        putUser("sec_task_user", "sec_task_role");
        String task = (String) send(
                        userClient("sec_task_user"),
                        "POST",
                        "/" + INDEX + "/_near_dup_clusters?wait_for_completion=false",
                        "{\"field\": \"text_fp.minhash\", \"min_similarity\": 0.5, \"target_field\": \"dup\"}")
                .get("task");
        assertNotNull(task);
        Map<String, Object> done = send(
                userClient("sec_task_user"), "GET", "/_tasks/" + task + "?wait_for_completion=true&timeout=60s", null);
        assertEquals(done.toString(), Boolean.TRUE, done.get("completed"));
        send("POST", "/" + INDEX + "/_refresh", null);
        assertEquals(
                GROUPS * COPIES,
                ids(client(), INDEX, "{\"exists\": {\"field\": \"dup.cluster\"}}")
                        .size());
    }

    /** Collapsing for a user who may not see the fingerprints: every hit stands alone, as in an index without them. */
    @SuppressWarnings("unchecked")
    public void testCollapseWithHiddenFingerprintsKeepsEveryHit() throws IOException {
        setUpCorpus(false);
        send("PUT", "/_search/pipeline/sec-dedup", """
            {"request_processors": [{"near_dup_window": {"window": 100}}],
             "response_processors": [{"near_dup_collapse": {"field": "text_fp.simhash", "max_distance": 8}}]}""");
        putRole("sec_fls", role().index(INDEX).allow("read").fls("~text_fp"));
        putUser("sec_fls_user", "sec_fls");
        Map<String, Object> response = send(
                userClient("sec_fls_user"),
                "POST",
                "/" + INDEX + "/_search?search_pipeline=sec-dedup",
                "{\"size\": 100, \"query\": {\"match_all\": {}}}");
        assertEquals(GROUPS * COPIES, hits(response).size());
        Map<String, Object> summary =
                (Map<String, Object>) ((Map<String, Object>) response.get("ext")).get("near_dup_collapse");
        assertEquals(response.toString(), GROUPS * COPIES, summary.get("without_fingerprint"));
    }

    public void testStatsNeedTheClusterMonitorPermission() throws IOException {
        putUser("sec_no_cluster");
        putRole("sec_monitor", role().cluster("cluster:monitor/neardup/stats"));
        putUser("sec_monitor_user", "sec_monitor");
        expectRefused(403, userClient("sec_no_cluster"), "GET", "/_plugins/neardup/stats", null);
        Response response =
                userClient("sec_monitor_user").performRequest(new Request("GET", "/_plugins/neardup/stats"));
        assertEquals(200, response.getStatusLine().getStatusCode());
    }

    // Containment (near_duplicate with min_containment) on a second index, whose minhash field opts in.

    private static final String CONTAINMENT_INDEX = "sec-containment";
    private static final int ARTICLES = 6;
    private static final int ARTICLE_WORDS = 80;
    private static final int[] HOST_RATIOS = {2, 4, 8};
    private static final double MIN_CONTAINMENT = 0.7;

    private static String team(int n) {
        return n % 2 == 0 ? "a" : "b";
    }

    private static List<String> randomWords(Random random, int count) {
        List<String> words = new ArrayList<>();
        for (int w = 0; w < count; w++) {
            words.add("w" + random.nextInt(5_000));
        }
        return words;
    }

    /**
     * id → {team, text}: articles, each also inside hosts 2 to 8 times its length (one word edited) and cut to its
     * first half; the teams alternate so that every article has hidden and visible hosts and a half on the other team.
     */
    private static Map<String, String[]> containmentCorpus() {
        Random random = new Random(20261125L);
        Map<String, String[]> documents = new TreeMap<>();
        for (int g = 0; g < ARTICLES; g++) {
            List<String> article = randomWords(random, ARTICLE_WORDS);
            documents.put("article" + g, new String[] {team(g), String.join(" ", article)});
            documents.put("half" + g, new String[] {team(g + 1), String.join(" ", article.subList(0, ARTICLE_WORDS / 2))
            });
            for (int h = 0; h < HOST_RATIOS.length; h++) {
                List<String> host = randomWords(random, ARTICLE_WORDS * (HOST_RATIOS[h] - 1));
                List<String> copy = new ArrayList<>(article);
                copy.set(random.nextInt(copy.size()), "edit" + g + "h" + h);
                host.addAll(random.nextInt(host.size() + 1), copy);
                documents.put(
                        "host" + g + "x" + HOST_RATIOS[h], new String[] {team(g + h + 1), String.join(" ", host)});
            }
        }
        return documents;
    }

    private static String containmentMapping(int shards) {
        String mapping = MAPPING.replace(
                        "\"minhash\": {\"type\": \"minhash\"}",
                        "\"minhash\": {\"type\": \"minhash\", \"containment\": true}")
                .replace("\"number_of_shards\": 2", "\"number_of_shards\": " + shards);
        assertTrue(
                mapping,
                mapping.contains("\"containment\": true") && mapping.contains("\"number_of_shards\": " + shards));
        return mapping;
    }

    /** The pipeline, the index (its minhash field mapped with containment) and the documents of {@code corpus}. */
    private static void setUpContainmentIndex(String index, String mapping, Map<String, String[]> corpus)
            throws IOException {
        putFingerprintPipeline();
        send("PUT", "/" + index, mapping);
        StringBuilder bulk = new StringBuilder();
        for (Map.Entry<String, String[]> doc : corpus.entrySet()) {
            bulk.append("{\"index\": {\"_id\": \"")
                    .append(doc.getKey())
                    .append("\"}}\n{\"team\": \"")
                    .append(doc.getValue()[0])
                    .append("\", \"text\": \"")
                    .append(doc.getValue()[1])
                    .append("\"}\n");
        }
        Map<String, Object> response = send("POST", "/" + index + "/_bulk?refresh=true", bulk.toString());
        assertEquals(false, response.get("errors"));
    }

    private static String containmentQuery(String like, String contained) {
        return "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": " + like + ", \"min_containment\": "
                + MIN_CONTAINMENT + ", \"contained\": \"" + contained + "\"}}";
    }

    private static String likeText(String text) {
        return "{\"text\": " + quoted(text) + "}";
    }

    private static String likeId(String id, boolean withIndex) {
        return "{\"_id\": \"" + id + "\"" + (withIndex ? ", \"_index\": \"" + CONTAINMENT_INDEX + "\"" : "") + "}";
    }

    /** The admin's query, restricted to team {@code a}'s documents: what a DLS user of team a should be answered. */
    private static String teamAOnly(String query) {
        return "{\"bool\": {\"must\": [" + query + "], \"filter\": [{\"term\": {\"team\": \"a\"}}]}}";
    }

    /** id → score of every hit, after checking that the total agrees and that no shard failed. */
    private static Map<String, Double> scores(RestClient client, String index, String query) throws IOException {
        Map<String, Object> response =
                send(client, "POST", "/" + index + "/_search", "{\"size\": 1000, \"query\": " + query + "}");
        assertEquals(response.toString(), 0, ((Map<?, ?>) response.get("_shards")).get("failed"));
        Map<String, Double> scores = new TreeMap<>();
        for (Map<String, Object> hit : hits(response)) {
            scores.put((String) hit.get("_id"), ((Number) hit.get("_score")).doubleValue());
        }
        Map<?, ?> total = (Map<?, ?>) ((Map<?, ?>) response.get("hits")).get("total");
        assertEquals(response.toString(), scores.size(), ((Number) total.get("value")).intValue());
        return scores;
    }

    /**
     * What the Security plugin adds to each score of a DLS user's hits, measured on a stock query: it runs the role's
     * DLS query as a required clause of constant score 1 beside the user's query (3.4.0, lucene-level DLS).
     */
    private static double dlsScoreOffset(RestClient restricted, String index) throws IOException {
        String matchAll = "{\"match_all\": {}}";
        Map<String, Double> admin = scores(client(), index, matchAll);
        Set<Double> offsets = new TreeSet<>();
        scores(restricted, index, matchAll).forEach((id, score) -> offsets.add(score - admin.get(id)));
        assertEquals("one offset for every hit: " + offsets, 1, offsets.size());
        return offsets.iterator().next();
    }

    /** The same hits as {@code expected}, each scored {@code offset} more. */
    private static void assertScoresPlus(
            String query, Map<String, Double> expected, double offset, Map<String, Double> actual) {
        assertEquals(query, expected.keySet(), actual.keySet());
        expected.forEach((id, score) -> assertEquals(query + " " + id, score + offset, actual.get(id), 1e-5));
    }

    /** Status and {@code error.root_cause[0].reason} of a refused search. */
    private static String[] refusal(RestClient client, String index, String query) throws IOException {
        Request request = request("POST", "/" + index + "/_search", "{\"query\": " + query + "}");
        ResponseException e = expectThrows(ResponseException.class, () -> client.performRequest(request));
        Map<String, Object> body = entityAsMap(e.getResponse());
        List<?> rootCauses = (List<?>) ((Map<?, ?>) body.get("error")).get("root_cause");
        return new String[] {
            String.valueOf(e.getResponse().getStatusLine().getStatusCode()),
            String.valueOf(((Map<?, ?>) rootCauses.get(0)).get("reason"))
        };
    }

    /** The {@code _explain} answer (a 404 of a document the caller may not see is an answer too), and its status. */
    private static Map<String, Object> explain(RestClient client, String index, String id, String query)
            throws IOException {
        Request request = request("POST", "/" + index + "/_explain/" + id, "{\"query\": " + query + "}");
        Response response;
        try {
            response = client.performRequest(request);
        } catch (ResponseException e) {
            response = e.getResponse();
        }
        Map<String, Object> body = new HashMap<>(entityAsMap(response));
        body.put("status", response.getStatusLine().getStatusCode());
        return body;
    }

    /**
     * A DLS user's containment query, in both directions and by text or by {@code _id}, is the admin's restricted to
     * the visible documents: the same hits with the same scores. A hidden document named in {@code like._id} is
     * answered as one that does not exist, and {@code _explain} of a hidden document says nothing of it.
     */
    public void testContainmentUnderDocumentLevelSecurityIsTheAdminsAnswerOnTheVisibleDocuments() throws IOException {
        Map<String, String[]> corpus = containmentCorpus();
        setUpContainmentIndex(CONTAINMENT_INDEX, containmentMapping(2), corpus);
        putRole("sec_dls_a", role().index(CONTAINMENT_INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls", "sec_dls_a");
        RestClient restricted = userClient("sec_dls");
        double dlsOffset = dlsScoreOffset(restricted, CONTAINMENT_INDEX);
        int hiddenHits = 0;
        int visibleHits = 0;
        for (Map.Entry<String, String[]> doc : corpus.entrySet()) {
            for (String contained : List.of("like", "document")) {
                List<String> likes = new ArrayList<>(List.of(likeText(doc.getValue()[1])));
                if (doc.getValue()[0].equals("a")) {
                    likes.add(likeId(doc.getKey(), false));
                    likes.add(likeId(doc.getKey(), true));
                }
                for (String like : likes) {
                    String query = containmentQuery(like, contained);
                    Map<String, Double> admin = scores(client(), CONTAINMENT_INDEX, query);
                    Map<String, Double> adminVisible = scores(client(), CONTAINMENT_INDEX, teamAOnly(query));
                    assertScoresPlus(query, adminVisible, dlsOffset, scores(restricted, CONTAINMENT_INDEX, query));
                    hiddenHits += admin.size() - adminVisible.size();
                    visibleHits += adminVisible.size();
                }
            }
        }
        assertTrue("hidden documents contain or are contained to leak: " + hiddenHits, hiddenHits > 0);
        assertTrue("visible documents are found: " + visibleHits, visibleHits > 0);

        for (Map.Entry<String, String[]> doc : corpus.entrySet()) {
            if (doc.getValue()[0].equals("a")) {
                continue;
            }
            String hidden = doc.getKey();
            for (boolean withIndex : List.of(false, true)) {
                for (String contained : List.of("like", "document")) {
                    String byHiddenId = containmentQuery(likeId(hidden, withIndex), contained);
                    scores(client(), CONTAINMENT_INDEX, byHiddenId); // the admin is answered
                    String[] refused = refusal(restricted, CONTAINMENT_INDEX, byHiddenId);
                    String[] missing = refusal(
                            restricted,
                            CONTAINMENT_INDEX,
                            containmentQuery(likeId("no-such-document", withIndex), contained));
                    assertEquals(byHiddenId, "400", refused[0]);
                    assertEquals(
                            byHiddenId + ": as if it did not exist",
                            missing[1].replace("no-such-document", "<id>"),
                            refused[1].replace(hidden, "<id>"));
                }
            }
        }

        // _explain: a hidden host of a visible article matches for the admin, and is nothing to the DLS user.
        int explained = 0;
        for (int g = 0; g < ARTICLES; g++) {
            if (team(g).equals("a") == false) {
                continue;
            }
            String query = containmentQuery(likeText(corpus.get("article" + g)[1]), "like");
            for (int ratio : HOST_RATIOS) {
                String host = "host" + g + "x" + ratio;
                if (corpus.get(host)[0].equals("a")) {
                    continue;
                }
                Map<String, Object> admin = explain(client(), CONTAINMENT_INDEX, host, query);
                assertEquals(admin.toString(), true, admin.get("matched"));
                assertTrue(admin.toString(), admin.toString().contains("shingles of the query's text"));
                Map<String, Object> hidden = explain(restricted, CONTAINMENT_INDEX, host, query);
                assertTrue(
                        hidden.toString(),
                        hidden.get("status").equals(200) || hidden.get("status").equals(404));
                assertNotEquals(hidden.toString(), true, hidden.get("matched"));
                assertFalse(hidden.toString(), hidden.toString().contains("shingles"));
                explained++;
            }
        }
        assertTrue(explained > 0);
    }

    /**
     * A user whose role hides the fingerprint object or the minhash field (FLS), or masks the minhash field or only its
     * containment terms, finds nothing by containment, after the admin found the hosts: no hit, no failed shard, and
     * {@code _explain} matches nothing either.
     */
    public void testContainmentOfHiddenOrMaskedFingerprintsFindsNothing() throws IOException {
        Map<String, String[]> corpus = containmentCorpus();
        setUpContainmentIndex(CONTAINMENT_INDEX, containmentMapping(2), corpus);
        Map<String, Role> roles = new TreeMap<>();
        roles.put(
                "sec_cont_fls_object",
                role().index(CONTAINMENT_INDEX).allow("read").fls("~text_fp"));
        roles.put(
                "sec_cont_fls_field",
                role().index(CONTAINMENT_INDEX).allow("read").fls("~text_fp.minhash"));
        roles.put(
                "sec_cont_mask_field",
                role().index(CONTAINMENT_INDEX).allow("read").masked("text_fp.minhash"));
        roles.put(
                "sec_cont_mask_terms",
                role().index(CONTAINMENT_INDEX).allow("read").masked("text_fp.minhash._containment"));
        roles.put(
                "sec_cont_mask_sizes",
                role().index(CONTAINMENT_INDEX).allow("read").masked("text_fp.minhash._containment_size"));
        for (Map.Entry<String, Role> role : roles.entrySet()) {
            putRole(role.getKey(), role.getValue());
            putUser(role.getKey() + "_user", role.getKey());
        }
        List<String> queries = new ArrayList<>();
        for (String contained : List.of("like", "document")) {
            queries.add(containmentQuery(likeText(corpus.get("article0")[1]), contained));
            queries.add(containmentQuery(likeText(corpus.get("host0x8")[1]), contained));
        }
        for (String query : queries) {
            assertFalse(query, scores(client(), CONTAINMENT_INDEX, query).isEmpty());
            for (String role : roles.keySet()) {
                assertEquals(
                        role + ": " + query, Map.of(), scores(userClient(role + "_user"), CONTAINMENT_INDEX, query));
            }
        }
        String hostQuery = containmentQuery(likeText(corpus.get("article0")[1]), "like");
        assertEquals(
                true, explain(client(), CONTAINMENT_INDEX, "host0x8", hostQuery).get("matched"));
        for (String role : roles.keySet()) {
            Map<String, Object> explained =
                    explain(userClient(role + "_user"), CONTAINMENT_INDEX, "host0x8", hostQuery);
            assertEquals(role + ": " + explained, 200, explained.get("status"));
            assertEquals(role + ": " + explained, false, explained.get("matched"));
            // like._id reads the document as this user: a refusal that names it (400) or no hit, never a server error.
            try {
                Map<String, Object> response = send(
                        userClient(role + "_user"),
                        "POST",
                        "/" + CONTAINMENT_INDEX + "/_search",
                        "{\"query\": " + containmentQuery(likeId("article0", false), "like") + "}");
                assertEquals(role + ": " + response, List.of(), hits(response));
            } catch (ResponseException e) {
                assertEquals(
                        role + ": " + e.getMessage(),
                        400,
                        e.getResponse().getStatusLine().getStatusCode());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static long queryCacheSize(String index) throws IOException {
        Map<String, Object> stats = send("GET", "/" + index + "/_stats/query_cache", null);
        Map<String, Object> total = (Map<String, Object>) ((Map<String, Object>) stats.get("_all")).get("total");
        return ((Number) ((Map<String, Object>) total.get("query_cache")).get("cache_size")).longValue();
    }

    /**
     * The node's query cache is shared between the DLS user and everyone else (the Security plugin bypasses it only
     * for FLS and masking): a filter the DLS user's searches cached must not leave the hidden documents out of the
     * admin's answer. One segment of over 10,000 documents, the smallest Lucene caches filters for.
     */
    public void testContainmentCachedForADocumentLevelSecurityUserIsTheWholeAnswerForTheAdmin() throws IOException {
        String index = CONTAINMENT_INDEX + "-cached";
        Map<String, String[]> corpus = containmentCorpus();
        Random random = new Random(20261126L);
        for (int i = 0; corpus.size() < 10_200; i++) {
            corpus.put("filler" + i, new String[] {team(i), String.join(" ", randomWords(random, 4))});
        }
        setUpContainmentIndex(index, containmentMapping(1), corpus);
        send("POST", "/" + index + "/_forcemerge?max_num_segments=1", null);
        send("POST", "/" + index + "/_refresh", null);
        putRole("sec_dls_cached", role().index(index).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls_cached_user", "sec_dls_cached");

        String query = containmentQuery(likeText(corpus.get("article0")[1]), "like");
        String filter = "{\"constant_score\": {\"filter\": " + query + "}}";
        Set<String> scored = scores(client(), index, query).keySet();
        Set<String> visible = teamA(scored, corpus);
        assertNotEquals("hidden hosts contain the article", visible, scored);
        long cachedBefore = queryCacheSize(index);
        for (int i = 0; i < 10; i++) {
            assertEquals(
                    visible,
                    scores(userClient("sec_dls_cached_user"), index, filter).keySet());
        }
        assertTrue("the DLS user's filter was cached", queryCacheSize(index) > cachedBefore);
        assertEquals(scored, scores(client(), index, filter).keySet());
    }

    private static Set<String> teamA(Set<String> ids, Map<String, String[]> corpus) {
        Set<String> visible = new TreeSet<>();
        for (String id : ids) {
            if (corpus.get(id)[0].equals("a")) {
                visible.add(id);
            }
        }
        return visible;
    }
}
