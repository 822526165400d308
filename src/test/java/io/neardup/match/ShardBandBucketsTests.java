/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.MinhashDocuments;
import io.neardup.ShingleTruth;
import io.neardup.core.BandJoin;
import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.opensearch.test.OpenSearchTestCase;

/**
 * A shard's band join from its band terms ({@link ShardBandBuckets}) and shingle sets
 * ({@link ShardJaccard}) against brute force over every pair of live documents: a pair is reported
 * iff it shares at least m bands and its similarity (exact Jaccard where both stored a shingle set,
 * from Java sets; else the signature estimate) is at least tau. Random segments, deletes, and
 * documents hidden as document-level security hides them.
 */
public class ShardBandBucketsTests extends OpenSearchTestCase {

    private static final String FIELD = "fp.minhash";
    private static final int K = 32;

    public void testShardJoinEqualsBruteForceOverLiveDocuments() throws IOException {
        Random random = random();
        LshBanding banding = LshBanding.of(16, 2, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        int n = between(50, 400);
        long[][] sets = new long[n][];
        int[][] signatures = new int[n][];
        boolean[] stored = new boolean[n];
        boolean[] deleted = new boolean[n];
        boolean withDeletes = randomBoolean();
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                for (int i = 0; i < n; i++) {
                    if (i > 0 && random.nextInt(3) == 0) {
                        sets[i] = sets[random.nextInt(i)].clone();
                        for (int r = random.nextInt(sets[i].length / 2); r > 0; r--) {
                            sets[i][random.nextInt(sets[i].length)] = random.nextLong();
                        }
                    } else {
                        sets[i] = random.longs(between(10, 80)).toArray();
                    }
                    signatures[i] = hasher.signature(sets[i], sets[i].length);
                    stored[i] = random.nextInt(4) > 0;
                    Document doc = new Document();
                    doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    MinhashDocuments.add(
                            doc,
                            FIELD,
                            signatures[i],
                            stored[i] ? ShingleSetCodec.payload(ShingleSetCodec.of(sets[i], sets[i].length)) : null,
                            null,
                            banding);
                    writer.addDocument(doc);
                    // Without any delete, the whole reader reports no deletions while its segments hide documents.
                    if (withDeletes && i > 0 && random.nextInt(15) == 0) {
                        int victim = random.nextInt(i);
                        deleted[victim] = true;
                        writer.deleteDocuments(new Term("id", Integer.toString(victim)));
                    }
                }
            }
            boolean[] hidden = new boolean[n];
            for (int i = 0; i < n; i++) {
                hidden[i] = random.nextInt(5) == 0;
            }
            // As the Security plugin's document-level security: each segment's live docs hide documents, its numDocs
            // (and so the whole reader's deletions) does not say so.
            try (IndexReader reader = new HidingReader(DirectoryReader.open(directory), hidden)) {
                int[] idOf = new int[reader.maxDoc()];
                Arrays.fill(idOf, -1);
                var storedFields = reader.storedFields();
                for (int doc = 0; doc < reader.maxDoc(); doc++) {
                    idOf[doc] = Integer.parseInt(storedFields.document(doc).get("id"));
                }
                for (int m : new int[] {1, 3}) {
                    for (double tau : new double[] {0.3, 0.7}) {
                        Map<Long, Double> expected = new HashMap<>();
                        for (int a = 0; a < n; a++) {
                            for (int b = a + 1; b < n; b++) {
                                if (deleted[a]
                                        || deleted[b]
                                        || hidden[a]
                                        || hidden[b]
                                        || ShingleTruth.sharedBands(signatures[a], signatures[b], banding) < m) {
                                    continue;
                                }
                                double similarity = ShingleTruth.verifiedSimilarity(
                                        stored[a] && stored[b], sets[a], sets[b], signatures[a], signatures[b]);
                                if (similarity >= tau) {
                                    expected.put(((long) a << 32) | b, similarity);
                                }
                            }
                        }
                        Map<Long, Double> found = new HashMap<>();
                        BandJoin.join(
                                new ShardBandBuckets(reader, MinhashDocuments.fieldType(FIELD), MemoryBudget.NONE),
                                reader.maxDoc(),
                                m,
                                tau,
                                Integer.MAX_VALUE,
                                1,
                                false,
                                new ShardJaccard(reader, MinhashDocuments.fieldType(FIELD), true),
                                (x, y, similarity) -> {
                                    int a = Math.min(idOf[x], idOf[y]);
                                    int b = Math.max(idOf[x], idOf[y]);
                                    assertNull(found.put(((long) a << 32) | b, similarity));
                                },
                                MemoryBudget.NONE);
                        String setting = "m=" + m + " tau=" + tau + " n=" + n + " segments="
                                + reader.leaves().size();
                        if (m == 1 && tau == 0.3) {
                            assertFalse("a third of the documents are copies: " + setting, expected.isEmpty());
                        }
                        assertEquals(setting, expected.keySet(), found.keySet());
                        expected.forEach(
                                (pair, similarity) -> assertEquals(setting, similarity, found.get(pair), 1e-9));
                    }
                }
            }
        }
    }

    /**
     * A reader whose one segment with band terms comes after segments without any: its buckets are read from that
     * segment's own terms, and their documents numbered in the reader, past the segments before it.
     */
    public void testOneSegmentWithTheFieldAfterOthersNumbersItsDocumentsInTheReader() throws IOException {
        LshBanding banding = LshBanding.of(8, 4, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        int before = between(1, 5);
        try (Directory directory = newDirectory()) {
            try (org.apache.lucene.index.IndexWriter writer = new org.apache.lucene.index.IndexWriter(
                    directory,
                    new org.apache.lucene.index.IndexWriterConfig()
                            .setMergePolicy(org.apache.lucene.index.NoMergePolicy.INSTANCE))) {
                for (int i = 0; i < before; i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", "without" + i, Field.Store.YES));
                    writer.addDocument(doc);
                }
                writer.commit();
                long[][] sets = {{1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}};
                for (int i = 0; i < sets.length; i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", "with" + i, Field.Store.YES));
                    MinhashDocuments.add(doc, FIELD, hasher.signature(sets[i], sets[i].length), null, null, banding);
                    writer.addDocument(doc);
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                assertEquals(2, reader.leaves().size());
                List<Integer> members = new ArrayList<>();
                new ShardBandBuckets(reader, MinhashDocuments.fieldType(FIELD), MemoryBudget.NONE)
                        .forEach((docs, size) -> {
                            for (int i = 0; i < size; i++) {
                                members.add(docs[i]);
                            }
                        });
                Map<String, Integer> buckets = new HashMap<>();
                for (int doc : members) {
                    buckets.merge(reader.storedFields().document(doc).get("id"), 1, Integer::sum);
                }
                // The two copies share all 8 bands; the third document no bucket.
                assertEquals(Map.of("with0", 8, "with1", 8), buckets);
            }
        }
    }

    /** Segments fingerprinted with different schemes are refused, as the query refuses them, naming both. */
    public void testSegmentsOfDifferentSchemesAreRefused() throws IOException {
        LshBanding banding = LshBanding.of(8, 4, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        try (Directory directory = newDirectory()) {
            try (org.apache.lucene.index.IndexWriter writer = new org.apache.lucene.index.IndexWriter(
                    directory, new org.apache.lucene.index.IndexWriterConfig())) {
                for (String scheme : new String[] {"nd1-aaaaaaaa", "nd1-bbbbbbbb"}) {
                    for (int i = 0; i < 2; i++) {
                        Document doc = new Document();
                        MinhashDocuments.add(
                                doc, FIELD, hasher.signature(new long[] {1, 2, 3}, 3), null, scheme, banding);
                        writer.addDocument(doc);
                    }
                    writer.commit(); // one segment a scheme
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                assertEquals(2, reader.leaves().size());
                IllegalArgumentException e = expectThrows(
                        IllegalArgumentException.class,
                        () -> new ShardBandBuckets(reader, MinhashDocuments.fieldType(FIELD), MemoryBudget.NONE)
                                .forEach((members, size) -> {}));
                assertTrue(e.getMessage(), e.getMessage().contains("nd1-aaaaaaaa"));
                assertTrue(e.getMessage(), e.getMessage().contains("nd1-bbbbbbbb"));
            }
        }
    }
}
