/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.BandJoin;
import io.neardup.core.MemoryBudget;
import io.neardup.index.MinhashDocValues;
import io.neardup.index.MinhashFieldMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.util.BytesRef;

/**
 * The similarity of two documents of one reader as the {@code near_duplicate} query verifies it
 * ({@link MinhashDocValues#similarityTo}, the one comparison rule; {@code exact} false: always the
 * estimate). For {@link BandJoin}, which asks in no particular order: each
 * side reads through its own doc-values cursor, which starts over only when asked for an earlier
 * document (the join's pairs mostly come in increasing order). Not thread-safe.
 */
public final class ShardJaccard implements BandJoin.Verifier {
    private final List<LeafReaderContext> leaves;
    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;
    private final boolean exact;
    private final Cursor left = new Cursor();
    private final Cursor right = new Cursor();

    /** @param exact false: always the estimate (the query's {@code verification: estimate}) */
    public ShardJaccard(IndexReader reader, MinhashFieldMapper.MinhashFieldType fieldType, boolean exact) {
        this.leaves = reader.leaves();
        this.fieldType = fieldType;
        this.field = fieldType.name();
        this.exact = exact;
    }

    @Override
    public double similarity(int a, int b) {
        try {
            if (left.seek(a) == false || right.seek(b) == false) {
                return 0;
            }
            return right.values.similarityTo(left.signature, exact ? left.shingles : null);
        } catch (IOException e) {
            throw new UncheckedIOException("reading [" + field + "]", e);
        }
    }

    /**
     * The similarity of a document given by its values (a signature in the stored layout, its shingle
     * set or null) to the reader's document {@code doc}; 0 if {@code doc} has no signature.
     */
    double similarity(byte[] signature, byte[] shingleSet, int doc) {
        try {
            if (right.seek(doc) == false) {
                return 0;
            }
            return right.values.similarityTo(
                    new BytesRef(signature), exact && shingleSet != null ? new BytesRef(shingleSet) : null);
        } catch (IOException e) {
            throw new UncheckedIOException("reading [" + field + "]", e);
        }
    }

    /**
     * The reader's document {@code doc}'s signature (stored layout) and shingle set (null where it has
     * none), copied, for verifying it on another shard; null if it has no signature. The copies'
     * bytes are reserved from {@code budget} before they are taken (the caller releases them).
     * Documents are read fastest in increasing order.
     */
    public byte[][] valuesOf(int doc, MemoryBudget budget) {
        try {
            if (left.seek(doc) == false) {
                return null;
            }
            BytesRef shingles = exact ? left.shingles : null;
            budget.reserve(left.signature.length + (shingles == null ? 0 : shingles.length));
            return new byte[][] {
                BytesRef.deepCopyOf(left.signature).bytes, shingles == null ? null : BytesRef.deepCopyOf(shingles).bytes
            };
        } catch (IOException e) {
            throw new UncheckedIOException("reading [" + field + "]", e);
        }
    }

    /** One side's position: a segment's values, and the current document's signature and shingle set. */
    private final class Cursor {
        private int leaf = -1;
        private MinhashDocValues values;
        private BytesRef signature;
        private BytesRef shingles;

        /** Reads {@code doc}'s values; false if it has no signature (or its segment hides the field). */
        boolean seek(int doc) throws IOException {
            int target = ReaderUtil.subIndex(doc, leaves);
            LeafReaderContext context = leaves.get(target);
            int segmentDoc = doc - context.docBase;
            if (target != leaf || values == null || values.docID() > segmentDoc) {
                leaf = target;
                values = fieldType.docValues(context.reader(), true);
            }
            if (values.advanceExact(segmentDoc) == false) {
                return false;
            }
            signature = values.signature();
            shingles = values.shingleSet();
            return true;
        }
    }
}
