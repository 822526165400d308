/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import io.neardup.NearDupRestTestCase;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The processor over HTTP on the real node that the build starts. */
public class NearDupFingerprintIT extends NearDupRestTestCase {

    private static String pipeline(String processorConfig) {
        return "{\"processors\": [{\"near_dup_fingerprint\": " + processorConfig + "}]}";
    }

    private static void putPipeline(String id, String processorConfig) throws IOException {
        send("PUT", "/_ingest/pipeline/" + id, pipeline(processorConfig));
    }

    private static void assertPutRejected(String processorConfig, String... reasonParts) throws IOException {
        assertBadRequest("PUT", "/_ingest/pipeline/bad", pipeline(processorConfig), reasonParts);
    }

    @SuppressWarnings("unchecked")
    public void testSimulateWritesFingerprints() throws IOException {
        putPipeline("fp", "{\"field\": \"body\", \"target_field\": \"body_fp\"}");
        Map<String, Object> result = send("POST", "/_ingest/pipeline/fp/_simulate", """
            {"docs": [{"_source": {"body": "The ls command lists directory contents, sorted alphabetically by default."}}]}""");
        Map<String, Object> source = (Map<String, Object>)
                ((Map<String, Object>) ((Map<String, Object>) ((List<Object>) result.get("docs")).get(0)).get("doc"))
                        .get("_source");
        Map<String, Object> fp = (Map<String, Object>) source.get("body_fp");
        Map<String, Object> simhash = (Map<String, Object>) fp.get("simhash");
        assertTrue(fp.toString(), simhash.get("value").toString().matches("[0-9a-f]{16}"));
        assertEquals(86, simhash.get("margins").toString().length());
        assertTrue(simhash.get("scheme").toString().matches("nd1-[0-9a-f]{8}"));
        // A new index's format (2): the set, and no signature beside it.
        assertEquals(Set.of("shingles", "scheme"), ((Map<String, Object>) fp.get("minhash")).keySet());
        assertTrue(fp.get("content_hash").toString().matches("[0-9a-f]{32}"));
        assertEquals(10, ((Number) fp.get("tokens")).intValue());
    }

    public void testBadConfigsFailThePipelinePutWithTheOptionAndReason() throws IOException {
        assertPutRejected("{}", "[field] required property is missing");
        assertPutRejected("{\"field\": \"body\", \"num_hashes\": 0}", "[num_hashes] must be in [1, 1024], got [0]");
        assertPutRejected("{\"field\": \"body\", \"analyzer\": \"klingon\"}", "[analyzer] unknown analyzer [klingon]");
        assertPutRejected("{\"field\": \"body\", \"weighting\": \"bm25\"}", "[weighting] unknown weighting [bm25]");
        assertPutRejected("{\"field\": \"body\", \"idf_table\": \"missing.tsv\"}", "[idf_table] no file [missing.tsv]");
        assertPutRejected("{\"field\": \"body\", \"max_chars\": 99999999}", "[max_chars] must be in [1, 10000000]");
        assertPutRejected(
                "{\"field\": \"body\", \"shingles\": 3}",
                "doesn't support one or more provided configuration parameters",
                "shingles");
    }

    public void testCustomAnalysisChainStripsHtml() throws IOException {
        putPipeline("html", "{\"field\": \"body\", \"char_filter\": [\"html_strip\"], \"filter\": [\"lowercase\"]}");
        putPipeline("plain", "{\"field\": \"body\", \"tokenizer\": \"standard\", \"filter\": [\"lowercase\"]}");
        String simulate = """
            {"docs": [{"_source": {"body": "<p>Copy <b>files</b> and directories</p>"}},
                      {"_source": {"body": "Copy files and directories"}}]}""";
        Map<String, Object> stripped = send("POST", "/_ingest/pipeline/html/_simulate", simulate);
        List<String> hashes = simhashes(stripped);
        assertEquals("markup must not change the fingerprint once stripped: " + stripped, hashes.get(0), hashes.get(1));
        List<String> plain = simhashes(send("POST", "/_ingest/pipeline/plain/_simulate", simulate));
        assertNotEquals(plain.get(0), plain.get(1));
    }

    @SuppressWarnings("unchecked")
    private static List<String> simhashes(Map<String, Object> simulateResponse) {
        return ((List<Object>) simulateResponse.get("docs"))
                .stream()
                        .map(d -> {
                            Map<String, Object> source = (Map<String, Object>)
                                    ((Map<String, Object>) ((Map<String, Object>) d).get("doc")).get("_source");
                            return (String)
                                    ((Map<String, Object>) ((Map<String, Object>) source.get("body_fp")).get("simhash"))
                                            .get("value");
                        })
                        .toList();
    }

