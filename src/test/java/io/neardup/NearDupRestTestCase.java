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
import org.opensearch.client.ResponseException;
import org.opensearch.test.rest.OpenSearchRestTestCase;

/** What the tests over HTTP against the real node share. */
public abstract class NearDupRestTestCase extends OpenSearchRestTestCase {

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

    @SuppressWarnings("unchecked")
    protected static List<Map<String, Object>> hits(Map<String, Object> response) {
        return (List<Map<String, Object>>) ((Map<String, Object>) response.get("hits")).get("hits");
    }

    /** The request fails with a 400 whose body contains every one of {@code reasonParts}. */
    protected static void assertBadRequest(String method, String path, String body, String... reasonParts)
            throws IOException {
        Request request = new Request(method, path);
        request.setJsonEntity(body);
        ResponseException e = expectThrows(ResponseException.class, () -> client().performRequest(request));
        String response = new String(e.getResponse().getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(
                body + " -> " + response, 400, e.getResponse().getStatusLine().getStatusCode());
        for (String part : reasonParts) {
            assertTrue(response + " should contain [" + part + "]", response.contains(part));
        }
    }
}
