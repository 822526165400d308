/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.BeforeClass;
import org.opensearch.client.Request;
import org.opensearch.client.RequestOptions;
import org.opensearch.client.ResponseException;
import org.opensearch.client.RestClient;
import org.opensearch.client.WarningsHandler;
import org.opensearch.test.rest.OpenSearchRestTestCase;

/** What the tests over HTTP against the real node share. */
public abstract class NearDupRestTestCase extends OpenSearchRestTestCase {

    /**
     * For a request whose response may carry a Warning header (a deprecation, an estimate used for an exact
     * verification): the test client otherwise fails it.
     */
    protected static final RequestOptions TOLERATING_WARNINGS = toleratingWarnings();

    private static RequestOptions toleratingWarnings() {
        RequestOptions.Builder options = RequestOptions.DEFAULT.toBuilder();
        options.setWarningsHandler(WarningsHandler.PERMISSIVE);
        return options.build();
    }

    /**
     * pom.xml runs the tests named …SecurityIT in their own execution, against the node beside the Security plugin
     * (it alone sets tests.security.admin.password), and the others against the plain node. {@code -Dit.test=…}
     * replaces both executions' includes and excludes: each then skips the tests that are not for its node.
     */
    @BeforeClass
    public static void onlyAgainstTheNodeForThisTest() {
        boolean securityTest = getTestClass().getSimpleName().endsWith("SecurityIT");
        boolean securityNode = System.getProperty("tests.security.admin.password") != null;
        assumeTrue(
                getTestClass().getSimpleName() + " runs in the " + (securityTest ? "security-its" : "default")
                        + " failsafe execution",
                securityTest == securityNode);
    }

    /** {@code method path} with {@code jsonBody} (none when null), for a test that sets more on it before sending. */
    protected static Request request(String method, String path, String jsonBody) {
        Request request = new Request(method, path);
        if (jsonBody != null) {
            request.setJsonEntity(jsonBody);
        }
        return request;
    }

    /** Sends the request as the test's client and returns the response's body; a 4xx or 5xx throws. */
    protected static Map<String, Object> send(String method, String path, String jsonBody) throws IOException {
        return send(client(), method, path, jsonBody);
    }

    /** Sends the request as {@code client} (a user of the Security plugin) and returns the response's body. */
    protected static Map<String, Object> send(RestClient client, String method, String path, String jsonBody)
            throws IOException {
        return entityAsMap(client.performRequest(request(method, path, jsonBody)));
    }

    /** The request is refused with {@code status}; returns the response's body, for the reason in it. */
    protected static String expectRefused(int status, String method, String path, String jsonBody) throws IOException {
        return expectRefused(status, client(), method, path, jsonBody);
    }

    /** The request, sent as {@code client}, is refused with {@code status}; returns the response's body. */
    protected static String expectRefused(int status, RestClient client, String method, String path, String jsonBody)
            throws IOException {
        Request request = request(method, path, jsonBody);
        ResponseException e = expectThrows(ResponseException.class, () -> client.performRequest(request));
        String response = new String(e.getResponse().getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(
                method + " " + path + " " + jsonBody + " -> " + response,
                status,
                e.getResponse().getStatusLine().getStatusCode());
        return response;
    }

    /** The request fails with a 400 whose body contains every one of {@code reasonParts}. */
    protected static void assertBadRequest(String method, String path, String body, String... reasonParts)
            throws IOException {
        String response = expectRefused(400, method, path, body);
        for (String part : reasonParts) {
            assertTrue(response + " should contain [" + part + "]", response.contains(part));
        }
    }

    /** Puts {@code alias} over {@code indices}, the last its write index (as over dated indices, the newest written). */
    protected static void putAlias(String alias, List<String> indices) throws IOException {
        StringBuilder actions = new StringBuilder("{\"actions\": [");
        for (int i = 0; i < indices.size(); i++) {
            actions.append(i == 0 ? "" : ", ")
                    .append("{\"add\": {\"index\": \"")
                    .append(indices.get(i))
                    .append("\", \"alias\": \"")
                    .append(alias)
                    .append("\", \"is_write_index\": ")
                    .append(i == indices.size() - 1)
                    .append("}}");
        }
        send("POST", "/_aliases", actions.append("]}").toString());
    }

    @SuppressWarnings("unchecked")
    protected static List<Map<String, Object>> hits(Map<String, Object> response) {
        return (List<Map<String, Object>>) ((Map<String, Object>) response.get("hits")).get("hits");
    }
}
