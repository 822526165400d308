/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * A {@link Weight} that makes its scorers through {@code scorerSupplier} only. Lucene 9 (OpenSearch 2.x) still has
 * {@code scorer} abstract (Lucene 10 builds it from the supplier): this answers it as Lucene 10 does, the supplier's
 * scorer for no lead cost. Twin of {@code src/main/compat/opensearch-3}'s class of this name (see pom.xml,
 * compat-line-dir).
 */
public abstract class SupplierWeight extends Weight {
    protected SupplierWeight(Query query) {
        super(query);
    }

    @Override
    public abstract ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException;

    @Override
    public final Scorer scorer(LeafReaderContext context) throws IOException {
        ScorerSupplier supplier = scorerSupplier(context);
        return supplier == null ? null : supplier.get(Long.MAX_VALUE);
    }
}
