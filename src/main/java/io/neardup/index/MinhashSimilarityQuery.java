/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.SupplierWeight;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.LshBanding;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.apache.lucene.util.BytesRef;

/**
 * Documents whose Jaccard similarity to the query is at least {@code minSimilarity}. Candidates are
 * the documents sharing at least {@code minBandMatches} LSH band terms (1 is classic LSH; k is
 * Broder's "k-similar"); each is then verified by a {@link JaccardVerifier}: on the exact Jaccard
 * of the shingle sets where both sides have one, else on the whole signature's estimate. The
 * similarity is also the score.
 *
 * <p>With a {@link SegmentFingerprintCache}, a segment whose band key filter
 * ({@link SegmentFingerprintCache#bandKeyFilter}) may hold fewer than {@code minBandMatches} of the
 * query's band keys is passed over before its terms dictionary is read: the filter misses no key a
 * segment holds, so such a segment has no candidate, and the hits are those without the filter.
 */
public final class MinhashSimilarityQuery extends Query {

    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;
    private final int schemeHash;
    private final String scheme;
    private final LshBanding banding;
    private final int minBandMatches;
    private final JaccardVerifier verifier;
    private final SegmentFingerprintCache cache;
    private final QueryStats stats;
    /** The query's band terms, one a band, made once a query (not once a segment). */
    private final BytesRef[] bandTerms;
    /** Their keys in a segment's band key filter ({@link MinhashFieldMapper.MinhashFieldType#filterKeyOf}). */
    private final long[] filterKeys;

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

    /**
     * @param cache where segments' band key filters are kept and the query and its verifications are counted, or null:
     *              every segment's band terms are looked up, nothing is counted
     */
    public MinhashSimilarityQuery(
            MinhashFieldMapper.MinhashFieldType fieldType,
            int[] signature,
            byte[] shingleSet,
            int schemeHash,
            String scheme,
            int minBandMatches,
            double minSimilarity,
            SegmentFingerprintCache cache) {
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
        this.cache = cache;
        this.stats = cache == null ? null : cache.queryStats();
        this.verifier = new JaccardVerifier(fieldType, signature, shingleSet, minSimilarity, stats);
        this.bandTerms = new BytesRef[banding.bands()];
        this.filterKeys = new long[banding.bands()];
        for (int band = 0; band < banding.bands(); band++) {
            bandTerms[band] = fieldType.bandTerm(verifier.signatureBytes(), band);
            filterKeys[band] = fieldType.filterKeyOf(bandTerms[band]);
        }
    }

    /** The candidates: documents with at least {@link #minBandMatches} of the query's band terms. */
    public Query bandQuery() {
        BooleanQuery.Builder bands = new BooleanQuery.Builder();
        for (BytesRef term : bandTerms) {
            bands.add(new TermQuery(new Term(field, term)), BooleanClause.Occur.SHOULD);
        }
        return bands.setMinimumNumberShouldMatch(minBandMatches).build();
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
        return new SimilarityWeight(searcher, boost);
    }

    private final class SimilarityWeight extends SupplierWeight {
        private final IndexSearcher searcher;
        private final float boost;
        private final AtomicBoolean counted = new AtomicBoolean();
        /**
         * The band query's weight, made for the first segment the band key filters do not pass over: a lookup into
         * many small indices asks shards most of which hold none of its band keys, and there the rewrite and the
         * weight of the band query would be most of the query's work.
         */
        private volatile Weight candidates;

        SimilarityWeight(IndexSearcher searcher, float boost) {
            super(MinhashSimilarityQuery.this);
            this.searcher = searcher;
            this.boost = boost;
        }

        private Weight candidates() throws IOException {
            Weight made = candidates;
            if (made == null) {
                synchronized (this) {
                    made = candidates;
                    if (made == null) {
                        made = searcher.createWeight(searcher.rewrite(bandQuery()), ScoreMode.COMPLETE_NO_SCORES, 1f);
                        candidates = made;
                    }
                }
            }
            return made;
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
            if (tooFewBandKeys(context)) {
                if (stats != null) {
                    stats.minhashSegmentSkipped();
                }
                return null;
            }
            ScorerSupplier candidateSupplier = candidates().scorerSupplier(context);
            if (candidateSupplier == null) {
                return null;
            }
            return VerifiedScorer.supplier(this, candidateSupplier, verifier, context, boost);
        }

        /** Whether the segment's band key filter shows that fewer than {@link #minBandMatches} of the query's band terms are in it. */
        private boolean tooFewBandKeys(LeafReaderContext context) throws IOException {
            BandKeyFilter filter = cache == null ? null : cache.bandKeyFilter(context.reader(), fieldType);
            if (filter == null) {
                return false;
            }
            int mayShare = 0;
            for (int band = 0; band < filterKeys.length; band++) {
                if (filter.mightContain(filterKeys[band]) && ++mayShare == minBandMatches) {
                    return false;
                }
                if (mayShare + filterKeys.length - band - 1 < minBandMatches) {
                    return true;
                }
            }
            return true;
        }

        /**
         * Reads the segment's band terms, not its band key filter: a segment the filter passes over has no document
         * sharing {@link #minBandMatches} bands, which the terms say as well.
         */
        @Override
        public Explanation explain(LeafReaderContext context, int doc) throws IOException {
            Explanation verified = verifier.leaf(context, false).explain(doc, boost);
            if (verified.isMatch() && candidates().explain(context, doc).isMatch() == false) {
                return Explanation.noMatch(
                        "shares fewer than " + minBandMatches + " of " + banding.bands() + " LSH bands of [" + field
                                + "]",
                        verified);
            }
            return verified;
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
            try {
                return candidates().isCacheable(context) && verifier.isCacheable(context);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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
