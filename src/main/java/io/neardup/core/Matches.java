package io.neardup.core;

import java.util.Arrays;

/**
 * A reusable collector of search results: doc ids with their Hamming distances, in growable int
 * arrays, plus the work counters of the search that filled it. Not thread-safe; {@link #clear()}
 * between queries keeps the grown arrays, so a warm collector allocates nothing.
 */
public final class Matches {
    private int[] docs = new int[16];
    private int[] distances = new int[16];
    private int size;
    private long lookups;
    private long candidates;

    /** Forgets the results and counters, keeping capacity. */
    public void clear() {
        size = 0;
        lookups = 0;
        candidates = 0;
    }

    void add(int doc, int distance) {
        if (size == docs.length) {
            int capacity = Math.max(16, size + (size >> 1));
            docs = Arrays.copyOf(docs, capacity);
            distances = Arrays.copyOf(distances, capacity);
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
