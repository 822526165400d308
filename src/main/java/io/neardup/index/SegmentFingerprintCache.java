/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.LuceneApi;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.SimhashBlockIndex;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.BytesRef;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.common.breaker.CircuitBreakingException;

/**
 * Per-segment fingerprint structures, built on a segment's first query and dropped when the
 * segment closes: for a segment sorted by the field, only a prefix index over its doc values;
 * otherwise a sorted copy (fingerprint + doc id) with its prefix index; for a {@code minhash} field,
 * a Bloom filter of its band keys (small segments only). Their memory is charged to
 * the plugin's circuit breaker. One instance per node.
 */
public final class SegmentFingerprintCache {

    /** {@code kind}: the structure's class, and for block tables their distance. */
    private record Key(Object segment, String field, Object kind) {}

    private final Map<Key, SegmentStructure> entries = new ConcurrentHashMap<>();
    private final Supplier<CircuitBreaker> breaker;
    private final AtomicLong bytes = new AtomicLong();
    private final LongAdder builds = new LongAdder();
    private final QueryStats queryStats = new QueryStats();

    public SegmentFingerprintCache(Supplier<CircuitBreaker> breaker) {
        this.breaker = breaker;
    }

    /** The node's {@code neardup} breaker, which also guards the plugin's other memory that grows with an index. */
    public CircuitBreaker breaker() {
        return breaker.get();
    }

    /** The node's query counters. */
    QueryStats queryStats() {
        return queryStats;
    }

    /**
     * The fingerprints of {@code field} in this segment in unsigned order, or null if none has one
     * or {@code reader} does not expose the field to its caller ({@link FieldExposure}). A structure is charged to the breaker with the most heap its build will hold <em>before</em>
     * it is built (past the limit the query fails with a 429 and nothing is allocated), then the
     * charge is trued up to what it keeps.
     */
    SortedFingerprints fingerprints(LeafReader reader, String field) throws IOException {
        if (FieldExposure.exposes(reader, field) == false) {
            return null;
        }
        SegmentStructure.Sorted sorted =
                cached(reader, field, SegmentStructure.Sorted.class, charge -> build(reader, field, charge));
        return sorted == null ? null : sorted.view(reader);
    }

    /**
     * Block tables of {@code field}'s fingerprints in this segment that answer every distance up to
     * {@code maxDistance}, or null if no document has one or the caller may not see the field;
     * charged as {@link #fingerprints} is.
     */
    public SimhashBlockIndex blockIndex(LeafReader reader, String field, int maxDistance) throws IOException {
        if (FieldExposure.exposes(reader, field) == false) {
            return null;
        }
        SegmentStructure.Blocks blocks = cached(reader, field, maxDistance, SegmentStructure.Blocks.class, charge -> {
            long withValue = Math.min(DocValues.getSortedNumeric(reader, field).cost(), reader.maxDoc());
            if (withValue == 0) {
                return null;
            }
            return charged(charge, SimhashBlockIndex.peakBuildBytes(withValue, maxDistance), field, () -> {
                Values values = values(reader, field, (int) withValue);
                return values == null
                        ? null
                        : new SegmentStructure.Blocks(SimhashBlockIndex.build(
                                values.fingerprints(), values.docs(), values.count(), maxDistance));
            });
        });
        return blocks == null ? null : blocks.index();
    }

    /**
     * The most documents of a segment that gets a {@link #bandKeyFilter}. The filter saves a query the seek of each of
     * its band terms in the segment's terms dictionary (42 with the default banding, ~25 µs a segment whatever its size,
     * docs/lookup.md), which is most of a small segment's work and little of a large one's (its postings and
     * verifications grow with its documents), while the filter's heap grows with the documents: 12 bits a band key,
     * 63 bytes a document at 42 bands, so 4 MiB here at most. A larger segment takes the seeks, as without filters.
     * The build reads each band term of the segment once (estimated at ~50 ns a term, ~2 µs a document, not
     * measured apart), which a segment's queries repay after about a twelfth of its documents' worth of queries: a
     * lookup's new segments see more queries than that before a merge replaces them.
     */
    static final int MAX_FILTERED_DOCS = 1 << 16;

