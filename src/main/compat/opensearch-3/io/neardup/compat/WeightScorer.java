/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;

/**
 * A {@link Scorer} of a given {@link Weight}: Lucene 10 (OpenSearch 3.x) no longer ties a scorer to its weight, so
 * the weight is not kept. Twin of {@code src/main/compat/opensearch-2}'s class of this name, where Lucene 9's
 * constructor requires it (see pom.xml, compat-line-dir).
 */
public abstract class WeightScorer extends Scorer {
    protected WeightScorer(Weight weight) {
        super();
    }
}
