/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Where reusable buffers account for their heap: {@link #reserve} before an allocation (it may
 * refuse by throwing, and then nothing was allocated), {@link #release} once memory is let go.
 * Lets the core charge a node's circuit breaker without depending on it.
 */
public interface MemoryBudget {

    /** Accounts nothing: for tools, tests and one-off use. */
    MemoryBudget NONE = new MemoryBudget() {
        @Override
        public void reserve(long bytes) {}

        @Override
        public void release(long bytes) {}
    };

    /** Called before {@code bytes} more are allocated; throws to refuse them. */
    void reserve(long bytes);

    void release(long bytes);
}
