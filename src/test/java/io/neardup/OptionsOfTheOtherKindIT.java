/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.json.JsonXContent;

/**
 * Every option of every entry point that does not apply to the field's kind (simhash or minhash) is a
 * 400 naming it, never silently ignored: the {@code near_duplicate} query, {@code _near_dup_clusters},
 * the {@code near_dup_lookup} processor and the {@code near_dup_collapse} processor, on a real node.
 * Before, {@code _near_dup_clusters} on a minhash field with {@code max_distance} answered 200 and wrote.
 * Also the messages that name the way out: the fingerprint object instead of its fields, an index not
 * fingerprinted yet, a signature of the wrong length; and the run's {@code total} in its task status.
 */
public class OptionsOfTheOtherKindIT extends NearDupRestTestCase {

    private static final String INDEX = "kinds";
    private static final String TEXT = "A heat wave will reach the northern valleys on Thursday, with afternoon"
            + " temperatures near 38 degrees. The weather service advises residents to drink water, avoid the"
            + " midday sun and check on elderly neighbours. Cooler air is expected from the coast on Sunday.";

    /** An entry point, the field it is given, the option of the other kind and its value. */
    private record Misplaced(String entryPoint, String field, String option, String value) {}

    private static final List<Misplaced> TABLE = List.of(
            new Misplaced("query", "body_fp.minhash", "max_distance", "3"),
            new Misplaced("query", "body_fp.minhash", "mode", "\"exact\""),
            new Misplaced("query", "body_fp.minhash", "max_flips", "16"),
            new Misplaced("query", "body_fp.minhash", "prefix_bits", "8"),
            new Misplaced("query", "body_fp.minhash", "first_match", "true"),
            new Misplaced("query", "body_fp.simhash", "min_band_matches", "2"),
            new Misplaced("query", "body_fp.simhash", "verification", "\"estimate\""),
            new Misplaced("clusters", "body_fp.minhash", "max_distance", "3"),
            new Misplaced("clusters", "body_fp.minhash", "mode", "\"exact\""),
            new Misplaced("clusters", "body_fp.minhash", "max_flips", "16"),
            new Misplaced("clusters", "body_fp.simhash", "mode", "\"exact\""),
            new Misplaced("clusters", "body_fp.simhash", "max_flips", "16"),
            new Misplaced("clusters", "body_fp.simhash", "verification", "\"estimate\""),
            new Misplaced("lookup", "body_fp.minhash", "max_distance", "3"),
            new Misplaced("lookup", "body_fp.simhash", "min_similarity", "0.8"),
            new Misplaced("lookup", "body_fp.simhash", "mode", "\"exact\""),
            new Misplaced("lookup", "body_fp.simhash", "max_flips", "16"),
            new Misplaced("collapse", "body_fp.minhash", "max_distance", "3"),
            new Misplaced("collapse", "body_fp.simhash", "min_similarity", "0.8"));

    /** Two near copies and one other text, fingerprinted at ingest. */
    private static void createIndex() throws IOException {
        send(
                "PUT",
                "/_ingest/pipeline/kinds-fingerprints",
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}");
        send("PUT", "/" + INDEX, """
            {"settings": {"index.default_pipeline": "kinds-fingerprints", "number_of_replicas": 0},
             "mappings": {"properties": {"body": {"type": "text"}, "body_fp": {"properties": {
               "simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}, "content_hash": {"type": "keyword"}}}}}}""");
        send("PUT", "/" + INDEX + "/_doc/1", "{\"body\": \"" + TEXT + "\"}");
        send("PUT", "/" + INDEX + "/_doc/2", "{\"body\": \"" + TEXT.replace("38", "39") + "\"}");
        send(
                "PUT",
                "/" + INDEX + "/_doc/3?refresh=true",
                "{\"body\": \"The library opens until nine in the evening.\"}");
    }

