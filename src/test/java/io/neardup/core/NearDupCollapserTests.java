/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static io.neardup.collapse.CollapseTestHits.flip;
import static io.neardup.collapse.CollapseTestHits.perturb;
import static io.neardup.collapse.CollapseTestHits.randomSignature;

import io.neardup.ShingleTruth;
import java.util.Arrays;
import java.util.Random;
import org.opensearch.test.OpenSearchTestCase;

/** The greedy leader clustering against a brute-force reference (every leader checked in rank order). */
public class NearDupCollapserTests extends OpenSearchTestCase {

    private static int[] referenceSimhash(long[] fps, int[] schemes, int d) {
        int[] leaderOf = new int[fps.length];
        for (int i = 0; i < fps.length; i++) {
            leaderOf[i] = i;
            if (schemes[i] == NearDupCollapser.MISSING) {
                continue;
            }
            for (int j = 0; j < i; j++) {
                if (leaderOf[j] == j && schemes[j] == schemes[i] && Long.bitCount(fps[i] ^ fps[j]) <= d) {
                    leaderOf[i] = j;
                    break;
                }
            }
        }
        return leaderOf;
    }

    private static int[] referenceMinhash(int[][] sigs, int[] schemes, double s) {
        int[] leaderOf = new int[sigs.length];
        for (int i = 0; i < sigs.length; i++) {
            leaderOf[i] = i;
            if (schemes[i] == NearDupCollapser.MISSING) {
                continue;
            }
            for (int j = 0; j < i; j++) {
                if (leaderOf[j] == j
                        && schemes[j] == schemes[i]
                        && sigs[j].length == sigs[i].length
                        && MinHasher.jaccard(sigs[i], sigs[j]) >= s) {
                    leaderOf[i] = j;
                    break;
                }
            }
        }
        return leaderOf;
    }

    public void testSimhashDuel() {
        Random random = random();
        for (int round = 0; round < 50; round++) {
            int n = 1 + random.nextInt(300);
            int d = random.nextInt(17);
            long[] fps = new long[n];
            int[] schemes = new int[n];
            for (int i = 0; i < n; i++) {
                schemes[i] = random.nextInt(10) == 0 ? NearDupCollapser.MISSING : random.nextInt(2);
                fps[i] = i > 0 && random.nextBoolean()
                        ? flip(fps[random.nextInt(i)], random.nextInt(2 * d + 2), random)
                        : random.nextLong();
            }
            int[] expected = referenceSimhash(fps, schemes, d);
            assertArrayEquals(
                    "n=" + n + " d=" + d + " fps=" + Arrays.toString(fps),
                    expected,
                    NearDupCollapser.collapseSimhash(fps, schemes, d));
        }
    }

    /** The banded candidate search must find exactly what the all-leaders scan finds, at any threshold and length. */
    public void testMinhashDuel() {
        Random random = random();
        for (int round = 0; round < 60; round++) {
            int n = 1 + random.nextInt(200);
            int k = 1 + random.nextInt(random.nextBoolean() ? 16 : 200);
            double s = random.nextInt(5) == 0 ? 1.0 : 0.02 + 0.98 * random.nextDouble();
            int[][] sigs = new int[n][];
            int[] schemes = new int[n];
            for (int i = 0; i < n; i++) {
                schemes[i] = random.nextInt(10) == 0 ? NearDupCollapser.MISSING : random.nextInt(2);
                if (i > 0 && random.nextBoolean()) {
                    int[] base = sigs[random.nextInt(i)];
                    sigs[i] = perturb(base, random.nextInt(base.length + 1), random);
                } else {
                    // small value alphabet so that unrelated signatures agree on some positions too
                    sigs[i] = randomSignature(k, random);
                    for (int p = 0; p < k; p++) {
                        sigs[i][p] &= random.nextBoolean() ? 3 : -1;
                    }
                }
            }
            int[] expected = referenceMinhash(sigs, schemes, s);
            assertArrayEquals(
                    "n=" + n + " k=" + k + " s=" + s, expected, NearDupCollapser.collapseMinhash(sigs, schemes, s));
        }
    }

    /** Prefix filtering must find exactly what the all-leaders scan on the exact Jaccard finds, at any threshold and size. */
    public void testJaccardDuel() {
        Random random = random();
        for (int round = 0; round < 60; round++) {
            int n = 1 + random.nextInt(200);
            double s = random.nextInt(5) == 0 ? 1.0 : 0.02 + 0.98 * random.nextDouble();
            int[][] sets = new int[n][];
            int[] schemes = new int[n];
            for (int i = 0; i < n; i++) {
                schemes[i] = random.nextInt(10) == 0 ? NearDupCollapser.MISSING : random.nextInt(2);
                // values from a small alphabet, and copies of earlier sets with a few values changed: every similarity
                // occurs
                long[] hashes = new long[random.nextInt(random.nextBoolean() ? 8 : 120)];
                int[] base = i > 0 && random.nextBoolean() ? sets[random.nextInt(i)] : null;
                for (int h = 0; h < hashes.length; h++) {
                    long value = base != null && h < base.length && random.nextInt(6) > 0
                            ? Integer.toUnsignedLong(base[h])
                            : random.nextInt(random.nextBoolean() ? 40 : Integer.MAX_VALUE) * 2_654_435_761L;
                    hashes[h] = value << 32;
                }
                sets[i] = ShingleSetCodec.of(hashes, hashes.length);
            }
            int[] expected = new int[n];
            for (int i = 0; i < n; i++) {
                expected[i] = i;
                for (int leader = 0; leader < i && schemes[i] != NearDupCollapser.MISSING; leader++) {
                    if (expected[leader] == leader
                            && schemes[leader] == schemes[i]
                            && ShingleTruth.jaccard(asSet(sets[leader]), asSet(sets[i])) >= s) {
                        expected[i] = leader;
                        break;
                    }
                }
            }
            assertArrayEquals("n=" + n + " s=" + s, expected, NearDupCollapser.collapseJaccard(sets, schemes, s));
        }
    }

    public void testBands() {
        assertEquals(103, NearDupCollapser.minEqual(128, 0.8)); // 102/128 = 0.797, 103/128 = 0.805
        assertEquals(26, NearDupCollapser.bandsFor(128, 0.8));
        assertEquals(128, NearDupCollapser.minEqual(128, 1.0));
        assertEquals(1, NearDupCollapser.bandsFor(128, 1.0));
        assertEquals(1, NearDupCollapser.minEqual(128, 0.001));
        assertEquals(128, NearDupCollapser.bandsFor(128, 0.001));
    }

    public void testBadInput() {
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class, () -> NearDupCollapser.collapseSimhash(new long[2], new int[1], 3));
        assertEquals("got 2 fingerprints but 1 scheme keys", e.getMessage());
        e = expectThrows(
                IllegalArgumentException.class, () -> NearDupCollapser.collapseMinhash(new int[1][], new int[1], 0));
        assertEquals("min_similarity must be in (0, 1], got [0.0]", e.getMessage());
    }

    private static java.util.Set<Integer> asSet(int[] values) {
        java.util.Set<Integer> set = new java.util.HashSet<>();
        for (int v : values) {
            set.add(v);
        }
        return set;
    }
}
