/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.commonmark.node.Node;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.xcontent.MediaTypeRegistry;

/**
 * Every request README.md shows, and those of the docs/ pages it links, sent in order to the real node
 * after the demo is set up as {@code src/scripts/run.sh} sets it up (the same request bodies, from
 * src/demo/). A block whose info string is {@code json} is the response of the request before it,
 * compared as a subset: the keys it shows (but {@link #VARYING}) with their values, {@code "…"} for any
 * value, and a trailing {@code "…"} in an array for more elements. A block preceded by
 * {@code <!-- not run: … -->} is skipped (the Security plugin's API, which this node does not have).
 */
public class ReadmeIT extends NearDupRestTestCase {

    /** Keys whose values differ from run to run. */
    private static final Set<String> VARYING = Set.of("took", "_seq_no", "_primary_term", "index_uuid", "timestamp");

    private static final String ELIDED = "…";

    /** One request of a block: {@code POST path} and its body (JSON, or NDJSON for {@code _bulk}). */
    record ReadmeRequest(String source, String method, String path, String body) {}

    public void testEveryRequestOfTheReadmeAndDocsAnswersAsShown() throws IOException {
        setUpTheDemo();
        Node readme = MarkdownDocs.parser().parse(MarkdownDocs.read("README.md"));
        List<String> sources = new ArrayList<>(List.of("README.md"));
        sources.addAll(MarkdownDocs.linkedDocs(MarkdownDocs.links(readme)));
        int sent = 0;
        int compared = 0;
        for (String source : sources) {
            Response last = null;
            ReadmeRequest lastRequest = null;
            boolean lastCompared = true;
            for (MarkdownDocs.Block block :
                    MarkdownDocs.blocks(MarkdownDocs.parser().parse(MarkdownDocs.read(source)))) {
                if (block.notRun()) {
                    continue;
                }
                if (block.info().equals("json")) {
                    assertNotNull(source + ": a response block before any request: " + block.literal(), lastRequest);
                    compareResponse(lastRequest, last, block.literal());
                    lastCompared = true;
                    compared++;
                    continue;
                }
                for (ReadmeRequest request : requests(source, block.literal())) {
                    assertSucceededUnlessShown(lastRequest, last, lastCompared);
                    last = send(request);
                    lastRequest = request;
                    lastCompared = false;
                    sent++;
                }
            }
            assertSucceededUnlessShown(lastRequest, last, lastCompared);
        }
        // The README's recipes alone hold more than 25 requests and 10 responses: an extraction that
        // found none (a changed fence style) must not pass.
        assertTrue("requests sent: " + sent, sent >= 25);
        assertTrue("responses compared: " + compared, compared >= 10);
    }

    /** The demo's pipeline, index, corpus, clusters and search pipeline, from the files demo.sh sends. */
    private static void setUpTheDemo() throws IOException {
        send("PUT", "/_ingest/pipeline/fingerprints", demoFile("fingerprints-pipeline.json"));
        send("PUT", "/manpages", demoFile("manpages-index.json"));
        DemoCorpus.bulk(client(), "manpages");
        send("POST", "/manpages/_near_dup_clusters?refresh=true", demoFile("manpages-clusters.json"));
        send("PUT", "/_search/pipeline/dedup", demoFile("dedup-pipeline.json"));
    }

    private static String demoFile(String name) {
        return MarkdownDocs.read(name);
    }

    /** The requests of a code block; a block of anything else (a shell command) has none. */
    static List<ReadmeRequest> requests(String source, String block) {
        List<ReadmeRequest> requests = new ArrayList<>();
        String method = null;
        String path = null;
        StringBuilder body = new StringBuilder();
        for (String line : block.split("\n")) {
            Matcher requestLine = MarkdownDocs.REQUEST_LINE.matcher(line);
            if (requestLine.matches()) {
                if (method != null) {
                    requests.add(new ReadmeRequest(source, method, path, body.toString()));
                }
                method = requestLine.group(1);
                path = requestLine.group(2);
                body.setLength(0);
            } else if (method != null && line.isBlank() == false) {
                body.append(line).append('\n');
            }
        }
        if (method != null) {
            requests.add(new ReadmeRequest(source, method, path, body.toString()));
        }
        return requests;
    }

