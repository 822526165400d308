/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.opensearch.index.IndexSettings;

/**
 * Derived source ({@code index.derived_source.enabled}) on OpenSearch 3.2 and newer. The build compiles this
 * file, or its twin under {@code src/main/compat/no-derived-source} for 3.0.x and 3.1.x, which have no such
 * setting (the {@code compat-source-dir} execution in pom.xml chooses): the one place where the supported
 * releases differ.
 */
public final class DerivedSourceSupport {
    /** Whether the OpenSearch this was built for can derive {@code _source} from doc values. */
    public static final boolean AVAILABLE = true;

    private DerivedSourceSupport() {}

    /** Whether the index stores no {@code _source} and rebuilds it from the fields' doc values. */
    public static boolean enabled(IndexSettings settings) {
        return settings.isDerivedSourceEnabled();
    }
}
