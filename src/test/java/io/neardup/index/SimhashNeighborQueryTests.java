/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.CountingBreaker;
import io.neardup.core.Margins;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.SortedNumericSortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

public class SimhashNeighborQueryTests extends OpenSearchTestCase {

    private static final String FIELD = "fp.simhash";

    private final SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> null);

    /** A random fingerprint table with near-duplicates of the query planted at every distance 0..h+2. */
    private static long[] fingerprints(Random random, long query, int n, int maxDistance) {
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            if (i % 5 == 0) {
                int distance = i / 5 % (maxDistance + 3);
                long flipped = query;
                Set<Integer> bits = new HashSet<>();
                while (bits.size() < distance) {
                    bits.add(random.nextInt(64));
                }
                for (int bit : bits) {
                    flipped ^= 1L << bit;
                }
                fps[i] = flipped;
            } else {
                fps[i] = random.nextLong();
            }
        }
        return fps;
    }

    /** How the index is sorted: not at all, as OpenSearch sorts (missing last), or with Lucene's default missing value (0). */
    enum Layout {
        UNSORTED,
        SORTED_MISSING_LAST,
        SORTED_MISSING_MID
    }

    private static Directory index(long[] fps, Layout layout, Random random) throws IOException {
        Directory directory = newDirectory();
        IndexWriterConfig config = new IndexWriterConfig();
        if (layout != Layout.UNSORTED) {
            SortField sort = new SortedNumericSortField(FIELD, SortField.Type.LONG);
            if (layout == Layout.SORTED_MISSING_LAST) {
                sort.setMissingValue(Long.MAX_VALUE);
            }
            config.setIndexSort(new Sort(sort));
        }
        config.setMaxBufferedDocs(50 + random.nextInt(200));
        try (IndexWriter writer = new IndexWriter(directory, config)) {
            for (int i = 0; i < fps.length; i++) {
                Document doc = new Document();
                doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                doc.add(new SortedNumericDocValuesField(FIELD, SimhashFieldMapper.encode(fps[i])));
                doc.add(new SortedDocValuesField(FingerprintFields.schemeField(FIELD), new BytesRef("nd1-test")));
                writer.addDocument(doc);
                if (i % 7 == 3) {
                    writer.addDocument(new Document()); // documents without a fingerprint
                }
            }
            for (int i = 0; i < fps.length; i += 11) {
                writer.deleteDocuments(new Term("id", Integer.toString(i)));
            }
        }
        return directory;
    }

    private static Map<Integer, Integer> bruteForce(long[] fps, long query, int maxDistance) {
        Map<Integer, Integer> expected = new HashMap<>();
        for (int i = 0; i < fps.length; i++) {
            int d = Long.bitCount(fps[i] ^ query);
            if (d <= maxDistance && i % 11 != 0) {
                expected.put(i, d);
            }
        }
        return expected;
    }

    private static Map<Integer, Integer> search(IndexSearcher searcher, SimhashNeighborQuery query) throws IOException {
        TopDocs top = searcher.search(query, 100_000);
        Map<Integer, Integer> found = new HashMap<>();
        for (ScoreDoc hit : top.scoreDocs) {
            int id = Integer.parseInt(searcher.storedFields().document(hit.doc).get("id"));
            int distance = Math.round((1f - hit.score) * 64f);
            assertNull("document " + id + " returned twice", found.put(id, distance));
        }
        return found;
    }

    private static Margins randomMargins(Random random) {
        byte[] q = new byte[Margins.BITS];
        random.nextBytes(q);
        return Margins.ofQuantized(q);
    }

    public void testExactModeEqualsBruteForceWithAndWithoutIndexSort() throws IOException {
        Random random = random();
        for (Layout sorted : Layout.values()) {
            int maxDistance = random.nextInt(5);
            long query = random.nextLong();
            long[] fps = fingerprints(random, query, 500 + random.nextInt(1500), maxDistance);
            try (Directory directory = index(fps, sorted, random);
                    IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                for (int prefixBits : new int[] {0, 1 + random.nextInt(20)}) {
                    SimhashNeighborQuery exact = new SimhashNeighborQuery(
                            FIELD, query, null, null, maxDistance, true, 1, prefixBits, false, null, cache);
                    assertEquals(
                            "sorted=" + sorted + " h=" + maxDistance + " p=" + prefixBits,
                            bruteForce(fps, query, maxDistance),
                            search(searcher, exact));
                    // Lucene's own checks: advance/nextDoc agree, equal queries are equal, explanations match scores.
                    org.apache.lucene.tests.search.QueryUtils.check(random, exact, searcher);
                    org.apache.lucene.tests.search.CheckHits.checkExplanations(exact, FIELD, searcher);
                }
            }
        }
    }

    public void testPsmFindsASubsetWithTrueDistancesAndAllOfItWithEveryFlipSet() throws IOException {
        Random random = random();
        for (Layout sorted : Layout.values()) {
            int maxDistance = 3;
            long query = random.nextLong();
            long[] fps = fingerprints(random, query, 2000, maxDistance);
            Map<Integer, Integer> expected = bruteForce(fps, query, maxDistance);
            try (Directory directory = index(fps, sorted, random);
                    IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                Margins margins = randomMargins(random);
                Map<Integer, Integer> psm = search(
                        searcher,
                        new SimhashNeighborQuery(
                                FIELD, query, margins, "nd1-test", maxDistance, false, 23, 0, false, null, cache));
                for (Map.Entry<Integer, Integer> hit : psm.entrySet()) {
                    assertEquals("document " + hit.getKey(), expected.get(hit.getKey()), hit.getValue());
                }
                // p = 8 bits: every flip set of size <= 3 is 1 + 8 + 28 + 56 = 93 lookups
                Map<Integer, Integer> all = search(
                        searcher,
                        new SimhashNeighborQuery(
                                FIELD, query, margins, null, maxDistance, false, 93, 8, false, null, cache));
                assertEquals("sorted=" + sorted, expected, all);
                Map<Integer, Integer> first = search(
                        searcher,
                        new SimhashNeighborQuery(
                                FIELD, query, margins, null, maxDistance, false, 93, 8, true, null, cache));
                assertTrue(all.keySet().containsAll(first.keySet()));
                // Every flip set is tried, so each segment holding a neighbour stops at one: never an empty answer.
                assertFalse("the corpus plants neighbours", expected.isEmpty());
                assertFalse("sorted=" + sorted + ": first_match found nothing of " + expected, first.isEmpty());
            }
        }
    }

    public void testSchemeMismatchFailsWithBothSchemes() throws IOException {
        long[] fps = {1L, 2L, 3L};
        try (Directory directory = index(fps, Layout.UNSORTED, random());
                IndexReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = newSearcher(reader, false);
            IllegalArgumentException e = expectThrows(
                    IllegalArgumentException.class,
                    () -> searcher.search(
                            new SimhashNeighborQuery(FIELD, 1L, null, "nd1-other", 3, true, 1, 0, false, null, cache),
                            10));
            assertEquals(
                    "the query fingerprint has scheme [nd1-other] but field [fp.simhash] holds scheme [nd1-test]; fingerprints of "
                            + "different schemes are not comparable",
                    e.getMessage());
        }
    }

    public void testCacheBuildsOnceAndAccountsMemory() throws IOException {
        Random random = random();
        long[] fps = fingerprints(random, 42L, 1000, 3);
        try (Directory directory = index(fps, Layout.UNSORTED, random);
                IndexReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = newSearcher(reader, false);
            SimhashNeighborQuery query =
                    new SimhashNeighborQuery(FIELD, 42L, null, null, 3, true, 1, 0, false, null, cache);
            searcher.search(query, 10);
            SegmentFingerprintCache.Stats first = cache.stats();
            searcher.search(query, 10);
            SegmentFingerprintCache.Stats second = cache.stats();
            assertEquals(reader.leaves().size(), first.entries());
            assertEquals(first.builds(), second.builds());
            assertEquals(2, second.queries().simhashQueries());
            searcher.explain(query, 0);
            assertEquals(
                    "an explanation is not a search", 2, cache.stats().queries().simhashQueries());
            assertEquals(
                    second.queries().segmentSearches(), cache.stats().queries().segmentSearches());
            // 8 bytes of fingerprint and 4 of doc id per document, plus at most 4 per document of prefix index and
            // headers
            assertTrue(
                    "bytes " + first.bytes(),
                    first.bytes() >= 12L * fps.length && first.bytes() <= 16L * fps.length + 1024);
        }
        assertEquals(
                "closing the segments evicts their entries", 0, cache.stats().entries());
        assertEquals(0, cache.stats().bytes());
    }

    /**
     * The breaker is charged before a structure is built: past the limit the query fails with the
     * breaker's exception, nothing is cached, and the breaker is back where it was; within the limit
     * the charge equals what is kept, and closing the segments gives all of it back.
     */
    public void testBreakerIsChargedBeforeBuildingAndReleasedAfterEviction() throws IOException {
        Random random = random();
        long[] fps = fingerprints(random, 42L, 2000, 3);
        for (Layout layout : Layout.values()) {
            try (Directory directory = index(fps, layout, random)) {
                CountingBreaker tight = new CountingBreaker(100);
                SegmentFingerprintCache small = new SegmentFingerprintCache(() -> tight);
                try (IndexReader reader = DirectoryReader.open(directory)) {
                    IndexSearcher searcher = newSearcher(reader, false);
                    expectThrows(
                            org.opensearch.core.common.breaker.CircuitBreakingException.class,
                            () -> searcher.search(
                                    new SimhashNeighborQuery(FIELD, 42L, null, null, 3, true, 1, 0, false, null, small),
                                    10));
                    assertEquals(layout + ": nothing kept", 0, small.stats().entries());
                    assertEquals(layout + ": nothing charged", 0, tight.getUsed());
                }
                CountingBreaker roomy = new CountingBreaker(1L << 30);
                SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> roomy);
                try (IndexReader reader = DirectoryReader.open(directory)) {
                    newSearcher(reader, false)
                            .search(
                                    new SimhashNeighborQuery(FIELD, 42L, null, null, 3, true, 1, 0, false, null, cache),
                                    10);
                    assertTrue(cache.stats().entries() > 0);
                    assertEquals(
                            layout + ": the charge is what is kept",
                            cache.stats().bytes(),
                            roomy.getUsed());
                }
                assertEquals(layout + ": closing the segments releases the breaker", 0, roomy.getUsed());
            }
        }
    }

    /**
     * A segment of copies matches whole: the per-query buffers then grow with the segment, and are
     * charged to the breaker before they are allocated, at most {@link SimhashNeighborQuery#matchBytes}
     * for the largest segment's matches (segments are searched one after the other here), all given
     * back when the query is done; past the limit the query fails with the breaker's exception,
     * leaving nothing charged.
     */
    public void testMatchBuffersAreChargedUpToTheStatedBoundAndReleased() throws IOException {
        Random random = random();
        long query = random.nextLong();
        long[] copies = new long[atLeast(3000)];
        java.util.Arrays.fill(copies, query);
        try (Directory directory = index(copies, Layout.UNSORTED, random)) {
            CountingBreaker structures = new CountingBreaker(1L << 30);
            CountingBreaker[] current = {structures};
            SegmentFingerprintCache charged = new SegmentFingerprintCache(() -> current[0]);
            SimhashNeighborQuery copiesOfQuery =
                    new SimhashNeighborQuery(FIELD, query, null, null, 3, true, 1, 0, false, null, charged);
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader); // no executor: one segment at a time
                searcher.search(copiesOfQuery, 10); // builds and charges the cached structures
                int largestLeaf = 0;
                for (var leaf : reader.leaves()) {
                    var values = org.apache.lucene.index.DocValues.getSortedNumeric(leaf.reader(), FIELD);
                    int withFingerprint = 0;
                    while (values.nextDoc() != org.apache.lucene.search.DocIdSetIterator.NO_MORE_DOCS) {
                        withFingerprint++;
                    }
                    largestLeaf = Math.max(largestLeaf, withFingerprint);
                }

                CountingBreaker perQuery = new CountingBreaker(1L << 30);
                current[0] = perQuery;
                assertEquals(copies.length - (copies.length + 10) / 11, searcher.count(copiesOfQuery));
                searcher.search(copiesOfQuery, 10);
                assertEquals("every byte charged by the query is given back", 0, perQuery.getUsed());
                assertTrue(
                        "peak " + perQuery.peak() + " below the scorer arrays of " + largestLeaf + " matches",
                        perQuery.peak() >= SimhashNeighborQuery.resultBytes(largestLeaf));
                assertTrue(
                        "peak " + perQuery.peak() + " above the stated bound "
                                + SimhashNeighborQuery.matchBytes(largestLeaf),
                        perQuery.peak() <= SimhashNeighborQuery.matchBytes(largestLeaf));

                CountingBreaker tight = new CountingBreaker(SimhashNeighborQuery.resultBytes(largestLeaf) - 1);
                current[0] = tight;
                expectThrows(
                        org.opensearch.core.common.breaker.CircuitBreakingException.class,
                        () -> searcher.search(copiesOfQuery, 10));
                assertEquals("a refused query leaves nothing charged", 0, tight.getUsed());
                current[0] = structures;
            }
            assertEquals("closing the segments releases the cached structures", 0, structures.getUsed());
        }
    }

    public void testSegmentsSortedByTheFieldKeepOnlyAPrefixIndex() throws IOException {
        Random random = random();
        long[] fps = fingerprints(random, 42L, 4000, 3);
        try (Directory directory = index(fps, Layout.SORTED_MISSING_LAST, random);
                IndexReader reader = DirectoryReader.open(directory)) {
            IndexSearcher searcher = newSearcher(reader, false);
            searcher.search(new SimhashNeighborQuery(FIELD, 42L, null, null, 3, true, 1, 0, false, null, cache), 10);
            // 2^floor(log2 n) + 1 run starts of 4 bytes: at most 4 bytes a document, and no 8-byte fingerprint copies
            long bytes = cache.stats().bytes();
            assertTrue(
                    "bytes " + bytes + " for " + fps.length + " documents",
                    bytes <= 4L * fps.length + 64L * reader.leaves().size());
        }
    }

    public void testFirstMatchIsNeverTheQueryDocumentItself() throws IOException {
        long self = 0x0123456789abcdefL;
        long neighbour = self ^ (1L << 63); // differs in the leading bit: another prefix run than the query's own
        long[] fps = {self, neighbour, ~self};
        byte[] quantized = new byte[Margins.BITS];
        java.util.Arrays.fill(quantized, (byte) 200);
        quantized[0] = 1; // the leading bit is the weakest: the first flip set after the empty one
        Margins margins = Margins.ofQuantized(quantized);
        try (Directory directory = newDirectory()) {
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
                for (int i = 0; i < fps.length; i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    doc.add(new Field(
                            org.opensearch.index.mapper.IdFieldMapper.NAME,
                            org.opensearch.index.mapper.Uid.encodeId(i == 0 ? "self" : "other" + i),
                            StringField.TYPE_NOT_STORED));
                    doc.add(new SortedNumericDocValuesField(FIELD, SimhashFieldMapper.encode(fps[i])));
                    writer.addDocument(doc);
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                Map<Integer, Integer> withoutExclusion = search(
                        searcher,
                        new SimhashNeighborQuery(FIELD, self, margins, null, 3, false, 64, 8, true, null, cache));
                assertEquals(
                        "without exclusion the search stops at the document itself", Map.of(0, 0), withoutExclusion);
                Map<Integer, Integer> first = search(
                        searcher,
                        new SimhashNeighborQuery(
                                FIELD,
                                self,
                                margins,
                                null,
                                3,
                                false,
                                64,
                                8,
                                true,
                                org.opensearch.index.mapper.Uid.encodeId("self"),
                                cache));
                assertEquals(Map.of(1, 1), first);
            }
        }
    }
}
