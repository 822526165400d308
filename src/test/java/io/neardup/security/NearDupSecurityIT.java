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

    private static Map<String, Object> send(RestClient client, String method, String path, String body)
            throws IOException {
        Request request = new Request(method, path);
        if (body != null) {
            request.setJsonEntity(body);
        }
        return entityAsMap(client.performRequest(request));
    }

    /** The request is refused with this status. */
    private static void assertRefused(int status, RestClient client, String method, String path, String body) {
        Request request = new Request(method, path);
        if (body != null) {
            request.setJsonEntity(body);
        }
        ResponseException e = expectThrows(ResponseException.class, () -> client.performRequest(request));
        assertEquals(e.getMessage(), status, e.getResponse().getStatusLine().getStatusCode());
    }

    private void setUpCorpus(boolean teamAOnlyCopy) throws IOException {
        send(
                client(),
                "PUT",
                "/_ingest/pipeline/sec-fp",
                "{\"processors\": [{\"near_dup_fingerprint\": "
                        + "{\"field\": \"text\", \"target_field\": \"text_fp\"}}]}");
        send(client(), "PUT", "/" + INDEX, MAPPING);
        if (teamAOnlyCopy) {
            send(client(), "PUT", "/" + TEAM_A_ONLY, MAPPING);
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
                send(client(), "POST", "/" + INDEX + "/_bulk?refresh=true", all.toString())
                        .get("errors"));
        if (teamAOnlyCopy) {
            assertEquals(
                    false,
                    send(client(), "POST", "/" + TEAM_A_ONLY + "/_bulk?refresh=true", teamA.toString())
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
                        send(client(), "GET", "/" + index + "/_doc/one", null).get("_source"))
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
        response.remove("took");
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
            assertRefused(
                    403,
                    userClient("sec_reader"),
                    "POST",
                    "/" + INDEX + "/_near_dup_clusters?dry_run=false",
                    "{\"field\": \"" + field + "\", \"target_field\": \"dup\"}");
            assertRefused(
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
        send(client(), "POST", "/" + INDEX + "/_refresh", null);
        assertEquals(
                GROUPS * COPIES,
                ids(client(), INDEX, "{\"exists\": {\"field\": \"dup.cluster\"}}")
                        .size());
    }

    private static Map<String, Object> dupOf(String index, String id) throws IOException {
        @SuppressWarnings("unchecked")
        Map<String, Object> source = (Map<String, Object>)
                send(client(), "GET", "/" + index + "/_doc/" + id, null).get("_source");
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
        send(client(), "PUT", "/_ingest/pipeline/sec-lookup", """
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
        assertRefused(
                403,
                userClient("sec_mallory"),
                "PUT",
                "/" + index + "/_doc/refused",
                "{\"team\": \"a\", \"text\": \"" + text + "\"}");
        indexOne(userClient("sec_alice"), index, "alice-1", "a", copy);
        indexOne(userClient("sec_bob"), index, "bob-1", "b", text);
        indexOne(userClient("sec_alice"), index, "alice-2", "a", text);
        send(client(), "POST", "/" + index + "/_refresh", null);
        assertRefused(404, client(), "GET", "/" + index + "/_doc/refused", null);
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
        send(client(), "PUT", "/_ingest/pipeline/sec-lookup", """
            {"processors": [
              {"near_dup_fingerprint": {"field": "text", "target_field": "text_fp"}},
              {"near_dup_lookup": {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "dup"}}]}""");
        send(client(), "PUT", "/" + index, MAPPING.replace("sec-fp", "sec-lookup"));
        putRole("sec_lookup_dls", role().index(index).allow("read", "write").dls("{\"term\": {\"team\": \"a\"}}"));
        putRole("sec_lookup_fls", role().index(index).allow("read", "write").fls("~text_fp"));
        putUser("sec_dls_writer", "sec_lookup_dls");
        putUser("sec_fls_writer", "sec_lookup_fls");
        indexOne(client(), index, "hidden-b", "b", corpus().get("g2c0")[1]);
        indexOne(client(), index, "visible-a", "a", corpus().get("g3c0")[1]);
        send(client(), "POST", "/" + index + "/_refresh", null);
        indexOne(userClient("sec_dls_writer"), index, "dls-copy-of-b", "a", corpus().get("g2c1")[1]);
        indexOne(userClient("sec_dls_writer"), index, "dls-copy-of-a", "a", corpus().get("g3c1")[1]);
        indexOne(userClient("sec_fls_writer"), index, "fls-copy-of-a", "a", corpus().get("g3c2")[1]);
        indexOne(client(), index, "admin-copy-of-b", "b", corpus().get("g2c2")[1]);
        assertEquals(Map.of("cluster", "dls-copy-of-b", "representative", true), dupOf(index, "dls-copy-of-b"));
        assertEquals("visible-a", dupOf(index, "dls-copy-of-a").get("duplicate_of"));
        assertEquals(Map.of("cluster", "fls-copy-of-a", "representative", true), dupOf(index, "fls-copy-of-a"));
        assertEquals("hidden-b", dupOf(index, "admin-copy-of-b").get("duplicate_of"));
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
            assertRefused(
                    403,
                    userClient("sec_plain_reader"),
                    "POST",
                    "/" + INDEX + "/_search",
                    "{\"query\": " + query + "}");
        }
        assertRefused(
                400, userClient("sec_pipeline_user"), "POST", "/" + INDEX + "/_search", "{\"query\": " + unknown + "}");
    }

    /** Collapsing under DLS folds only visible hits: no hidden _id is listed. */
    @SuppressWarnings("unchecked")
    public void testCollapseUnderDocumentLevelSecurityListsNoHiddenDocument() throws IOException {
        setUpCorpus(false);
        send(client(), "PUT", "/_search/pipeline/sec-dedup", """
            {"request_processors": [{"near_dup_window": {"window": 100}}],
             "response_processors": [{"near_dup_collapse": {"field": "text_fp.minhash", "min_similarity": 0.5}}]}""");
        putRole("sec_dls_a", role().index(INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putUser("sec_dls", "sec_dls_a");
        String search = "{\"size\": 100, \"query\": {\"match_all\": {}}}";
        Map<String, Object> admin = send(client(), "POST", "/" + INDEX + "/_search?search_pipeline=sec-dedup", search);
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
        Request request = new Request("POST", "/" + INDEX + "/_near_dup_clusters");
        request.setJsonEntity("{\"field\": \"text_fp.simhash\", \"max_distance\": 8, \"target_field\": \"dup\"}");
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
        assertTrue(status + " " + body, status < 500);
        send(client(), "POST", "/" + INDEX + "/_refresh", null);
        assertEquals(Set.of(), ids(client(), INDEX, "{\"exists\": {\"field\": \"dup\"}}"));
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
        send(client(), "POST", "/" + INDEX + "/_refresh", null);
        assertEquals(
                GROUPS * COPIES,
                ids(client(), INDEX, "{\"exists\": {\"field\": \"dup.cluster\"}}")
                        .size());
    }

    /** Collapsing for a user who may not see the fingerprints: every hit stands alone, as in an index without them. */
    @SuppressWarnings("unchecked")
    public void testCollapseWithHiddenFingerprintsKeepsEveryHit() throws IOException {
        setUpCorpus(false);
        send(client(), "PUT", "/_search/pipeline/sec-dedup", """
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
        assertRefused(403, userClient("sec_no_cluster"), "GET", "/_plugins/neardup/stats", null);
        Response response =
                userClient("sec_monitor_user").performRequest(new Request("GET", "/_plugins/neardup/stats"));
        assertEquals(200, response.getStatusLine().getStatusCode());
    }
}
