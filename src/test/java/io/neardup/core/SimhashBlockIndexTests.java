/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.HashMap;
import java.util.Map;
import org.opensearch.test.OpenSearchTestCase;

/** The block index against a linear scan: every fingerprint within the distance, once, with its distance. */
public class SimhashBlockIndexTests extends OpenSearchTestCase {

    public void testFindsExactlyWhatALinearScanFinds() {
        for (int iteration = 0; iteration < atLeast(20); iteration++) {
            int maxDistance = between(0, FlipSetGenerator.MAX_DISTANCE);
            int n = between(1, 2_000);
            long[] fps = new long[n];
            int[] docs = new int[n];
            long base = randomLong();
            for (int i = 0; i < n; i++) {
                // Half near a common base (so that many pairs are close), half anywhere; some exact copies.
                long fp = randomBoolean() ? base : randomLong();
                for (int flips = between(0, maxDistance + 2); flips > 0; flips--) {
                    fp ^= 1L << between(0, 63);
                }
                fps[i] = rarely() && i > 0 ? fps[i - 1] : fp;
                docs[i] = 10 * i + 7;
            }
            SimhashBlockIndex.Layout layout = maxDistance >= 2 && randomBoolean()
                    ? SimhashBlockIndex.Layout.perPairOfBlocks(maxDistance)
                    : SimhashBlockIndex.Layout.perBlock(maxDistance);
            SimhashBlockIndex index = SimhashBlockIndex.build(fps, docs, n, layout);
            for (int q = 0; q < 30; q++) {
                long query = randomBoolean() ? fps[between(0, n - 1)] ^ (1L << between(0, 63)) : randomLong();
                int distance = between(0, maxDistance);
                Map<Integer, Integer> expected = new HashMap<>();
                for (int i = 0; i < n; i++) {
                    int d = Long.bitCount(fps[i] ^ query);
                    if (d <= distance) {
                        expected.put(docs[i], d);
                    }
                }
                Map<Integer, Integer> found = new HashMap<>();
                index.within(query, distance, (doc, d) -> assertNull("reported once: " + doc, found.put(doc, d)));
                assertEquals(
                        "distance " + distance + " of " + maxDistance + " in " + layout.tables() + " tables",
                        expected,
                        found);
            }
        }
    }

    /**
     * Fingerprints crowded around one pattern give a probe thousands of candidates in the tables per block: the
     * tables per pair of blocks are chosen, with ten tables at distance 3; spread ones keep the four tables per
     * block; below a distance of 2 there is no table per pair.
     */
    public void testTheLayoutFollowsTheCandidatesAProbeWouldRead() {
        int n = 3_000;
        long base = randomLong();
        long[] crowded = new long[n];
        long[] spread = new long[n];
        for (int i = 0; i < n; i++) {
            crowded[i] = base ^ (1L << between(0, 63));
            spread[i] = randomLong();
        }
        assertEquals(10, SimhashBlockIndex.Layout.of(crowded, n, 3).tables());
        assertEquals(4, SimhashBlockIndex.Layout.of(spread, n, 3).tables());
        assertEquals(2, SimhashBlockIndex.Layout.of(crowded, n, 1).tables());
        assertEquals(
                4, SimhashBlockIndex.build(spread, new int[n], n, 3).layout().tables());
        assertEquals(
                "the count is the sum over tables of the squared counts of their keys, over n",
                4.0 * n,
                SimhashBlockIndex.Layout.perBlock(3).candidatesPerProbe(new long[n], n),
                0.0);
        expectThrows(IllegalArgumentException.class, () -> SimhashBlockIndex.Layout.perPairOfBlocks(1));
        SimhashBlockIndex.Layout pairs = SimhashBlockIndex.Layout.perPairOfBlocks(3);
        SimhashBlockIndex.Layout blocks = SimhashBlockIndex.Layout.perBlock(3);
        assertTrue(pairs.peakBuildBytes(n) > 2 * blocks.peakBuildBytes(n));
        assertTrue(
                "the peak covers what a build keeps",
                SimhashBlockIndex.build(crowded, new int[n], n, pairs).ramBytesUsed() <= pairs.peakBuildBytes(n));
    }

    public void testAskingBeyondTheIndexIsAnError() {
        SimhashBlockIndex index = SimhashBlockIndex.build(new long[] {1}, new int[] {0}, 1, 2);
        expectThrows(IllegalArgumentException.class, () -> index.within(0, 3, (doc, d) -> {}));
        expectThrows(IllegalArgumentException.class, () -> SimhashBlockIndex.build(new long[0], new int[0], 0, 9));
    }
}
