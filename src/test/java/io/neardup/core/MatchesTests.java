/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import org.opensearch.test.OpenSearchTestCase;

public class MatchesTests extends OpenSearchTestCase {

    public void testEveryArrayIsReservedFirstAndReleasedAtTheEnd() {
        CountingBudget budget = new CountingBudget(Long.MAX_VALUE);
        Matches matches = new Matches(budget);
        int n = between(1, 50_000);
        for (int i = 0; i < n; i++) {
            matches.add(i, i % 9);
            assertEquals("what is held is what is reserved", matches.ramBytesUsed(), budget.used());
        }
        int capacity = 16;
        while (capacity < n) {
            capacity += capacity >> 1;
        }
        assertEquals(Matches.bytesAtCapacity(capacity), matches.ramBytesUsed());
        assertTrue(
                "grown by at most half: " + matches.ramBytesUsed() + " for " + n,
                matches.ramBytesUsed() <= Matches.bytesAtCapacity(Math.max(16, n + (n >> 1))));
        matches.release();
        assertEquals(0, budget.used());
    }

    public void testARefusedGrowthKeepsWhatWasFound() {
        CountingBudget budget = new CountingBudget(Matches.bytesAtCapacity(16) + Matches.bytesAtCapacity(24) - 1);
        Matches matches = new Matches(budget);
        for (int i = 0; i < 16; i++) {
            matches.add(i, 1);
        }
        expectThrows(IllegalStateException.class, () -> matches.add(16, 1));
        assertEquals(16, matches.size());
        assertEquals(15, matches.doc(15));
        assertEquals(Matches.bytesAtCapacity(16), budget.used());
        matches.release();
        assertEquals(0, budget.used());
    }
}
