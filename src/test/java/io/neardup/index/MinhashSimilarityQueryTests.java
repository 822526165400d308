/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.CountingBreaker;
import io.neardup.MinhashDocuments;
import io.neardup.ShingleTruth;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.ShingleSetFirstLayout;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.apache.lucene.tests.search.CheckHits;
import org.apache.lucene.tests.search.QueryUtils;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

public class MinhashSimilarityQueryTests extends OpenSearchTestCase {

    private static final String FIELD = "fp.minhash";
    private static final int K = 64;
    private static final int SCHEME_HASH = 0x2586f90f;

    /** Shingle-hash sets that overlap a base set by a random fraction: a spread of similarities. */
    private static long[][] sets(Random random, int n) {
        long[] base = random.longs(300).toArray();
        long[][] sets = new long[n][];
        for (int i = 0; i < n; i++) {
            long[] set = base.clone();
            int replaced = random.nextInt(set.length + 1);
            for (int j = 0; j < replaced; j++) {
                set[random.nextInt(set.length)] = random.nextLong();
            }
            sets[i] = set;
        }
        return sets;
    }

    /** A shingle set in either stored layout: segments written before the current one hold the first. */
    private static byte[] storedSet(int[] set) {
        return random().nextBoolean() ? ShingleSetFirstLayout.of(set) : ShingleSetCodec.payload(set);
    }

    private static Document document(int id, int[] signature, long[] set, LshBanding banding) {
        Document doc = new Document();
        doc.add(new StringField("id", Integer.toString(id), Field.Store.YES));
        MinhashDocuments.add(
                doc,
                FIELD,
                signature,
                set == null ? null : storedSet(ShingleSetCodec.of(set, set.length)),
                "nd1-2586f90f",
                banding);
        return doc;
    }

