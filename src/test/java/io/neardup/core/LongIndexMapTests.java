/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class LongIndexMapTests extends OpenSearchTestCase {

    @Test
    public void testDuelAgainstLinkedHashMap() {
        SplittableRandom random = new SplittableRandom(randomLong());
        LongIndexMap map = new LongIndexMap(0);
        for (int round = 0; round < 5; round++) {
            Map<Long, Integer> expected = new LinkedHashMap<>();
            map.clear();
            int n = 1 + random.nextInt(5000);
            for (int i = 0; i < n; i++) {
                // Small key range so that repeats are common; include 0 and negative keys.
                long key = random.nextInt(2000) - 1000;
                int index = map.add(key);
                map.setValueAt(index, map.valueAt(index) + 1);
                expected.merge(key, 1, Integer::sum);
            }
            assertEquals(expected.size(), map.size());
            int i = 0;
            for (Map.Entry<Long, Integer> e : expected.entrySet()) {
                assertEquals("round " + round + " first-seen order", (long) e.getKey(), map.keyAt(i));
                assertEquals((int) e.getValue(), map.valueAt(i));
                assertEquals(i, map.indexOf(e.getKey()));
                i++;
            }
            assertEquals(-1, map.indexOf(5000));
        }
    }

    @Test
    public void testClearForgetsEverything() {
        LongIndexMap map = new LongIndexMap(4);
        for (long k = 0; k < 1000; k++) {
            map.add(k * 7919);
        }
        map.clear();
        assertEquals(0, map.size());
        for (long k = 0; k < 1000; k++) {
            assertEquals(-1, map.indexOf(k * 7919));
        }
        // A few keys after a large fill exercise the per-key clear path.
        map.add(1);
        map.add(2);
        map.clear();
        assertEquals(-1, map.indexOf(1));
        assertEquals(-1, map.indexOf(2));
        assertEquals(0, map.add(2));
    }

    /** A budget that refuses past a limit, as a circuit breaker does, and remembers what it holds. */
    /**
     * Every allocation is reserved first: the budget holds exactly what the map's arrays take; a
     * refused growth leaves the map as it was, and release gives everything back.
     */
    @Test
    public void testBudgetHoldsWhatTheArraysTake() {
        CountingBudget budget = new CountingBudget(50_000);
        LongIndexMap map = new LongIndexMap(4, budget);
        assertEquals(map.ramBytesUsed(), budget.used());
        int added = 0;
        try {
            for (; added < 10_000; added++) {
                map.add(added * 31L);
                assertEquals(map.ramBytesUsed(), budget.used());
            }
            throw new AssertionError("10,000 entries cannot fit in 50,000 bytes");
        } catch (IllegalStateException refused) {
            assertEquals(added, map.size());
            assertEquals(map.ramBytesUsed(), budget.used());
            for (int i = 0; i < added; i++) {
                assertEquals(i, map.indexOf(i * 31L));
            }
        }
        assertEquals(true, map.ramBytesUsed() <= LongIndexMap.bytesAtCapacity(map.capacity()));
        map.release();
        assertEquals(0, budget.used());
    }
}
