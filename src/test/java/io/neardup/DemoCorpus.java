/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.client.Request;
import org.opensearch.client.RestClient;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.test.rest.OpenSearchRestTestCase;

/** Loads the demo corpus (on the test classpath) through the fingerprinting pipeline, for tests over HTTP. */
public final class DemoCorpus {

    public static final String PIPELINE = "fingerprints";

    public static final String INDEX_SETUP = """
        {"settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.sort.field": "text_fp.simhash",
                      "index.default_pipeline": "fingerprints"},
         "mappings": {"properties": {
           "group": {"type": "keyword"},
           "text": {"type": "text"},
           "text_fp": {"properties": {
             "simhash": {"type": "simhash"},
             "minhash": {"type": "minhash", "num_hashes": 128},
             "content_hash": {"type": "keyword"}}}}}}""";

    private DemoCorpus() {}

    public static List<String> lines() throws IOException {
        try (InputStream in = DemoCorpus.class.getResourceAsStream("/manpages-demo.jsonl")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    /** Two different texts of the corpus's first group that has them (two releases of a man page), as id → text. */
    public static Map<String, String> twoReleases() throws IOException {
        Map<String, Map<String, String>> groups = new LinkedHashMap<>();
        for (String line : lines()) {
            Map<String, Object> doc = XContentHelper.convertToMap(XContentType.JSON.xContent(), line, false);
            Map<String, String> group = groups.computeIfAbsent((String) doc.get("group"), g -> new LinkedHashMap<>());
            group.put((String) doc.get("id"), (String) doc.get("text"));
            if (group.size() == 2 && group.values().stream().distinct().count() == 2) {
                return group;
            }
        }
        throw new AssertionError("no group of two different texts in the demo corpus");
    }

    /** Creates the pipeline and the index, bulk-loads the corpus with each line's "id" as _id; returns the document count. */
    public static int load(RestClient client, String index) throws IOException {
        return load(client, index, INDEX_SETUP);
    }

    /** As {@link #load(RestClient, String)}, with another index body. */
    public static int load(RestClient client, String index, String setup) throws IOException {
        Request pipeline = new Request("PUT", "/_ingest/pipeline/" + PIPELINE);
        pipeline.setJsonEntity("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        client.performRequest(pipeline);
        Request create = new Request("PUT", "/" + index);
        create.setJsonEntity(setup);
        client.performRequest(create);
        return bulk(client, index);
    }

    /** Bulk-loads the corpus into an existing index, each line's "id" as _id; returns the document count. */
    public static int bulk(RestClient client, String index) throws IOException {
        List<String> lines = lines();
        StringBuilder bulk = new StringBuilder();
        for (String line : lines) {
            String id = line.substring(line.indexOf(": \"") + 3, line.indexOf("\", "));
            bulk.append("{\"index\": {\"_id\": \"")
                    .append(id)
                    .append("\"}}\n")
                    .append(line)
                    .append('\n');
        }
        Request request = new Request("POST", "/" + index + "/_bulk?refresh=true");
        request.setJsonEntity(bulk.toString());
        Map<String, Object> response = OpenSearchRestTestCase.entityAsMap(client.performRequest(request));
        if (Boolean.FALSE.equals(response.get("errors")) == false) {
            throw new AssertionError("bulk errors: " + response);
        }
        return lines.size();
    }
}
