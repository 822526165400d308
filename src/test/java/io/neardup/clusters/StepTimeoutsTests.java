/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.core.action.ActionListener;
import org.opensearch.test.OpenSearchTestCase;
import org.opensearch.threadpool.TestThreadPool;
import org.opensearch.threadpool.ThreadPool;

public class StepTimeoutsTests extends OpenSearchTestCase {

    private ThreadPool threadPool;

    @Override
    public void setUp() throws Exception {
        super.setUp();
        threadPool = new TestThreadPool(getTestName());
    }

    @Override
    public void tearDown() throws Exception {
        terminate(threadPool);
        super.tearDown();
    }

    public void testAStepNeverAnsweredFailsWithATimeoutNamingIt() throws Exception {
        try (StepTimeouts timeouts =
                new StepTimeouts(threadPool, TimeValue.timeValueMillis(50), TimeValue.timeValueMillis(10))) {
            CountDownLatch failed = new CountDownLatch(1);
            AtomicReference<Exception> failure = new AtomicReference<>();
            timeouts.withTimeout("a page of shard [3]", ActionListener.wrap(r -> fail("answered"), e -> {
                failure.set(e);
                failed.countDown();
            }));
            assertTrue(failed.await(10, TimeUnit.SECONDS));
            assertTrue(failure.get() instanceof OpenSearchTimeoutException);
            assertEquals(
                    "Timed out after [50ms] while waiting for a page of shard [3]",
                    failure.get().getMessage());
            assertEquals(0, timeouts.pendingSteps());
        }
    }

    public void testAnAnsweredStepIsAnsweredOnceAndNeverTimesOut() throws Exception {
        try (StepTimeouts timeouts =
                new StepTimeouts(threadPool, TimeValue.timeValueMillis(20), TimeValue.timeValueMillis(5))) {
            AtomicInteger answers = new AtomicInteger();
            AtomicInteger failures = new AtomicInteger();
            ActionListener<String> step = timeouts.withTimeout(
                    "a bulk", ActionListener.wrap(r -> answers.incrementAndGet(), e -> failures.incrementAndGet()));
            assertEquals(1, timeouts.pendingSteps());
            step.onResponse("done");
            assertEquals(0, timeouts.pendingSteps());
            // A late answer, and the checks that run after the deadline, change nothing.
            step.onFailure(new IllegalStateException("late"));
            step.onResponse("again");
            Thread.sleep(60);
            assertEquals(1, answers.get());
            assertEquals(0, failures.get());
        }
    }

    public void testAStepAnsweredAfterItsTimeoutIsDropped() throws Exception {
        try (StepTimeouts timeouts =
                new StepTimeouts(threadPool, TimeValue.timeValueMillis(10), TimeValue.timeValueMillis(5))) {
            AtomicInteger answers = new AtomicInteger();
            CountDownLatch failed = new CountDownLatch(1);
            ActionListener<String> step = timeouts.withTimeout(
                    "a look-up", ActionListener.wrap(r -> answers.incrementAndGet(), e -> failed.countDown()));
            assertTrue(failed.await(10, TimeUnit.SECONDS));
            step.onResponse("too late");
            assertEquals(0, answers.get());
        }
    }

    public void testOnlyTheStepsPastTheirDeadlineFail() throws Exception {
        try (StepTimeouts timeouts =
                new StepTimeouts(threadPool, TimeValue.timeValueHours(1), TimeValue.timeValueMillis(5))) {
            AtomicInteger failures = new AtomicInteger();
            timeouts.withTimeout("a search", ActionListener.wrap(r -> {}, e -> failures.incrementAndGet()));
            Thread.sleep(50);
            assertEquals(1, timeouts.pendingSteps());
            assertEquals(0, failures.get());
        }
    }
}
