/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.util.List;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.DisiPriorityQueue;
import org.apache.lucene.search.DisiWrapper;
import org.apache.lucene.search.DisjunctionDISIApproximation;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Weight;

/**
 * Lucene's disjunction of iterators, and which of them stand on its document, on Lucene 10.1 (OpenSearch 3.0.x):
 * there the disjunction runs over a heap the caller builds and knows no lead cost, and the heap lists the iterators
 * on the current document. Twin of {@code src/main/compat/lucene-10.2}'s class of this name (see pom.xml's
 * {@code compat-lucene-source-dir}).
 */
public final class PostingsDisjunction {

    private final DisiPriorityQueue queue;
    private final DisjunctionDISIApproximation approximation;

    /**
     * @param weight not used: Lucene 10's scorers hold no weight (Lucene 9's do, hence the parameter)
     * @param iterators the postings, each to be wrapped in a {@link DisiWrapper}, whose {@code next} links
     *     {@link #onCurrentDocument}'s list
     * @param leadCost not used: Lucene 10.1's disjunction keeps every iterator in its heap, whatever leads
     */
    public PostingsDisjunction(Weight weight, List<? extends DocIdSetIterator> iterators, long leadCost) {
        this.queue = new DisiPriorityQueue(Math.max(1, iterators.size()));
        for (DocIdSetIterator iterator : iterators) {
            queue.add(wrapped(iterator));
        }
        this.approximation = new DisjunctionDISIApproximation(queue);
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
        return queue.topList();
    }
}
