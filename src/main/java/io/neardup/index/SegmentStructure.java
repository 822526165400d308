/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.BandKeyFilter;
import io.neardup.core.SimhashBlockIndex;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import org.apache.lucene.index.LeafReader;

/** What {@link SegmentFingerprintCache} keeps per segment and field: built once, read by every query. */
interface SegmentStructure {

    /** Heap held, as charged to the {@code neardup} circuit breaker. */
    long ramBytesUsed();

    /** The segment's fingerprints in unsigned order, for PSM and exact queries. */
    interface Sorted extends SegmentStructure {
        /** A view for one query on one thread. */
        SortedFingerprints view(LeafReader reader) throws IOException;
    }

    /** Block-permutation tables of the segment's fingerprints for one distance: every neighbour, for batch matching. */
    record Blocks(SimhashBlockIndex index) implements SegmentStructure {
        @Override
        public long ramBytesUsed() {
            return index.ramBytesUsed();
        }
    }

    /** The band keys of a {@code minhash} field's terms in the segment, for queries to skip a segment without them. */
    record BandKeys(BandKeyFilter filter) implements SegmentStructure {
        @Override
        public long ramBytesUsed() {
            return 8L * filter.words().length;
        }
    }

    /** A sorted in-memory copy of an unsorted segment's fingerprints: its own view. */
    record Table(SortedFingerprintTable table) implements Sorted {
        @Override
        public SortedFingerprints view(LeafReader reader) {
            return table;
        }

        @Override
        public long ramBytesUsed() {
            return table.ramBytesUsed();
        }
    }
}
