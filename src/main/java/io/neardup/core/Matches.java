/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * A reusable collector of search results: doc ids with their Hamming distances, in growable int
 * arrays, plus the work counters of the search that filled it. Not thread-safe; {@link #clear()}
 * between queries keeps the grown arrays, so a warm collector allocates nothing.
 *
 * <p>Its size is the data's, not the query's: every document of a segment may be within the
 * distance (a corpus of copies), so every allocation is reserved from a {@link MemoryBudget}
 * first, and {@link #release()} gives it back.
 */
public final class Matches {
    private static final int INITIAL_CAPACITY = 16;
    private static final int ARRAY_OVERHEAD = 16;

    private final MemoryBudget budget;
    private int[] docs;
    private int[] distances;
    private int size;
    private long lookups;
    private long candidates;

    /** A collector that accounts nothing, for tools and tests. */
    public Matches() {
        this(MemoryBudget.NONE);
    }

    /** A collector whose arrays are reserved from {@code budget} before they are allocated. */
    public Matches(MemoryBudget budget) {
        this.budget = budget;
        budget.reserve(bytesAtCapacity(INITIAL_CAPACITY));
        docs = new int[INITIAL_CAPACITY];
        distances = new int[INITIAL_CAPACITY];
    }

    /** The heap of the two arrays at {@code capacity} matches: 8 bytes a match. */
    public static long bytesAtCapacity(int capacity) {
        return 2 * (ARRAY_OVERHEAD + 4L * capacity);
    }

    /** The heap it holds, as reserved from its budget. */
    public long ramBytesUsed() {
        return bytesAtCapacity(docs.length);
    }

    /** Gives its arrays' heap back to the budget; the collector must not be used afterwards. */
    public void release() {
        budget.release(ramBytesUsed());
        docs = distances = null;
    }

    /** Forgets the results and counters, keeping capacity. */
    public void clear() {
        size = 0;
        lookups = 0;
        candidates = 0;
    }

    void add(int doc, int distance) {
        if (size == docs.length) {
            int capacity = Math.max(INITIAL_CAPACITY, size + (size >> 1));
            long before = ramBytesUsed();
            budget.reserve(bytesAtCapacity(capacity)); // old and new live together while copying
            docs = Arrays.copyOf(docs, capacity);
            distances = Arrays.copyOf(distances, capacity);
            budget.release(before);
        }
        docs[size] = doc;
        distances[size] = distance;
        size++;
    }

    void countLookup() {
        lookups++;
    }

    void countCandidates(long n) {
        candidates += n;
    }

    public int size() {
        return size;
    }

    public int doc(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("index must be in [0, " + size + "), got " + i);
        }
        return docs[i];
    }

    public int distance(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("index must be in [0, " + size + "), got " + i);
        }
        return distances[i];
    }

    /** Prefix runs looked up (one per flip set tried; 0 for a linear scan). */
    public long lookups() {
        return lookups;
    }

    /** Fingerprints whose distance to the query was computed. */
    public long candidates() {
        return candidates;
    }

    /** The doc ids, sorted (allocates: for tests and reports). */
    public int[] sortedDocs() {
        int[] copy = Arrays.copyOf(docs, size);
        Arrays.sort(copy);
        return copy;
    }

    @Override
    public String toString() {
        return "Matches[size=" + size + ", lookups=" + lookups + ", candidates=" + candidates + "]";
    }
}
