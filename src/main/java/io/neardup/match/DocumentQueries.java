/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.search.Query;
import org.opensearch.common.CheckedSupplier;

/**
 * The Lucene queries of a batch's documents, shared by the batch's shard requests on one node: a document's query is
 * built by the first shard that needs it and searched as built by every other shard whose field has the same
 * {@link io.neardup.index.FingerprintFieldType#queryIdentity}. A lookup into a data stream sends the same documents to
 * each backing index's shards; building the query (reading the fingerprint, the band terms and keys, the verifier) once
 * a shard was most of what 30 small shards cost beyond one large one (docs/lookup.md, "The cost of many indices").
 * Never sent: a request read from the wire starts its own. At most one query a document and identity, for the requests'
 * lifetime.
 */
public final class DocumentQueries {

    private record Key(int document, Object fieldIdentity) {}

    private final Map<Key, Query> built = new ConcurrentHashMap<>();

    /**
     * Document {@code document}'s query for a field of identity {@code fieldIdentity}: the one built before, or
     * {@code build}'s. A null identity shares nothing.
     */
    Query get(int document, Object fieldIdentity, CheckedSupplier<Query, IOException> build) throws IOException {
        if (fieldIdentity == null) {
            return build.get();
        }
        Key key = new Key(document, fieldIdentity);
        Query query = built.get(key);
        if (query == null) {
            // Two shards may build it at once; both queries are the same, one is kept.
            Query made = build.get();
            query = built.putIfAbsent(key, made);
            if (query == null) {
                query = made;
            }
        }
        return query;
    }
}
