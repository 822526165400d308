/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.DemoCorpus;
import io.neardup.NearDupRestTestCase;
import io.neardup.core.FingerprintFormat;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.opensearch.client.Request;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.common.bytes.BytesReference;

/**
 * Derived source on the real node: the demo corpus fingerprinted into an index that stores no {@code _source}
 * and into one that does. Every fingerprint comes back string for string through search, GET (also realtime,
 * before a refresh), a partial {@code _update}, a {@code _near_dup_clusters} write, a reindex into an index without
 * the pipeline and a snapshot restored, and the index stores less.
 */
public class DerivedFingerprintSourceIT extends NearDupRestTestCase {

    private static final String CLUSTER_BY_MINHASH = """
        {"field": "text_fp.minhash", "min_similarity": 0.5, "target_field": "text_dup",
         "representative": {"sort": [{"text_fp.tokens": "desc"}, "_id"]}}""";

    /** Strings as keywords: a dynamic text field with a keyword sub-field cannot derive its source. */
    private static String setup(FingerprintFormat format, boolean derived, boolean pipeline) {
        return String.format(
                Locale.ROOT,
                """
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0, "index.neardup.fingerprint_format": %d%s%s},
             "mappings": {"dynamic_templates": [{"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword"}}}],
               "properties": {
                 "text": {"type": "text"},
                 "text_fp": {"properties": {
                   "simhash": {"type": "simhash"},
                   "minhash": {"type": "minhash", "num_hashes": 128},
                   "content_hash": {"type": "keyword"}}}}}}""",
                format.number(),
                derived ? ", \"index.derived_source.enabled\": true" : "",
                pipeline ? ", \"index.default_pipeline\": \"" + DemoCorpus.PIPELINE + "\"" : "");
    }

    /** A partial update of {@code id} with {@code doc}, refreshed. */
    private static void update(String index, String id, String doc) throws IOException {
        Request request =
                request("POST", "/" + index + "/_update/" + encode(id) + "?refresh=true", "{\"doc\": " + doc + "}");
        // An update of an index with a default pipeline warns that pipelines on updates are deprecated.
        request.setOptions(TOLERATING_WARNINGS);
        client().performRequest(request);
    }

    /**
     * Each document's value of {@code field} in {@code _source}, by {@code _id}; none is left out. Derived source
     * writes an object field a document lacks as {@code {}} (OpenSearch's own behaviour), so an empty object is none.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> sourceValues(String index, String field) throws IOException {
        Map<String, Object> values = new HashMap<>();
        for (Map<String, Object> hit :
                hits(send("POST", "/" + index + "/_search", "{\"size\": 1000, \"_source\": [\"" + field + "\"]}"))) {
            Object value = ((Map<String, Object>) hit.get("_source")).get(field);
            if (value != null && Map.of().equals(value) == false) {
                values.put((String) hit.get("_id"), value);
            }
        }
        return values;
    }

    @SuppressWarnings("unchecked")
    private static Object getSource(String index, String id, String field) throws IOException {
        return ((Map<String, Object>)
                        send("GET", "/" + index + "/_doc/" + encode(id), null).get("_source"))
                .get(field);
    }

    private static String encode(String id) {
        return URLEncoder.encode(id, StandardCharsets.UTF_8);
    }

    private static long storeBytes(String index) throws IOException {
        send("POST", "/" + index + "/_forcemerge?max_num_segments=1", null);
        // The merged-away segments' files stay until no reader holds them: a refresh lets them go, so that
        // the size does not depend on whether the periodic refresh came first (it did not on a loaded machine).
        send("POST", "/" + index + "/_refresh", null);
        Map<String, Object> stats = send("GET", "/" + index + "/_stats/store", null);
        return ((Number) XContentMapValues.extractValue("_all.primaries.store.size_in_bytes", stats)).longValue();
    }

    public void testFingerprintsComeBackExactlyThroughEveryPathInFormatOne() throws IOException {
        everyPath(FingerprintFormat.SIGNATURE);
    }

    /** Format 2 (compact) on every path too: no signature where there is a set, and nothing else changes. */
    public void testFingerprintsComeBackExactlyThroughEveryPathInFormatTwo() throws IOException {
        everyPath(FingerprintFormat.COMPACT);
    }

