/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import java.util.ArrayList;
import java.util.List;
import org.opensearch.test.OpenSearchTestCase;

public class ShardRequestLimitTests extends OpenSearchTestCase {

    public void testAtMostTheLimitAreInFlightAndTheOthersAreSentInOrderAsTheyAnswer() {
        ShardRequestLimit limit = new ShardRequestLimit(2);
        List<Integer> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int request = i;
            limit.submit(() -> sent.add(request));
        }
        assertEquals(List.of(0, 1), sent);
        assertEquals(2, limit.inFlight());
        limit.release();
        assertEquals(List.of(0, 1, 2), sent);
        limit.release();
        limit.release();
        assertEquals(List.of(0, 1, 2, 3, 4), sent);
        assertEquals(2, limit.inFlight());
        limit.release();
        limit.release();
        assertEquals(0, limit.inFlight());
    }

    /** Requests that fail at once, on the sending thread, send the queue one after another, not one inside another. */
    public void testRequestsThatAnswerAtOnceDoNotDeepenTheStack() {
        ShardRequestLimit limit = new ShardRequestLimit(1);
        int requests = 100_000;
        int[] depth = new int[1];
        int[] deepest = new int[1];
        // The first is held in flight, so that all the others wait.
        limit.submit(() -> {});
        for (int i = 0; i < requests; i++) {
            limit.submit(() -> {
                depth[0]++;
                deepest[0] = Math.max(deepest[0], depth[0]);
                limit.release();
                depth[0]--;
            });
        }
        limit.release();
        assertEquals(1, deepest[0]);
        assertEquals(0, limit.inFlight());
    }

    public void testForSearchQueue() {
        assertEquals(250, ShardRequestLimit.forSearchQueue(1_000));
        assertEquals(1, ShardRequestLimit.forSearchQueue(2));
        expectThrows(IllegalArgumentException.class, () -> new ShardRequestLimit(0));
    }
}
