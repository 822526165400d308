/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.opensearch.action.IndicesRequest;
import org.opensearch.index.query.QueryCoordinatorContext;

/**
 * The request a query's rewrite on the coordinating node belongs to: OpenSearch 3.1.0 has
 * {@code QueryCoordinatorContext#getSearchRequest}, 3.0.x does not (its context keeps the request to itself). This
 * one source serves both, so the public method is looked up once rather than called. Twin of
 * {@code src/main/compat/derived-source}'s class of this name (see pom.xml).
 */
public final class CoordinatorRewrite {

    private static final MethodHandle GET_SEARCH_REQUEST = getSearchRequest();

    private CoordinatorRewrite() {}

    private static MethodHandle getSearchRequest() {
        try {
            return MethodHandles.publicLookup()
                    .findVirtual(
                            QueryCoordinatorContext.class,
                            "getSearchRequest",
                            MethodType.methodType(IndicesRequest.class));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return null; // 3.0.x
        }
    }

    /** Whether {@link #requestOf} can answer on this release: 3.1.x, not 3.0.x or 2.19. */
    public static boolean available() {
        return GET_SEARCH_REQUEST != null;
    }

    /** The search, explain or validate request being rewritten, which names the indices it reads; null on 3.0.x. */
    public static IndicesRequest requestOf(QueryCoordinatorContext context) {
        if (GET_SEARCH_REQUEST == null) {
            return null;
        }
        try {
            return (IndicesRequest) GET_SEARCH_REQUEST.invoke(context);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
