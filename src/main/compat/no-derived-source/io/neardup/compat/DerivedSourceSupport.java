/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.opensearch.index.IndexSettings;

/**
 * OpenSearch 3.0.x and 3.1.x have no derived source: no index setting enables it (3.1's {@code FieldMapper}
 * has {@code canDeriveSource}/{@code deriveSource} but nothing calls them; 3.0's has neither), so the mappers'
 * methods of those names are never called there. Twin of {@code src/main/compat/derived-source}'s class of
 * this name (see pom.xml).
 */
public final class DerivedSourceSupport {
    /** Whether the OpenSearch this was built for can derive {@code _source} from doc values. */
    public static final boolean AVAILABLE = false;

    private DerivedSourceSupport() {}

    /** Always false: 3.0.x and 3.1.x have no {@code index.derived_source.enabled}. */
    public static boolean enabled(IndexSettings settings) {
        return false;
    }
}
