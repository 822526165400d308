/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class SortedFingerprintTableTests extends OpenSearchTestCase {

    private static long[] randomFingerprints(SplittableRandom random, int n, boolean clustered) {
        long[] fps = new long[n];
        for (int i = 0; i < n; i++) {
            // Clustered: few distinct top bits and repeated values, to exercise long runs and duplicates.
            fps[i] = clustered ? ((long) random.nextInt(4) << 62) | random.nextInt(50) : random.nextLong();
        }
        return fps;
    }

    private static int[] identityDocs(int n) {
        int[] docs = new int[n];
        for (int i = 0; i < n; i++) {
            docs[i] = i;
        }
        return docs;
    }

    @Test
    public void testSortsUnsignedAndCarriesDocs() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 50; iter++) {
            int n = random.nextInt(3000);
            long[] fps = randomFingerprints(random, n, iter % 3 == 0);
            long[] copy = fps.clone();
            int[] docs = identityDocs(n);
            SortedFingerprintTable t = SortedFingerprintTable.build(fps, docs, n, 1 + random.nextInt(16));
            assertEquals(n, t.size());
            for (int i = 0; i < n; i++) {
                assertEquals("iter " + iter + " position " + i, fps[t.docAt(i)], t.fingerprintAt(i));
                if (i > 0) {
                    int c = Long.compareUnsigned(t.fingerprintAt(i - 1), t.fingerprintAt(i));
                    assertTrue("iter " + iter + " position " + i + " out of unsigned order", c <= 0);
                    if (c == 0) {
                        assertTrue("stable for equal fingerprints", t.docAt(i - 1) < t.docAt(i));
                    }
                }
            }
            assertEquals("input untouched", java.util.Arrays.toString(copy), java.util.Arrays.toString(fps));
        }
    }

    /** Any doc order in the input, long runs (radix) and short ones (insertion): pairs end up as a stable reference sort puts them. */
    @Test
    public void testOrdersLikeAStableReferenceSort() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 50; iter++) {
            int n = random.nextInt(3000);
            long[] fps = randomFingerprints(random, n, iter % 2 == 0);
            int[] docs = new int[n];
            for (int i = 0; i < n; i++) {
                docs[i] = random.nextInt(Math.max(1, n / 2)); // shuffled, some repeated
            }
            int indexBits = 1 + random.nextInt(16);
            SortedFingerprintTable t = SortedFingerprintTable.build(fps, docs, n, indexBits);
            long[][] reference = new long[n][];
            for (int i = 0; i < n; i++) {
                reference[i] = new long[] {fps[i], docs[i]};
            }
            java.util.Arrays.sort(reference, (a, b) -> Long.compareUnsigned(a[0], b[0])); // stable: a merge sort
            for (int i = 0; i < n; i++) {
                assertEquals("iter " + iter + " position " + i, reference[i][0], t.fingerprintAt(i));
                assertEquals("iter " + iter + " position " + i, reference[i][1], t.docAt(i));
            }
        }
    }

    @Test
    public void testRunsMatchBruteForceForEveryPrefixWidth() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int iter = 0; iter < 20; iter++) {
            int n = 1 + random.nextInt(2000);
            long[] fps = randomFingerprints(random, n, iter % 2 == 0);
            int indexBits = 1 + random.nextInt(12);
            SortedFingerprintTable t = SortedFingerprintTable.build(fps, identityDocs(n), n, indexBits);
            SortedFingerprints plain = t.withoutIndex();
            for (int bits : new int[] {1, 2, indexBits - 1, indexBits, indexBits + 1, indexBits + 5, 32}) {
                if (bits < 1 || bits > 32) {
                    continue;
                }
                for (int q = 0; q < 200; q++) {
                    // Half the probes at an existing fingerprint's prefix, half random.
                    long source = q % 2 == 0 ? fps[random.nextInt(n)] : random.nextLong();
                    long prefix = source >>> (64 - bits);
                    int expectedStart = -1;
                    int count = 0;
                    for (int i = 0; i < n; i++) {
                        if (t.fingerprintAt(i) >>> (64 - bits) == prefix) {
                            if (expectedStart < 0) {
                                expectedStart = i;
                            }
                            count++;
                        }
                    }
                    long run = t.run(prefix, bits);
                    long plainRun = plain.run(prefix, bits);
                    String where = "iter " + iter + " indexBits " + indexBits + " bits " + bits + " prefix " + prefix;
                    assertEquals(where, count, SortedFingerprints.runEnd(run) - SortedFingerprints.runStart(run));
                    if (count > 0) {
                        assertEquals(where, expectedStart, SortedFingerprints.runStart(run));
                    }
                    assertEquals(
                            where + " (binary search)",
                            count,
                            SortedFingerprints.runEnd(plainRun) - SortedFingerprints.runStart(plainRun));
                    if (count > 0) {
                        assertEquals(where + " (binary search)", expectedStart, SortedFingerprints.runStart(plainRun));
                    }
                }
            }
            // The indexed accessor covers every position exactly once over all prefixes.
            int covered = 0;
            for (int b = 0; b < 1 << indexBits; b++) {
                long run = t.run(b);
                covered += SortedFingerprints.runEnd(run) - SortedFingerprints.runStart(run);
            }
            assertEquals(n, covered);
        }
    }

    @Test
    public void testOfSortedAcceptsSortedAndRejectsUnsorted() {
        long[] sorted = {1, 5, Long.MAX_VALUE, Long.MIN_VALUE, -1};
        SortedFingerprintTable t = SortedFingerprintTable.ofSorted(sorted, identityDocs(5), 5, 4);
        assertEquals(-1L, t.fingerprintAt(4));
        long[] unsorted = {1, -1, 5};
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> SortedFingerprintTable.ofSorted(unsorted, identityDocs(3), 3, 4));
        assertEquals(
                "fingerprints must be sorted as unsigned values, but position 2 (5) < position 1 (ffffffffffffffff)",
                e.getMessage());
    }

    @Test
    public void testEmptyTable() {
        SortedFingerprintTable t = SortedFingerprintTable.build(new long[0], new int[0]);
        assertEquals(0, t.size());
        assertEquals(1, t.indexBits());
        long run = t.run(1L, 1);
        assertEquals(0, SortedFingerprints.runEnd(run) - SortedFingerprints.runStart(run));
    }

    @Test
    public void testDefaultIndexBitsAndRam() {
        assertEquals(1, SortedFingerprintTable.defaultIndexBits(0));
        assertEquals(1, SortedFingerprintTable.defaultIndexBits(3));
        assertEquals(20, SortedFingerprintTable.defaultIndexBits(1 << 20));
        assertEquals(20, SortedFingerprintTable.defaultIndexBits((1 << 21) - 1));
        assertEquals(28, SortedFingerprintTable.defaultIndexBits(Integer.MAX_VALUE));
        int n = 1 << 12;
        SortedFingerprintTable t = SortedFingerprintTable.build(new long[n], new int[n]);
        // 12 bytes per entry + 4 bytes per index slot (2^12 + 1) + headers.
        long expected = 12L * n + 4L * (n + 1);
        assertTrue(
                t.ramBytesUsed() + " vs " + expected,
                t.ramBytesUsed() >= expected && t.ramBytesUsed() <= expected + 128);
    }

    @Test
    public void testValidationMessages() {
        assertEquals(
                "index_bits must be in [1, 28], got 29",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SortedFingerprintTable.build(new long[1], new int[1], 1, 29))
                        .getMessage());
        assertEquals(
                "index_bits must be in [1, 28], got 0",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SortedFingerprintTable.build(new long[1], new int[1], 1, 0))
                        .getMessage());
        assertEquals(
                "length must be in [0, min(3, 2)], got 3",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SortedFingerprintTable.build(new long[3], new int[2], 3, 4))
                        .getMessage());
        assertEquals(
                "prefix must be in [0, 16), got 16",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> SortedFingerprintTable.build(new long[3], new int[3], 3, 4)
                                        .run(16))
                        .getMessage());
    }
}
