package io.neardup.query;

import io.neardup.core.LshBanding;
import io.neardup.mapper.FingerprintFields;
import io.neardup.mapper.MinhashFieldMapper;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * Documents whose MinHash signature agrees with the query's on at least {@code minSimilarity} of
 * its positions (the Jaccard estimate). Candidates are the documents sharing at least
 * {@code minBandMatches} LSH band terms (1 is classic LSH; k is Broder's "k-similar"); each is then
 * verified on its whole signature, which is also its score.
 */
public final class MinhashSimilarityQuery extends Query {

    /**
     * Below this chance of becoming a candidate at {@code min_similarity}, the query warns that it will miss documents. Not 0.5:
     * the banding derived from a threshold t puts the S-curve's midpoint above t (0.845 for t = 0.8), and querying at t itself
     * must not warn.
     */
    static final double RELIABLE_CANDIDATE_PROBABILITY = 0.25;

    private final String field;
    /** The query signature in the stored layout (4 bytes a value), compared in place with each document's. */
    private final byte[] signatureBytes;
    private final int numHashes;
    private final int schemeHash;
    private final String scheme;
    private final LshBanding banding;
    private final int minBandMatches;
    private final double minSimilarity;

    public MinhashSimilarityQuery(String field, int[] signature, int schemeHash, String scheme, LshBanding banding, int minBandMatches,
        double minSimilarity) {
        this.field = Objects.requireNonNull(field, "field");
        this.signatureBytes = MinhashFieldMapper.signatureBytes(signature);
        this.numHashes = signature.length;
        this.schemeHash = schemeHash;
        this.scheme = scheme;
        this.banding = Objects.requireNonNull(banding, "banding");
        if (banding.bands() * banding.rows() > signature.length) {
            throw new IllegalArgumentException("banding " + banding.bands() + " x " + banding.rows() + " needs " + banding.bands()
                * banding.rows() + " values, the signature has " + signature.length);
        }
        if (minBandMatches < 1 || minBandMatches > banding.bands()) {
            throw new IllegalArgumentException("min_band_matches must be in [1, " + banding.bands() + "], got " + minBandMatches);
        }
        if ((minSimilarity > 0 && minSimilarity <= 1) == false) {
            throw new IllegalArgumentException("min_similarity must be in (0, 1], got " + minSimilarity);
        }
        this.minBandMatches = minBandMatches;
        this.minSimilarity = minSimilarity;
    }

    /** P(at least m of b bands agree) for a pair of similarity s: a band of r rows agrees with probability s^r. */
    static double candidateProbability(LshBanding banding, int m, double s) {
        double p = Math.pow(s, banding.rows());
        int b = banding.bands();
        double below = 0;
        double binomial = Math.pow(1 - p, b);
        for (int i = 0; i < m; i++) {
            below += binomial;
            binomial = binomial * (b - i) / (i + 1) * (p / (1 - p));
        }
        return p >= 1 ? 1 : Math.max(0, 1 - below);
    }

    /** The candidates: documents with at least {@link #minBandMatches} of the query's band terms. */
    Query bandQuery() {
        BooleanQuery.Builder bands = new BooleanQuery.Builder();
        for (int band = 0; band < banding.bands(); band++) {
            bands.add(new TermQuery(new Term(field, MinhashFieldMapper.bandTerm(signatureBytes, band, banding.rows()))),
                BooleanClause.Occur.SHOULD);
        }
        return bands.setMinimumNumberShouldMatch(minBandMatches).build();
    }

    /** Fraction of equal 4-byte values, compared in place in the stored layout. */
    private double similarity(BytesRef stored) {
        if (stored.length != signatureBytes.length) {
            throw new IllegalStateException("a signature in [" + field + "] has " + stored.length / 4 + " values, expected "
                + signatureBytes.length / 4);
        }
        int equal = 0;
        for (int i = 0; i < signatureBytes.length; i += 4) {
            if (Arrays.equals(signatureBytes, i, i + 4, stored.bytes, stored.offset + i, stored.offset + i + 4)) {
                equal++;
            }
        }
        return (double) equal / numHashes;
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
        Weight candidates = searcher.createWeight(searcher.rewrite(bandQuery()), ScoreMode.COMPLETE_NO_SCORES, 1f);
        return new SimilarityWeight(candidates, boost);
    }

    private final class SimilarityWeight extends Weight {
        private final Weight candidates;
        private final float boost;

        SimilarityWeight(Weight candidates, float boost) {
            super(MinhashSimilarityQuery.this);
            this.candidates = candidates;
            this.boost = boost;
        }

        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
            String segmentScheme = SegmentScheme.of(context.reader(), field, FingerprintFields.schemeField(field));
            SegmentScheme.requireSameHash(field, schemeHash, segmentScheme);
            SegmentScheme.requireSame(field, scheme, segmentScheme);
            ScorerSupplier candidateSupplier = candidates.scorerSupplier(context);
            if (candidateSupplier == null) {
                return null;
            }
            return new ScorerSupplier() {
                @Override
                public Scorer get(long leadCost) throws IOException {
                    return new SimilarityScorer(candidateSupplier.get(leadCost).iterator(), DocValues.getBinary(context.reader(), field),
                        boost);
                }

                @Override
                public long cost() {
                    return candidateSupplier.cost();
                }
            };
        }

        @Override
        public Explanation explain(LeafReaderContext context, int doc) throws IOException {
            BinaryDocValues values = DocValues.getBinary(context.reader(), field);
            if (values.advanceExact(doc) == false) {
                return Explanation.noMatch("no signature in [" + field + "]");
            }
            double similarity = similarity(values.binaryValue());
            Explanation candidate = candidates.explain(context, doc);
            if (candidate.isMatch() == false) {
                return Explanation.noMatch("shares fewer than " + minBandMatches + " of " + banding.bands() + " LSH bands of [" + field
                    + "] (estimated Jaccard " + similarity + ")");
            }
            if (similarity < minSimilarity) {
                return Explanation.noMatch("estimated Jaccard " + similarity + " < min_similarity " + minSimilarity);
            }
            return Explanation.match((float) (boost * similarity), "near_duplicate, score = boost * estimated Jaccard",
                Explanation.match((float) similarity, "fraction of equal MinHash values of [" + field + "]"),
                Explanation.match(boost, "boost"));
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
            return candidates.isCacheable(context) && DocValues.isCacheable(context, field);
        }
    }

    /** Band matches as the approximation; the signature comparison as the exact phase. */
    private final class SimilarityScorer extends Scorer {
        private final DocIdSetIterator approximation;
        private final BinaryDocValues values;
        private final float boost;
        private double similarity;
        private final TwoPhaseIterator twoPhase;

        SimilarityScorer(DocIdSetIterator approximation, BinaryDocValues values, float boost) {
            this.approximation = approximation;
            this.values = values;
            this.boost = boost;
            this.twoPhase = new TwoPhaseIterator(approximation) {
                @Override
                public boolean matches() throws IOException {
                    if (values.advanceExact(approximation.docID()) == false) {
                        return false;
                    }
                    similarity = similarity(values.binaryValue());
                    return similarity >= minSimilarity;
                }

                @Override
                public float matchCost() {
                    return numHashes;
                }
            };
        }

        @Override
        public int docID() {
            return approximation.docID();
        }

        @Override
        public TwoPhaseIterator twoPhaseIterator() {
            return twoPhase;
        }

        @Override
        public DocIdSetIterator iterator() {
            return TwoPhaseIterator.asDocIdSetIterator(twoPhase);
        }

        @Override
        public float getMaxScore(int upTo) {
            return boost;
        }

        @Override
        public float score() {
            return (float) (boost * similarity);
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
        return String.format(Locale.ROOT, "near_duplicate(%s, min_similarity=%s, bands=%dx%d, min_band_matches=%d)", field, minSimilarity,
            banding.bands(), banding.rows(), minBandMatches);
    }

    @Override
    public boolean equals(Object other) {
        if (sameClassAs(other) == false) {
            return false;
        }
        MinhashSimilarityQuery that = (MinhashSimilarityQuery) other;
        return field.equals(that.field) && Arrays.equals(signatureBytes, that.signatureBytes) && schemeHash == that.schemeHash
            && Objects.equals(scheme, that.scheme) && banding.equals(that.banding) && minBandMatches == that.minBandMatches
            && minSimilarity == that.minSimilarity;
    }

    @Override
    public int hashCode() {
        return Objects.hash(classHash(), field, Arrays.hashCode(signatureBytes), schemeHash, scheme, banding, minBandMatches, minSimilarity);
    }
}
