/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Random;
import org.opensearch.test.OpenSearchTestCase;

public class BandKeyFilterTests extends OpenSearchTestCase {

    /** A key added is always found, also after the filter travelled as its words. */
    public void testNoKeyAddedIsMissed() {
        Random random = random();
        int n = between(0, 5_000);
        BandKeyFilter filter = BandKeyFilter.forKeys(n);
        long[] bandKeys = random.longs(n).toArray();
        for (int i = 0; i < n; i++) {
            filter.add(BandKeyFilter.keyOf(i % 42, bandKeys[i]));
        }
        BandKeyFilter sent = BandKeyFilter.ofWords(filter.words().clone());
        for (int i = 0; i < n; i++) {
            assertTrue(sent.mightContain(BandKeyFilter.keyOf(i % 42, bandKeys[i])));
        }
    }

    /** Adding a batch sets the same bits as adding its keys one by one. */
    public void testAddAllEqualsAddingEach() {
        long[] keys = random().longs(between(0, 3_000)).toArray();
        BandKeyFilter each = BandKeyFilter.forKeys(keys.length);
        BandKeyFilter batch = BandKeyFilter.forKeys(keys.length);
        for (long key : keys) {
            each.add(key);
        }
        int from = between(0, keys.length);
        batch.addAll(keys, from);
        batch.addAll(java.util.Arrays.copyOfRange(keys, from, keys.length), keys.length - from);
        assertArrayEquals(each.words(), batch.words());
    }

    /**
     * About 0.5% of absent keys pass at 12 bits a key (a split block Bloom filter with 8 bits a key
     * set: the Putze et al. estimate for 512-bit blocks is ~0.4–0.6%). Tolerance: over 400,000
     * absent keys the count's standard deviation is ~45 (0.01%), so the bounds 0.1% and 1.2% fail
     * only when the filter is broken (too dense: > 1%, or a probe that ignores bits: ~0).
     */
    public void testFalsePositiveRate() {
        Random random = random();
        int n = 100_000;
        BandKeyFilter filter = BandKeyFilter.forKeys(n);
        for (int i = 0; i < n; i++) {
            filter.add(BandKeyFilter.keyOf(random.nextInt(42), random.nextLong()));
        }
        int probes = 400_000;
        int passed = 0;
        for (int i = 0; i < probes; i++) {
            passed += filter.mightContain(BandKeyFilter.keyOf(random.nextInt(42), random.nextLong())) ? 1 : 0;
        }
        double rate = (double) passed / probes;
        assertTrue("false-positive rate " + rate, rate > 0.001 && rate < 0.012);
    }

    /** One band's key in another band is another key: the band is part of what the filter holds. */
    public void testBandIsPartOfTheKey() {
        long bandKey = random().nextLong();
        assertNotEquals(BandKeyFilter.keyOf(0, bandKey), BandKeyFilter.keyOf(1, bandKey));
    }

    public void testSizesAndMalformedWords() {
        assertEquals(64, BandKeyFilter.bytesFor(0));
        assertEquals(64, BandKeyFilter.bytesFor(42));
        assertEquals(
                BandKeyFilter.bytesFor(1_000_000),
                8L * BandKeyFilter.forKeys(1_000_000).words().length);
        assertTrue(BandKeyFilter.bytesFor(1_000_000) >= 1_000_000L * BandKeyFilter.BITS_PER_KEY / 8);
        expectThrows(IllegalArgumentException.class, () -> BandKeyFilter.bytesFor(-1));
        expectThrows(IllegalArgumentException.class, () -> BandKeyFilter.ofWords(new long[0]));
        expectThrows(IllegalArgumentException.class, () -> BandKeyFilter.ofWords(new long[9]));
    }
}
