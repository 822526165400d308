/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.MemoryBudget;
import org.opensearch.core.common.breaker.CircuitBreaker;

/**
 * A {@link MemoryBudget} on the node's {@code neardup} breaker: a reservation past the limit
 * throws the breaker's exception (a 429) before anything is allocated.
 */
public record BreakerBudget(CircuitBreaker breaker, String label) implements MemoryBudget {

    /** Charges {@code breaker} under {@code label}; accounts nothing where there is no breaker (tools, tests). */
    public static MemoryBudget of(CircuitBreaker breaker, String label) {
        return breaker == null ? MemoryBudget.NONE : new BreakerBudget(breaker, label);
    }

    @Override
    public void reserve(long bytes) {
        breaker.addEstimateBytesAndMaybeBreak(bytes, label);
    }

    @Override
    public void release(long bytes) {
        breaker.addWithoutBreaking(-bytes);
    }
}
