package io.neardup.query;

import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import io.neardup.mapper.SimhashFieldMapper;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.opensearch.core.common.breaker.CircuitBreaker;

import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Per-segment fingerprint structures, built on a segment's first query and dropped when the
 * segment closes: for a segment sorted by the field, only a prefix index over its doc values;
 * otherwise a sorted copy (fingerprint + doc id) with its prefix index. Their memory is charged to
 * the plugin's circuit breaker. One instance per node.
 */
public final class SegmentFingerprintCache {

    private record Key(Object segment, String field) {
    }

    private final Map<Key, Object> entries = new ConcurrentHashMap<>();
    private final Supplier<CircuitBreaker> breaker;
    private final AtomicLong bytes = new AtomicLong();
    private final LongAdder queries = new LongAdder();
    private final LongAdder segmentSearches = new LongAdder();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder candidates = new LongAdder();
    private final LongAdder matches = new LongAdder();
    private final LongAdder builds = new LongAdder();

    public SegmentFingerprintCache(Supplier<CircuitBreaker> breaker) {
        this.breaker = breaker;
    }

    /** The fingerprints of {@code field} in this segment in unsigned order, or null if none has one. */
    SortedFingerprints fingerprints(LeafReader reader, String field) throws IOException {
        IndexReader.CacheHelper cacheHelper = reader.getCoreCacheHelper();
        if (cacheHelper == null) {
            return viewOf(build(reader, field), reader);
        }
        Key key = new Key(cacheHelper.getKey(), field);
        Object entry = entries.get(key);
        if (entry == null) {
            entry = build(reader, field);
            if (entry == null) {
                return null;
            }
            long size = sizeOf(entry);
            CircuitBreaker circuitBreaker = breaker.get();
            if (circuitBreaker != null) {
                circuitBreaker.addEstimateBytesAndMaybeBreak(size, "near_duplicate fingerprints of [" + field + "]");
            }
            Object raced = entries.putIfAbsent(key, entry);
            if (raced != null) {
                release(size);
                entry = raced;
            } else {
                bytes.addAndGet(size);
                builds.increment();
                cacheHelper.addClosedListener(closed -> evict(key));
            }
        }
        return viewOf(entry, reader);
    }

    /** A segment sorted by the field is read through its doc values; a table is its own view. */
    private static SortedFingerprints viewOf(Object entry, LeafReader reader) throws IOException {
        return entry instanceof SortedSegmentFingerprints s ? s.view(reader) : (SortedFingerprints) entry;
    }

    private void evict(Key key) {
        Object removed = entries.remove(key);
        if (removed != null) {
            long size = sizeOf(removed);
            bytes.addAndGet(-size);
            release(size);
        }
    }

    private void release(long size) {
        CircuitBreaker circuitBreaker = breaker.get();
        if (circuitBreaker != null) {
            circuitBreaker.addWithoutBreaking(-size);
        }
    }

    private static long sizeOf(Object entry) {
        return entry instanceof SortedSegmentFingerprints s ? s.ramBytesUsed() : ((SortedFingerprintTable) entry).ramBytesUsed();
    }

    /** A prefix index over the doc values where the segment is sorted by the field, else a sorted copy; null if no values. */
    private static Object build(LeafReader reader, String field) throws IOException {
        long withValue = DocValues.getSortedNumeric(reader, field).cost();
        if (withValue == 0) {
            return null;
        }
        if (isSortedBy(reader, field)) {
            SortedSegmentFingerprints sorted = SortedSegmentFingerprints.build(reader, field,
                SortedFingerprintTable.defaultIndexBits((int) withValue));
            if (sorted != null) {
                return sorted;
            }
        }
        return buildTable(reader, field);
    }

    /** Whether the segment's first sort key is this field, ascending: then doc order is fingerprint order. */
    static boolean isSortedBy(LeafReader reader, String field) {
        Sort sort = reader.getMetaData().sort();
        if (sort == null || sort.getSort().length == 0) {
            return false;
        }
        SortField first = sort.getSort()[0];
        return field.equals(first.getField()) && first.getReverse() == false;
    }

    private static SortedFingerprintTable buildTable(LeafReader reader, String field) throws IOException {
        NumericDocValues values = DocValues.unwrapSingleton(DocValues.getSortedNumeric(reader, field));
        int capacity = (int) Math.min(values.cost(), reader.maxDoc());
        long[] fingerprints = new long[Math.max(capacity, 1)];
        int[] docs = new int[fingerprints.length];
        int n = 0;
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            if (n == fingerprints.length) {
                fingerprints = Arrays.copyOf(fingerprints, n * 2);
                docs = Arrays.copyOf(docs, n * 2);
            }
            fingerprints[n] = SimhashFieldMapper.decode(values.longValue());
            docs[n++] = doc;
        }
        if (n == 0) {
            return null;
        }
        return SortedFingerprintTable.build(fingerprints, docs, n, SortedFingerprintTable.defaultIndexBits(n));
    }

    void recordQuery() {
        queries.increment();
    }

    void recordSegmentSearch(long lookupCount, long candidateCount, long matchCount) {
        segmentSearches.increment();
        lookups.add(lookupCount);
        candidates.add(candidateCount);
        matches.add(matchCount);
    }

    /** A snapshot of this node's counters. */
    public Stats stats() {
        return new Stats(entries.size(), bytes.get(), builds.sum(), queries.sum(), segmentSearches.sum(), lookups.sum(), candidates.sum(),
            matches.sum());
    }

    /** What {@code GET _plugins/neardup/stats} reports per node. */
    public record Stats(long entries, long bytes, long builds, long queries, long segmentSearches, long lookups, long candidates,
        long matches) {
    }
}
