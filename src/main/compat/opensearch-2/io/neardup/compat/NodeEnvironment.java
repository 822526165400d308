/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.nio.file.Path;
import org.opensearch.env.Environment;

/**
 * The node's paths as the plugin reads them: OpenSearch 2.x names the config folder {@code configFile()}. Twin of
 * {@code src/main/compat/opensearch-3}'s class of this name, where it is {@code configDir()} (see pom.xml,
 * compat-line-dir).
 */
public final class NodeEnvironment {
    private NodeEnvironment() {}

    /** The node's {@code config/} folder. */
    public static Path configDir(Environment environment) {
        return environment.configFile();
    }
}
