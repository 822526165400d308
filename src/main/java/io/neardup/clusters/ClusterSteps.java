/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.action.support.ThreadedActionListener;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.util.concurrent.AbstractRunnable;
import org.opensearch.common.util.concurrent.OpenSearchExecutors;
import org.opensearch.core.action.ActionListener;
import org.opensearch.threadpool.ExecutorBuilder;
import org.opensearch.threadpool.FixedExecutorBuilder;
import org.opensearch.threadpool.ThreadPool;

/**
 * How the steps of a {@code _near_dup_clusters} run follow each other: as a chain of listeners, in
 * the shape of reindex's {@code AbstractAsyncBulkByScrollAction}. No thread waits for another
 * action's answer; each answer continues the run on the plugin's own pool ({@link #EXECUTOR}), so a
 * transport thread never does the run's work and a node's generic pool (recoveries, snapshots) is
 * not taken by runs however many there are.
 */
public final class ClusterSteps {

    private static final Logger LOGGER = LogManager.getLogger(ClusterSteps.class);

    /**
     * The pool of the runs' own work: the coordinating steps and the shard joins. One thread a
     * processor, as the search pool is sized for CPU work. Steps are queued with forced execution, so
     * that no run is rejected halfway; what bounds the queue is each run's {@code slices} (one step and
     * one bulk a lane at a time), not the queue size.
     */
    static final String EXECUTOR = "neardup_clusters";

    static final int QUEUE_SIZE = 1_000;

    private ClusterSteps() {}

    /** The plugin's pool, set by {@code thread_pool.neardup_clusters.size} and {@code .queue_size}. */
    public static ExecutorBuilder<?> executorBuilder(Settings settings) {
        return new FixedExecutorBuilder(
                settings,
                EXECUTOR,
                OpenSearchExecutors.allocatedProcessors(settings),
                QUEUE_SIZE,
                "thread_pool." + EXECUTOR);
    }

    /**
     * {@code next}, called on {@link #EXECUTOR} with the answer of a request sent now, or with a
     * timeout failure from {@code timeouts}. An answer is always taken (never rejected by a
     * full queue): the run must see the end of every request it sent.
     */
    static <T> ActionListener<T> step(
            ThreadPool threadPool, StepTimeouts timeouts, String what, ActionListener<T> next) {
        return timeouts.withTimeout(what, new ThreadedActionListener<>(LOGGER, threadPool, EXECUTOR, next, true));
    }

    /** Runs {@code work} on {@link #EXECUTOR}; a failure (also a rejection) goes to {@code listener}. */
    static <T> void fork(ThreadPool threadPool, ActionListener<T> listener, CheckedWork<T> work) {
        threadPool.executor(EXECUTOR).execute(new AbstractRunnable() {
            @Override
            public void onFailure(Exception e) {
                listener.onFailure(e);
            }

            @Override
            protected void doRun() throws Exception {
                work.run(listener);
            }

            @Override
            public boolean isForceExecution() {
                return true;
            }
        });
    }

    /**
     * Runs {@code step} for 0 to {@code count} - 1, each once the one before has answered, until {@code stop} says so;
     * then {@code done}. Each step starts on {@link #EXECUTOR}, so steps that answer at once build no stack.
     */
    static void inTurn(
            ThreadPool threadPool, int count, BooleanSupplier stop, IndexedStep step, ActionListener<Void> done) {
        inLanes(threadPool, count, 1, stop, step, done);
    }

    /**
     * Runs {@code step} for 0 to {@code count} - 1, {@code lanes} at a time: each lane takes the next index when its
     * step before has answered, until none is left or {@code stop} says so. {@code done} follows the last lane, with
     * the first failure if a step failed (the caller's {@code stop} tells the other lanes).
     */
    static void inLanes(
            ThreadPool threadPool,
            int count,
            int lanes,
            BooleanSupplier stop,
            IndexedStep step,
            ActionListener<Void> done) {
        AtomicInteger nextIndex = new AtomicInteger();
        GroupedActionListener<Void> allLanes =
                new GroupedActionListener<>(ActionListener.map(done, laneResults -> null), lanes);
        for (int lane = 0; lane < lanes; lane++) {
            new Object() {
                void next() {
                    int i = nextIndex.getAndIncrement();
                    if (i >= count || stop.getAsBoolean()) {
                        allLanes.onResponse(null);
                        return;
                    }
                    fork(
                            threadPool,
                            allLanes,
                            failing -> step.run(i, ActionListener.wrap(v -> next(), failing::onFailure)));
                }
            }.next();
        }
    }

    /** Step {@code i} of {@link #inTurn}; it calls {@code next} when done. */
    interface IndexedStep {
        void run(int i, ActionListener<Void> next) throws Exception;
    }

    /** A piece of a run's work that ends by calling its listener (now or later). */
    interface CheckedWork<T> {
        void run(ActionListener<T> listener) throws Exception;
    }
}
