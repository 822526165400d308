/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.BytesRef;
import org.opensearch.index.mapper.IdFieldMapper;
import org.opensearch.index.mapper.Uid;

/**
 * A {@code minhash} field's stored values in one segment, read through a caller's reader: each
 * document's signature (its values as big-endian int32, {@code SignatureCodec.valueBytes})
 * and shingle set ({@code f._shingles}, where it has one). The one reader of these doc values for
 * the queries and the joins, so that a segment whose reader hides or masks the field
 * ({@link FieldExposure}) reads as a segment without it everywhere. Documents are visited in
 * increasing order, as doc values are; not thread-safe.
 */
public final class MinhashDocValues {
    private final LeafReader reader;
    private final String field;
    private final BinaryDocValues signatures;
    private final BinaryDocValues shingleSets;
    /** The field, which derives the signature of a document that stores none (the compact format). */
    private final MinhashFieldMapper.MinhashFieldType fieldType;
    /** Whether {@link #similarityTo} may compare shingle sets (the caller asked for them). */
    private final boolean exact;

    private BytesRef signature;
    private int doc = -1;
    /** The current document's shingle set, read when first asked for: most band candidates never need it. */
    private BytesRef shingleSet;

    private boolean shingleSetRead;

    private MinhashDocValues(
            LeafReader reader,
            String field,
            BinaryDocValues signatures,
            BinaryDocValues shingleSets,
            MinhashFieldMapper.MinhashFieldType fieldType,
            boolean exact) {
        this.reader = reader;
        this.field = field;
        this.signatures = signatures;
        this.shingleSets = shingleSets;
        this.fieldType = fieldType;
        this.exact = exact;
    }

    /**
     * The values of {@code field} in {@code reader}'s segment as the caller may see them
     * ({@link MinhashFieldMapper.MinhashFieldType#docValues}).
     *
     * @param withShingleSets false reads the signatures alone (verification by the estimate); a format whose
     *     signatures are derived from the sets reads the sets anyway
     */
    static MinhashDocValues open(
            LeafReader reader, String field, boolean withShingleSets, MinhashFieldMapper.MinhashFieldType fieldType)
            throws IOException {
        if (FieldExposure.exposes(reader, field) == false) {
            return new MinhashDocValues(reader, field, null, null, fieldType, withShingleSets);
        }
        boolean readSets = withShingleSets || fieldType.format().derivesSignatureFromSet();
        return new MinhashDocValues(
                reader,
                field,
                reader.getBinaryDocValues(field),
                readSets ? reader.getBinaryDocValues(FingerprintFields.shinglesField(field)) : null,
                fieldType,
                withShingleSets);
    }

    /**
     * The doc value of a document's signature ({@code signatureBytes} in the stored layout): the bytes, or, where the
     * document stores none (the compact format, its signature is its set's), an empty value, so that what every
     * reader iterates stays one field. The one owner of that rule with {@link #storesSignature} and
     * {@link #signatureOf}.
     */
    static BytesRef signatureValue(byte[] signatureBytes, boolean stored) {
        return stored ? new BytesRef(signatureBytes) : new BytesRef();
    }

    /** Whether a signature doc value ({@link #signatureValue}) holds the document's signature; else its set's is it. */
    static boolean storesSignature(BytesRef signatureValue) {
        return signatureValue.length > 0;
    }

    /**
     * A document's signature in the stored layout from its signature doc value ({@link #signatureValue}) and its
     * shingle set payload: the value, or where it is empty the set's signature; null where it is empty and there is
     * no set.
     *
     * @throws IllegalArgumentException a corrupt shingle set
     */
    static BytesRef signatureOf(
            BytesRef signatureValue, BytesRef shingleSet, MinhashFieldMapper.MinhashFieldType fieldType) {
        if (storesSignature(signatureValue)) {
            return signatureValue;
        }
        return shingleSet == null
                ? null
                : new BytesRef(fieldType.signatureOfSet(shingleSet.bytes, shingleSet.offset, shingleSet.length));
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

    /**
     * The current document's signature in the stored layout; derived from its set where it stores none (the compact
     * format), when first asked for: counting documents needs none.
     */
    public BytesRef signature() throws IOException {
        if (storesSignature(signature) == false) {
            BytesRef derived;
            try {
                derived = signatureOf(signature, shingleSet(), fieldType);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "document [" + idOf(doc) + "] has a corrupt shingle set in [" + field + "]: " + e.getMessage(),
                        e);
            }
            if (derived == null) {
                throw new IllegalArgumentException(
                        "document [" + idOf(doc) + "] has neither a signature nor a shingle set in [" + field + "]");
            }
            signature = derived;
        }
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

    /**
     * Whether {@link #similarityTo} compares the current document with a fingerprint whose shingle set is
     * {@code shingleSet} exactly: both have one (the current document's read if this instance reads them).
     */
    public boolean exactWith(BytesRef shingleSet) throws IOException {
        return exact && shingleSet != null && shingleSet() != null;
    }

    /**
     * The Jaccard similarity of the current document to a fingerprint: the one comparison rule of a
     * {@code minhash} field, for the query's verification and the joins alike. Exact, of the two shingle
     * sets ({@link ShingleSetCodec#jaccard}), where both have one ({@link #exactWith}); else the MinHash
     * estimate, the fraction of equal signature values ({@link MinHasher#jaccard}), which needs signatures
     * of one length (of one scheme).
     *
     * @param signature the fingerprint's signature in the stored layout
     * @param shingleSet its shingle set payload, or null: the estimate
     * @throws IllegalArgumentException naming the document and the field: a signature of another length, or
     *     a corrupt shingle set
     */
    public double similarityTo(BytesRef signature, BytesRef shingleSet) throws IOException {
        if (exactWith(shingleSet)) {
            BytesRef stored = shingleSet();
            try {
                return ShingleSetCodec.jaccard(
                        shingleSet.bytes,
                        shingleSet.offset,
                        shingleSet.length,
                        stored.bytes,
                        stored.offset,
                        stored.length);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "document [" + idOf(doc) + "] has a corrupt shingle set in [" + field + "]: " + e.getMessage(),
                        e);
            }
        }
        BytesRef stored = signature();
        if (stored.length != signature.length) {
            throw new IllegalArgumentException("document [" + idOf(doc) + "] has a signature of " + stored.length / 4
                    + " values in [" + field + "], expected " + signature.length / 4);
        }
        return MinHasher.jaccard(signature.bytes, signature.offset, stored.bytes, stored.offset, signature.length);
    }

    /** The document's {@code _id} for an error message; its segment-local number where there is none. */
    private String idOf(int doc) throws IOException {
        BytesRef id = reader.storedFields().document(doc).getBinaryValue(IdFieldMapper.NAME);
        return id == null
                ? "segment doc " + doc
                : Uid.decodeId(Arrays.copyOfRange(id.bytes, id.offset, id.offset + id.length));
    }
}
