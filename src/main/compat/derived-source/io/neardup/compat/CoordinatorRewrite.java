/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.opensearch.action.IndicesRequest;
import org.opensearch.index.query.QueryCoordinatorContext;

/**
 * The request a query's rewrite on the coordinating node belongs to: {@code QueryCoordinatorContext#getSearchRequest},
 * there from OpenSearch 3.1.0 on. Twin of {@code src/main/compat/no-derived-source}'s class of this name (see
 * pom.xml).
 */
public final class CoordinatorRewrite {

    private CoordinatorRewrite() {}

    /** Whether {@link #requestOf} can answer on this release: always, from 3.1.0 on. */
    public static boolean available() {
        return true;
    }

    /** The search, explain or validate request being rewritten, which names the indices it reads. */
    public static IndicesRequest requestOf(QueryCoordinatorContext context) {
        return context.getSearchRequest();
    }
}