    @SuppressWarnings("unchecked")
    private void everyPath(FingerprintFormat format) throws IOException {
        int documents = DemoCorpus.load(client(), "fp-stored", setup(format, false, true));
        DemoCorpus.load(client(), "fp-derived", setup(format, true, true));
        Map<String, Object> expected = sourceValues("fp-stored", "text_fp");
        assertEquals(documents, expected.size());
        for (Object fingerprint : expected.values()) {
            Map<String, Object> minhash = (Map<String, Object>) ((Map<String, Object>) fingerprint).get("minhash");
            assertEquals(minhash.toString(), format == FingerprintFormat.SIGNATURE, minhash.containsKey("value"));
        }
        assertEquals("search", expected, sourceValues("fp-derived", "text_fp"));
        long stored = storeBytes("fp-stored");
        long derived = storeBytes("fp-derived");
        assertTrue("derived " + derived + " bytes, stored " + stored, derived < stored);

        String id = expected.keySet().stream().sorted().findFirst().orElseThrow();
        assertEquals("GET", expected.get(id), getSource("fp-derived", id, "text_fp"));
        Map<String, Object> original = (Map<String, Object>)
                send("GET", "/fp-stored/_doc/" + encode(id), null).get("_source");
        Map<String, Object> copy = new HashMap<>(original);
        copy.remove("text_fp");
        String copyBody =
                BytesReference.bytes(JsonXContent.contentBuilder().map(copy)).utf8ToString();
        send("PUT", "/fp-derived/_doc/copy", copyBody);
        assertEquals("realtime GET, from the translog", expected.get(id), getSource("fp-derived", "copy", "text_fp"));
        send("DELETE", "/fp-derived/_doc/copy?refresh=true", null);

        update("fp-derived", id, "{\"tag\": \"seen\"}");
        assertEquals("seen", getSource("fp-derived", id, "tag"));
        assertEquals("partial update", expected, sourceValues("fp-derived", "text_fp"));

        // The clusters job reads the doc values, the update included, and writes by partial updates.
        Map<String, Object> storedRun = send("POST", "/fp-stored/_near_dup_clusters?refresh=true", CLUSTER_BY_MINHASH);
        Map<String, Object> derivedRun =
                send("POST", "/fp-derived/_near_dup_clusters?refresh=true", CLUSTER_BY_MINHASH);
        assertTrue(storedRun.toString(), (Integer) storedRun.get("updated") > 20);
        assertEquals(storedRun.get("updated"), derivedRun.get("updated"));
        Map<String, Object> clusters = sourceValues("fp-stored", "text_dup");
        assertEquals("clusters written", clusters, sourceValues("fp-derived", "text_dup"));
        assertEquals("after the clusters write", expected, sourceValues("fp-derived", "text_fp"));

        // A reindex into an index without the pipeline keeps the fingerprints, and they index the same doc values.
        send("PUT", "/fp-copy", setup(format, true, false));
        Map<String, Object> reindexed = send(
                "POST",
                "/_reindex?refresh=true",
                "{\"source\": {\"index\": \"fp-derived\"}, \"dest\": {\"index\": \"fp-copy\"}}");
        assertEquals(documents, reindexed.get("created"));
        assertEquals("reindex", expected, sourceValues("fp-copy", "text_fp"));
        update("fp-copy", id, "{\"tag\": \"again\"}");
        assertEquals("a partial update without a pipeline", expected, sourceValues("fp-copy", "text_fp"));
        Map<String, Object> again = send("POST", "/fp-copy/_near_dup_clusters?refresh=true", CLUSTER_BY_MINHASH);
        assertEquals("the copy's doc values cluster as the original's", 0, again.get("updated"));
        assertEquals(clusters, sourceValues("fp-copy", "text_dup"));

        send("PUT", "/_snapshot/derived", "{\"type\": \"fs\", \"settings\": {\"location\": \"derived\"}}");
        send(
                "PUT",
                "/_snapshot/derived/one-" + format.number() + "?wait_for_completion=true",
                "{\"indices\": \"fp-derived\"}");
        send("DELETE", "/fp-derived", null);
        send(
                "POST",
                "/_snapshot/derived/one-" + format.number() + "/_restore?wait_for_completion=true",
                "{\"indices\": \"fp-derived\"}");
        send("GET", "/_cluster/health/fp-derived?wait_for_status=green&timeout=60s", null);
        assertEquals("snapshot restored", expected, sourceValues("fp-derived", "text_fp"));
        assertEquals(
                String.valueOf(format.number()),
                XContentMapValues.extractValue(
                        "fp-derived.settings.index.neardup.fingerprint_format",
                        send("GET", "/fp-derived/_settings", null)));
        send("DELETE", "/_snapshot/derived/one-" + format.number(), null);
    }
}
