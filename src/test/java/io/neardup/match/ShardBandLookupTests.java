/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.MinhashDocuments;
import io.neardup.ShingleTruth;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
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
 * The cross-shard half of the band join: another shard's documents, filtered by this shard's
 * {@link ShardBandBuckets.KeyFilter} and looked up by {@link ShardBandLookup}, against brute force
 * over every (probe, live document) pair: a pair is found iff it shares at least m bands and its
 * similarity (exact Jaccard where both have a shingle set, else the signature estimate) is at least
 * tau. Random segments, deletes, hidden documents (as DLS hides them).
 */
public class ShardBandLookupTests extends OpenSearchTestCase {

    private static final String FIELD = "fp.minhash";
    private static final int K = 32;

    /** A shard's documents: their shingle sets, signatures, whether the set is stored, and the reader's id of each doc. */
    private record Shard(long[][] sets, int[][] signatures, boolean[] stored, boolean[] gone) {}

    public void testLookUpThroughTheFilterEqualsBruteForce() throws IOException {
        Random random = random();
        LshBanding banding = LshBanding.of(16, 2, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        int n = between(50, 300);
        Shard shard = randomShard(random, hasher, n, null);
        Shard probes = randomShard(random, hasher, between(20, 200), shard.sets());
        try (Directory directory = newDirectory()) {
            index(random, directory, shard, banding, randomBoolean(), false);
            boolean[] hidden = new boolean[n];
            for (int i = 0; i < n; i++) {
                hidden[i] = random.nextInt(5) == 0;
                shard.gone()[i] |= hidden[i];
            }
            try (IndexReader reader = new HidingReader(DirectoryReader.open(directory), hidden)) {
                int[] idOf = ids(reader);
                for (int m : new int[] {1, 3}) {
                    for (double tau : new double[] {0.3, 0.7}) {
                        String setting = "m=" + m + " tau=" + tau + " n=" + n + " segments="
                                + reader.leaves().size();
                        Map<Long, Double> expected = bruteForce(shard, probes, banding, m, tau);
                        if (m == 1 && tau == 0.3) {
                            assertFalse("half of the probes are edited copies: " + setting, expected.isEmpty());
                        }
                        Map<Long, Double> found = lookUp(reader, idOf, probes, banding, m, tau, Integer.MAX_VALUE, 1);
                        assertEquals(setting, expected.keySet(), found.keySet());
                        expected.forEach(
                                (pair, similarity) -> assertEquals(setting, similarity, found.get(pair), 1e-9));
                    }
                }
            }
        }
    }

    /**
     * A band term of more than maxBucket documents is not counted: each probe carrying it is verified
     * against at most maxLeaders of its documents, so copies beyond the leaders are found only through
     * buckets of normal size (here: none, all copies share every band).
     */
    public void testOversizedBucketIsJoinedByLeadersOnly() throws IOException {
        LshBanding banding = LshBanding.of(16, 2, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        int copies = between(12, 40);
        long[] boilerplate = random().longs(60).toArray();
        Shard shard = new Shard(new long[copies][], new int[copies][], new boolean[copies], new boolean[copies]);
        for (int i = 0; i < copies; i++) {
            shard.sets()[i] = boilerplate;
            shard.signatures()[i] = hasher.signature(boilerplate, boilerplate.length);
            shard.stored()[i] = true;
        }
        Shard probes = new Shard(
                new long[][] {boilerplate},
                new int[][] {hasher.signature(boilerplate, boilerplate.length)},
                new boolean[] {true},
                new boolean[1]);
        try (Directory directory = newDirectory()) {
            index(random(), directory, shard, banding, false, true);
            try (IndexReader reader = DirectoryReader.open(directory)) {
                int[] idOf = ids(reader);
                int maxLeaders = between(1, 5);
                assertEquals(
                        "every copy is found while the bucket is of normal size",
                        copies,
                        lookUp(reader, idOf, probes, banding, 4, 0.9, copies, maxLeaders)
                                .size());
                // Oversized: the filter lists the probe's bands as oversized, and the look-up verifies the leaders only
                // (the first maxLeaders live documents of each band's postings: the same ones in every band here).
                assertEquals(
                        maxLeaders,
                        lookUp(reader, idOf, probes, banding, 4, 0.9, copies - 1, maxLeaders)
                                .size());
            }
        }
    }

    /** The filter holds every key of a bucket of normal size (no key is missed) and lists the oversized ones exactly. */
    public void testKeyFilterHoldsEveryKeyOfTheShard() throws IOException {
        Random random = random();
        LshBanding banding = LshBanding.of(8, 4, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        Shard shard = randomShard(random, hasher, between(20, 200), null);
        try (Directory directory = newDirectory()) {
            index(random, directory, shard, banding, false, randomBoolean());
            try (IndexReader reader = DirectoryReader.open(directory)) {
                int maxBucket = between(1, 4);
                ShardBandBuckets.KeyFilter filter = new ShardBandBuckets(
                                reader, MinhashDocuments.fieldType(FIELD), MemoryBudget.NONE)
                        .keyFilter(maxBucket);
                Map<Long, Integer> documentsOfKey = new HashMap<>();
                for (int[] signature : shard.signatures()) {
                    byte[] bytes = SignatureCodec.valueBytes(signature);
                    for (int band = 0; band < banding.bands(); band++) {
                        documentsOfKey.merge(
                                BandKeyFilter.keyOf(band, LshBanding.bandKey(bytes, band, banding.rows())),
                                1,
                                Integer::sum);
                    }
                }
                for (Map.Entry<Long, Integer> key : documentsOfKey.entrySet()) {
                    // One segment: a key's documents are its term's documents.
                    if (reader.leaves().size() == 1) {
                        assertEquals(key.getValue() > maxBucket, filter.oversized(key.getKey()));
                    }
                    assertTrue(filter.mightShare(key.getKey()) || filter.oversized(key.getKey()));
                }
            }
        }
    }

    /** A cancelled run stops the look-up at its next checkpoint, with everything it reserved given back. */
    public void testCheckpointStopsTheLookUpAndReleasesItsMemory() throws IOException {
        LshBanding banding = LshBanding.of(16, 2, K);
        MinHasher hasher = MinHasher.of(K, 9L, MinHasher.Method.ONE_PERMUTATION);
        Shard shard = randomShard(random(), hasher, 100, null);
        Shard probes = randomShard(random(), hasher, 3 * ShardBandLookup.CHECK_EVERY, shard.sets());
        try (Directory directory = newDirectory()) {
            index(random(), directory, shard, banding, false, false);
            try (IndexReader reader = DirectoryReader.open(directory)) {
                int n = probes.sets().length;
                byte[][] signatures = new byte[n][];
                int[][] bands = new int[n][];
                for (int q = 0; q < n; q++) {
                    signatures[q] = SignatureCodec.valueBytes(probes.signatures()[q]);
                    bands[q] =
                            java.util.stream.IntStream.range(0, banding.bands()).toArray();
                }
                AtomicLong reserved = new AtomicLong();
                int[] checks = new int[1];
                RuntimeException cancelled = expectThrows(
                        RuntimeException.class,
                        () -> ShardBandLookup.lookUp(
                                reader,
                                FIELD,
                                new MatchSpec.BandMatching(MinhashDocuments.fieldType(FIELD, banding), 0.5, 1, true),
                                null,
                                signatures,
                                new byte[n][],
                                bands,
                                1_000,
                                Integer.MAX_VALUE,
                                1,
                                counting(reserved),
                                () -> {
                                    if (++checks[0] == 2) {
                                        throw new RuntimeException("cancelled");
                                    }
                                },
                                (q, doc, similarity) -> assertTrue(q < 2 * ShardBandLookup.CHECK_EVERY)));
                assertEquals("cancelled", cancelled.getMessage());
                assertEquals(0, reserved.get());
            }
        }
    }

    private static MemoryBudget counting(AtomicLong reserved) {
        return new MemoryBudget() {
            @Override
            public void reserve(long bytes) {
                reserved.addAndGet(bytes);
            }

            @Override
            public void release(long bytes) {
                reserved.addAndGet(-bytes);
            }
        };
    }

    private static Shard randomShard(Random random, MinHasher hasher, int n, long[][] copiedFrom) {
        Shard shard = new Shard(new long[n][], new int[n][], new boolean[n], new boolean[n]);
        for (int i = 0; i < n; i++) {
            long[][] from = copiedFrom != null ? copiedFrom : shard.sets();
            int fromCount = copiedFrom != null ? copiedFrom.length : i;
            if (fromCount > 0 && random.nextInt(copiedFrom != null ? 2 : 3) == 0) {
                long[] set = from[random.nextInt(fromCount)].clone();
                for (int r = random.nextInt(set.length / 2); r > 0; r--) {
                    set[random.nextInt(set.length)] = random.nextLong();
                }
                shard.sets()[i] = set;
            } else {
                shard.sets()[i] = random.longs(10 + random.nextInt(70)).toArray();
            }
            shard.signatures()[i] = hasher.signature(shard.sets()[i], shard.sets()[i].length);
            shard.stored()[i] = random.nextInt(4) > 0;
        }
        return shard;
    }

    private static void index(
            Random random, Directory directory, Shard shard, LshBanding banding, boolean deletes, boolean oneSegment)
            throws IOException {
        try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
            for (int i = 0; i < shard.sets().length; i++) {
                Document doc = new Document();
                doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                MinhashDocuments.add(doc, FIELD, shard.signatures()[i], payload(shard, i), null, banding);
                writer.addDocument(doc);
                if (deletes && i > 0 && random.nextInt(15) == 0) {
                    int victim = random.nextInt(i);
                    shard.gone()[victim] = true;
                    writer.deleteDocuments(new Term("id", Integer.toString(victim)));
                }
            }
            if (oneSegment) {
                writer.forceMerge(1);
            }
        }
    }

    private static byte[] payload(Shard shard, int i) {
        long[] set = shard.sets()[i];
        return shard.stored()[i] ? ShingleSetCodec.payload(ShingleSetCodec.of(set, set.length)) : null;
    }

    private static int[] ids(IndexReader reader) throws IOException {
        int[] idOf = new int[reader.maxDoc()];
        var storedFields = reader.storedFields();
        for (int doc = 0; doc < reader.maxDoc(); doc++) {
            idOf[doc] = Integer.parseInt(storedFields.document(doc).get("id"));
        }
        return idOf;
    }

    /** Every (probe, live document) pair sharing at least m bands at similarity tau or more, keyed probe << 32 | id. */
    private static Map<Long, Double> bruteForce(Shard shard, Shard probes, LshBanding banding, int m, double tau) {
        Map<Long, Double> expected = new HashMap<>();
        for (int q = 0; q < probes.sets().length; q++) {
            for (int d = 0; d < shard.sets().length; d++) {
                if (shard.gone()[d]
                        || ShingleTruth.sharedBands(probes.signatures()[q], shard.signatures()[d], banding) < m) {
                    continue;
                }
                double similarity = ShingleTruth.verifiedSimilarity(
                        probes.stored()[q] && shard.stored()[d],
                        probes.sets()[q],
                        shard.sets()[d],
                        probes.signatures()[q],
                        shard.signatures()[d]);
                if (similarity >= tau) {
                    expected.put(((long) q << 32) | d, similarity);
                }
            }
        }
        return expected;
    }

    /** The probes through the shard's filter and look-up, as a shard joining this one sends them; keyed probe << 32 | id. */
    private static Map<Long, Double> lookUp(
            IndexReader reader,
            int[] idOf,
            Shard probes,
            LshBanding banding,
            int m,
            double tau,
            int maxBucket,
            int maxLeaders)
            throws IOException {
        ShardBandBuckets.KeyFilter filter =
                new ShardBandBuckets(reader, MinhashDocuments.fieldType(FIELD), MemoryBudget.NONE).keyFilter(maxBucket);
        int n = probes.sets().length;
        byte[][] signatures = new byte[n][];
        byte[][] sets = new byte[n][];
        int[][] bands = new int[n][];
        long[] keys = new long[banding.bands()];
        int[] passed = new int[banding.bands()];
        for (int q = 0; q < n; q++) {
            signatures[q] = SignatureCodec.valueBytes(probes.signatures()[q]);
            sets[q] = payload(probes, q);
            for (int band = 0; band < banding.bands(); band++) {
                keys[band] = BandKeyFilter.keyOf(band, LshBanding.bandKey(signatures[q], band, banding.rows()));
            }
            bands[q] = Arrays.copyOf(passed, filter.bandsToLookUp(keys, m, passed));
        }
        Map<Long, Double> found = new HashMap<>();
        AtomicLong reserved = new AtomicLong();
        MemoryBudget budget = counting(reserved);
        ShardBandLookup.lookUp(
                reader,
                FIELD,
                new MatchSpec.BandMatching(MinhashDocuments.fieldType(FIELD, banding), tau, m, true),
                null,
                signatures,
                sets,
                bands,
                1_000,
                maxBucket,
                maxLeaders,
                budget,
                () -> {},
                (q, doc, similarity) -> assertNull(found.put(((long) q << 32) | idOf[doc], similarity)));
        assertEquals("everything reserved is released", 0, reserved.get());
        return found;
    }
}
