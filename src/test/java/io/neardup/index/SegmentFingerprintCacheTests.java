/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.CountingBreaker;
import io.neardup.core.SimhashBlockIndex;
import java.io.IOException;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.store.Directory;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.test.OpenSearchTestCase;

/** The block tables' charge: the layout {@code Layout.of} chooses where the breaker has room for it, else a table per block. */
public class SegmentFingerprintCacheTests extends OpenSearchTestCase {
    private static final String FIELD = "fp";
    private static final int DOCS = 3_000;

    /** Fingerprints one bit from a common pattern: a table per pair of blocks pays for itself. */
    private Directory crowded() throws IOException {
        Directory directory = newDirectory();
        long base = randomLong();
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
            for (int i = 0; i < DOCS; i++) {
                Document doc = new Document();
                doc.add(new SortedNumericDocValuesField(
                        FIELD, SimhashFieldMapper.encode(base ^ (1L << between(0, 63)))));
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
        }
        return directory;
    }

    public void testTheTablesPerPairWhereTheBreakerHasRoomTheTablesPerBlockWhereNot() throws IOException {
        long perBlock = SimhashBlockIndex.Layout.perBlock(3).peakBuildBytes(DOCS);
        try (Directory directory = crowded();
                DirectoryReader reader = DirectoryReader.open(directory)) {
            LeafReader segment = reader.leaves().get(0).reader();

            CountingBreaker roomy = new CountingBreaker(1L << 30);
            SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> roomy);
            assertEquals(10, cache.blockIndex(segment, FIELD, 3).layout().tables());
            assertEquals("the charge is what is kept", cache.stats().bytes(), roomy.getUsed());
            assertTrue(
                    roomy.peak() >= SimhashBlockIndex.Layout.perPairOfBlocks(3).peakBuildBytes(DOCS));

            CountingBreaker forBlocks = new CountingBreaker(perBlock + 1);
            SegmentFingerprintCache fallingBack = new SegmentFingerprintCache(() -> forBlocks);
            SimhashBlockIndex blocks = fallingBack.blockIndex(segment, FIELD, 3);
            assertEquals(
                    "no room for the pairs: a table per block",
                    4,
                    blocks.layout().tables());
            assertEquals(fallingBack.stats().bytes(), forBlocks.getUsed());
            assertEquals(blocks.ramBytesUsed(), forBlocks.getUsed());

            CountingBreaker tight = new CountingBreaker(perBlock - 1);
            SegmentFingerprintCache failing = new SegmentFingerprintCache(() -> tight);
            expectThrows(CircuitBreakingException.class, () -> failing.blockIndex(segment, FIELD, 3));
            assertEquals("nothing kept", 0, failing.stats().entries());
            assertEquals("nothing charged", 0, tight.getUsed());
        }
    }
}
