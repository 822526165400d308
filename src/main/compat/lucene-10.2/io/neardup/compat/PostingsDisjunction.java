/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.DisiWrapper;
import org.apache.lucene.search.DisjunctionDISIApproximation;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Weight;

/**
 * Lucene's disjunction of iterators, and which of them stand on its document: an internal Lucene API whose shape
 * changed in Lucene 10.2 (OpenSearch 3.1.0), where the disjunction took the lead cost and the list of iterators on
 * its document moved from its queue to itself. This source is for Lucene 10.2 and newer (OpenSearch 3.1 and newer);
 * its twin of this name under {@code src/main/compat/lucene-10.1} is for OpenSearch 3.0.x (pom.xml's
 * {@code compat-lucene-source-dir} chooses).
 */
public final class PostingsDisjunction {

    private final DisjunctionDISIApproximation approximation;

    /**
     * @param weight not used: Lucene 10's scorers hold no weight (Lucene 9's do, hence the parameter)
     * @param iterators the postings, each to be wrapped in a {@link DisiWrapper}, whose {@code next} links
     *     {@link #onCurrentDocument}'s list
     * @param leadCost the cost of the clause that leads: iterators much more costly than it are checked linearly
     *     rather than kept in a heap (Lucene 10.2's optimisation for a cheap lead)
     */
    public PostingsDisjunction(Weight weight, List<? extends DocIdSetIterator> iterators, long leadCost) {
        List<DisiWrapper> wrappers = new ArrayList<>(iterators.size());
        for (DocIdSetIterator iterator : iterators) {
            wrappers.add(wrapped(iterator));
        }
        this.approximation = new DisjunctionDISIApproximation(wrappers, leadCost);
    }

    private static DisiWrapper wrapped(DocIdSetIterator iterator) {
        return new DisiWrapper(new ConstantScoreScorer(1f, ScoreMode.COMPLETE_NO_SCORES, iterator), false);
    }

    /** The documents any of the iterators is on. */
    public DocIdSetIterator iterator() {
        return approximation;
    }

    /** The iterators on {@link #iterator()}'s current document, linked by {@link DisiWrapper#next}. */
    public DisiWrapper onCurrentDocument() {
        return approximation.topList();
    }
}
