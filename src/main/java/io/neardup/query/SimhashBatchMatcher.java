package io.neardup.query;

import io.neardup.core.SimhashBlockIndex;
import io.neardup.mapper.FingerprintFields;
import io.neardup.mapper.SimhashFieldMapper;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.query.QueryShardContext;

import java.io.IOException;

/**
 * Every document of a shard within {@code max_distance} bits of a simhash, exactly, through the
 * segments' block tables ({@link SimhashBlockIndex}): what matching many documents at once uses
 * instead of one {@code near_duplicate} query each. Same scheme checks as the query.
 */
public final class SimhashBatchMatcher {

    /** Receives each live document found: its doc id in the searcher and its distance. */
    @FunctionalInterface
    public interface Hits {
        void hit(int doc, int distance);
    }

    private final String field;
    private final int maxDistance;
    private final SegmentFingerprintCache cache;

    private SimhashBatchMatcher(String field, int maxDistance, SegmentFingerprintCache cache) {
        this.field = field;
        this.maxDistance = maxDistance;
        this.cache = cache;
    }

    /** A matcher for {@code field} if it is a {@code simhash} field with doc values in this shard, else null. */
    public static SimhashBatchMatcher forField(QueryShardContext context, String field, int maxDistance, QueryServices services) {
        MappedFieldType type = context.fieldMapper(field);
        if (type instanceof SimhashFieldMapper.SimhashFieldType == false || type.hasDocValues() == false) {
            return null;
        }
        return new SimhashBatchMatcher(field, maxDistance, services.cache());
    }

    /** Calls {@code hits} for every live document within the distance of {@code simhash}; {@code scheme} may be null (a bare value). */
    public void match(IndexSearcher searcher, long simhash, String scheme, Hits hits) throws IOException {
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            SegmentScheme.requireSame(field, scheme, SegmentScheme.of(leaf.reader(), field, FingerprintFields.schemeField(field)));
            SimhashBlockIndex index = cache.blockIndex(leaf.reader(), field, maxDistance);
            if (index == null) {
                continue;
            }
            Bits live = leaf.reader().getLiveDocs();
            int base = leaf.docBase;
            index.within(simhash, maxDistance, (doc, distance) -> {
                if (live == null || live.get(doc)) {
                    hits.hit(base + doc, distance);
                }
            });
        }
    }
}