    /**
     * Duel against a brute-force reference over a random index with deletes: a document is returned
     * iff it shares at least m bands and its similarity is at least tau, where the similarity is the
     * exact Jaccard (from Java sets) for documents that stored a set and the estimate for the rest;
     * without a query set, the estimate everywhere. Scores are those similarities. Stored sets are in either
     * layout ({@link #storedSet}), as in an index written partly before the current one.
     */
    public void testResultIsExactlyTheVerifiedCandidates() throws IOException {
        Random random = random();
        MinHasher hasher = MinHasher.of(K, 7L, MinHasher.Method.ONE_PERMUTATION);
        long[][] sets = sets(random, atLeast(300));
        int[][] signatures = new int[sets.length][];
        boolean[] stored = new boolean[sets.length];
        boolean[] deleted = new boolean[sets.length];
        LshBanding banding = LshBanding.of(8, 8, K);
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                for (int i = 0; i < sets.length; i++) {
                    signatures[i] = hasher.signature(sets[i], sets[i].length);
                    stored[i] = random.nextInt(5) > 0;
                    writer.addDocument(document(i, signatures[i], stored[i] ? sets[i] : null, banding));
                    if (i > 0 && random.nextInt(20) == 0) {
                        int victim = random.nextInt(i);
                        deleted[victim] = true;
                        writer.deleteDocuments(new Term("id", Integer.toString(victim)));
                    }
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader);
                int q = random.nextInt(sets.length);
                byte[] querySet = ShingleSetCodec.payload(ShingleSetCodec.of(sets[q], sets[q].length));
                for (boolean exact : new boolean[] {true, false}) {
                    for (int m : new int[] {1, 2, 4}) {
                        for (double tau : new double[] {0.3, 0.6, 0.9}) {
                            Map<Integer, Double> expected = new HashMap<>();
                            for (int i = 0; i < sets.length; i++) {
                                double similarity = ShingleTruth.verifiedSimilarity(
                                        exact && stored[i], sets[q], sets[i], signatures[q], signatures[i]);
                                if (deleted[i] == false
                                        && ShingleTruth.sharedBands(signatures[q], signatures[i], banding) >= m
                                        && similarity >= tau) {
                                    expected.put(i, similarity);
                                }
                            }
                            MinhashSimilarityQuery query = new MinhashSimilarityQuery(
                                    MinhashDocuments.fieldType(FIELD, banding),
                                    signatures[q],
                                    exact ? querySet : null,
                                    SCHEME_HASH,
                                    null,
                                    m,
                                    tau);
                            Map<Integer, Double> found = new HashMap<>();
                            for (ScoreDoc hit : searcher.search(query, sets.length).scoreDocs) {
                                found.put(
                                        Integer.parseInt(searcher.storedFields()
                                                .document(hit.doc)
                                                .get("id")),
                                        (double) hit.score);
                            }
                            String message = "exact=" + exact + " m=" + m + " tau=" + tau;
                            assertEquals(message, expected.keySet(), found.keySet());
                            expected.forEach(
                                    (id, similarity) -> assertEquals(message, similarity, found.get(id), 1e-6));
                        }
                    }
                }
                IllegalArgumentException e = expectThrows(
                        IllegalArgumentException.class,
                        () -> searcher.search(
                                new MinhashSimilarityQuery(
                                        MinhashDocuments.fieldType(FIELD, banding),
                                        signatures[0],
                                        null,
                                        0x12345678,
                                        null,
                                        1,
                                        0.5),
                                10));
                assertEquals(
                        "the query fingerprint has scheme [scheme hash 12345678] but field [fp.minhash] holds scheme [nd1-2586f90f]; "
                                + "fingerprints of different schemes are not comparable",
                        e.getMessage());
            }
        }
    }

    /**
     * With one-row bands and m = 1 every document sharing a single MinHash value is a candidate, so the
     * result is exactly {Jaccard >= tau} among the documents that share one, for thresholds across the
     * range. (A document at Jaccard 0.05 shares none of 64 values with probability 0.95^64 = 4%: the
     * candidate condition is part of the truth, not luck.)
     */
    public void testEveryCandidateReadGivesExactlyTheTruth() throws IOException {
        Random random = random();
        MinHasher hasher = MinHasher.of(K, 11L, MinHasher.Method.ONE_PERMUTATION);
        long[][] sets = sets(random, 200);
        LshBanding banding = LshBanding.of(K, 1, K);
        try (Directory directory = newDirectory()) {
            int[][] signatures = new int[sets.length][];
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                for (int i = 0; i < sets.length; i++) {
                    signatures[i] = hasher.signature(sets[i], sets[i].length);
                    writer.addDocument(document(i, signatures[i], sets[i], banding));
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader);
                byte[] querySet = ShingleSetCodec.payload(ShingleSetCodec.of(sets[0], sets[0].length));
                for (double tau : new double[] {0.05, 0.2, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0}) {
                    Set<Integer> expected = new HashSet<>();
                    for (int i = 0; i < sets.length; i++) {
                        if (ShingleTruth.sharedBands(signatures[0], signatures[i], banding) >= 1
                                && ShingleTruth.storedJaccard(sets[0], sets[i]) >= tau) {
                            expected.add(i);
                        }
                    }
                    Set<Integer> found = new HashSet<>();
                    MinhashSimilarityQuery query = new MinhashSimilarityQuery(
                            MinhashDocuments.fieldType(FIELD, banding),
                            signatures[0],
                            querySet,
                            SCHEME_HASH,
                            null,
                            1,
                            tau);
                    for (ScoreDoc hit : searcher.search(query, sets.length).scoreDocs) {
                        found.add(Integer.parseInt(
                                searcher.storedFields().document(hit.doc).get("id")));
                    }
                    // Lucene's own checks (advance/nextDoc agree, explanations match scores); they assume no deletions,
                    // as here.
                    QueryUtils.check(random, query, searcher);
                    CheckHits.checkExplanations(query, "id", searcher);
                    assertEquals("tau=" + tau, expected, found);
                    assertTrue(found.contains(0));
                }
            }
        }
    }

    public void testCorruptStoredSetFailsNamingTheDocument() throws IOException {
        try (Directory directory = newDirectory()) {
            int[] signature = new int[K];
            LshBanding banding = LshBanding.of(8, 8, K);
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
                Document doc = document(0, signature, null, banding);
                doc.add(new BinaryDocValuesField(
                        FingerprintFields.shinglesField(FIELD), new BytesRef(new byte[] {2, 5})));
                writer.addDocument(doc);
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                byte[] querySet = ShingleSetCodec.payload(new int[] {5});
                IllegalArgumentException e = expectThrows(
                        IllegalArgumentException.class,
                        () -> searcher.search(
                                new MinhashSimilarityQuery(
                                        MinhashDocuments.fieldType(FIELD, banding),
                                        signature,
                                        querySet,
                                        SCHEME_HASH,
                                        null,
                                        1,
                                        0.5),
                                10));
                assertEquals(
                        "document [segment doc 0] has a corrupt shingle set in [fp.minhash]: shingle set is corrupt: it ends inside a "
                                + "value",
                        e.getMessage());
            }
        }
    }

    public void testConstructorRejectsWhatCannotWork() {
        int[] signature = new int[K];
        LshBanding banding = LshBanding.of(8, 8, K);
        assertEquals(
                "min_band_matches must be in [1, 8], got 9",
                expectThrows(
                                IllegalArgumentException.class,
                                () -> new MinhashSimilarityQuery(
                                        MinhashDocuments.fieldType(FIELD, banding), signature, null, 0, null, 9, 0.5))
                        .getMessage());
        assertEquals(
                "min_similarity must be in (0, 1], got 0.0",
                expectThrows(
                                IllegalArgumentException.class,
                                () -> new MinhashSimilarityQuery(
                                        MinhashDocuments.fieldType(FIELD, banding), signature, null, 0, null, 1, 0))
                        .getMessage());
        assertEquals(
                "banding 8 x 8 needs 64 values, the signature has 32",
                expectThrows(
                                IllegalArgumentException.class,
                                () -> new MinhashSimilarityQuery(
                                        MinhashDocuments.fieldType(FIELD, banding), new int[32], null, 0, null, 1, 0.5))
                        .getMessage());
    }

    /** An index of many small segments (no merges, some deletes): random sets, and copies of the first few, edited a little, in a few segments. */
    /** The originals the band key filter test queries. */
    private static final int QUERIED = 10;

    private static Directory smallSegments(Random random, long[][] sets, int[][] signatures, LshBanding banding)
            throws IOException {
        Directory directory = newDirectory();
        IndexWriterConfig config = new IndexWriterConfig().setMergePolicy(NoMergePolicy.INSTANCE);
        try (IndexWriter writer = new IndexWriter(directory, config)) {
            for (int i = 0; i < sets.length; i++) {
                // The first QUERIED originals keep their sets and are never deleted: the queries made of them must
                // find at least themselves (else, one seed in a few, no query found anything to compare).
                boolean queried = i < QUERIED;
                writer.addDocument(
                        document(i, signatures[i], queried || random.nextBoolean() ? sets[i] : null, banding));
                if (random.nextInt(6) == 0) {
                    writer.flush();
                }
                if (random.nextInt(30) == 0 && i >= QUERIED) {
                    writer.deleteDocuments(new Term("id", Integer.toString(QUERIED + random.nextInt(i + 1 - QUERIED))));
                }
            }
        }
        return directory;
    }

    /** {@code originals} unrelated random sets, then {@code n - originals} each an original with a few shingles replaced. */
    private static long[][] originalsAndCopies(Random random, int n, int originals) {
        long[][] sets = new long[n][];
        for (int i = 0; i < n; i++) {
            if (i < originals) {
                sets[i] = random.longs(200).toArray();
            } else {
                long[] copy = sets[random.nextInt(originals)].clone();
                for (int j = random.nextInt(20); j > 0; j--) {
                    copy[random.nextInt(copy.length)] = random.nextLong();
                }
                sets[i] = copy;
            }
        }
        return sets;
    }

    private static Map<Integer, Float> hits(IndexSearcher searcher, MinhashSimilarityQuery query) throws IOException {
        Map<Integer, Float> hits = new HashMap<>();
        for (ScoreDoc hit : searcher.search(query, Integer.MAX_VALUE).scoreDocs) {
            hits.put(hit.doc, hit.score);
        }
        return hits;
    }

    /** The segments holding fewer than {@code m} of the query's band terms, read from their terms dictionaries. */
    private static int segmentsWithFewerBands(IndexReader reader, MinhashSimilarityQuery query, int m)
            throws IOException {
        int fewer = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = leaf.reader().terms(FIELD);
            int held = 0;
            if (terms != null) {
                TermsEnum termsEnum = terms.iterator();
                // The band terms by a visitor, not the clauses: BooleanClause's accessor differs in Lucene 9 (2.19).
                Set<Term> bandTerms = new HashSet<>();
                query.bandQuery().visit(QueryVisitor.termCollector(bandTerms));
                for (Term term : bandTerms) {
                    held += termsEnum.seekExact(term.bytes()) ? 1 : 0;
                }
            }
            fewer += held < m ? 1 : 0;
        }
        return fewer;
    }

    /**
     * With segments' band key filters the hits and their scores are exactly those without, over many small segments
     * most of which hold none of a query's bands; and the segments passed over are those that hold fewer than
     * min_band_matches of them, all but the filter's few false positives. Every document explains as it scored.
     */
    public void testBandKeyFiltersChangeNoHitAndPassOverSegmentsWithoutTheBands() throws IOException {
        Random random = random();
        MinHasher hasher = MinHasher.of(K, 13L, MinHasher.Method.ONE_PERMUTATION);
        LshBanding banding = LshBanding.of(16, 4, K);
        MinhashFieldMapper.MinhashFieldType fieldType = MinhashDocuments.fieldType(FIELD, banding);
        long[][] sets = originalsAndCopies(random, atLeast(300), 250);
        int[][] signatures = new int[sets.length][];
        for (int i = 0; i < sets.length; i++) {
            signatures[i] = hasher.signature(sets[i], sets[i].length);
        }
        SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> null);
        try (Directory directory = smallSegments(random, sets, signatures, banding);
                IndexReader reader = DirectoryReader.open(directory)) {
            assertTrue("segments " + reader.leaves().size(), reader.leaves().size() >= 20);
            // Unwrapped, so that each segment has its core to cache on; no query cache, which would answer the query
            // with the cache from the one without (they are equal).
            IndexSearcher searcher = newSearcher(reader, false);
            searcher.setQueryCache(null);
            // A plain searcher asks each segment for its scorer once, so the skips it counts are segments (the
            // asserting
            // one may ask again); and it explains, where the asserting one refuses the band query's explanation, which
            // scores a weight made without scores (the candidates'), as Lucene's BooleanWeight does.
            IndexSearcher plain = new IndexSearcher(reader);
            plain.setQueryCache(null);
            long fewer = 0;
            long skipped = 0;
            int matched = 0;
            for (int round = 0; round < 6; round++) {
                // An original (copies in a few segments) or a new set (in none).
                long[] set = round % 2 == 0
                        ? sets[random.nextInt(QUERIED)]
                        : random.longs(200).toArray();
                int[] signature = hasher.signature(set, set.length);
                byte[] querySet = ShingleSetCodec.payload(ShingleSetCodec.of(set, set.length));
                for (int m : new int[] {1, 2, 4}) {
                    double tau = randomFrom(0.5, 0.8);
                    MinhashSimilarityQuery filtered = new MinhashSimilarityQuery(
                            fieldType, signature, querySet, SCHEME_HASH, null, m, tau, cache);
                    MinhashSimilarityQuery unfiltered =
                            new MinhashSimilarityQuery(fieldType, signature, querySet, SCHEME_HASH, null, m, tau, null);
                    long skippedBefore = cache.stats().queries().minhashSegmentsSkipped();
                    Map<Integer, Float> found = hits(plain, filtered);
                    long skippedNow = cache.stats().queries().minhashSegmentsSkipped() - skippedBefore;
                    String message = "round " + round + " m=" + m + " tau=" + tau;
                    assertEquals(message, hits(searcher, unfiltered), found);
                    assertEquals(message, found, hits(searcher, filtered));
                    int fewerNow = segmentsWithFewerBands(reader, filtered, m);
                    assertTrue(message + ": skipped " + skippedNow + " of " + fewerNow, skippedNow <= fewerNow);
                    fewer += fewerNow;
                    skipped += skippedNow;
                    matched += found.size();
                    if (m == 1) {
                        for (int doc = 0; doc < reader.maxDoc(); doc++) {
                            assertEquals(
                                    message + " doc " + doc,
                                    found.containsKey(doc),
                                    plain.explain(filtered, doc).isMatch());
                        }
                    }
                }
            }
            assertTrue("some queries found copies", matched > 0);
            // A segment without any of 16 keys passes a filter at 0.5% false positives a key with probability 8%.
            assertTrue("skipped " + skipped + " of " + fewer + " segments", skipped >= fewer * 3 / 4 && fewer > 0);
            // No key a segment holds is missing from its filter.
            for (LeafReaderContext leaf : reader.leaves()) {
                BandKeyFilter filter = cache.bandKeyFilter(leaf.reader(), fieldType);
                TermsEnum terms = leaf.reader().terms(FIELD).iterator();
                for (BytesRef term = terms.next(); term != null; term = terms.next()) {
                    assertTrue(term.toString(), filter.mightContain(fieldType.filterKeyOf(term)));
                }
            }
        }
    }

    /**
     * A segment's band key filter is charged to the breaker as it is built, exactly its bytes, built once, and given
     * back when the segment closes; a breaker without room for one builds none and the query answers as without.
     */
    public void testBandKeyFilterIsChargedToTheBreakerAndReleasedWithTheSegment() throws IOException {
        Random random = random();
        MinHasher hasher = MinHasher.of(K, 17L, MinHasher.Method.ONE_PERMUTATION);
        LshBanding banding = LshBanding.of(16, 4, K);
        MinhashFieldMapper.MinhashFieldType fieldType = MinhashDocuments.fieldType(FIELD, banding);
        long[][] sets = originalsAndCopies(random, 200, 150);
        int[][] signatures = new int[sets.length][];
        for (int i = 0; i < sets.length; i++) {
            signatures[i] = hasher.signature(sets[i], sets[i].length);
        }
        try (Directory directory = smallSegments(random, sets, signatures, banding)) {
            CountingBreaker roomy = new CountingBreaker(1L << 30);
            SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> roomy);
            MinhashSimilarityQuery query =
                    new MinhashSimilarityQuery(fieldType, signatures[0], null, SCHEME_HASH, null, 1, 0.5, cache);
            Map<Integer, Float> expected;
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                searcher.setQueryCache(null);
                expected = hits(searcher, query);
                long bytes = 0;
                for (LeafReaderContext leaf : reader.leaves()) {
                    bytes += BandKeyFilter.bytesFor(leaf.reader().terms(FIELD).size());
                }
                SegmentFingerprintCache.Stats stats = cache.stats();
                assertEquals(reader.leaves().size(), stats.entries());
                assertEquals(bytes, stats.bytes());
                assertEquals("the charge is what is kept", bytes, roomy.getUsed());
                assertEquals(expected, hits(searcher, query));
                assertEquals("built once", stats.builds(), cache.stats().builds());
                assertTrue(cache.stats().queries().minhashSegmentsSkipped() > 0);
            }
            assertEquals(
                    "closing the segments evicts the filters", 0, cache.stats().entries());
            assertEquals(0, cache.stats().bytes());
            assertEquals("and releases the breaker", 0, roomy.getUsed());

            CountingBreaker tight = new CountingBreaker(BandKeyFilter.bytesFor(1) - 1);
            SegmentFingerprintCache small = new SegmentFingerprintCache(() -> tight);
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                searcher.setQueryCache(null);
                MinhashSimilarityQuery withoutRoom =
                        new MinhashSimilarityQuery(fieldType, signatures[0], null, SCHEME_HASH, null, 1, 0.5, small);
                assertEquals(expected, hits(searcher, withoutRoom));
                assertTrue("the breaker refused them", tight.getTrippedCount() > 0);
                assertEquals("nothing kept", 0, small.stats().entries());
                assertEquals("nothing charged", 0, tight.getUsed());
                assertEquals("nothing skipped", 0, small.stats().queries().minhashSegmentsSkipped());
            }
        }
    }
}
