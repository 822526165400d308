/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The fingerprints of the documents an ingest node has just seen, which a search cannot find yet
 * (not refreshed; in the same bulk request): the last {@code capacity} documents of at most
 * {@code ttlNanos} ago, searched linearly. Linear is cheap here: a simhash comparison is one XOR
 * and a bit count, and a signature comparison stops as soon as more values differ than the
 * threshold allows (after ~26 of 128 values for an unrelated document at 0.8).
 *
 * <p>Only fingerprints of one {@code scope} are compared with each other: the caller makes it of
 * everything that decides who may see a document (the index it is looked up in, and the identity
 * of the user indexing it), so that the window never carries one user's document into another's
 * answer. An entry is <em>pending</em> from {@link #addSimhash}/{@link #addSignature} until its own
 * document is {@link #accept accepted} or {@link #withdraw withdrawn} (its lookup failed): a pending
 * entry can be matched, but a caller must not use such a match before it is decided
 * ({@link Entry#whenDecided}), and a withdrawn one leaves the window at once.
 *
 * <p>Thread-safe: the window synchronizes on the instance, an entry's decision on the entry.
 */
public final class RecentFingerprints {

    /** One recent document. Its cluster is set once its own lookup has decided, read by later documents. */
    public static final class Entry {
        private final String scope;
        private final String id;
        /** Where the document is indexed, as its lookup can tell (null where it cannot). */
        private final String home;

        private final int scheme;
        private final long simhash;
        private final int[] signature;
        private final byte[] shingleSet;
        /** The number of values in {@link #shingleSet}, 0 without one: the size bound of a containment. */
        private final int shingleCount;

        private final long addedNanos;
        private final long arrival;
        private boolean decided;
        private boolean withdrawn;
        private String cluster;
        private String clusterIndex;
        private List<Runnable> onDecision;
        /** What its caller keeps beside it (the lookup: where core then wrote the document); null if nothing. */
        private volatile Object attachment;

        Entry(
                String scope,
                String id,
                String home,
                int scheme,
                long simhash,
                int[] signature,
                byte[] shingleSet,
                long addedNanos,
                long arrival) {
            this.scope = scope;
            this.id = id;
            this.home = home;
            this.scheme = scheme;
            this.simhash = simhash;
            this.signature = signature;
            this.shingleSet = shingleSet;
            this.shingleCount = shingleSet == null ? 0 : ShingleSetCodec.count(shingleSet, 0, shingleSet.length);
            this.addedNanos = addedNanos;
            this.arrival = arrival;
        }

        public String id() {
            return id;
        }

        /** Where the document is indexed, as given when it was added; null if unknown. */
        public String home() {
            return home;
        }

        /** The order in which entries were added: a document is only matched with entries that arrived before it. */
        public long arrival() {
            return arrival;
        }

        /** The cluster its lookup chose; its own id while undecided. */
        public synchronized String cluster() {
            return cluster == null ? id : cluster;
        }

        /** The index of the cluster its lookup chose, where the lookup names one; its home while undecided. */
        public synchronized String clusterIndex() {
            return cluster == null ? home : clusterIndex;
        }

        /** Keeps {@code value} beside the entry, for whoever matches it ({@link #attachment}). */
        public void attach(Object value) {
            attachment = value;
        }

        /** What its caller {@link #attach}ed; null if nothing. */
        public Object attachment() {
            return attachment;
        }

        /** Whether its document was accepted; false while pending or once withdrawn. */
        public synchronized boolean accepted() {
            return decided && withdrawn == false;
        }

        /** Runs {@code action} once this entry is accepted or withdrawn: now if it already is. */
        public void whenDecided(Runnable action) {
            synchronized (this) {
                if (decided == false) {
                    if (onDecision == null) {
                        onDecision = new ArrayList<>(1);
                    }
                    onDecision.add(action);
                    return;
                }
            }
            action.run();
        }

        private void decide(String acceptedCluster, String acceptedClusterIndex, boolean withdraw) {
            List<Runnable> waiting;
            synchronized (this) {
                if (decided) {
                    throw new IllegalStateException("entry [" + id + "] is already decided");
                }
                decided = true;
                withdrawn = withdraw;
                cluster = acceptedCluster;
                clusterIndex = acceptedClusterIndex;
                waiting = onDecision;
                onDecision = null;
            }
            if (waiting != null) {
                waiting.forEach(Runnable::run);
            }
        }

        private synchronized boolean withdrawn() {
            return withdrawn;
        }
    }

    /**
     * The best match found, with its similarity (1 - distance / 64 for simhash, Jaccard or its estimate for
     * signatures) or, from {@link #mostContaining}, its exact containment.
     */
    public record Match(Entry entry, double similarity) {}

    private final int capacity;
    private final long ttlNanos;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long arrivals;

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
     * Adds a simhash document as a pending entry; returns it. Fingerprints of one {@code scope} and
     * one {@code scheme} (a hash of the scheme id, 0 for none) are compared with each other, and
     * never a document with itself (same {@code id} and {@code home}: an {@code _id} is unique only inside one index).
     * {@code home}, where the document is indexed, is kept for whoever matches it (null if unknown).
     */
    public Entry addSimhash(String scope, String id, String home, int scheme, long simhash, long nowNanos) {
        return add(scope, id, home, scheme, simhash, null, null, nowNanos);
    }

    /** Adds a signature document as a pending entry; {@code shingleSet} ({@link ShingleSetCodec} payload) may be null. */
    public Entry addSignature(
            String scope, String id, String home, int scheme, int[] signature, byte[] shingleSet, long nowNanos) {
        return add(scope, id, home, scheme, 0, signature.clone(), shingleSet, nowNanos);
    }

    /**
     * Adds a document by its shingle set alone ({@link ShingleSetCodec} payload), for {@link #mostContaining}, as a
     * pending entry; returns it.
     */
    public Entry addShingleSet(String scope, String id, String home, int scheme, byte[] shingleSet, long nowNanos) {
        return add(scope, id, home, scheme, 0, null, java.util.Objects.requireNonNull(shingleSet), nowNanos);
    }

    private synchronized Entry add(
            String scope,
            String id,
            String home,
            int scheme,
            long simhash,
            int[] signature,
            byte[] shingleSet,
            long nowNanos) {
        Entry entry = new Entry(scope, id, home, scheme, simhash, signature, shingleSet, nowNanos, arrivals++);
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

    /** The arrival the next entry will get: the bound for a document that has no entry of its own. */
    public synchronized long nextArrival() {
        return arrivals;
    }

    /**
     * Its document was accepted into {@code cluster} (of index {@code clusterIndex} where the lookup names one): later
     * documents may use a match with it.
     */
    public void accept(Entry entry, String cluster, String clusterIndex) {
        entry.decide(cluster, clusterIndex, false);
    }

    /** Its document was refused (its lookup failed): it leaves the window and no document may use a match with it. */
    public void withdraw(Entry entry) {
        synchronized (this) {
            entries.remove(entry);
        }
        entry.decide(null, null, true);
    }

    private void expire(long nowNanos) {
        while (entries.isEmpty() == false && nowNanos - entries.peekFirst().addedNanos > ttlNanos) {
            entries.removeFirst();
        }
    }

    /**
     * The closest recent simhash of {@code scope} within {@code maxDistance} bits that arrived before
     * {@code before}, other than document {@code id} of {@code home} or a withdrawn one; null if none.
     */
    public synchronized Match closestSimhash(
            String scope,
            String id,
            String home,
            int scheme,
            long simhash,
            int maxDistance,
            long before,
            long nowNanos) {
        expire(nowNanos);
        Entry best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) {
            Entry entry = it.next();
            if (entry.signature != null
                    || entry.shingleSet != null
                    || comparable(entry, scope, id, home, scheme, before) == false) {
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
     * The most similar recent signature of {@code scope} at or above {@code minSimilarity} that
     * arrived before {@code before}, other than document {@code id} of {@code home} or a withdrawn one: by the exact
     * Jaccard of the shingle sets where both have one, else by the estimate. Null if none.
     */
    public synchronized Match mostSimilarSignature(
            String scope,
            String id,
            String home,
            int scheme,
            int[] signature,
            byte[] shingleSet,
            double minSimilarity,
            long before,
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
                    || entry.signature.length != signature.length
                    || comparable(entry, scope, id, home, scheme, before) == false) {
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

    /**
     * The recent shingle set of {@code scope} with the highest exact containment, at least {@code minContainment}, that
     * arrived before {@code before}, other than document {@code id} of {@code home} or a withdrawn one; ties go to the smallest id.
     * With {@code documentInsideRecent} the containment is the document's set in the recent one's, else the recent
     * one's in the document's. Null if none. Exact: each entry of the right size is compared by one merge of the two
     * sets, stopped once it cannot reach c (an entry too small to hold ⌈c·|A|⌉ shingles of the contained side A is
     * refused on the sets' counts, before the merge).
     */
    public synchronized Match mostContaining(
            String scope,
            String id,
            String home,
            int scheme,
            byte[] shingleSet,
            boolean documentInsideRecent,
            double minContainment,
            long before,
            long nowNanos) {
        expire(nowNanos);
        int count = ShingleSetCodec.count(shingleSet, 0, shingleSet.length);
        Entry best = null;
        double bestContainment = -1;
        for (Entry entry : entries) {
            if (entry.shingleSet == null || comparable(entry, scope, id, home, scheme, before) == false) {
                continue;
            }
            int contained = documentInsideRecent ? count : entry.shingleCount;
            if (contained == 0) {
                continue;
            }
            double containment = documentInsideRecent
                    ? ShingleSetCodec.containmentIfAtLeast(
                            shingleSet,
                            0,
                            shingleSet.length,
                            entry.shingleSet,
                            0,
                            entry.shingleSet.length,
                            minContainment)
                    : ShingleSetCodec.containmentIfAtLeast(
                            entry.shingleSet,
                            0,
                            entry.shingleSet.length,
                            shingleSet,
                            0,
                            shingleSet.length,
                            minContainment);
            if (containment >= minContainment
                    && (containment > bestContainment
                            || (containment == bestContainment && entry.id.compareTo(best.id) < 0))) {
                best = entry;
                bestContainment = containment;
            }
        }
        return best == null ? null : new Match(best, bestContainment);
    }

    private static boolean comparable(Entry entry, String scope, String id, String home, int scheme, long before) {
        return entry.scheme == scheme
                && entry.arrival < before
                && entry.scope.equals(scope)
                && (entry.id.equals(id) && java.util.Objects.equals(entry.home, home)) == false
                && entry.withdrawn() == false;
    }
}
