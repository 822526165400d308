/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.SupplierWeight;
import java.io.IOException;
import java.util.Locale;
import java.util.Objects;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * The documents of a candidate query whose Jaccard similarity to the query document is at least
 * {@code min_similarity}, scored by that similarity: a {@code near_duplicate} on a {@code simhash}
 * field with {@code min_similarity}, where the simhash neighbours are the candidates and the
 * sibling {@code minhash} field of the same fingerprint object (its shingle sets, else its
 * signatures) decides, as the {@code minhash} query does.
 */
public final class JaccardVerifiedQuery extends Query {
    private final Query candidates;
    private final int schemeHash;
    private final JaccardVerifier verifier;

    /**
     * @param minhash      the {@code minhash} field holding the documents' signatures and shingle sets
     * @param schemeHash   the scheme hash of the query's signature, checked against every segment's
     * @param shingleSet   the query's shingle set payload, or null to verify by the estimate
     */
    public JaccardVerifiedQuery(
            Query candidates,
            MinhashFieldMapper.MinhashFieldType minhash,
            int[] signature,
            byte[] shingleSet,
            int schemeHash,
            double minSimilarity) {
        this(candidates, minhash, signature, shingleSet, schemeHash, minSimilarity, null);
    }

    /** @param stats where verifications are counted, or null */
    public JaccardVerifiedQuery(
            Query candidates,
            MinhashFieldMapper.MinhashFieldType minhash,
            int[] signature,
            byte[] shingleSet,
            int schemeHash,
            double minSimilarity,
            QueryStats stats) {
        this.candidates = Objects.requireNonNull(candidates, "candidates");
        this.schemeHash = schemeHash;
        this.verifier = new JaccardVerifier(minhash, signature, shingleSet, minSimilarity, stats);
    }

    @Override
    public Query rewrite(IndexSearcher searcher) throws IOException {
        Query rewritten = candidates.rewrite(searcher);
        return rewritten == candidates ? this : new JaccardVerifiedQuery(rewritten, this);
    }

    private JaccardVerifiedQuery(Query candidates, JaccardVerifiedQuery other) {
        this.candidates = candidates;
        this.schemeHash = other.schemeHash;
        this.verifier = other.verifier;
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) throws IOException {
        Weight inner = searcher.createWeight(candidates, ScoreMode.COMPLETE_NO_SCORES, 1f);
        return new SupplierWeight(this) {
            @Override
            public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
                String field = verifier.minhashField();
                if (FieldExposure.exposes(context.reader(), field) == false) {
                    return null;
                }
                SegmentScheme.requireSameHash(
                        field,
                        schemeHash,
                        SegmentScheme.of(context.reader(), field, FingerprintFields.schemeField(field)));
                ScorerSupplier supplier = inner.scorerSupplier(context);
                if (supplier == null) {
                    return null;
                }
                return VerifiedScorer.supplier(this, supplier, verifier, context, boost);
            }

            @Override
            public Explanation explain(LeafReaderContext context, int doc) throws IOException {
                Explanation candidate = inner.explain(context, doc);
                Explanation verified = verifier.leaf(context, false).explain(doc, boost);
                if (candidate.isMatch() == false) {
                    return Explanation.noMatch("not a candidate", candidate);
                }
                return verified.isMatch()
                        ? Explanation.match(verified.getValue(), verified.getDescription(), verified.getDetails())
                        : Explanation.noMatch(verified.getDescription(), candidate);
            }

            @Override
            public boolean isCacheable(LeafReaderContext context) {
                return inner.isCacheable(context) && verifier.isCacheable(context);
            }
        };
    }

    @Override
    public void visit(QueryVisitor visitor) {
        candidates.visit(visitor.getSubVisitor(org.apache.lucene.search.BooleanClause.Occur.MUST, this));
    }

    @Override
    public String toString(String field) {
        return String.format(
                Locale.ROOT,
                "jaccard(%s, %s >= %s, verification=%s)",
                candidates.toString(field),
                verifier.minhashField(),
                verifier.minSimilarity(),
                verifier.hasShingleSet() ? "exact" : "estimate");
    }

    @Override
    public boolean equals(Object other) {
        return sameClassAs(other)
                && candidates.equals(((JaccardVerifiedQuery) other).candidates)
                && schemeHash == ((JaccardVerifiedQuery) other).schemeHash
                && verifier.equals(((JaccardVerifiedQuery) other).verifier);
    }

    @Override
    public int hashCode() {
        return Objects.hash(classHash(), candidates, schemeHash, verifier);
    }
}
