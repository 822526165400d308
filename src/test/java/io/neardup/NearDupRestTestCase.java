/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.opensearch.client.Request;
import org.opensearch.client.ResponseException;
import org.opensearch.test.rest.OpenSearchRestTestCase;

/** What the tests over HTTP against the real node share. */
public abstract class NearDupRestTestCase extends OpenSearchRestTestCase {

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
