/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.common.breaker.CircuitBreakingException;

/**
 * The node's {@code neardup} breaker as one {@code _near_dup_clusters} run charges it on one node: every charge and
 * release goes to the breaker unchanged, and the run's share is counted on the way, so that what the run reports it
 * held ({@link #peak}) is what the breaker was charged for it, not an estimate made elsewhere. A charge the breaker
 * refuses is not counted (the breaker keeps none of it). Thread-safe: the run's requests on a node charge it at once.
 */
public final class RunBreaker implements CircuitBreaker {

    private final CircuitBreaker breaker;
    /** Called when a release brings what the run holds back to nothing. */
    private final Runnable whenEmpty;

    private final AtomicLong held = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

    public RunBreaker(CircuitBreaker breaker) {
        this(breaker, () -> {});
    }

    RunBreaker(CircuitBreaker breaker, Runnable whenEmpty) {
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.whenEmpty = whenEmpty;
    }

    /** What the run holds on this node now. */
    public long held() {
        return held.get();
    }

    /** The most the run held on this node at once, so far. */
    public long peak() {
        return peak.get();
    }

    @Override
    public double addEstimateBytesAndMaybeBreak(long bytes, String label) throws CircuitBreakingException {
        double used = breaker.addEstimateBytesAndMaybeBreak(bytes, label);
        count(bytes);
        return used;
    }

    @Override
    public long addWithoutBreaking(long bytes) {
        long used = breaker.addWithoutBreaking(bytes);
        count(bytes);
        return used;
    }

    private void count(long bytes) {
        long now = held.addAndGet(bytes);
        if (bytes > 0) {
            peak.accumulateAndGet(now, Math::max);
        } else if (now == 0 && bytes < 0) {
            whenEmpty.run();
        }
    }

    @Override
    public void circuitBreak(String fieldName, long bytesNeeded) {
        breaker.circuitBreak(fieldName, bytesNeeded);
    }

    @Override
    public long getUsed() {
        return breaker.getUsed();
    }

    @Override
    public long getLimit() {
        return breaker.getLimit();
    }

    @Override
    public double getOverhead() {
        return breaker.getOverhead();
    }

    @Override
    public long getTrippedCount() {
        return breaker.getTrippedCount();
    }

    @Override
    public String getName() {
        return breaker.getName();
    }

    @Override
    public Durability getDurability() {
        return breaker.getDurability();
    }

    @Override
    public void setLimitAndOverhead(long limit, double overhead) {
        breaker.setLimitAndOverhead(limit, overhead);
    }
}
