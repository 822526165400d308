/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.util.BytesRef;

/**
 * Checks a candidate's Jaccard similarity to the query against {@code min_similarity}: exactly, on
 * the two shingle sets ({@link ShingleSetCodec}), where the query has one and the document stored
 * one in {@code <minhash field>._shingles}; otherwise by the MinHash estimate, the fraction of
 * equal signature values, by the field's one comparison rule ({@link MinhashDocValues#similarityTo},
 * which the joins use too). Immutable; {@link #leaf} gives the per-segment, single-threaded part.
 */
final class JaccardVerifier {
    private final MinhashFieldMapper.MinhashFieldType minhash;
    private final String minhashField;
    /** The query signature in the stored layout (4 bytes a value). */
    private final byte[] signatureBytes;
    /** The query's shingle set payload, or null: then every candidate is verified by the estimate. */
    private final byte[] shingleSet;
    /** {@link #signatureBytes} and {@link #shingleSet} as {@link MinhashDocValues#similarityTo} takes them; read only. */
    private final BytesRef signatureRef;

    private final BytesRef shingleSetRef;

    private final double minSimilarity;
    /** Where verifications are counted; null counts nothing. Not part of the query's identity. */
    private final QueryStats stats;

    JaccardVerifier(
            MinhashFieldMapper.MinhashFieldType minhash,
            int[] signature,
            byte[] shingleSet,
            double minSimilarity,
            QueryStats stats) {
        this.minhash = Objects.requireNonNull(minhash, "minhash");
        this.minhashField = minhash.name();
        this.signatureBytes = signature == null ? null : SignatureCodec.valueBytes(signature);
        this.shingleSet = shingleSet;
        this.signatureRef = signatureBytes == null ? null : new BytesRef(signatureBytes);
        this.shingleSetRef = shingleSet == null ? null : new BytesRef(shingleSet);
        if ((minSimilarity > 0 && minSimilarity <= 1) == false) {
            throw new IllegalArgumentException("min_similarity must be in (0, 1], got " + minSimilarity);
        }
        this.minSimilarity = minSimilarity;
        this.stats = stats;
    }

    String minhashField() {
        return minhashField;
    }

    byte[] signatureBytes() {
        return signatureBytes;
    }

    int numHashes() {
        return signatureBytes == null ? minhash.numHashes() : signatureBytes.length / 4;
    }

    boolean hasShingleSet() {
        return shingleSet != null;
    }

    double minSimilarity() {
        return minSimilarity;
    }

    /** @param record whether verifications count in the node's stats (a search, not an explanation) */
    Leaf leaf(LeafReaderContext context, boolean record) throws IOException {
        LeafReader reader = context.reader();
        // A segment that hides the field from this caller reads as one without it, so nothing matches.
        return new Leaf(minhash.docValues(reader, shingleSet != null), record ? stats : null);
    }

    boolean isCacheable(LeafReaderContext context) {
        return DocValues.isCacheable(context, minhashField, FingerprintFields.shinglesField(minhashField));
    }

    /** One segment's verification; doc ids must be visited in increasing order. */
    final class Leaf {
        private final MinhashDocValues values;
        private final QueryStats stats;
        private double similarity;
        private boolean exact;
        private boolean present;

        private Leaf(MinhashDocValues values, QueryStats stats) {
            this.values = values;
            this.stats = stats;
        }

        /** Whether {@code doc} is similar enough; then {@link #similarity()} is its similarity. */
        boolean matches(int doc) throws IOException {
            present = values.advanceExact(doc);
            if (present == false) {
                exact = false;
                similarity = 0;
                return false;
            }
            exact = values.exactWith(shingleSetRef);
            // Without a signature of the field's format (a set of the other format), only sets compare.
            similarity = exact || signatureRef != null ? values.similarityTo(signatureRef, shingleSetRef) : 0;
            if (stats != null) {
                stats.verified(exact);
            }
            return similarity >= minSimilarity;
        }

        double similarity() {
            return similarity;
        }

        Explanation explain(int doc, float boost) throws IOException {
            boolean match = matches(doc);
            if (present == false) {
                return Explanation.noMatch("no MinHash signature or shingle set in [" + minhashField + "]");
            }
            String how = exact
                    ? "exact Jaccard of the shingle sets in [" + minhashField + "]"
                    : "estimated Jaccard (fraction of equal MinHash values) of [" + minhashField + "]"
                            + (shingleSet == null
                                    ? ", the query has no shingle set"
                                    : signatureRef == null
                                            ? ": the document has no shingle set, and the query no signature of the"
                                                    + " field's format"
                                            : ", the document has no shingle set");
            if (match == false) {
                return Explanation.noMatch(how + ": " + similarity + " < min_similarity " + minSimilarity);
            }
            return Explanation.match(
                    (float) (boost * similarity),
                    "near_duplicate, product of:",
                    Explanation.match((float) similarity, how),
                    Explanation.match(boost, "boost"));
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JaccardVerifier that
                && minhashField.equals(that.minhashField)
                && minhash.format() == that.minhash.format()
                && Arrays.equals(signatureBytes, that.signatureBytes)
                && Arrays.equals(shingleSet, that.shingleSet)
                && minSimilarity == that.minSimilarity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(minhashField, Arrays.hashCode(signatureBytes), Arrays.hashCode(shingleSet), minSimilarity);
    }
}
