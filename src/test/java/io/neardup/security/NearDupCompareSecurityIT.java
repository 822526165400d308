/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.security;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.opensearch.client.RestClient;

/**
 * {@code _near_dup/_compare} and {@code near_dup_explain} beside the Security plugin: each reads texts as the user who
 * asks, so a document hidden by DLS is not found (404), an index the user may not read is a 403, and a text field hidden
 * by FLS or masked gives no passages: a 400 "has no value" for {@code _compare} (as for a document without the field),
 * no explanation on a search's hit.
 */
public class NearDupCompareSecurityIT extends SecurityRestTestCase {
    private static final String INDEX = "sec-cmp";
    private static final String SECRET = "sec-cmp-secret";
    private static final String PIPELINE = "sec-cmp-fp";
    private static final String MAPPING = """
        {"settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.default_pipeline": "sec-cmp-fp"},
         "mappings": {"properties": {
           "team": {"type": "keyword"},
           "text": {"type": "text"},
           "text_fp": {"properties": {"simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}}}}}}""";
    private static final String TEXT = "the council approved the new cycling plan on tuesday evening and the plan adds "
            + "forty kilometres of protected lanes a bridge over the river and bicycle parking at every station";

    private void setUpIndices() throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\", \"target_field\": \"text_fp\"}}]}");
        send("PUT", "/" + INDEX, MAPPING);
        send("PUT", "/" + SECRET, MAPPING);
        String bulk = line("a1", "a", TEXT)
                + line("b1", "b", TEXT.replace("tuesday", "monday"))
                + line("a2", "a", TEXT.replace("forty", "fifty"));
        assertEquals(
                false, send("POST", "/" + INDEX + "/_bulk?refresh=true", bulk).get("errors"));
        assertEquals(
                false,
                send("POST", "/" + SECRET + "/_bulk?refresh=true", line("s1", "a", TEXT))
                        .get("errors"));
        putRole("cmp_dls", role().index(INDEX).allow("read").dls("{\"term\": {\"team\": \"a\"}}"));
        putRole("cmp_fls", role().index(INDEX).allow("read").fls("~text"));
        putRole("cmp_masked", role().index(INDEX).allow("read").masked("text"));
        putUser("cmp_dls_user", "cmp_dls");
        putUser("cmp_fls_user", "cmp_fls");
        putUser("cmp_masked_user", "cmp_masked");
    }

    private static String line(String id, String team, String text) {
        return "{\"index\": {\"_id\": \"" + id + "\"}}\n{\"team\": \"" + team + "\", \"text\": \"" + text + "\"}\n";
    }

    private static String side(String index, String id) {
        return "{\"_index\": \"" + index + "\", \"_id\": \"" + id + "\", \"field\": \"text\"}";
    }

    private static String compareBody(String a, String b) {
        return "{\"a\": " + a + ", \"b\": " + b + "}";
    }

    public void testCompareByIdReadsAsTheCaller() throws IOException {
        setUpIndices();
        String a1b1 = compareBody(side(INDEX, "a1"), side(INDEX, "b1"));
        String a1a2 = compareBody(side(INDEX, "a1"), side(INDEX, "a2"));
        Map<String, Object> admin = send(client(), "POST", "/_near_dup/_compare", a1b1);
        assertTrue(admin.toString(), ((Number) admin.get("jaccard")).doubleValue() > 0.5);
        RestClient dls = userClient("cmp_dls_user");
        // b1 is team b's: hidden by DLS, it is not found, as a document that does not exist
        String hidden = expectRefused(404, dls, "POST", "/_near_dup/_compare", a1b1);
        assertTrue(hidden, hidden.contains("[b._id] document [b1] not found in index [sec-cmp]"));
        String missing = expectRefused(
                404, dls, "POST", "/_near_dup/_compare", compareBody(side(INDEX, "a1"), side(INDEX, "b9")));
        assertTrue(missing, missing.contains("[b._id] document [b9] not found in index [sec-cmp]"));
        // visible documents: the admin's answer
        assertEquals(
                send(client(), "POST", "/_near_dup/_compare", a1a2), send(dls, "POST", "/_near_dup/_compare", a1a2));
        // an index the user may not read: refused, whether or not the document exists
        expectRefused(403, dls, "POST", "/_near_dup/_compare", compareBody(side(INDEX, "a1"), side(SECRET, "s1")));
        expectRefused(403, dls, "POST", "/_near_dup/_compare", compareBody(side(INDEX, "a1"), side(SECRET, "s9")));
        // a field hidden by FLS: no text, no passages (the refusal a document without the field gets)
        String noText = expectRefused(400, userClient("cmp_fls_user"), "POST", "/_near_dup/_compare", a1a2);
        assertTrue(noText, noText.contains("[a.field] [text] of document [a1] in index [sec-cmp] has no value"));
    }

    /**
     * Two texts read no index: a cluster action, {@code cluster:monitor/neardup/compare}, with the read of the named
     * pipeline; a role on an index, however broad, does not grant it.
     */
    public void testCompareOfTextsNeedsTheComparePermissionAndThePipelineRead() throws IOException {
        setUpIndices();
        String texts = "{\"a\": {\"text\": \"" + TEXT + "\"}, \"b\": {\"text\": \"" + TEXT.replace("forty", "fifty")
                + "\"}, \"pipeline\": \"" + PIPELINE + "\"}";
        putRole("cmp_texts", role().cluster("cluster:monitor/neardup/compare", "cluster:admin/ingest/pipeline/get"));
        putRole("cmp_no_pipeline", role().cluster("cluster:monitor/neardup/compare"));
        putRole("cmp_index_only", role().index("*").allow("read"));
        putUser("cmp_texts_user", "cmp_texts");
        putUser("cmp_no_pipeline_user", "cmp_no_pipeline");
        putUser("cmp_index_only_user", "cmp_index_only");
        Map<String, Object> admin = send(client(), "POST", "/_near_dup/_compare", texts);
        assertTrue(admin.toString(), ((Number) admin.get("jaccard")).doubleValue() > 0.5);
        assertEquals(admin, send(userClient("cmp_texts_user"), "POST", "/_near_dup/_compare", texts));
        expectRefused(403, userClient("cmp_no_pipeline_user"), "POST", "/_near_dup/_compare", texts);
        expectRefused(403, userClient("cmp_index_only_user"), "POST", "/_near_dup/_compare", texts);
    }

    private static final String SEARCH = "{\"query\": {\"match_all\": {}}, \"_source\": false, \"ext\": "
            + "{\"near_dup_explain\": {\"like\": %s, \"field\": \"text\"}}}";

    /** Each hit's id → whether it carries an explanation. */
    @SuppressWarnings("unchecked")
    private static Map<String, Boolean> explained(RestClient client, String like) throws IOException {
        Map<String, Object> response =
                send(client, "POST", "/" + INDEX + "/_search", String.format(Locale.ROOT, SEARCH, like));
        assertEquals(response.toString(), 0, ((Map<String, Object>) response.get("_shards")).get("failed"));
        Map<String, Boolean> byId = new TreeMap<>();
        for (Map<String, Object> hit : hits(response)) {
            Map<String, Object> fields = (Map<String, Object>) hit.get("fields");
            byId.put((String) hit.get("_id"), fields != null && fields.containsKey("near_dup_explain"));
        }
        return byId;
    }

    public void testExplainGivesNoPassagesOfWhatTheCallerMayNotRead() throws IOException {
        setUpIndices();
        String likeText = "{\"text\": \"" + TEXT + "\"}";
        assertEquals(Map.of("a1", true, "a2", true, "b1", true), explained(client(), likeText));
        assertEquals(Map.of("a1", true, "a2", true), explained(userClient("cmp_dls_user"), likeText));
        // the hits, but no explanation: the text is hidden (FLS) or a hash (masking)
        assertEquals(Map.of("a1", false, "a2", false, "b1", false), explained(userClient("cmp_fls_user"), likeText));
        assertEquals(Map.of("a1", false, "a2", false, "b1", false), explained(userClient("cmp_masked_user"), likeText));

        // like by _id: read as the caller
        assertEquals(Map.of("a1", true, "a2", true, "b1", true), explained(client(), "{\"_id\": \"b1\"}"));
        RestClient dls = userClient("cmp_dls_user");
        assertEquals(Map.of("a1", true, "a2", true), explained(dls, "{\"_id\": \"a2\"}"));
        Set<String> refusals = new TreeSet<>();
        String hidden = expectRefused(
                404, dls, "POST", "/" + INDEX + "/_search", String.format(Locale.ROOT, SEARCH, "{\"_id\": \"b1\"}"));
        assertTrue(hidden, hidden.contains("[near_dup_explain.like._id] document [b1] not found in index [sec-cmp]"));
        refusals.add(expectRefused(
                403,
                dls,
                "POST",
                "/" + INDEX + "/_search",
                String.format(Locale.ROOT, SEARCH, "{\"_index\": \"" + SECRET + "\", \"_id\": \"s1\"}")));
        refusals.add(expectRefused(
                403,
                dls,
                "POST",
                "/" + INDEX + "/_search",
                String.format(Locale.ROOT, SEARCH, "{\"_index\": \"" + SECRET + "\", \"_id\": \"s9\"}")));
        assertEquals("the same refusal whether the document exists or not", 1, refusals.size());
        String noText = expectRefused(
                400,
                userClient("cmp_fls_user"),
                "POST",
                "/" + INDEX + "/_search",
                String.format(Locale.ROOT, SEARCH, "{\"_id\": \"a1\"}"));
        assertTrue(noText, noText.contains("has no value"));
    }
}
