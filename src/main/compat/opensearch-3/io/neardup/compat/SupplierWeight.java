/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.apache.lucene.search.Query;
import org.apache.lucene.search.Weight;

/**
 * A {@link Weight} that makes its scorers through {@code scorerSupplier} only. Lucene 10 (OpenSearch 3.x) asks
 * nothing more. Twin of {@code src/main/compat/opensearch-2}'s class of this name, where Lucene 9's abstract
 * {@code scorer} is answered from the supplier (see pom.xml, compat-line-dir).
 */
public abstract class SupplierWeight extends Weight {
    protected SupplierWeight(Query query) {
        super(query);
    }
}
