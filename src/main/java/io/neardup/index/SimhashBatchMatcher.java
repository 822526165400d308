/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.SimhashBlockIndex;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.query.QueryShardContext;

/**
 * Every document of one searcher within {@code max_distance} bits of a simhash, exactly, through the
 * segments' block tables ({@link SimhashBlockIndex}): what matching many documents at once uses
 * instead of one {@code near_duplicate} query each. Each segment's tables, scheme and live documents
 * are looked up once, for the whole batch; the scheme checks are the query's.
 */
public final class SimhashBatchMatcher {

    /** Receives each live document found: its doc id in the searcher and its distance. */
    @FunctionalInterface
    public interface Hits {
        void hit(int doc, int distance);
    }

    private final String field;
    private final int maxDistance;
    private final SimhashBlockIndex[] indexes;
    private final String[] schemes;
    private final Bits[] live;
    private final int[] docBases;

    private SimhashBatchMatcher(
            String field, int maxDistance, SimhashBlockIndex[] indexes, String[] schemes, Bits[] live, int[] docBases) {
        this.field = field;
        this.maxDistance = maxDistance;
        this.indexes = indexes;
        this.schemes = schemes;
        this.live = live;
        this.docBases = docBases;
    }

    /**
     * A matcher over {@code searcher} for {@code field} if it is a {@code simhash} field with doc
     * values in this shard, else null. Builds (or takes from the cache) each segment's tables.
     */
    public static SimhashBatchMatcher forField(
            QueryShardContext context,
            IndexSearcher searcher,
            String field,
            int maxDistance,
            SegmentFingerprintCache cache)
            throws IOException {
        MappedFieldType type = context.fieldMapper(field);
        if (type instanceof SimhashFieldMapper.SimhashFieldType == false || type.hasDocValues() == false) {
            return null;
        }
        List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
        SimhashBlockIndex[] indexes = new SimhashBlockIndex[leaves.size()];
        String[] schemes = new String[leaves.size()];
        Bits[] live = new Bits[leaves.size()];
        int[] docBases = new int[leaves.size()];
        for (int i = 0; i < leaves.size(); i++) {
            LeafReaderContext leaf = leaves.get(i);
            indexes[i] = cache.blockIndex(leaf.reader(), field, maxDistance);
            schemes[i] = indexes[i] == null
                    ? null
                    : SegmentScheme.of(leaf.reader(), field, FingerprintFields.schemeField(field));
            live[i] = leaf.reader().getLiveDocs();
            docBases[i] = leaf.docBase;
        }
        return new SimhashBatchMatcher(field, maxDistance, indexes, schemes, live, docBases);
    }

    /** The scheme the documents of the searcher's {@code leaf}-th segment were fingerprinted with, null if not recorded. */
    public String scheme(int leaf) {
        return schemes[leaf];
    }

    /** The score the {@code near_duplicate} query gives a document at {@code distance} bits. */
    public static float similarity(int distance) {
        return SimhashNeighborQuery.similarity(distance);
    }

    /** Calls {@code hits} for every live document within the distance of {@code simhash}; {@code scheme} may be null (a bare value). */
    public void match(long simhash, String scheme, Hits hits) {
        for (int i = 0; i < indexes.length; i++) {
            SegmentScheme.requireSame(field, scheme, schemes[i]);
            if (indexes[i] == null) {
                continue;
            }
            Bits liveDocs = live[i];
            int base = docBases[i];
            indexes[i].within(simhash, maxDistance, (doc, distance) -> {
                if (liveDocs == null || liveDocs.get(doc)) {
                    hits.hit(base + doc, distance);
                }
            });
        }
    }
}
