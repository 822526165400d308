/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class FingerprinterTests extends OpenSearchTestCase {

    private static final String[] SYLLABLES = {
        "ka", "lo", "mi", "ne", "ru", "s\u00e9", "t\u00f6", "\u65e5", "\uD83D\uDE00", "q"
    };

    private static List<String> vocabulary(int size, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Set<String> words = new LinkedHashSet<>();
        while (words.size() < size) {
            StringBuilder w = new StringBuilder();
            int n = 1 + random.nextInt(4);
            for (int i = 0; i < n; i++) {
                w.append(SYLLABLES[random.nextInt(SYLLABLES.length)]);
            }
            words.add(w.toString());
        }
        return new ArrayList<>(words);
    }

    /** A document drawn from a skewed (roughly Zipf) distribution over the vocabulary. */
    private static List<String> document(List<String> vocab, int length, SplittableRandom random) {
        List<String> doc = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            double u = random.nextDouble();
            doc.add(vocab.get((int) (Math.pow(vocab.size(), u)) - 1));
        }
        return doc;
    }

    private static IdfTable idfTable(List<String> vocab, long seed) {
        String[] terms = vocab.subList(0, vocab.size() / 2).toArray(new String[0]);
        long[] dfs = new long[terms.length];
        for (int i = 0; i < dfs.length; i++) {
            dfs[i] = 1000 / (i + 1);
        }
        return IdfTable.of("synthetic", seed, 1000, terms, dfs);
    }

    /**
     * The IDF table that matches {@link #document}: word i is drawn with probability
     * p_i = ln((i + 2) / (i + 1)) / ln(V), so it occurs in a document of {@code length} words
     * with probability 1 - (1 - p_i)^length.
     */
    private static IdfTable matchingIdfTable(List<String> vocab, int length) {
        long docs = 1_000_000;
        String[] terms = vocab.toArray(new String[0]);
        long[] dfs = new long[terms.length];
        for (int i = 0; i < terms.length; i++) {
            double p = Math.log((i + 2.0) / (i + 1.0)) / Math.log(vocab.size());
            dfs[i] = Math.round(docs * (1 - Math.pow(1 - p, length)));
        }
        return IdfTable.of("matching", 0, docs, terms, dfs);
    }

    /**
     * A deliberately naive transcription of the contract: Strings, boxed maps, per-window
     * loops, Alg. 1 bit by bit. Shares only the primitives tested on their own (murmur3, the
     * documented shingle formula, MinHasher, Margins).
     */
    private static Fingerprint reference(FingerprintScheme s, IdfTable idf, List<String> tokens) {
        int n = tokens.size();
        long[] th = new long[n];
        float[] tidf = new float[n];
        for (int i = 0; i < n; i++) {
            byte[] b = tokens.get(i).getBytes(StandardCharsets.UTF_8);
            th[i] = Murmur3.hash64(b, 0, b.length, s.seed());
            tidf[i] = idf == null ? 1f : idf.idf(th[i]);
        }
        Map<Long, Integer> counts = new LinkedHashMap<>();
        Map<Long, Float> idfs = new LinkedHashMap<>();
        ShingleHasher simShingle = new ShingleHasher(s.simhashShingleSize(), s.seed());
        for (int[] w : windows(n, s.simhashShingleSize())) {
            long h = simShingle.hashOf(Arrays.copyOfRange(th, w[0], w[1]));
            float max = Float.NEGATIVE_INFINITY;
            for (int i = w[0]; i < w[1]; i++) {
                max = Math.max(max, tidf[i]);
            }
            counts.merge(h, 1, Integer::sum);
            idfs.putIfAbsent(h, max);
        }
        double[] wByBit = new double[64];
        for (Map.Entry<Long, Integer> e : counts.entrySet()) {
            double weight = s.weighting().weight(e.getValue()) * idfs.get(e.getKey());
            for (int j = 0; j < 64; j++) {
                wByBit[j] += ((e.getKey() >>> j) & 1) == 1 ? weight : -weight;
            }
        }
        long simhash = 0;
        double[] msbFirst = new double[64];
        for (int j = 0; j < 64; j++) {
            if (wByBit[j] > 0) {
                simhash |= 1L << j;
            }
            msbFirst[63 - j] = wByBit[j];
        }
        Set<Long> shingles = new LinkedHashSet<>();
        ShingleHasher minShingle = new ShingleHasher(s.minhashShingleSize(), s.seed());
        for (int[] w : windows(n, s.minhashShingleSize())) {
            shingles.add(minShingle.hashOf(Arrays.copyOfRange(th, w[0], w[1])));
        }
        long[] distinct = shingles.stream().mapToLong(Long::longValue).toArray();
        int[] minhash = MinHasher.of(s.numHashes(), s.seed(), s.minhashMethod()).signature(distinct, distinct.length);
        return new Fingerprint(simhash, Margins.of(msbFirst, 64), minhash, n, counts.size());
    }

    private static List<int[]> windows(int n, int size) {
        List<int[]> out = new ArrayList<>();
        if (n > 0 && n < size) {
            out.add(new int[] {0, n});
        }
        for (int i = 0; i + size <= n; i++) {
            out.add(new int[] {i, i + size});
        }
        return out;
    }

    private static FingerprintScheme scheme(
            int simShingle,
            FeatureWeighting weighting,
            String idf,
            int minShingle,
            int numHashes,
            MinHasher.Method method,
            long seed) {
        return new FingerprintScheme(1, "standard", simShingle, weighting, idf, minShingle, numHashes, method, seed);
    }

    @Test
    public void testMatchesNaiveReference() {
        SplittableRandom random = new SplittableRandom(randomLong());
        List<String> vocab = vocabulary(500, randomLong());
        for (int iter = 0; iter < 60; iter++) {
            long seed = random.nextLong();
            boolean withIdf = random.nextBoolean();
            IdfTable idf = withIdf ? idfTable(vocab, seed) : null;
            FingerprintScheme s = randomScheme(random, withIdf ? idf.identity() : FingerprintScheme.NO_IDF, seed);
            List<String> doc = document(vocab, random.nextInt(400), random);
            Fingerprint got = new Fingerprinter(s, idf).fingerprint(doc);
            assertEquals(
                    "iteration " + iter + " " + s.describe() + " tokens " + doc.size(), reference(s, idf, doc), got);
        }
    }

    private static FingerprintScheme randomScheme(SplittableRandom random, String idf, long seed) {
        return scheme(
                1 + random.nextInt(4),
                FeatureWeighting.values()[random.nextInt(3)],
                idf,
                1 + random.nextInt(5),
                1 + random.nextInt(256),
                MinHasher.Method.values()[random.nextInt(2)],
                seed);
    }

    @Test
    public void testOneSideAloneComputesWhatBothSidesDo() {
        SplittableRandom random = new SplittableRandom(randomLong());
        List<String> vocab = vocabulary(500, randomLong());
        for (int iter = 0; iter < 30; iter++) {
            long seed = random.nextLong();
            FingerprintScheme s = randomScheme(random, FingerprintScheme.NO_IDF, seed);
            List<String> doc = document(vocab, random.nextInt(400), random);
            Fingerprinter both = new Fingerprinter(s, null);
            both.reset();
            Fingerprinter simhashOnly =
                    new Fingerprinter(s, null, new FingerprintScratch(MemoryBudget.NONE), true, false);
            Fingerprinter minhashOnly =
                    new Fingerprinter(s, null, new FingerprintScratch(MemoryBudget.NONE), false, true);
            for (String t : doc) {
                both.token(t);
                simhashOnly.token(t);
                minhashOnly.token(t);
            }
            Fingerprint all = both.finish(true);
            Fingerprint simhash = simhashOnly.finish(false);
            Fingerprint minhash = minhashOnly.finish(true);
            String what = "iteration " + iter + " " + s.describe() + " tokens " + doc.size();
            assertEquals(
                    what, new Fingerprint(all.simhash(), all.margins(), null, all.tokens(), all.features()), simhash);
            assertEquals(what, new Fingerprint(0, null, all.minhash(), all.tokens(), 0, all.shingleSet()), minhash);
        }
        Fingerprinter simhashOnly = new Fingerprinter(
                FingerprintScheme.defaults("standard"), null, new FingerprintScratch(MemoryBudget.NONE), true, false);
        expectThrows(IllegalStateException.class, () -> simhashOnly.finish(true));
        expectThrows(
                IllegalArgumentException.class,
                () -> new Fingerprinter(
                        FingerprintScheme.defaults("standard"),
                        null,
                        new FingerprintScratch(MemoryBudget.NONE),
                        false,
                        false));
    }

    @Test
    public void testCharBufferTokensEqualStringTokens() {
        // Lucene hands tokens as a slice of a reused char[]; feed them that way, with garbage around.
        List<String> doc = document(vocabulary(200, randomLong()), 300, new SplittableRandom(randomLong()));
        FingerprintScheme s = FingerprintScheme.defaults("standard");
        Fingerprinter streaming = new Fingerprinter(s, null);
        char[] buf = new char[4];
        for (String t : doc) {
            if (buf.length < t.length() + 2) {
                buf = new char[t.length() * 2 + 2];
            }
            Arrays.fill(buf, 'Z');
            t.getChars(0, t.length(), buf, 1);
            streaming.token(buf, 1, t.length());
        }
        assertEquals(new Fingerprinter(s, null).fingerprint(doc), streaming.finish());
    }

    /** A text's tokens as {@link TextTokens} holds them (their hashes), fed back, fingerprint as the text does. */
    @Test
    public void testTokenHashesOfTextTokensEqualTheTokens() {
        SplittableRandom random = new SplittableRandom(randomLong());
        List<String> vocab = vocabulary(300, randomLong());
        List<String> doc = document(vocab, 400, random);
        long seed = random.nextLong();
        IdfTable idf = idfTable(vocab, seed);
        FingerprintScheme s = randomScheme(random, idf.identity(), seed);
        TextTokens tokens = new TextTokens(s.seed(), MemoryBudget.NONE);
        int at = 0;
        for (String t : doc) {
            tokens.add(t, at, at + t.length());
            at += t.length() + 1;
        }
        Fingerprinter byHash = new Fingerprinter(s, idf);
        for (int i = 0; i < tokens.size(); i++) {
            byHash.tokenHash(tokens.hash(i));
        }
        assertEquals(new Fingerprinter(s, idf).fingerprint(doc), byHash.finish());
    }

    @Test
    public void testResetReallyResets() {
        List<String> vocab = vocabulary(300, randomLong());
        SplittableRandom random = new SplittableRandom(randomLong());
        List<String> small = document(vocab, 20, random);
        List<String> big = document(vocab, 5000, random);
        FingerprintScheme s = scheme(2, FeatureWeighting.LOG_TF, "none", 3, 64, MinHasher.Method.CLASSIC, 9);
        Fingerprint fresh = new Fingerprinter(s, null).fingerprint(small);
        Fingerprinter reused = new Fingerprinter(s, null);
        reused.fingerprint(big); // grows every buffer
        assertEquals(fresh, reused.fingerprint(small));
        // The explicit lifecycle too: reset, tokens, finish, reset, tokens, finish.
        reused.reset();
        for (String t : big) {
            reused.token(t);
        }
        reused.finish();
        reused.reset();
        small.forEach(reused::token);
        assertEquals(fresh, reused.finish());
    }

    @Test
    public void testConcurrentFingerprintersAgreeWithOneThread() throws Exception {
        List<String> vocab = vocabulary(1000, randomLong());
        SplittableRandom random = new SplittableRandom(randomLong());
        List<List<String>> docs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            docs.add(document(vocab, random.nextInt(300), random));
        }
        IdfTable idf = idfTable(vocab, 0);
        FingerprintScheme s =
                scheme(1, FeatureWeighting.LOG_TF, idf.identity(), 3, 128, MinHasher.Method.ONE_PERMUTATION, 0);
        Fingerprinter single = new Fingerprinter(s, idf);
        List<Fingerprint> expected = new ArrayList<>();
        for (List<String> d : docs) {
            expected.add(single.fingerprint(d));
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<List<Fingerprint>>> futures = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                // Both threads share the scheme and the IdfTable, each has its own Fingerprinter.
                Callable<List<Fingerprint>> job = () -> {
                    Fingerprinter mine = new Fingerprinter(s, idf);
                    List<Fingerprint> out = new ArrayList<>();
                    for (int round = 0; round < 5; round++) {
                        out.clear();
                        for (List<String> d : docs) {
                            out.add(mine.fingerprint(d));
                        }
                    }
                    return out;
                };
                futures.add(pool.submit(job));
            }
            for (Future<List<Fingerprint>> f : futures) {
                assertEquals(expected, f.get());
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    public void testEmptyAndOneTokenDocuments() {
        FingerprintScheme s = FingerprintScheme.defaults("standard");
        Fingerprinter fp = new Fingerprinter(s, null);
        Fingerprint empty = fp.fingerprint(List.of());
        assertEquals(0L, empty.simhash());
        assertEquals(Margins.of(new double[64], 64), empty.margins());
        int[] allEmpty = new int[128];
        Arrays.fill(allEmpty, MinHasher.EMPTY);
        assertArrayEquals(allEmpty, empty.minhash());
        assertEquals(0, empty.features());

        // One token: a feature for simhash and, although shorter than the 3-token MinHash
        // shingle, one shingle for MinHash.
        Fingerprint one = fp.fingerprint(List.of("hello"));
        assertEquals(1, one.features());
        assertEquals(1, Arrays.stream(one.minhash()).distinct().count());
        assertTrue(Arrays.stream(one.minhash()).noneMatch(v -> v == MinHasher.EMPTY));
        // A single unigram feature of weight 1 reproduces its own hash (Alg. 1).
        long feature = new ShingleHasher(1, 0).hashOf(new TokenHasher(0).hash("hello"));
        assertEquals(feature, one.simhash());
    }

    @Test
    public void testKnownFingerprint() {
        // Pins the whole pipeline for the default scheme; a change here changes stored data.
        List<String> doc = List.of("the quick brown fox jumps over the lazy dog and the quick cat".split(" "));
        FingerprintScheme s = scheme(1, FeatureWeighting.LOG_TF, "none", 3, 8, MinHasher.Method.ONE_PERMUTATION, 0);
        Fingerprint f = new Fingerprinter(s, null).fingerprint(doc);
        assertEquals(GOLDEN_SIMHASH, f.simhash());
        assertEquals(GOLDEN_MARGINS, f.margins().encode());
        assertArrayEquals(GOLDEN_MINHASH, f.minhash());
        assertEquals(13, f.tokens());
        assertEquals(10, f.features());
    }

    private static final long GOLDEN_SIMHASH = 0x41e8c880441b125aL;
    private static final String GOLDEN_MARGINS =
            "eq06jnrnwNwqsufceio6Ov9zsnNz_3Oyc3o6c4h6_9wqso6Ojo6OenOOejqI3K16erLYKueOKjqOc3rcc3Nz_w";
    private static final int[] GOLDEN_MINHASH = {
        -1704196804, 1338365654, 1338365654, -1278758230, 391888211, 391888211, 391888211, -676142918
    };

    @Test
    public void testNearDuplicatesAreCloserThanUnrelatedDocuments() {
        // Data drawn from the test seed. Tolerance: over 40 pairs, the means' standard errors are
        // ~0.3 bits (near) and ~0.6 bits (far), so each bound below is > 5 of them from the
        // measured mean. Measured: 1% edits move 4.1 bits on average, unrelated
        // documents differ in 27.1 (not the ideal 32: the smoothed idf keeps ubiquitous words at
        // weight >= 1, and they are shared). The same data gives 18.4 when the IDF is not applied,
        // 11.2 with raw TF * IDF and 5.0 with raw TF (the degenerate case on synthetic Zipf text): the lower bound
        // of 22 catches each of those while leaving ~5 bits of slack.
        List<String> vocab = vocabulary(3000, randomLong());
        IdfTable idf = matchingIdfTable(vocab, 1000);
        FingerprintScheme s =
                scheme(1, FeatureWeighting.LOG_TF, idf.identity(), 3, 128, MinHasher.Method.ONE_PERMUTATION, 0);
        Fingerprinter fp = new Fingerprinter(s, idf);
        SplittableRandom random = new SplittableRandom(randomLong());
        int nearSum = 0;
        int farSum = 0;
        double nearJaccard = 0;
        double farJaccard = 0;
        int docs = 40;
        for (int i = 0; i < docs; i++) {
            List<String> a = document(vocab, 1000, random);
            List<String> edited = new ArrayList<>(a);
            for (int e = 0; e < 10; e++) {
                edited.set(random.nextInt(edited.size()), vocab.get(random.nextInt(vocab.size())));
            }
            List<String> other = document(vocab, 1000, random);
            Fingerprint fa = fp.fingerprint(a);
            Fingerprint fe = fp.fingerprint(edited);
            Fingerprint fo = fp.fingerprint(other);
            nearSum += Hamming.distance(fa.simhash(), fe.simhash());
            farSum += Hamming.distance(fa.simhash(), fo.simhash());
            nearJaccard += MinHasher.jaccard(fa.minhash(), fe.minhash());
            farJaccard += MinHasher.jaccard(fa.minhash(), fo.minhash());
        }
        double near = (double) nearSum / docs;
        double far = (double) farSum / docs;
        assertTrue("mean distance of 1% edits: " + near, near < 6);
        assertTrue("mean distance of unrelated documents: " + far, far > 22 && far < 40);
        // 10 edits touch at most 30 of ~1000 3-shingles: J >= ~0.94.
        assertTrue("near jaccard " + nearJaccard / docs, nearJaccard / docs > 0.9);
        assertTrue("far jaccard " + farJaccard / docs, farJaccard / docs < 0.05);
    }

    @Test
    public void testLifecycleErrors() {
        Fingerprinter fp = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        fp.token("a");
        fp.finish();
        IllegalStateException e = assertThrows(IllegalStateException.class, fp::finish);
        assertEquals("finish() was already called: call reset() first", e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> fp.token("b"));
        assertEquals("finish() was called: call reset() before adding tokens", e.getMessage());
    }

    @Test
    public void testIdfTableMustMatchTheScheme() throws IOException {
        IdfTable table =
                IdfTable.load("t", 0, new ByteArrayInputStream("#docs\t10\ncat\t1\n".getBytes(StandardCharsets.UTF_8)));
        FingerprintScheme none = FingerprintScheme.defaults("standard");
        FingerprintScheme withIdf =
                scheme(1, FeatureWeighting.LOG_TF, table.identity(), 3, 128, MinHasher.Method.ONE_PERMUTATION, 0);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> new Fingerprinter(withIdf, null));
        assertEquals(
                "scheme [" + withIdf.id() + "] needs idf table [" + table.identity() + "], got none", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new Fingerprinter(none, table));
        assertEquals(
                "scheme [" + none.id() + "] needs idf table [none], got [" + table.identity() + "]", e.getMessage());
        // Same terms hashed with another seed: another identity, so the scheme rejects it.
        IdfTable otherSeed =
                IdfTable.load("t", 1, new ByteArrayInputStream("#docs\t10\ncat\t1\n".getBytes(StandardCharsets.UTF_8)));
        e = assertThrows(IllegalArgumentException.class, () -> new Fingerprinter(withIdf, otherSeed));
        assertTrue(e.getMessage(), e.getMessage().contains("needs idf table [" + table.identity() + "]"));
    }

    @Test
    public void testIdfChangesWeights() throws IOException {
        // "common" is in every document (idf 1), "rare" in none (idf ln(1001) + 1 ~ 7.9): with
        // one of each, the rare word's hash wins every bit where the two disagree.
        IdfTable table = IdfTable.load(
                "t", 0, new ByteArrayInputStream("#docs\t1000\ncommon\t1000\n".getBytes(StandardCharsets.UTF_8)));
        FingerprintScheme s = scheme(1, FeatureWeighting.BINARY, table.identity(), 1, 16, MinHasher.Method.CLASSIC, 0);
        Fingerprint f = new Fingerprinter(s, table).fingerprint(List.of("common", "rare"));
        long rare = new ShingleHasher(1, 0).hashOf(new TokenHasher(0).hash("rare"));
        assertEquals(rare, f.simhash());
    }
}
