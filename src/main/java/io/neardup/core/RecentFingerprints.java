/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The fingerprints of the documents an ingest node has just seen, which a search cannot find yet
 * (not refreshed; in the same bulk request): the last {@code capacity} documents of at most
 * {@code ttlNanos} ago, searched linearly. Linear is cheap here: a simhash comparison is one XOR
 * and a bit count, and a signature comparison stops as soon as more values differ than the
 * threshold allows (after ~26 of 128 values for an unrelated document at 0.8).
 *
 * <p>Thread-safe: writes and reads synchronize on the instance.
 */
public final class RecentFingerprints {

    /** One recent document. Its cluster is set once its own lookup has decided, read by later documents. */
    public static final class Entry {
        private final String scope;
        private final String id;
        private final int scheme;
        private final long simhash;
        private final int[] signature;
        private final byte[] shingleSet;
        private final long addedNanos;
        private volatile String cluster;

        Entry(String scope, String id, int scheme, long simhash, int[] signature, byte[] shingleSet, long addedNanos) {
            this.scope = scope;
            this.id = id;
            this.scheme = scheme;
            this.simhash = simhash;
            this.signature = signature;
            this.shingleSet = shingleSet;
            this.addedNanos = addedNanos;
        }

        public String id() {
            return id;
        }

        /** The cluster its lookup chose, or its own id while that lookup is still running. */
        public String cluster() {
            String decided = cluster;
            return decided == null ? id : decided;
        }

        public void decide(String cluster) {
            this.cluster = cluster;
        }
    }

    /** The best match found, with its similarity (1 - distance / 64 for simhash, Jaccard or its estimate for signatures). */
    public record Match(Entry entry, double similarity) {}

    private final int capacity;
    private final long ttlNanos;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();

    public RecentFingerprints(int capacity, long ttlNanos) {
        if (capacity < 0 || ttlNanos < 0) {
            throw new IllegalArgumentException("capacity and ttl must be >= 0, got " + capacity + " and " + ttlNanos);
        }
        this.capacity = capacity;
        this.ttlNanos = ttlNanos;
    }

    public synchronized int size() {
        return entries.size();
    }

    /**
     * Adds a simhash document; returns its entry. Only fingerprints of one {@code scope} (the index
     * they are looked up in) and one {@code scheme} (a hash of the scheme id, 0 for none) are
     * compared with each other, and never a document with itself (same {@code id}).
     */
    public Entry addSimhash(String scope, String id, int scheme, long simhash, long nowNanos) {
        return add(new Entry(scope, id, scheme, simhash, null, null, nowNanos), nowNanos);
    }

    /** Adds a signature document; {@code shingleSet} ({@link ShingleSetCodec} payload) may be null. */
    public Entry addSignature(String scope, String id, int scheme, int[] signature, byte[] shingleSet, long nowNanos) {
        return add(new Entry(scope, id, scheme, 0, signature.clone(), shingleSet, nowNanos), nowNanos);
    }

    private synchronized Entry add(Entry entry, long nowNanos) {
        expire(nowNanos);
        if (capacity == 0) {
            return entry;
        }
        if (entries.size() == capacity) {
            entries.removeFirst();
        }
        entries.addLast(entry);
        return entry;
    }

    private void expire(long nowNanos) {
        while (entries.isEmpty() == false && nowNanos - entries.peekFirst().addedNanos > ttlNanos) {
            entries.removeFirst();
        }
    }

    /** The closest recent simhash of {@code scope} within {@code maxDistance} bits, other than document {@code id}; null if none. */
    public synchronized Match closestSimhash(
            String scope, String id, int scheme, long simhash, int maxDistance, long nowNanos) {
        expire(nowNanos);
        Entry best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (entry.signature != null
                    || entry.scheme != scheme
                    || entry.scope.equals(scope) == false
                    || entry.id.equals(id)) {
                continue;
            }
            int distance = Long.bitCount(entry.simhash ^ simhash);
            if (distance <= maxDistance && distance < bestDistance) {
                best = entry;
                bestDistance = distance;
            }
        }
        return best == null ? null : new Match(best, 1 - bestDistance / 64.0);
    }

    /**
     * The most similar recent signature of {@code scope} at or above {@code minSimilarity}, other than document {@code id}:
     * by the exact Jaccard of the shingle sets where both have one, else by the estimate. Null if none.
     */
    public synchronized Match mostSimilarSignature(
            String scope,
            String id,
            int scheme,
            int[] signature,
            byte[] shingleSet,
            double minSimilarity,
            long nowNanos) {
        expire(nowNanos);
        Entry best = null;
        double bestSimilarity = -1;
        // A pair can only reach minSimilarity by the exact measure if its estimate is not far below it; the margin
        // is four standard deviations of the estimate at that similarity, so the cut loses no such pair in practice.
        double estimateFloor = shingleSet == null
                ? minSimilarity
                : Math.max(0, minSimilarity - 4 * Math.sqrt(minSimilarity * (1 - minSimilarity) / signature.length));
        int maxMismatches = (int) Math.floor((1 - estimateFloor) * signature.length);
        for (Entry entry : entries) {
            if (entry.signature == null
                    || entry.scheme != scheme
                    || entry.signature.length != signature.length
                    || entry.scope.equals(scope) == false
                    || entry.id.equals(id)) {
                continue;
            }
            int mismatches = 0;
            for (int i = 0; i < signature.length && mismatches <= maxMismatches; i++) {
                if (entry.signature[i] != signature[i]) {
                    mismatches++;
                }
            }
            if (mismatches > maxMismatches) {
                continue;
            }
            double similarity = shingleSet != null && entry.shingleSet != null
                    ? ShingleSetCodec.jaccard(
                            shingleSet, 0, shingleSet.length, entry.shingleSet, 0, entry.shingleSet.length)
                    : 1 - (double) mismatches / signature.length;
            if (similarity >= minSimilarity && similarity > bestSimilarity) {
                best = entry;
                bestSimilarity = similarity;
            }
        }
        return best == null ? null : new Match(best, bestSimilarity);
    }
}
