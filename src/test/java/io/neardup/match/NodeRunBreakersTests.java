/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.CountingBreaker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.test.OpenSearchTestCase;

public class NodeRunBreakersTests extends OpenSearchTestCase {

    private final CountingBreaker node = new CountingBreaker(1 << 20);
    private final NodeRunBreakers runs = new NodeRunBreakers(() -> node);

    public void testRequestsOfOneRunAtOnceShareItsPeakAndItsEntryGoesWithTheLast() {
        TaskId run = new TaskId("coordinator", 7);
        NodeRunBreakers.Request first = runs.open(run);
        NodeRunBreakers.Request second = runs.open(run);
        first.breaker().addEstimateBytesAndMaybeBreak(100, "first");
        second.breaker().addEstimateBytesAndMaybeBreak(40, "second");
        assertEquals("both at once", 140, second.nodeBytes());
        first.breaker().addWithoutBreaking(-100);
        first.close();
        assertEquals(1, runs.runs());
        second.breaker().addWithoutBreaking(-40);
        assertEquals(140, second.nodeBytes());
        second.close();
        assertEquals(0, runs.runs());
        NodeRunBreakers.Request later = runs.open(run);
        assertEquals("a run's entry starts again from nothing once gone", 0, later.nodeBytes());
        later.close();
        assertEquals(0, runs.runs());
        assertEquals(0, node.getUsed());
    }

    public void testTwoRunsAreCountedApart() {
        NodeRunBreakers.Request one = runs.open(new TaskId("coordinator", 1));
        NodeRunBreakers.Request other = runs.open(new TaskId("coordinator", 2));
        one.breaker().addEstimateBytesAndMaybeBreak(100, "one");
        other.breaker().addEstimateBytesAndMaybeBreak(30, "other");
        assertEquals(100, one.nodeBytes());
        assertEquals(30, other.nodeBytes());
        one.breaker().addWithoutBreaking(-100);
        other.breaker().addWithoutBreaking(-30);
        one.close();
        other.close();
        assertEquals(0, runs.runs());
    }

    public void testAnEntryStaysUntilARequestThatEndedReleasesWhatItHeld() {
        NodeRunBreakers.Request request = runs.open(new TaskId("coordinator", 3));
        request.breaker().addEstimateBytesAndMaybeBreak(64, "answered before its release");
        request.close();
        request.close(); // a second close counts once
        assertEquals(1, runs.runs());
        request.breaker().addWithoutBreaking(-64);
        assertEquals(0, runs.runs());
    }

    public void testOtherNodesAnswersCountWhereTheyAreMore() {
        NodeRunBreakers.Request request = runs.open(new TaskId("coordinator", 4));
        request.breaker().addEstimateBytesAndMaybeBreak(50, "here");
        request.heardFrom(20);
        assertEquals(50, request.nodeBytes());
        request.heardFrom(500);
        request.heardFrom(30);
        assertEquals(500, request.nodeBytes());
        request.breaker().addWithoutBreaking(-50);
        request.close();
        assertEquals(0, runs.runs());
    }

    public void testARequestOfNoRunIsNotKept() {
        NodeRunBreakers.Request request = runs.open(TaskId.EMPTY_TASK_ID);
        request.breaker().addEstimateBytesAndMaybeBreak(10, "alone");
        assertEquals(0, runs.runs());
        assertEquals(10, request.nodeBytes());
        request.breaker().addWithoutBreaking(-10);
        request.close();
        assertEquals(0, node.getUsed());
    }

    public void testManyRequestsOfARunOnManyThreadsLeaveNoEntry() throws Exception {
        TaskId run = new TaskId("coordinator", 5);
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int i = 0; i < 2_000; i++) {
                    try (NodeRunBreakers.Request request = runs.open(run)) {
                        request.breaker().addEstimateBytesAndMaybeBreak(8, "step");
                        if (i % 2 == 0) {
                            request.breaker().addWithoutBreaking(-8);
                        } else {
                            // released after the request ended, as a step's releases may come after its answer
                            request.close();
                            request.breaker().addWithoutBreaking(-8);
                        }
                    }
                }
            });
            thread.start();
            started.add(thread);
        }
        start.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        assertEquals(0, runs.runs());
        assertEquals(0, node.getUsed());
    }
}
