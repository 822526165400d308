/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.WeightScorer;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Weight;

/** Iterates precomputed matches of one segment: doc ids ascending, with their scores. */
final class ArrayScorer extends WeightScorer {
    private final int[] docs;
    private final float[] scores;
    private final int length;
    private final float maxScore;
    private int index = -1;
    private int doc = -1;

    ArrayScorer(Weight weight, int[] docs, float[] scores, int length) {
        super(weight);
        this.docs = docs;
        this.scores = scores;
        this.length = length;
        float max = 0;
        for (int i = 0; i < length; i++) {
            max = Math.max(max, scores[i]);
        }
        this.maxScore = max;
    }

    private final DocIdSetIterator iterator = new DocIdSetIterator() {
        @Override
        public int docID() {
            return doc;
        }

        @Override
        public int nextDoc() {
            return doc = ++index < length ? docs[index] : NO_MORE_DOCS;
        }

        @Override
        public int advance(int target) {
            while (doc < target) {
                nextDoc();
            }
            return doc;
        }

        @Override
        public long cost() {
            return length;
        }
    };

    @Override
    public int docID() {
        return doc;
    }

    @Override
    public DocIdSetIterator iterator() {
        return iterator;
    }

    @Override
    public float getMaxScore(int upTo) {
        return maxScore;
    }

    @Override
    public float score() {
        return scores[index];
    }
}
