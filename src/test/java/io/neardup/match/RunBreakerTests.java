/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.CountingBreaker;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.test.OpenSearchTestCase;

public class RunBreakerTests extends OpenSearchTestCase {

    public void testEveryChargeAndReleaseReachesTheBreakerAndThePeakIsTheMostHeldAtOnce() {
        CountingBreaker node = new CountingBreaker(1_000);
        node.addEstimateBytesAndMaybeBreak(300, "another caller");
        RunBreaker run = new RunBreaker(node);
        run.addEstimateBytesAndMaybeBreak(100, "a");
        run.addEstimateBytesAndMaybeBreak(250, "b");
        run.addWithoutBreaking(-100);
        run.addEstimateBytesAndMaybeBreak(50, "c");
        assertEquals(300 + 300, node.getUsed());
        assertEquals(300, run.held());
        assertEquals("100 + 250 held together, before the release", 350, run.peak());
        run.addWithoutBreaking(-300);
        assertEquals(0, run.held());
        assertEquals(350, run.peak());
        assertEquals("the other caller's charge is not the run's", 300, node.getUsed());
    }

    public void testARefusedChargeIsNotCounted() {
        CountingBreaker node = new CountingBreaker(1_000);
        RunBreaker run = new RunBreaker(node);
        run.addEstimateBytesAndMaybeBreak(600, "a");
        expectThrows(CircuitBreakingException.class, () -> run.addEstimateBytesAndMaybeBreak(600, "b"));
        assertEquals(600, run.held());
        assertEquals(600, run.peak());
        assertEquals(600, node.getUsed());
    }

    public void testWhenEmptyIsCalledOnceTheLastBytesAreReleased() {
        AtomicInteger emptied = new AtomicInteger();
        RunBreaker run = new RunBreaker(new CountingBreaker(1_000), emptied::incrementAndGet);
        run.addEstimateBytesAndMaybeBreak(10, "a");
        run.addEstimateBytesAndMaybeBreak(10, "b");
        run.addWithoutBreaking(-10);
        assertEquals(0, emptied.get());
        run.addWithoutBreaking(-10);
        assertEquals(1, emptied.get());
    }
}
