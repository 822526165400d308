/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;

/**
 * A {@link Scorer} of a given {@link Weight}, which Lucene 9 (OpenSearch 2.x) requires of every scorer. Twin of
 * {@code src/main/compat/opensearch-3}'s class of this name (see pom.xml, compat-line-dir).
 */
public abstract class WeightScorer extends Scorer {
    protected WeightScorer(Weight weight) {
        super(weight);
    }
}
