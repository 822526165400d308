/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.Comparator;
import org.opensearch.cluster.metadata.IndexAbstraction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.Metadata;

/**
 * What {@code near_dup_lookup} and {@code _near_dup_clusters} share about the indices a name stands for: the order
 * ties between indices go in, and whether a name can stand for more than one index (then what they write names the
 * index beside each {@code _id}, which is unique only inside one index).
 */
public final class IndexSpan {

    /** The older index first (by creation date, then name): where two indices' matches tie, the older one's wins. */
    public static final Comparator<IndexMetadata> OLDEST_FIRST = Comparator.comparingLong(
                    IndexMetadata::getCreationDate)
            .thenComparing(index -> index.getIndex().getName());

    private IndexSpan() {}

    /**
     * Whether {@code name} (its date math resolved) can stand for more than one index, whatever it stands for now: a
     * data stream (also of one generation), an alias, a pattern, or a name of no index yet.
     */
    public static boolean standsForManyIndices(Metadata metadata, String name) {
        IndexAbstraction abstraction = metadata.getIndicesLookup().get(name);
        return abstraction == null || abstraction.getType() != IndexAbstraction.Type.CONCRETE_INDEX;
    }
}
