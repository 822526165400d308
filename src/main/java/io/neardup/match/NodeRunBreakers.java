/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.opensearch.common.lease.Releasable;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.tasks.TaskId;

/**
 * On a node, the {@link RunBreaker} of each {@code _near_dup_clusters} run with requests here, keyed by the run's task
 * (the shard requests are its child tasks: their parent): the run's requests on this node, running at once, charge
 * one {@link RunBreaker}, so that its peak is the most the run held here at once. A run's entry goes when its last
 * request here has ended and released what it charged (the releases may come after its answer is sent), so none
 * outlives the run, whether it succeeded, failed or was cancelled.
 */
public final class NodeRunBreakers {

    private final Supplier<CircuitBreaker> breaker;
    private final Map<TaskId, Run> runs = new ConcurrentHashMap<>();

    /** @param breaker the node's {@code neardup} breaker, set once the node has started */
    public NodeRunBreakers(Supplier<CircuitBreaker> breaker) {
        this.breaker = breaker;
    }

    /**
     * A request of the run {@code run} starts on this node: it charges the run's breaker here until it is closed. A
     * request that names no run (no parent task) has a breaker of its own.
     */
    public Request open(TaskId run) {
        if (run == null || run.isSet() == false) {
            return new Request(null, new RunBreaker(breaker.get()));
        }
        Run entry = runs.compute(run, (id, existing) -> {
            Run opened = existing == null ? new Run(id) : existing;
            opened.requests++;
            return opened;
        });
        return new Request(entry, entry.breaker);
    }

    /** The runs with a request here, or charges not yet released. */
    public int runs() {
        return runs.size();
    }

    /** One run's entry; {@link #requests} is changed only inside the map's atomic compute of its key. */
    private final class Run {
        private final TaskId id;
        private final RunBreaker breaker;
        private int requests;

        Run(TaskId id) {
            this.id = id;
            this.breaker = new RunBreaker(NodeRunBreakers.this.breaker.get(), this::removeIfDone);
        }

        void closeRequest() {
            runs.computeIfPresent(id, (key, entry) -> {
                entry.requests--;
                return entry.done() ? null : entry;
            });
        }

        /** After the last release: a request that ended before its releases leaves the entry to them. */
        void removeIfDone() {
            runs.computeIfPresent(id, (key, entry) -> entry == this && entry.done() ? null : entry);
        }

        private boolean done() {
            return requests == 0 && breaker.held() == 0;
        }
    }

    /** A request of a run on this node: what it charges, and what it reports the run held. */
    public static final class Request implements Releasable {
        private final Run run;
        private final RunBreaker breaker;
        private final AtomicLong otherNodes = new AtomicLong();
        private final AtomicBoolean closed = new AtomicBoolean();

        private Request(Run run, RunBreaker breaker) {
            this.run = run;
            this.breaker = breaker;
        }

        /** The breaker the request charges. */
        public RunBreaker breaker() {
            return breaker;
        }

        /** Another node's answer to this request's look-up: the most the run held at once there. */
        public void heardFrom(long nodeBytes) {
            otherNodes.accumulateAndGet(nodeBytes, Math::max);
        }

        /** What the request's answer reports: the most the run held at once on this node so far, or on one it asked. */
        public long nodeBytes() {
            return Math.max(breaker.peak(), otherNodes.get());
        }

        @Override
        public void close() {
            if (run != null && closed.compareAndSet(false, true)) {
                run.closeRequest();
            }
        }
    }
}
