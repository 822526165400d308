/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.opensearch.client.Request;
import org.opensearch.client.Response;

/** Runs over HTTP against the real node that the build starts from the integ-test-zip. */
public class NearDupPluginIT extends NearDupRestTestCase {

    /** The version users see is the one the zip is named by: the OpenSearch version, then the plugin's release. */
    public void testCatPluginsListsThePluginWithItsVersion() throws IOException {
        String expected = System.getProperty("tests.neardup.plugin.version");
        assertNotNull("the build passes tests.neardup.plugin.version (pom.xml, failsafe)", expected);
        Response response = client().performRequest(new Request("GET", "/_cat/plugins?h=component,version"));
        String body = new String(response.getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(
                "_cat/plugins: " + body,
                body.lines().anyMatch(line -> line.trim().equals("opensearch-neardup " + expected)));
    }
}
