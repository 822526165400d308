/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.io.IOException;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;

/**
 * A {@code minhash} field's stored values in one segment, read through a caller's reader: each
 * document's signature (its values as big-endian int32, {@code SignatureCodec.valueBytes})
 * and shingle set ({@code f._shingles}, where it has one). The one reader of these doc values for
 * the queries and the joins, so that a segment whose reader hides or masks the field
 * ({@link FieldExposure}) reads as a segment without it everywhere. Documents are visited in
 * increasing order, as doc values are; not thread-safe.
 */
public final class MinhashDocValues {
    private final BinaryDocValues signatures;
    private final BinaryDocValues shingleSets;
    private BytesRef signature;
    private int doc = -1;
    /** The current document's shingle set, read when first asked for: most band candidates never need it. */
    private BytesRef shingleSet;

    private boolean shingleSetRead;

    private MinhashDocValues(BinaryDocValues signatures, BinaryDocValues shingleSets) {
        this.signatures = signatures;
        this.shingleSets = shingleSets;
    }

    /**
     * The values of {@code field} in {@code reader}'s segment as the caller may see them.
     *
     * @param withShingleSets false reads the signatures alone (verification by the estimate)
     */
    public static MinhashDocValues open(LeafReader reader, String field, boolean withShingleSets) throws IOException {
        if (FieldExposure.exposes(reader, field) == false) {
            return new MinhashDocValues(null, null);
        }
        return new MinhashDocValues(
                reader.getBinaryDocValues(field),
                withShingleSets ? reader.getBinaryDocValues(FingerprintFields.shinglesField(field)) : null);
    }

    /** Whether {@code doc} has a signature; then {@link #signature()} and {@link #shingleSet()} are its values. */
    public boolean advanceExact(int doc) throws IOException {
        if (signatures == null || signatures.advanceExact(doc) == false) {
            return false;
        }
        read(doc);
        return true;
    }

    /** The next document with a signature, or {@link DocIdSetIterator#NO_MORE_DOCS}; its values as after {@link #advanceExact}. */
    public int nextDoc() throws IOException {
        if (signatures == null) {
            return DocIdSetIterator.NO_MORE_DOCS;
        }
        int doc = signatures.nextDoc();
        if (doc != DocIdSetIterator.NO_MORE_DOCS) {
            read(doc);
        }
        return doc;
    }

    /**
     * The first document at or after {@code target} with a signature, or {@link DocIdSetIterator#NO_MORE_DOCS}; its
     * values as after {@link #advanceExact}. Resumes a scan that an earlier instance left (doc values are read by
     * the thread that opened them).
     */
    public int advance(int target) throws IOException {
        if (signatures == null) {
            return DocIdSetIterator.NO_MORE_DOCS;
        }
        int doc = signatures.advance(target);
        if (doc != DocIdSetIterator.NO_MORE_DOCS) {
            read(doc);
        }
        return doc;
    }

    /** The current document, -1 before the first; a document before it needs a new instance. */
    public int docID() {
        return signatures == null ? -1 : signatures.docID();
    }

    private void read(int doc) throws IOException {
        this.doc = doc;
        signature = signatures.binaryValue();
        shingleSetRead = false;
    }

    /** The current document's signature in the stored layout. */
    public BytesRef signature() {
        return signature;
    }

    /** The current document's shingle set payload, or null where it has none (or it was not asked for). */
    public BytesRef shingleSet() throws IOException {
        if (shingleSetRead == false) {
            shingleSet = shingleSets != null && shingleSets.advanceExact(doc) ? shingleSets.binaryValue() : null;
            shingleSetRead = true;
        }
        return shingleSet;
    }
}