    /**
     * The keys ({@link MinhashFieldMapper.MinhashFieldType#filterKeyOf}) of the band terms of the {@code minhash}
     * field {@code fieldType} in this segment, for a query to pass over a segment that holds too few of its band keys
     * without looking them up; or null, and the query looks its terms up: the segment has more than
     * {@link #MAX_FILTERED_DOCS} documents, no core to cache on, no band term, a terms dictionary that cannot count its
     * terms without reading them all, or a caller that may not see the field ({@link FieldExposure}). Charged to the
     * breaker before it is built, as the other structures are; where the breaker has no room, no filter is built and
     * the query runs as without one instead of failing, since the filter only saves work.
     */
    BandKeyFilter bandKeyFilter(LeafReader reader, MinhashFieldMapper.MinhashFieldType fieldType) throws IOException {
        String field = fieldType.name();
        if (reader.maxDoc() > MAX_FILTERED_DOCS
                || reader.getCoreCacheHelper() == null
                || FieldExposure.exposes(reader, field) == false) {
            return null;
        }
        SegmentStructure.BandKeys bandKeys;
        try {
            bandKeys = cached(reader, field, SegmentStructure.BandKeys.class, charge -> {
                Terms terms = reader.terms(field);
                long count = terms == null ? 0 : terms.size();
                if (count <= 0) {
                    return null;
                }
                return charged(charge, BandKeyFilter.bytesFor(count), field, () -> {
                    BandKeyFilter filter = BandKeyFilter.forKeys(count);
                    TermsEnum termsEnum = terms.iterator();
                    for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
                        filter.add(fieldType.filterKeyOf(term));
                    }
                    return new SegmentStructure.BandKeys(filter);
                });
            });
        } catch (CircuitBreakingException e) {
            return null;
        }
        return bandKeys == null ? null : bandKeys.filter();
    }

    private interface Build<T> {
        T build(boolean charge) throws IOException;
    }

    private <T extends SegmentStructure> T cached(LeafReader reader, String field, Class<T> type, Build<T> build)
            throws IOException {
        return cached(reader, field, type, type, build);
    }

    private <T extends SegmentStructure> T cached(
            LeafReader reader, String field, Object kind, Class<T> type, Build<T> build) throws IOException {
        IndexReader.CacheHelper cacheHelper = reader.getCoreCacheHelper();
        if (cacheHelper == null) {
            // No segment core to cache on (a percolator's one-document index): built for this query, not kept, not
            // charged.
            return build.build(false);
        }
        Key key = new Key(cacheHelper.getKey(), field, kind);
        SegmentStructure entry = entries.get(key);
        if (entry == null) {
            T built = build.build(true);
            if (built == null) {
                return null;
            }
            long size = built.ramBytesUsed();
            entry = entries.putIfAbsent(key, built);
            if (entry != null) {
                release(size); // another query built it first
            } else {
                entry = built;
                bytes.addAndGet(size);
                builds.increment();
                cacheHelper.addClosedListener(closed -> evict(key));
            }
        }
        return type.cast(entry);
    }

    private void evict(Key key) {
        SegmentStructure removed = entries.remove(key);
        if (removed != null) {
            long size = removed.ramBytesUsed();
            bytes.addAndGet(-size);
            release(size);
        }
    }

    private void reserve(long size, String field) {
        CircuitBreaker circuitBreaker = breaker.get();
        if (circuitBreaker != null) {
            circuitBreaker.addEstimateBytesAndMaybeBreak(size, "near_duplicate fingerprints of [" + field + "]");
        }
    }

    /** Gives back {@code size} bytes; a negative size takes more without breaking (a structure larger than planned). */
    private void release(long size) {
        CircuitBreaker circuitBreaker = breaker.get();
        if (circuitBreaker != null && size != 0) {
            circuitBreaker.addWithoutBreaking(-size);
        }
    }

    private interface Builder<T> {
        T build() throws IOException;
    }

    /** Runs {@code builder} with {@code planned} bytes reserved first; leaves exactly {@code sizeOf(result)} charged (0 for null). */
    private <T extends SegmentStructure> T charged(boolean charge, long planned, String field, Builder<T> builder)
            throws IOException {
        if (charge == false) {
            return builder.build();
        }
        reserve(planned, field);
        T built;
        try {
            built = builder.build();
        } catch (IOException | RuntimeException | Error e) {
            release(planned);
            throw e;
        }
        release(planned - (built == null ? 0 : built.ramBytesUsed()));
        return built;
    }

    /**
     * A prefix index over the doc values where the segment is sorted by the field, else a sorted
     * copy; null if no document has a value. Charged to the breaker when {@code charge}.
     */
    private SegmentStructure.Sorted build(LeafReader reader, String field, boolean charge) throws IOException {
        long withValue = Math.min(DocValues.getSortedNumeric(reader, field).cost(), reader.maxDoc());
        if (withValue == 0) {
            return null;
        }
        int indexBits = SortedFingerprintTable.defaultIndexBits((int) withValue);
        if (isSortedBy(reader, field)) {
            SegmentStructure.Sorted sorted = charged(
                    charge,
                    SortedSegmentFingerprints.bytesFor(indexBits),
                    field,
                    () -> SortedSegmentFingerprints.build(reader, field, indexBits));
            if (sorted != null) {
                return sorted;
            }
            // Documents without a value sort among the others: positions are not doc ids, so a table it is.
        }
        return charged(charge, SortedFingerprintTable.peakBuildBytes(withValue, indexBits), field, () -> {
            SortedFingerprintTable table = buildTable(reader, field, (int) withValue);
            return table == null ? null : new SegmentStructure.Table(table);
        });
    }

    /** Whether the segment's first sort key is this field, ascending: then doc order is fingerprint order. */
    static boolean isSortedBy(LeafReader reader, String field) {
        Sort sort = LuceneApi.indexSort(reader.getMetaData());
        if (sort == null || sort.getSort().length == 0) {
            return false;
        }
        SortField first = sort.getSort()[0];
        return field.equals(first.getField()) && first.getReverse() == false;
    }

    private static SortedFingerprintTable buildTable(LeafReader reader, String field, int capacity) throws IOException {
        Values values = values(reader, field, capacity);
        return values == null
                ? null
                : SortedFingerprintTable.build(
                        values.fingerprints(),
                        values.docs(),
                        values.count(),
                        SortedFingerprintTable.defaultIndexBits(values.count()));
    }

    /** A segment's fingerprints and their documents, in document order. */
    private record Values(long[] fingerprints, int[] docs, int count) {}

    private static Values values(LeafReader reader, String field, int capacity) throws IOException {
        // Multi-valued in form only: one fingerprint a document, the first value (a percolator's memory index has no
        // singletons).
        SortedNumericDocValues values = DocValues.getSortedNumeric(reader, field);
        long[] fingerprints = new long[Math.max(capacity, 1)];
        int[] docs = new int[fingerprints.length];
        int n = 0;
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            if (n == fingerprints.length) {
                fingerprints = Arrays.copyOf(fingerprints, n * 2);
                docs = Arrays.copyOf(docs, n * 2);
            }
            fingerprints[n] = SimhashFieldMapper.decode(values.nextValue());
            docs[n++] = doc;
        }
        return n == 0 ? null : new Values(fingerprints, docs, n);
    }

    /** A snapshot of this node's structures and counters. */
    public Stats stats() {
        return new Stats(entries.size(), bytes.get(), builds.sum(), queryStats.snapshot());
    }

    /** What {@code GET _plugins/neardup/stats} reports per node. */
    public record Stats(long entries, long bytes, long builds, QueryStats.Snapshot queries) {}
}
