/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.concurrent.TimeUnit;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.threadpool.Scheduler;
import org.opensearch.threadpool.ThreadPool;

/**
 * {@code requests_per_second} of a run's writes, as reindex throttles its batches
 * ({@code WorkerBulkByScrollTaskState}): a bulk of n documents waits until n / rate seconds after
 * the one before, on the thread pool's scheduler (no thread sleeps). {@link #rethrottle} changes
 * the rate of a running run: a faster rate brings the waiting bulk forward at once, a slower one
 * applies from the next bulk (the one waiting keeps its time, as reindex does).
 */
final class WriteThrottle {

    private final ThreadPool threadPool;
    private float requestsPerSecond;
    private long nextAllowedNanos = System.nanoTime();
    private long throttledNanos;
    /** The bulk waiting for its time, and when it was scheduled to run. */
    private Waiting waiting;

    /**
     * {@code send} as given, {@code once} what is scheduled (it runs {@code send} unless rescheduled or run already), when
     * it is due, and since when the bulk has waited.
     */
    private record Waiting(
            Runnable send, Runnable once, Scheduler.ScheduledCancellable scheduled, long atNanos, long sinceNanos) {}

    WriteThrottle(ThreadPool threadPool, float requestsPerSecond) {
        this.threadPool = threadPool;
        this.requestsPerSecond = requestsPerSecond;
    }

    /**
     * Runs {@code send} for a bulk of {@code documents} now (returns true) or, when its time has not come, later on
     * the plugin's pool (returns false).
     */
    synchronized boolean runWhenAllowed(int documents, Runnable send) {
        long now = System.nanoTime();
        long waitNanos = nextAllowedNanos - now;
        nextAllowedNanos = Math.max(nextAllowedNanos, now) + spacingNanos(documents);
        if (waitNanos <= 0) {
            return true;
        }
        schedule(send, waitNanos, now);
        return false;
    }

    private long spacingNanos(int documents) {
        return Float.isInfinite(requestsPerSecond) ? 0 : (long) (documents * 1e9 / requestsPerSecond);
    }

    /** Schedules {@code send} in {@code waitNanos}; it has waited for its time since {@code sinceNanos}. */
    private void schedule(Runnable send, long waitNanos, long sinceNanos) {
        Runnable once = new Runnable() {
            @Override
            public void run() {
                synchronized (WriteThrottle.this) {
                    // Rescheduled (by a rethrottle) or run already (woken by a cancellation): not again.
                    if (waiting == null || waiting.once() != this) {
                        return;
                    }
                    throttledNanos += Math.max(0, System.nanoTime() - sinceNanos);
                    waiting = null;
                }
                send.run();
            }
        };
        waiting = new Waiting(
                send,
                once,
                threadPool.schedule(once, TimeValue.timeValueNanos(waitNanos), ClusterSteps.EXECUTOR),
                System.nanoTime() + waitNanos,
                sinceNanos);
    }

    /** The new rate; a bulk waiting under a slower one is brought forward to the new rate's time. */
    synchronized void rethrottle(float newRequestsPerSecond) {
        float old = requestsPerSecond;
        requestsPerSecond = newRequestsPerSecond;
        if (waiting == null || newRequestsPerSecond <= old) {
            return;
        }
        long now = System.nanoTime();
        long remaining = Math.max(0, waiting.atNanos() - now);
        long newRemaining =
                Float.isInfinite(newRequestsPerSecond) ? 0 : (long) (remaining * old / newRequestsPerSecond);
        nextAllowedNanos = now + newRemaining;
        if (waiting.scheduled().cancel()) {
            schedule(waiting.send(), newRemaining, waiting.sinceNanos());
        }
    }

    /** Runs a waiting bulk now (the run was cancelled: it sends nothing and ends). */
    void wakeUp() {
        Runnable send;
        synchronized (this) {
            send = waiting == null ? null : waiting.once();
            if (waiting != null) {
                waiting.scheduled().cancel();
            }
        }
        if (send != null) {
            threadPool.executor(ClusterSteps.EXECUTOR).execute(send);
        }
    }

    synchronized float requestsPerSecond() {
        return requestsPerSecond;
    }

    synchronized long throttledMillis() {
        return TimeUnit.NANOSECONDS.toMillis(throttledNanos);
    }
}
