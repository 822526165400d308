/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import org.apache.lucene.index.LeafMetaData;
import org.apache.lucene.index.ReaderSlice;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TotalHits;

/**
 * The accessors that Lucene 10 (OpenSearch 3.x) made record-style methods where Lucene 9 (OpenSearch 2.x) has
 * getters or public fields. Twin of {@code src/main/compat/opensearch-2}'s class of this name (see pom.xml,
 * compat-line-dir).
 */
public final class LuceneApi {
    private LuceneApi() {}

    /** The segment's index sort, or null. */
    public static Sort indexSort(LeafMetaData metaData) {
        return metaData.sort();
    }

    /** The number of hits, exact or a lower bound as {@link TotalHits#relation()} says. */
    public static long count(TotalHits totalHits) {
        return totalHits.value();
    }

    /** The first document of the slice in the composite reader's doc ids. */
    public static int start(ReaderSlice slice) {
        return slice.start();
    }
}
