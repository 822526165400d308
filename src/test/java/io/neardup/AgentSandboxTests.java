/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.nio.file.Files;
import java.nio.file.Path;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The tests run inside OpenSearch's sandbox (the Java agent), so that a permission the plugin lacks fails here and
 * not in a user's cluster. On 3.9.0 the agent is 3.8.0's with 3.9.0's bootstrap (pom.xml, agent.version): this
 * shows that the pair really enforces the sandbox rather than letting everything through.
 */
public class AgentSandboxTests extends OpenSearchTestCase {

    public void testReadingAFileOutsideTheGrantsIsDenied() {
        Path outside = Path.of("pom.xml").toAbsolutePath();
        SecurityException denied = expectThrows(SecurityException.class, () -> Files.readAllBytes(outside));
        assertTrue(denied.getMessage(), denied.getMessage().contains("pom.xml"));
    }
}
