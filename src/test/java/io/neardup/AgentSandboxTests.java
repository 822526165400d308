/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.lucene.util.Constants;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The tests run inside OpenSearch's sandbox (the Java agent), so that a permission the plugin lacks fails here and
 * not in a user's cluster. On 3.9.0 the agent is 3.8.0's with 3.9.0's bootstrap (pom.xml, agent.version): this
 * shows that the pair really enforces the sandbox rather than letting everything through.
 */
public class AgentSandboxTests extends OpenSearchTestCase {

    /** /etc/passwd: the checkout may sit below the temporary directory, which the tests may read. */
    public void testReadingAFileOutsideTheGrantsIsDenied() {
        assumeTrue("a Linux path", Constants.LINUX);
        Path outside = Path.of("/etc/passwd");
        SecurityException denied = expectThrows(SecurityException.class, () -> Files.readAllBytes(outside));
        assertTrue(denied.getMessage(), denied.getMessage().contains("/etc/passwd"));
    }
}
