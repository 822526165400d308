/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

public class SortedSegmentFingerprintsTests extends OpenSearchTestCase {
    private static final String FIELD = "fp.simhash";

    /** One segment sorted by the field; {@code withoutValueEvery}: every n-th document has no fingerprint (0: none). */
    private static Directory sortedSegment(long[] fps, boolean missingLast, int withoutValueEvery) throws IOException {
        Directory directory = newDirectory();
        SortField sort = new SortedNumericSortField(FIELD, SortField.Type.LONG);
        sort.setMissingValue(missingLast ? Long.MAX_VALUE : 0L);
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setIndexSort(new Sort(sort)))) {
            for (int i = 0; i < fps.length; i++) {
                Document doc = new Document();
                doc.add(new SortedNumericDocValuesField(FIELD, SimhashFieldMapper.encode(fps[i])));
                writer.addDocument(doc);
                if (withoutValueEvery > 0 && i % withoutValueEvery == 0) {
                    writer.addDocument(new Document());
                }
            }
            writer.forceMerge(1);
        }
        return directory;
    }

    /** The doc values are the table: fingerprints in unsigned order by position, runs of every prefix as brute force finds them. */
    public void testViewIsTheSortedTableAndRunsMatchBruteForce() throws IOException {
        Random random = random();
        long[] fps = random.longs(atLeast(300)).toArray();
        long[] unsigned = fps.clone();
        for (int i = 0; i < unsigned.length; i++) {
            unsigned[i] ^= Long.MIN_VALUE;
        }
        Arrays.sort(unsigned);
        try (Directory directory = sortedSegment(fps, true, 5);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            int indexBits = 1 + random.nextInt(8);
            SortedSegmentFingerprints structure = SortedSegmentFingerprints.build(leaf, FIELD, indexBits);
            assertNotNull(structure);
            assertEquals(SortedSegmentFingerprints.bytesFor(indexBits), structure.ramBytesUsed());
            SortedFingerprints view = structure.view(leaf);
            assertEquals(fps.length, view.size());
            for (int position = 0; position < view.size(); position++) {
                assertEquals(unsigned[position] ^ Long.MIN_VALUE, view.fingerprintAt(position));
            }
            for (int prefixBits : new int[] {1, indexBits, indexBits + 3}) {
                for (long prefix = 0; prefix < Math.min(1L << prefixBits, 64); prefix++) {
                    long run = view.run(prefix, prefixBits);
                    int start = (int) (run >>> 32), end = (int) run;
                    for (int position = 0; position < view.size(); position++) {
                        boolean inRun = position >= start && position < end;
                        assertEquals(
                                "prefix " + prefix + "/" + prefixBits + " position " + position,
                                inRun,
                                view.fingerprintAt(position) >>> (64 - prefixBits) == prefix);
                    }
                }
            }
        }
    }

    /** Documents without a value sorted among the others: positions are not doc ids, so no structure (the cache builds a table). */
    public void testMissingValuesAmongTheOthersGiveNoStructure() throws IOException {
        long[] fps = random().longs(100)
                .map(v -> v | Long.MIN_VALUE)
                .toArray(); // all above the missing value 0 once encoded
        try (Directory directory = sortedSegment(fps, false, 7);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            SortedSegmentFingerprints structure = SortedSegmentFingerprints.build(leaf, FIELD, 4);
            // Missing documents sort first (value 0 < every encoded fingerprint here): still contiguous, so a
            // structure.
            assertNotNull(structure);
            assertEquals(100, structure.view(leaf).size());
        }
        long[] mixed = {0x8000000000000001L, 0x0000000000000001L, 0xC000000000000000L};
        try (Directory directory = sortedSegment(mixed, false, 1);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            assertNull(SortedSegmentFingerprints.build(reader.leaves().get(0).reader(), FIELD, 2));
        }
    }

    public void testSegmentScheme() throws IOException {
        try (Directory directory = newDirectory()) {
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
                for (String scheme : new String[] {"nd1-aaaaaaaa", "nd1-aaaaaaaa"}) {
                    Document doc = new Document();
                    doc.add(new SortedDocValuesField(FingerprintFields.schemeField(FIELD), new BytesRef(scheme)));
                    writer.addDocument(doc);
                }
                writer.forceMerge(1);
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                LeafReader leaf = reader.leaves().get(0).reader();
                assertEquals("nd1-aaaaaaaa", SegmentScheme.of(leaf, FIELD, FingerprintFields.schemeField(FIELD)));
                assertNull(SegmentScheme.of(leaf, FIELD, "other._scheme"));
                SegmentScheme.requireSame(FIELD, "nd1-aaaaaaaa", "nd1-aaaaaaaa");
                SegmentScheme.requireSame(FIELD, null, "nd1-aaaaaaaa");
                SegmentScheme.requireSameHash(FIELD, 0xaaaaaaaa, "nd1-aaaaaaaa");
                assertEquals(
                        "the query fingerprint has scheme [nd1-bbbbbbbb] but field [fp.simhash] holds scheme [nd1-aaaaaaaa]; "
                                + "fingerprints of different schemes are not comparable",
                        expectThrows(
                                        IllegalArgumentException.class,
                                        () -> SegmentScheme.requireSame(FIELD, "nd1-bbbbbbbb", "nd1-aaaaaaaa"))
                                .getMessage());
                assertEquals(
                        "the query fingerprint has scheme [scheme hash bbbbbbbb] but field [fp.simhash] holds scheme "
                                + "[nd1-aaaaaaaa]; fingerprints of different schemes are not comparable",
                        expectThrows(
                                        IllegalArgumentException.class,
                                        () -> SegmentScheme.requireSameHash(FIELD, 0xbbbbbbbb, "nd1-aaaaaaaa"))
                                .getMessage());
            }
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
                Document doc = new Document();
                doc.add(new SortedDocValuesField(FingerprintFields.schemeField(FIELD), new BytesRef("nd1-cccccccc")));
                writer.addDocument(doc);
                writer.forceMerge(1);
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertEquals(
                        "field [fp.simhash] holds fingerprints of several schemes [nd1-aaaaaaaa, nd1-cccccccc]; they are not "
                                + "comparable: reindex through one pipeline",
                        expectThrows(
                                        IllegalArgumentException.class,
                                        () -> SegmentScheme.of(
                                                reader.leaves().get(0).reader(),
                                                FIELD,
                                                FingerprintFields.schemeField(FIELD)))
                                .getMessage());
            }
        }
    }
}
