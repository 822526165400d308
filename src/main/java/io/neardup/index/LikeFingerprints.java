/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.Margins;
import org.opensearch.index.query.QueryShardContext;

/**
 * What a {@code near_duplicate} query looks for, as a field type asks for it while it builds the query
 * ({@link FingerprintFieldType#nearDuplicateQuery}): the query's {@code like} resolved, on the shard that
 * runs it, for a given field. The field type decides which fields it asks for (its own; for a
 * {@code simhash} field with {@code min_similarity} also the sibling {@code minhash} field); the query
 * entry point decides how {@code like} becomes a fingerprint (fetched, fingerprinted or decoded).
 */
public interface LikeFingerprints {

    /** The simhash to look for in the {@code simhash} field {@code field}. */
    Simhash simhash(String field, QueryShardContext context);

    /** The signature (and shingle set) to compare with the {@code minhash} field {@code field}'s, in its format. */
    Minhash minhash(MinhashFieldMapper.MinhashFieldType field, QueryShardContext context);

    /** Whether {@code like} is a bare simhash value, which has no MinHash signature to verify candidates with. */
    boolean bareSimhash();

    /** A simhash and, where known, its margins (PSM ranks its weak bits by them) and scheme; both may be null for bare values. */
    record Simhash(long value, Margins margins, String scheme) {}

    /**
     * A MinHash signature, the shingle set payload ({@code ShingleSetCodec}) when the query has one, the
     * scheme hash its header carries, and the scheme id when known; {@code shingleSet} and {@code scheme}
     * may be null, and {@code signature} where a set of another format has none of the field's format (format 1).
     */
    record Minhash(int[] signature, byte[] shingleSet, int schemeHash, String scheme) {}
}
