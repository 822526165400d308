/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.SupplierWeight;
import io.neardup.core.LshBanding;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.Weight;

/**
 * Documents whose Jaccard similarity to the query is at least {@code minSimilarity}. Candidates are
 * the documents sharing at least {@code minBandMatches} LSH band terms (1 is classic LSH; k is
 * Broder's "k-similar"); each is then verified by a {@link JaccardVerifier}: on the exact Jaccard
 * of the shingle sets where both sides have one, else on the whole signature's estimate. The
 * similarity is also the score.
 */
public final class MinhashSimilarityQuery extends Query {

    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;
    private final int schemeHash;
    private final String scheme;
    private final LshBanding banding;
    private final int minBandMatches;
    private final JaccardVerifier verifier;
    private final QueryStats stats;

    /**
     * @param shingleSet the query's shingle set payload ({@code ShingleSetCodec}), or null to verify
     *                   every candidate by the estimate
     */
    public MinhashSimilarityQuery(
            MinhashFieldMapper.MinhashFieldType fieldType,
            int[] signature,
            byte[] shingleSet,
            int schemeHash,
            String scheme,
            int minBandMatches,
            double minSimilarity) {
        this(fieldType, signature, shingleSet, schemeHash, scheme, minBandMatches, minSimilarity, null);
    }

    /** @param stats where the query and its verifications are counted, or null */
    public MinhashSimilarityQuery(
            MinhashFieldMapper.MinhashFieldType fieldType,
            int[] signature,
            byte[] shingleSet,
            int schemeHash,
            String scheme,
            int minBandMatches,
            double minSimilarity,
            QueryStats stats) {
        this.fieldType = Objects.requireNonNull(fieldType, "fieldType");
        this.field = fieldType.name();
        this.schemeHash = schemeHash;
        this.scheme = scheme;
        this.banding = fieldType.banding();
        if (banding.bands() * banding.rows() > signature.length) {
            throw new IllegalArgumentException("banding " + banding.bands() + " x " + banding.rows() + " needs "
                    + banding.bands() * banding.rows() + " values, the signature has " + signature.length);
        }
        if (minBandMatches < 1 || minBandMatches > banding.bands()) {
            throw new IllegalArgumentException(
                    "min_band_matches must be in [1, " + banding.bands() + "], got " + minBandMatches);
        }
        this.minBandMatches = minBandMatches;
        this.verifier = new JaccardVerifier(fieldType, signature, shingleSet, minSimilarity, stats);
        this.stats = stats;
    }

    /** The candidates: documents with at least {@link #minBandMatches} of the query's band terms. */
    public Query bandQuery() {
        BooleanQuery.Builder bands = new BooleanQuery.Builder();
        for (int band = 0; band < banding.bands(); band++) {
            bands.add(
                    new TermQuery(new Term(field, fieldType.bandTerm(verifier.signatureBytes(), band))),
                    BooleanClause.Occur.SHOULD);
        }
        return bands.setMinimumNumberShouldMatch(minBandMatches).build();
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
        Weight candidates = searcher.createWeight(searcher.rewrite(bandQuery()), ScoreMode.COMPLETE_NO_SCORES, 1f);
        return new SimilarityWeight(candidates, boost);
    }

    private final class SimilarityWeight extends SupplierWeight {
        private final Weight candidates;
        private final float boost;
        private final AtomicBoolean counted = new AtomicBoolean();

        SimilarityWeight(Weight candidates, float boost) {
            super(MinhashSimilarityQuery.this);
            this.candidates = candidates;
            this.boost = boost;
        }

        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
            if (stats != null && counted.compareAndSet(false, true)) {
                stats.minhashQuery();
            }
            if (FieldExposure.exposes(context.reader(), field) == false) {
                return null;
            }
            String segmentScheme = SegmentScheme.of(context.reader(), field, FingerprintFields.schemeField(field));
            SegmentScheme.requireSameHash(field, schemeHash, segmentScheme);
            SegmentScheme.requireSame(field, scheme, segmentScheme);
            ScorerSupplier candidateSupplier = candidates.scorerSupplier(context);
            if (candidateSupplier == null) {
                return null;
            }
            return VerifiedScorer.supplier(this, candidateSupplier, verifier, context, boost);
        }

        @Override
        public Explanation explain(LeafReaderContext context, int doc) throws IOException {
            Explanation verified = verifier.leaf(context, false).explain(doc, boost);
            if (verified.isMatch() && candidates.explain(context, doc).isMatch() == false) {
                return Explanation.noMatch(
                        "shares fewer than " + minBandMatches + " of " + banding.bands() + " LSH bands of [" + field
                                + "]",
                        verified);
            }
            return verified;
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
            return candidates.isCacheable(context) && verifier.isCacheable(context);
        }
    }

    @Override
    public void visit(QueryVisitor visitor) {
        if (visitor.acceptField(field)) {
            visitor.visitLeaf(this);
        }
    }

    @Override
    public String toString(String defaultField) {
        return String.format(
                Locale.ROOT,
                "near_duplicate(%s, min_similarity=%s, bands=%dx%d, min_band_matches=%d, verification=%s)",
                field,
                verifier.minSimilarity(),
                banding.bands(),
                banding.rows(),
                minBandMatches,
                verifier.hasShingleSet() ? "exact" : "estimate");
    }

    @Override
    public boolean equals(Object other) {
        if (sameClassAs(other) == false) {
            return false;
        }
        MinhashSimilarityQuery that = (MinhashSimilarityQuery) other;
        return field.equals(that.field)
                && verifier.equals(that.verifier)
                && schemeHash == that.schemeHash
                && Objects.equals(scheme, that.scheme)
                && banding.equals(that.banding)
                && fieldType.format() == that.fieldType.format()
                && minBandMatches == that.minBandMatches;
    }

    @Override
    public int hashCode() {
        return Objects.hash(classHash(), field, verifier, schemeHash, scheme, banding, minBandMatches);
    }
}
