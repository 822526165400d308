/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.Closeable;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.core.action.ActionListener;
import org.opensearch.threadpool.Scheduler;
import org.opensearch.threadpool.ThreadPool;

/**
 * The step timeouts of every {@code _near_dup_clusters} run on a node: a step that has not answered within
 * {@link #timeout} fails with a timeout, so a lost node fails a run instead of hanging it.
 *
 * <p>Why not a timeout scheduled per step ({@code ListenerTimeouts}): scheduling a task and cancelling it when the
 * step answers takes the lock of the node's scheduler queue twice a step, on the thread that continues the run,
 * contending with every timer of the node (a run's thread was caught parked there). Here a step only enters and
 * leaves a concurrent set; one check a node, every {@link #checkInterval}, fails the steps past their deadline. A
 * step therefore times out between {@code timeout} and {@code timeout + checkInterval} after it was sent.
 */
public final class StepTimeouts implements Closeable {

    /** No step waits longer than this (plus one check interval) for a search, a shard's matches or a bulk. */
    static final TimeValue STEP_TIMEOUT = TimeValue.timeValueMinutes(5);

    static final TimeValue CHECK_INTERVAL = TimeValue.timeValueSeconds(10);

    private final TimeValue timeout;
    private final Set<Pending<?>> pending = ConcurrentHashMap.newKeySet();
    private final Scheduler.Cancellable checks;

    /** The node's step timeouts: {@link #STEP_TIMEOUT}, checked every {@link #CHECK_INTERVAL}. */
    public StepTimeouts(ThreadPool threadPool) {
        this(threadPool, STEP_TIMEOUT, CHECK_INTERVAL);
    }

    StepTimeouts(ThreadPool threadPool, TimeValue timeout, TimeValue checkInterval) {
        this.timeout = timeout;
        this.checks = threadPool.scheduleWithFixedDelay(this::failExpired, checkInterval, ThreadPool.Names.GENERIC);
    }

    /**
     * {@code listener}, answered once: with the step's answer, or with a timeout failure naming {@code what} once
     * the step has waited {@link #timeout}. Whichever comes first wins; the other is dropped.
     */
    <T> ActionListener<T> withTimeout(String what, ActionListener<T> listener) {
        Pending<T> step = new Pending<>(what, System.nanoTime() + timeout.nanos(), listener);
        pending.add(step);
        return step;
    }

    /** Steps sent and not yet answered nor timed out. */
    int pendingSteps() {
        return pending.size();
    }

    private void failExpired() {
        long now = System.nanoTime();
        for (Pending<?> step : pending) {
            if (now - step.deadlineNanos >= 0) {
                step.onFailure(new OpenSearchTimeoutException(
                        "Timed out after [" + timeout + "] while waiting for " + step.what));
            }
        }
    }

    @Override
    public void close() {
        checks.cancel();
    }

    private final class Pending<T> implements ActionListener<T> {
        private final String what;
        private final long deadlineNanos;
        private final ActionListener<T> listener;
        private final AtomicBoolean answered = new AtomicBoolean();

        Pending(String what, long deadlineNanos, ActionListener<T> listener) {
            this.what = what;
            this.deadlineNanos = deadlineNanos;
            this.listener = listener;
        }

        @Override
        public void onResponse(T response) {
            if (answered.compareAndSet(false, true)) {
                pending.remove(this);
                listener.onResponse(response);
            }
        }

        @Override
        public void onFailure(Exception e) {
            if (answered.compareAndSet(false, true)) {
                pending.remove(this);
                listener.onFailure(e);
            }
        }

        @Override
        public String toString() {
            return what + " (" + TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + " ms left)";
        }
    }
}
