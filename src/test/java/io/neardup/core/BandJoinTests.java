/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import io.neardup.ShingleTruth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.test.OpenSearchTestCase;

/** The band self-join against brute force over every pair: candidates by counted bands, truth by Java sets. */
public class BandJoinTests extends OpenSearchTestCase {

    private static final int K = 64;

    /** Groups of near-copies of random texts (each copy replaces a random share of the shingles), plus loners. */
    private static long[][] corpus(Random random, int groups, int loners) {
        List<long[]> sets = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            long[] base = random.longs(between(20, 200)).toArray();
            int copies = between(2, 6);
            for (int c = 0; c < copies; c++) {
                long[] copy = base.clone();
                int replaced = random.nextInt(copy.length / 2 + 1);
                for (int r = 0; r < replaced; r++) {
                    copy[random.nextInt(copy.length)] = random.nextLong();
                }
                sets.add(copy);
            }
        }
        for (int l = 0; l < loners; l++) {
            sets.add(random.longs(between(20, 200)).toArray());
        }
        java.util.Collections.shuffle(sets, random);
        return sets.toArray(new long[0][]);
    }

    private static long[] keys(int[][] signatures, LshBanding banding) {
        long[] keys = new long[signatures.length * banding.bands()];
        for (int d = 0; d < signatures.length; d++) {
            byte[] bytes = bytes(signatures[d]);
            for (int band = 0; band < banding.bands(); band++) {
                keys[d * banding.bands() + band] = LshBanding.bandKey(bytes, band, banding.rows());
            }
        }
        return keys;
    }

    private static byte[] bytes(int[] signature) {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(4 * signature.length);
        for (int value : signature) {
            buffer.putInt(value);
        }
        return buffer.array();
    }

    /** The join of in-memory band keys: what the tests feed, the buckets found by {@link BandJoin#ofKeys}. */
    private static BandJoin.Stats join(
            long[] keys,
            int n,
            int bands,
            int minBandMatches,
            double minSimilarity,
            int maxBucket,
            int maxLeaders,
            boolean skipConnected,
            BandJoin.Verifier verifier,
            BandJoin.Pairs pairs,
            MemoryBudget budget) {
        return BandJoin.join(
                BandJoin.ofKeys(keys, n, bands, budget),
                n,
                minBandMatches,
                minSimilarity,
                maxBucket,
                maxLeaders,
                skipConnected,
                verifier,
                pairs,
                budget);
    }

    /** Connected components as a canonical partition: each document's smallest fellow member. */
    private static int[] components(int n, Iterable<long[]> pairs) {
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        for (long[] pair : pairs) {
            int a = root(parent, (int) pair[0]);
            int b = root(parent, (int) pair[1]);
            parent[Math.max(a, b)] = Math.min(a, b);
        }
        int[] smallest = new int[n];
        for (int i = 0; i < n; i++) {
            smallest[i] = root(parent, i);
        }
        return smallest;
    }

    private static int root(int[] parent, int x) {
        while (parent[x] != x) {
            x = parent[x];
        }
        return x;
    }

    /**
     * Without skipping, the reported pairs are exactly the pairs sharing at least m bands whose exact
     * Jaccard is at least tau, each once with its similarity; with skipping (single linkage) the
     * components are the same, with fewer verifications. Random banding, m and tau.
     */
    public void testEqualsBruteForceOverEveryPair() {
        Random random = random();
        long[][] sets = corpus(random, between(5, 40), between(0, 100));
        int n = sets.length;
        MinHasher hasher = MinHasher.of(K, 5L, MinHasher.Method.ONE_PERMUTATION);
        int[][] signatures = new int[n][];
        List<Set<Long>> truthSets = new ArrayList<>();
        for (int d = 0; d < n; d++) {
            signatures[d] = hasher.signature(sets[d], sets[d].length);
            truthSets.add(ShingleTruth.highHalves(sets[d]));
        }
        int rows = randomFrom(List.of(1, 2, 4, 8));
        LshBanding banding = LshBanding.of(K / rows, rows, K);
        int m = between(1, Math.min(4, banding.bands()));
        double tau = randomFrom(List.of(0.3, 0.5, 0.8));
        long[] keys = keys(signatures, banding);
        Map<Long, Double> expected = new HashMap<>();
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (ShingleTruth.sharedBands(signatures[a], signatures[b], banding) >= m) {
                    double similarity = ShingleTruth.jaccard(truthSets.get(a), truthSets.get(b));
                    if (similarity >= tau) {
                        expected.put(((long) a << 32) | b, similarity);
                    }
                }
            }
        }
        BandJoin.Verifier exact = (a, b) -> ShingleTruth.jaccard(truthSets.get(a), truthSets.get(b));
        CountingBudget budget = new CountingBudget(Long.MAX_VALUE);
        Map<Long, Double> found = new HashMap<>();
        BandJoin.Stats all = join(
                keys,
                n,
                banding.bands(),
                m,
                tau,
                Integer.MAX_VALUE,
                1,
                false,
                exact,
                (a, b, similarity) -> {
                    assertTrue(a < b);
                    assertNull("pair " + a + "," + b + " twice", found.put(((long) a << 32) | b, similarity));
                },
                budget);
        String setting = "bands " + banding + " m=" + m + " tau=" + tau + " n=" + n;
        assertEquals(setting, expected, found);
        assertEquals(setting, expected.size(), all.pairs());
        assertEquals(setting, 0, budget.used());

        List<long[]> linked = new ArrayList<>();
        BandJoin.Stats single = join(
                keys,
                n,
                banding.bands(),
                m,
                tau,
                Integer.MAX_VALUE,
                1,
                true,
                exact,
                (a, b, similarity) -> linked.add(new long[] {a, b}),
                budget);
        List<long[]> truthPairs = new ArrayList<>();
        expected.keySet().forEach(pair -> truthPairs.add(new long[] {pair >>> 32, pair & 0xffffffffL}));
        assertArrayEquals(setting, components(n, truthPairs), components(n, linked));
        assertTrue(setting, single.verifications() <= all.verifications());
        assertEquals(setting, all.candidates(), single.candidates());
        assertEquals(0, budget.used());
    }

    /**
     * A template filled in thousands of times puts every document in one bucket: joined by leaders it
     * costs at most size × maxLeaders verifications instead of size² / 2, and finds every group of
     * copies while there are fewer groups than leaders.
     */
    public void testAnOversizedBucketIsJoinedByLeadersWithinItsBound() {
        Random random = random();
        int groups = between(2, 8);
        int n = between(1_000, 3_000);
        int bands = 8;
        long[] keys = new long[n * bands];
        int[] groupOf = new int[n];
        for (int d = 0; d < n; d++) {
            groupOf[d] = random.nextInt(groups);
            keys[d * bands] = 42L; // band 0: the template, shared by every document
            for (int band = 1; band < bands; band++) {
                keys[d * bands + band] = random.nextLong(); // no other band shared
            }
        }
        int maxLeaders = 16;
        BandJoin.Stats stats = join(
                keys,
                n,
                bands,
                1,
                0.9,
                100,
                maxLeaders,
                true,
                (a, b) -> groupOf[a] == groupOf[b] ? 1.0 : 0.0,
                (a, b, similarity) -> assertEquals(groupOf[a], groupOf[b]),
                new CountingBudget(Long.MAX_VALUE));
        assertEquals(1, stats.oversizedBuckets());
        assertEquals(n, stats.largestBucket());
        assertTrue(stats + " within n x maxLeaders", stats.verifications() <= (long) n * maxLeaders);
        // Every document joined its group's leader: n - groups pairs connect each group.
        assertEquals(n - groups, stats.pairs());
    }

    /** Memory is reserved before it is taken: a budget that refuses leaves nothing held and reports nothing. */
    public void testARefusedReservationLeavesNothingHeld() {
        Random random = random();
        int n = 500;
        long[] keys = random.longs(n * 4L).toArray();
        for (int d = 1; d < n; d++) {
            keys[d * 4] = keys[0]; // one bucket of everything in band 0
        }
        for (long limit : new long[] {0, 1_000, BandJoin.baseBytes(n) / 2}) {
            CountingBudget budget = new CountingBudget(limit);
            List<long[]> reported = new ArrayList<>();
            expectThrows(
                    IllegalStateException.class,
                    () -> join(
                            keys,
                            n,
                            4,
                            1,
                            0.5,
                            1_000,
                            1,
                            true,
                            (a, b) -> 1.0,
                            (a, b, s) -> reported.add(new long[] {a, b}),
                            budget));
            assertEquals("limit " + limit, 0, budget.used());
        }
        CountingBudget enough = new CountingBudget(Long.MAX_VALUE);
        BandJoin.Stats stats = join(keys, n, 4, 1, 0.5, 1_000, 1, true, (a, b) -> 1.0, (a, b, s) -> {}, enough);
        assertEquals(n - 1, stats.pairs());
        long sort = SortedFingerprintTable.peakBuildBytes(n, SortedFingerprintTable.defaultIndexBits(n));
        assertTrue("the band sort is charged: " + enough.peak(), enough.peak() > sort);
        assertEquals(0, enough.used());
    }

    /** A source that breaks the bucket contract (members not ascending) is refused, naming the member. */
    public void testBucketsOutOfOrderAreRefused() {
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> BandJoin.join(
                        bucket -> bucket.members(new int[] {3, 1}, 2),
                        4,
                        1,
                        0.5,
                        10,
                        1,
                        true,
                        (a, b) -> 1,
                        (a, b, s) -> {},
                        MemoryBudget.NONE));
        assertEquals("a bucket's members must be ascending documents in [0, 4), got 1 at 1", e.getMessage());
    }

    public void testBadArgumentsNameTheProblem() {
        assertEquals("minBandMatches must be in [1, 1024], got 0", joinError(2, 0));
        assertEquals("keys must hold n * bands = 12 values, got 8", joinError(3, 1));
    }

    /** The message of a join of {@code n} documents' 8 keys (4 bands each) that fails. */
    private static String joinError(int n, int minBandMatches) {
        return expectThrows(
                        IllegalArgumentException.class,
                        () -> join(
                                new long[8],
                                n,
                                4,
                                minBandMatches,
                                0.5,
                                10,
                                1,
                                true,
                                (a, b) -> 1,
                                (a, b, s) -> {},
                                MemoryBudget.NONE))
                .getMessage();
    }
}
