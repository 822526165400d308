/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.util.concurrent.atomic.AtomicLong;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.common.breaker.CircuitBreakingException;

/** A real accounting breaker with a fixed limit, for unit tests that check what is charged and when. */
public final class CountingBreaker implements CircuitBreaker {
    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong tripped = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

    public CountingBreaker(long limit) {
        this.limit = limit;
    }

    @Override
    public void circuitBreak(String fieldName, long bytesNeeded) {
        tripped.incrementAndGet();
        throw new CircuitBreakingException(
                "[" + fieldName + "] would need " + bytesNeeded + " bytes, limit " + limit,
                bytesNeeded,
                limit,
                Durability.TRANSIENT);
    }

    @Override
    public double addEstimateBytesAndMaybeBreak(long bytes, String label) {
        long after = used.addAndGet(bytes);
        if (after > limit) {
            used.addAndGet(-bytes);
            circuitBreak(label, after);
        }
        peak.accumulateAndGet(after, Math::max);
        return after;
    }

    @Override
    public long addWithoutBreaking(long bytes) {
        return used.addAndGet(bytes);
    }

    /** The most ever charged at once. */
    public long peak() {
        return peak.get();
    }

    @Override
    public long getUsed() {
        return used.get();
    }

    @Override
    public long getLimit() {
        return limit;
    }

    @Override
    public double getOverhead() {
        return 1.0;
    }

    @Override
    public long getTrippedCount() {
        return tripped.get();
    }

    @Override
    public String getName() {
        return "neardup-test";
    }

    @Override
    public Durability getDurability() {
        return Durability.TRANSIENT;
    }

    @Override
    public void setLimitAndOverhead(long limit, double overhead) {
        throw new UnsupportedOperationException();
    }
}
