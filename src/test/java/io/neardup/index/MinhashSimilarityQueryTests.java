/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.MinhashDocuments;
import io.neardup.ShingleTruth;
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
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
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
}