    @SuppressWarnings("unchecked")
    public void testEveryBadDocumentFailsClearlyOrIsHandledByOnFailure() throws IOException {
        putPipeline("strict", "{\"field\": \"body\", \"max_chars\": 100}");
        send(
                "PUT",
                "/docs",
                "{\"mappings\": {\"properties\": {\"body_fp\": {\"type\": \"object\", \"enabled\": false}}}}");
        String huge = "word ".repeat(40);
        String bulk = String.join(
                        "\n",
                        "{\"index\": {\"_id\": \"missing\"}}",
                        "{\"title\": \"no body\"}",
                        "{\"index\": {\"_id\": \"null\"}}",
                        "{\"body\": null}",
                        "{\"index\": {\"_id\": \"number\"}}",
                        "{\"body\": 42}",
                        "{\"index\": {\"_id\": \"object\"}}",
                        "{\"body\": {\"a\": \"b\"}}",
                        "{\"index\": {\"_id\": \"huge\"}}",
                        "{\"body\": \"" + huge + "\"}",
                        "{\"index\": {\"_id\": \"empty\"}}",
                        "{\"body\": \"   \"}",
                        "{\"index\": {\"_id\": \"array\"}}",
                        "{\"body\": [\"one text\", \"two texts\"]}",
                        "{\"index\": {\"_id\": \"fine\"}}",
                        "{\"body\": \"a perfectly normal text\"}")
                + "\n";
        Map<String, Object> response = send("POST", "/docs/_bulk?pipeline=strict&refresh=true", bulk);
        Map<String, String> errors = new java.util.HashMap<>();
        Map<String, Integer> statuses = new java.util.HashMap<>();
        for (Object item : (List<Object>) response.get("items")) {
            Map<String, Object> index = (Map<String, Object>) ((Map<String, Object>) item).get("index");
            statuses.put((String) index.get("_id"), (Integer) index.get("status"));
            if (index.containsKey("error")) {
                errors.put(
                        (String) index.get("_id"), (String) ((Map<String, Object>) index.get("error")).get("reason"));
            }
        }
        assertEquals(
                Map.of(
                        "missing", "field [body] is missing, cannot fingerprint it",
                        "null", "field [body] is null, cannot fingerprint it",
                        "number", "field [body] is a number [42], expected a string or an array of strings",
                        "object", "field [body] is an object, expected a string or an array of strings",
                        "huge",
                                "field [body] has 200 characters, more than max_chars [100]; raise max_chars or set truncate to fingerprint "
                                        + "only the first max_chars characters"),
                errors);
        for (String id : errors.keySet()) {
            assertEquals(id, Integer.valueOf(400), statuses.get(id));
        }
        Map<String, Object> empty =
                (Map<String, Object>) send("GET", "/docs/_doc/empty", null).get("_source");
        assertEquals(Map.of("tokens", 0, "content_hash", "00000000000000000000000000000000"), empty.get("body_fp"));
        Map<String, Object> array =
                (Map<String, Object>) send("GET", "/docs/_doc/array", null).get("_source");
        assertTrue(((Map<String, Object>) array.get("body_fp")).containsKey("simhash"));

        putPipeline("lenient", "{\"field\": \"body\", \"ignore_missing\": true}");
        send("PUT", "/_ingest/pipeline/handled", """
            {"processors": [{"near_dup_fingerprint": {"field": "body"}}],
             "on_failure": [{"set": {"field": "fingerprint_error", "value": "{{ _ingest.on_failure_message }}"}}]}""");
        send("PUT", "/docs/_doc/ignored?pipeline=lenient&refresh=true", "{\"title\": \"no body\"}");
        Map<String, Object> ignored =
                (Map<String, Object>) send("GET", "/docs/_doc/ignored", null).get("_source");
        assertEquals(Map.of("title", "no body"), ignored);
        send("PUT", "/docs/_doc/handled?pipeline=handled&refresh=true", "{\"body\": 42}");
        Map<String, Object> handled =
                (Map<String, Object>) send("GET", "/docs/_doc/handled", null).get("_source");
        assertEquals(
                "field [body] is a number [42], expected a string or an array of strings",
                handled.get("fingerprint_error"));
    }

    @SuppressWarnings("unchecked")
    public void testShippedIdfTableLoadsFromThePluginConfigFolder() throws IOException {
        putPipeline(
                "idf",
                "{\"field\": \"body\", \"idf_table\": \"english-idf.tsv\", \"simhash_shingle_size\": 1, "
                        + "\"weighting\": \"tf\"}");
        putPipeline("plain", "{\"field\": \"body\", \"simhash_shingle_size\": 1, \"weighting\": \"tf\"}");
        String simulate = "{\"docs\": [{\"_source\": {\"body\": \"copy files and directories to another place\"}}]}";
        List<String> schemes = new java.util.ArrayList<>();
        for (String pipeline : new String[] {"idf", "plain"}) {
            Map<String, Object> result = send("POST", "/_ingest/pipeline/" + pipeline + "/_simulate", simulate);
            Map<String, Object> source = (Map<String, Object>) ((Map<String, Object>)
                            ((Map<String, Object>) ((List<Object>) result.get("docs")).get(0)).get("doc"))
                    .get("_source");
            schemes.add((String)
                    ((Map<String, Object>) ((Map<String, Object>) source.get("body_fp")).get("simhash")).get("scheme"));
        }
        assertNotEquals("the IDF table is part of the scheme", schemes.get(0), schemes.get(1));
    }
}