    public void testEveryOptionOfTheOtherKindIsA400NamingIt() throws IOException {
        createIndex();
        for (Misplaced m : TABLE) {
            String option = "\"" + m.option() + "\": " + m.value();
            switch (m.entryPoint()) {
                case "query" ->
                    assertBadRequest(
                            "POST",
                            "/" + INDEX + "/_search",
                            "{\"query\": {\"near_duplicate\": {\"field\": \"" + m.field()
                                    + "\", \"like\": {\"_id\": \"1\"}, " + option + "}}}",
                            "[" + m.option() + "]");
                case "clusters" -> {
                    assertBadRequest(
                            "POST",
                            "/" + INDEX + "/_near_dup_clusters",
                            "{\"field\": \"" + m.field() + "\", \"target_field\": \"body_dup\", " + option + "}",
                            "[" + m.option() + "]");
                    // refused before anything was written or mapped
                    Map<String, Object> mapping = send("GET", "/" + INDEX + "/_mapping/field/body_dup*", null);
                    assertEquals(mapping.toString(), Map.of(), ((Map<?, ?>) mapping.get(INDEX)).get("mappings"));
                }
                case "lookup" -> {
                    String pipeline = "{\"processors\": [{\"near_dup_lookup\": {\"field\": \"" + m.field()
                            + "\", \"target_field\": \"body_dup\", " + option + "}}]}";
                    if (m.option().equals("mode") || m.option().equals("max_flips")) {
                        // no lookup takes them: refused when the pipeline is PUT
                        assertBadRequest("PUT", "/_ingest/pipeline/kinds-lookup", pipeline, "[" + m.option() + "]");
                    } else {
                        // the field's kind is the lookup index's mapping's, known at the document
                        send("PUT", "/_ingest/pipeline/kinds-lookup", pipeline);
                        assertBadRequest(
                                "POST",
                                "/" + INDEX + "/_doc?pipeline=kinds-lookup",
                                "{\"body_fp\": {\"simhash\": \"00000000000000ff\", \"minhash\": \"x\"}}",
                                "[" + m.option() + "]");
                    }
                }
                case "collapse" -> {
                    // the kind is the fingerprints' in the hits: the pipeline is accepted, the search refused
                    send(
                            "PUT",
                            "/_search/pipeline/kinds-collapse",
                            "{\"response_processors\": [{\"near_dup_collapse\": {\"field\": \"" + m.field() + "\", "
                                    + option + "}}]}");
                    assertBadRequest(
                            "POST",
                            "/" + INDEX + "/_search?search_pipeline=kinds-collapse",
                            "{\"query\": {\"match_all\": {}}}",
                            "[" + m.option() + "]");
                }
                default -> throw new AssertionError(m.entryPoint());
            }
        }
    }

    @SuppressWarnings("unchecked")
    public void testMessagesNameTheWayOut() throws IOException {
        createIndex();
        assertBadRequest(
                "POST",
                "/" + INDEX + "/_search",
                "{\"query\": {\"near_duplicate\": {\"field\": \"body_fp\", \"like\": {\"_id\": \"1\"}}}}",
                "[body_fp] is a fingerprint object",
                "[body_fp.simhash], [body_fp.minhash]");
        assertBadRequest(
                "POST",
                "/" + INDEX + "/_near_dup_clusters",
                "{\"field\": \"body_fp\", \"target_field\": \"body_dup\"}",
                "[body_fp] is a fingerprint object",
                "[body_fp.simhash]",
                "[body_fp.minhash]");
        assertBadRequest(
                "POST",
                "/" + INDEX + "/_near_dup_clusters",
                "{\"field\": \"text_fp.minhash\", \"target_field\": \"body_dup\"}",
                "[text_fp.minhash] is not mapped",
                "_update_by_query?pipeline=");
        // a signature of 64 values into a field of 128: the length, not "Preview of field's value: 'null'", on top
        send(
                "PUT",
                "/_ingest/pipeline/kinds-64",
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", \"num_hashes\": 64}}]}");
        Map<String, Object> error = (Map<String, Object>) XContentHelper.convertToMap(
                        JsonXContent.jsonXContent,
                        expectRefused(
                                400, "PUT", "/" + INDEX + "/_doc/4?pipeline=kinds-64", "{\"body\": \"" + TEXT + "\"}"),
                        false)
                .get("error");
        assertTrue(
                error.toString(), ((String) error.get("reason")).contains("has 64 values, expected 128 (num_hashes)"));
    }

    @SuppressWarnings("unchecked")
    public void testTaskStatusShowsTotal() throws IOException {
        createIndex();
        for (boolean dryRun : new boolean[] {true, false}) {
            String task = (String) send(
                            "POST",
                            "/" + INDEX + "/_near_dup_clusters?wait_for_completion=false&dry_run=" + dryRun,
                            "{\"field\": \"body_fp.minhash\", \"target_field\": \"body_dup\"}")
                    .get("task");
            Map<String, Object> done = send("GET", "/_tasks/" + task + "?wait_for_completion=true&timeout=60s", null);
            Map<String, Object> status = (Map<String, Object>) ((Map<String, Object>) done.get("task")).get("status");
            // a dry run ends having scanned the 3 documents; a run that writes, having written the 2 copies
            assertEquals(status.toString(), dryRun ? 3 : 2, status.get("total"));
            assertEquals(status.toString(), 3, status.get("scanned"));
        }
    }
}
