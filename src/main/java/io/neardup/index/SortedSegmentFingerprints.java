/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;

/**
 * The fingerprints of a segment that the index sorts by the simhash field: the doc values already
 * are the sorted table (position + {@link #firstDoc} = doc id), so the only structure kept is the
 * 2^p prefix index. Immutable and cached; {@link #view} gives a per-query reader over it.
 */
final class SortedSegmentFingerprints implements SegmentStructure.Sorted {

    private final String field;
    private final int firstDoc;
    private final int count;
    private final int indexBits;
    /** runStarts[b] = first position whose fingerprint has the {@link #indexBits}-bit prefix b; 2^p + 1 entries. */
    private final int[] runStarts;

    private SortedSegmentFingerprints(String field, int firstDoc, int count, int indexBits, int[] runStarts) {
        this.field = field;
        this.firstDoc = firstDoc;
        this.count = count;
        this.indexBits = indexBits;
        this.runStarts = runStarts;
    }

    /**
     * One forward pass over the doc values; null if no document has a value, or if the documents
     * with one are not contiguous (a sort whose missing value falls among the fingerprints), in
     * which case positions are not doc ids and the caller needs a table.
     */
    static SortedSegmentFingerprints build(LeafReader reader, String field, int indexBits) throws IOException {
        NumericDocValues values = DocValues.unwrapSingleton(DocValues.getSortedNumeric(reader, field));
        int[] runStarts = new int[(1 << indexBits) + 1];
        int shift = 64 - indexBits;
        int firstDoc = -1;
        int count = 0;
        int nextBucket = 0;
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
            if (firstDoc < 0) {
                firstDoc = doc;
            }
            if (doc != firstDoc + count) {
                return null;
            }
            int bucket = (int) (SimhashFieldMapper.decode(values.longValue()) >>> shift);
            while (nextBucket <= bucket) {
                runStarts[nextBucket++] = count;
            }
            count++;
        }
        if (firstDoc < 0) {
            return null;
        }
        while (nextBucket < runStarts.length) {
            runStarts[nextBucket++] = count;
        }
        return new SortedSegmentFingerprints(field, firstDoc, count, indexBits, runStarts);
    }

    int indexBits() {
        return indexBits;
    }

    @Override
    public long ramBytesUsed() {
        return bytesFor(indexBits);
    }

    /** Heap of the structure for a prefix index of {@code indexBits} bits, known before it is built. */
    static long bytesFor(int indexBits) {
        return 16L + 4L * ((1L << indexBits) + 1);
    }

    /** A reader over this segment's doc values; one per query and thread. */
    @Override
    public SortedFingerprints view(LeafReader reader) throws IOException {
        return new View(reader);
    }

    private final class View implements SortedFingerprints {
        private final LeafReader reader;
        private NumericDocValues values;

        View(LeafReader reader) throws IOException {
            this.reader = reader;
            this.values = open();
        }

        private NumericDocValues open() throws IOException {
            return DocValues.unwrapSingleton(DocValues.getSortedNumeric(reader, field));
        }

        @Override
        public int size() {
            return count;
        }

        @Override
        public long fingerprintAt(int position) {
            int doc = firstDoc + position;
            try {
                // Doc values only move forward; PSM visits runs in probability order, so a run
                // before the last one read needs a fresh iterator.
                if (values.docID() > doc) {
                    values = open();
                }
                if (values.advanceExact(doc) == false) {
                    throw new IllegalStateException("document [" + doc + "] has no value in [" + field + "]");
                }
                return SimhashFieldMapper.decode(values.longValue());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public int docAt(int position) {
            return firstDoc + position;
        }

        @Override
        public long run(long prefix, int prefixBits) {
            return SortedFingerprints.runFromIndex(this, runStarts, indexBits, prefix, prefixBits);
        }
    }
}
