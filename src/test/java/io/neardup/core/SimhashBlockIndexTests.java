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
            SimhashBlockIndex index = SimhashBlockIndex.build(fps, docs, n, maxDistance);
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
                assertEquals("distance " + distance + " of " + maxDistance, expected, found);
            }
        }
    }

    public void testAskingBeyondTheIndexIsAnError() {
        SimhashBlockIndex index = SimhashBlockIndex.build(new long[] {1}, new int[] {0}, 1, 2);
        expectThrows(IllegalArgumentException.class, () -> index.within(0, 3, (doc, d) -> {}));
        expectThrows(IllegalArgumentException.class, () -> SimhashBlockIndex.build(new long[0], new int[0], 0, 9));
    }
}
