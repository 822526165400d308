/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.CountingBreaker;
import io.neardup.index.BreakerBudget;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.test.OpenSearchTestCase;

/** {@link DocMatches} reserves each growth of its arrays before it grows, and gives everything back on close. */
public class DocMatchesTests extends OpenSearchTestCase {

    public void testEveryGrowthIsReservedAndGivenBackOnClose() {
        CountingBreaker breaker = new CountingBreaker(Long.MAX_VALUE);
        int added = between(0, 5_000);
        try (DocMatches matches = new DocMatches(BreakerBudget.of(breaker, "pairs"))) {
            for (int i = 0; i < added; i++) {
                matches.add(i, i + 1, i, 0.9f);
            }
            int capacity = 16;
            while (capacity < added) {
                capacity *= 2;
            }
            assertEquals(capacity * DocMatches.BYTES_PER_MATCH, breaker.getUsed());
        }
        assertEquals(0, breaker.getUsed());
    }

    public void testPastTheLimitTheBreakerTripsBeforeTheArraysGrow() {
        int room = 16 << between(0, 6);
        CountingBreaker breaker = new CountingBreaker(room * DocMatches.BYTES_PER_MATCH);
        try (DocMatches matches = new DocMatches(BreakerBudget.of(breaker, "pairs"))) {
            for (int i = 0; i < room; i++) {
                matches.add(i, i, i, 1f);
            }
            CircuitBreakingException e = expectThrows(CircuitBreakingException.class, () -> matches.add(0, 0, 0, 1f));
            assertEquals(RestStatus.TOO_MANY_REQUESTS, e.status());
            assertEquals(room * DocMatches.BYTES_PER_MATCH, breaker.getUsed());
        }
        assertEquals(0, breaker.getUsed());
    }
}
