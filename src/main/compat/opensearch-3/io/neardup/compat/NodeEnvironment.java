/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.nio.file.Path;
import org.opensearch.env.Environment;

/**
 * The node's paths as the plugin reads them: OpenSearch 3.x names the config folder {@code configDir()}. Twin of
 * {@code src/main/compat/opensearch-2}'s class of this name, where it is {@code configFile()} (see pom.xml,
 * compat-line-dir).
 */
public final class NodeEnvironment {
    private NodeEnvironment() {}

    /** The node's {@code config/} folder. */
    public static Path configDir(Environment environment) {
        return environment.configDir();
    }
}
