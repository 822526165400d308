/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import io.neardup.core.FingerprintScratch;
import io.neardup.core.MemoryBudget;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.opensearch.core.common.breaker.CircuitBreaker;

/**
 * The fingerprinting scratch of a node: one {@link FingerprintScratch} kept per thread, shared by
 * every {@code near_dup_fingerprint} processor (and {@code like.text} query) that runs on it, so
 * what a thread keeps does not grow with the number of pipelines and is not left behind by a
 * deleted one. Every allocation is charged to the {@code neardup} circuit breaker before it
 * happens, and released when the scratch is let go: a document whose scratch would take the node
 * past the limit fails with a 429 instead of exhausting the heap. After a document that grew the
 * scratch past {@link #MAX_KEPT_SCRATCH_ENTRIES}, the thread lets it go and starts small again.
 */
public final class FingerprintScratchPool {

    /**
     * Distinct shingles a kept scratch can hold: texts of some 30,000 distinct words. Larger
     * documents get their scratch for their own use only. Kept, such a scratch holds
     * {@link #maxKeptBytes()} bytes.
     */
    public static final int MAX_KEPT_SCRATCH_ENTRIES = 1 << 15;

    private final Supplier<CircuitBreaker> breaker;
    private final Map<Thread, FingerprintScratch> kept = new ConcurrentHashMap<>();
    private final AtomicLong heldBytes = new AtomicLong();
    private final LongAdder dropped = new LongAdder();
    private final MemoryBudget budget = new MemoryBudget() {
        @Override
        public void reserve(long bytes) {
            CircuitBreaker circuitBreaker = breaker.get();
            if (circuitBreaker != null) {
                circuitBreaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_fingerprint scratch");
            }
            heldBytes.addAndGet(bytes);
        }

        @Override
        public void release(long bytes) {
            heldBytes.addAndGet(-bytes);
            CircuitBreaker circuitBreaker = breaker.get();
            if (circuitBreaker != null) {
                circuitBreaker.addWithoutBreaking(-bytes);
            }
        }
    };

    /** @param breaker the node's {@code neardup} breaker, or a supplier of null where nothing is to be charged */
    public FingerprintScratchPool(Supplier<CircuitBreaker> breaker) {
        this.breaker = breaker;
    }

    /** A pool that charges no breaker, for tools and tests. */
    static FingerprintScratchPool unaccounted() {
        return new FingerprintScratchPool(() -> null);
    }

    /** Runs {@code work} in this thread's scratch. */
    <T> T withScratch(Function<FingerprintScratch, T> work) {
        Thread thread = Thread.currentThread();
        // Taken out while in use: a nested call on the same thread gets a scratch of its own.
        FingerprintScratch scratch = kept.remove(thread);
        if (scratch == null) {
            releaseScratchOfEndedThreads();
            scratch = new FingerprintScratch(budget);
        }
        boolean keep = false;
        try {
            T result = work.apply(scratch);
            keep = scratch.capacity() <= MAX_KEPT_SCRATCH_ENTRIES;
            return result;
        } finally {
            // A failure may leave the scratch half grown; an outsized one is not worth keeping.
            if (keep == false || kept.putIfAbsent(thread, scratch) != null) {
                scratch.release();
                dropped.increment();
            }
        }
    }

    /** Threads of scaling pools end; what they kept would otherwise stay charged for good. */
    private void releaseScratchOfEndedThreads() {
        for (Map.Entry<Thread, FingerprintScratch> entry : kept.entrySet()) {
            if (entry.getKey().isAlive() == false && kept.remove(entry.getKey(), entry.getValue())) {
                entry.getValue().release();
            }
        }
    }

    /** The most a kept scratch holds: what each thread may keep between documents. */
    public static long maxKeptBytes() {
        return FingerprintScratch.bytesAtCapacity(MAX_KEPT_SCRATCH_ENTRIES);
    }

    /** A snapshot for {@code GET _plugins/neardup/stats}. */
    public Stats stats() {
        return new Stats(heldBytes.get(), kept.size(), dropped.sum());
    }

    /**
     * @param bytes   heap held by scratch now (kept and in use), as charged to the breaker
     * @param threads threads keeping a scratch between documents
     * @param dropped scratches let go after an outsized document or a failure
     */
    public record Stats(long bytes, long threads, long dropped) {}
}