    /** Sends it; a 4xx or 5xx is returned as well, for its response block to compare. */
    private static Response send(ReadmeRequest readmeRequest) throws IOException {
        Request request = new Request(readmeRequest.method(), "/" + readmeRequest.path());
        if (readmeRequest.body().isBlank() == false) {
            ContentType type = readmeRequest.path().contains("_bulk")
                    ? ContentType.create("application/x-ndjson", StandardCharsets.UTF_8)
                    : ContentType.APPLICATION_JSON;
            request.setEntity(new StringEntity(readmeRequest.body(), type));
        }
        // A response may carry a Warning header (an estimate used for an exact verification): it is still compared.
        request.setOptions(TOLERATING_WARNINGS);
        try {
            return client().performRequest(request);
        } catch (ResponseException e) {
            return e.getResponse();
        }
    }

    /** A request whose response the README does not show must succeed. */
    private static void assertSucceededUnlessShown(ReadmeRequest request, Response response, boolean shown)
            throws IOException {
        if (request == null || shown) {
            return;
        }
        int status = response.getStatusLine().getStatusCode();
        if (status >= 300) {
            fail(request.source() + ": " + request.method() + " " + request.path() + " answered " + status + " "
                    + new String(response.getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    /** The response matches the block; without a {@code status} in the block, it must also be a success. */
    private static void compareResponse(ReadmeRequest request, Response response, String shown) throws IOException {
        String body = response.getEntity() == null
                ? ""
                : new String(response.getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, Object> expected = XContentHelper.convertToMap(JsonXContent.jsonXContent, shown, false);
        int status = response.getStatusLine().getStatusCode();
        String where = request.source() + ": " + request.method() + " " + request.path() + " answered " + status + " "
                + body + "\n  shown: " + shown;
        if (expected.containsKey("status") == false) {
            assertTrue(where, status < 300);
        }
        Map<String, Object> actual = XContentHelper.convertToMap(new BytesArray(body), false, MediaTypeRegistry.JSON)
                .v2();
        String mismatch = mismatch("", expected, actual);
        assertNull(where + "\n  " + mismatch, mismatch);
    }

    /** Null when {@code actual} holds {@code expected}, else where it does not. */
    @SuppressWarnings("unchecked")
    static String mismatch(String at, Object expected, Object actual) {
        if (ELIDED.equals(expected)) {
            return null;
        }
        if (expected instanceof Map<?, ?> expectedMap) {
            if (actual instanceof Map<?, ?> == false) {
                return at + ": expected an object, got " + actual;
            }
            Map<?, ?> actualMap = (Map<?, ?>) actual;
            for (Map.Entry<String, Object> entry : ((Map<String, Object>) expectedMap).entrySet()) {
                if (VARYING.contains(entry.getKey())) {
                    continue;
                }
                if (actualMap.containsKey(entry.getKey()) == false) {
                    return at + "." + entry.getKey() + ": missing";
                }
                String inside = mismatch(at + "." + entry.getKey(), entry.getValue(), actualMap.get(entry.getKey()));
                if (inside != null) {
                    return inside;
                }
            }
            return null;
        }
        if (expected instanceof List<?> expectedList) {
            if (actual instanceof List<?> == false) {
                return at + ": expected an array, got " + actual;
            }
            List<?> actualList = (List<?>) actual;
            boolean open = expectedList.isEmpty() == false && ELIDED.equals(expectedList.getLast());
            int shown = open ? expectedList.size() - 1 : expectedList.size();
            if (open ? actualList.size() < shown : actualList.size() != shown) {
                return at + ": " + actualList.size() + " elements, shown " + expectedList.size() + ": " + actualList;
            }
            for (int i = 0; i < shown; i++) {
                String inside = mismatch(at + "[" + i + "]", expectedList.get(i), actualList.get(i));
                if (inside != null) {
                    return inside;
                }
            }
            return null;
        }
        if (expected instanceof Number expectedNumber && actual instanceof Number actualNumber) {
            double e = expectedNumber.doubleValue();
            double a = actualNumber.doubleValue();
            return Math.abs(e - a) <= 1e-6 * Math.max(1, Math.abs(e)) ? null : at + ": " + a + ", shown " + e;
        }
        return java.util.Objects.equals(expected, actual) ? null : at + ": " + actual + ", shown " + expected;
    }
}
