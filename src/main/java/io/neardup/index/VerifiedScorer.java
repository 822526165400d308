/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.WeightScorer;
import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;

/**
 * Candidates as the approximation, the Jaccard check of a {@link JaccardVerifier.Leaf} as the exact
 * phase; the score is {@code boost * similarity}.
 */
final class VerifiedScorer extends WeightScorer {
    private final DocIdSetIterator approximation;
    private final JaccardVerifier.Leaf verifier;
    private final float boost;
    private final TwoPhaseIterator twoPhase;

    /** @param matchCost the cost of one verification, e.g. the number of values compared */
    VerifiedScorer(
            Weight weight,
            DocIdSetIterator approximation,
            JaccardVerifier.Leaf verifier,
            float matchCost,
            float boost) {
        super(weight);
        this.approximation = approximation;
        this.verifier = verifier;
        this.boost = boost;
        this.twoPhase = new TwoPhaseIterator(approximation) {
            @Override
            public boolean matches() throws IOException {
                return verifier.matches(approximation.docID());
            }

            @Override
            public float matchCost() {
                return matchCost;
            }
        };
    }

    /**
     * Verifies the candidates of {@code candidates} with {@code verifier}; each scorer gets its own
     * doc-values iterators, which only move forward.
     */
    static ScorerSupplier supplier(
            Weight weight,
            ScorerSupplier candidates,
            JaccardVerifier verifier,
            LeafReaderContext context,
            float boost) {
        return new ScorerSupplier() {
            @Override
            public Scorer get(long leadCost) throws IOException {
                return new VerifiedScorer(
                        weight,
                        candidates.get(leadCost).iterator(),
                        verifier.leaf(context, true),
                        verifier.numHashes(),
                        boost);
            }

            @Override
            public long cost() {
                return candidates.cost();
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
        return (float) (boost * verifier.similarity());
    }
}
