/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/** A {@link MemoryBudget} that counts what is held and its peak, refusing reservations past a limit as a breaker would. */
final class CountingBudget implements MemoryBudget {
    private final long limit;
    private long used;
    private long peak;

    CountingBudget(long limit) {
        this.limit = limit;
    }

    @Override
    public void reserve(long bytes) {
        if (used + bytes > limit) {
            throw new IllegalStateException("reserving " + bytes + " would pass the limit " + limit);
        }
        used += bytes;
        peak = Math.max(peak, used);
    }

    @Override
    public void release(long bytes) {
        used -= bytes;
    }

    long used() {
        return used;
    }

    long peak() {
        return peak;
    }
}
