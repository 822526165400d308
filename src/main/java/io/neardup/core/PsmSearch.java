/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Online Probabilistic Simhash Matching (Sood, "Probabilistic Simhash Matching" (2011), ch. V-A): for each flip set the
 * {@link FlipSetGenerator} emits, flip those bits of the query's p-bit prefix, look up the run of
 * fingerprints with that prefix, and keep those within h bits of the query.
 *
 * <ul>
 *   <li>{@link Mode#PSM_A}: all matches found in the k most probable flip sets.</li>
 *   <li>{@link Mode#PSM_F}: stops after the first flip set whose run holds a match (and returns
 *       that run's matches). It returns something iff PSM_A with the same k does, so its recall
 *       is counted per query ("found a near duplicate"), PSM_A's per neighbour.</li>
 *   <li>{@link Mode#EXACT}: every flip set of size <= h within the prefix, in any order:
 *       {@code Σ_{i<=h} C(p, i)} lookups, recall 1 by construction (any fingerprint within h bits
 *       differs from the query in at most h prefix bits). When those lookups would cost more than
 *       comparing every fingerprint ({@link #exactUsesScan}), it scans instead.</li>
 * </ul>
 *
 * <p>Flip sets are distinct, so their prefixes and runs are disjoint: no match is reported twice.
 *
 * <p>Caps ({@link Params}): h <= {@value FlipSetGenerator#MAX_DISTANCE}, because beyond it every
 * exact layout degenerates (Σ C(20, i<=8) = 263,950 lookups at p = 20, and h + 1 = 9 multi-index
 * blocks of 7 bits leave ~8,000 candidates per table at n = 2^20) while at fixed k PSM's recall
 * falls with h; 64-bit simhash is used with h of 3 to 6 in the literature, and larger distances
 * are MinHash's job. k <= {@value FlipSetGenerator#MAX_K}; p in [1, {@value SortedFingerprints#MAX_PREFIX_BITS}].
 *
 * <p>Not thread-safe: holds the generator and scratch. Reuse one per thread; nothing is allocated
 * per query once warm (the {@link Matches} grows only when a query has more matches than before).
 */
public final class PsmSearch {

    public enum Mode {
        /** All matches within the k most probable flip sets. */
        PSM_A,
        /** The matches of the first flip set (of the k most probable) whose run holds one. */
        PSM_F,
        /** Recall 1: every flip set, or a linear scan where that is cheaper. */
        EXACT
    }

    /**
     * Validated search parameters (validate once, search many times).
     *
     * @param mode        which search
     * @param maxDistance h in [0, {@value FlipSetGenerator#MAX_DISTANCE}]
     * @param k           flip sets tried by PSM_A / PSM_F, in [1, {@value FlipSetGenerator#MAX_K}]
     *                    (ignored by EXACT)
     * @param prefixBits  p in [1, {@value SortedFingerprints#MAX_PREFIX_BITS}]; about log2 of the
     *                    table's size
     */
    public record Params(Mode mode, int maxDistance, int k, int prefixBits) {
        public Params {
            if (mode == null) {
                throw new IllegalArgumentException("mode must not be null");
            }
            if (maxDistance < 0 || maxDistance > FlipSetGenerator.MAX_DISTANCE) {
                throw new IllegalArgumentException(
                        "max_distance must be in [0, " + FlipSetGenerator.MAX_DISTANCE + "], got " + maxDistance);
            }
            if (k < 1 || k > FlipSetGenerator.MAX_K) {
                throw new IllegalArgumentException("k must be in [1, " + FlipSetGenerator.MAX_K + "], got " + k);
            }
            if (prefixBits < 1 || prefixBits > SortedFingerprints.MAX_PREFIX_BITS) {
                throw new IllegalArgumentException(
                        "prefix_bits must be in [1, " + SortedFingerprints.MAX_PREFIX_BITS + "], got " + prefixBits);
            }
        }
    }

    /**
     * Cost of one prefix lookup through the 2^p index, in units of fingerprints compared by a
     * linear scan. Measured with PsmBenchmark at n = 2^20 (docs/psm.md): EXACT's 1,351 indexed
     * lookups take 30.5 µs (22.5 ns each: cache misses in the index and the table), the scan
     * 568 µs (0.54 ns a fingerprint), a ratio of 42.
     */
    public static final int LOOKUP_COST_IN_SCANNED = 42;

    /**
     * How much dearer a lookup is without the prefix index (two binary searches). Measured with
     * PsmBenchmark (docs/psm.md): PSM_A k = 23 takes 7.9 µs instead of 3.4 µs, of which 1.1 µs is flip-set generation, so ~3x per
     * lookup (the top levels of the binary search stay cached). A slower accessor (doc values)
     * would need its own measurement.
     */
    public static final int UNINDEXED_LOOKUP_FACTOR = 3;

    /** No document excluded. */
    public static final int NO_DOC = -1;

    /**
     * Prefixes looked up together. In a table much larger than the processor's caches each lookup is two or three
     * cache and TLB misses (~250–300 ns at 10M fingerprints, most of a PSM search); looking up a batch of prefixes whose
     * addresses are all known lets the processor overlap those misses instead of waiting for each in turn.
     */
    static final int BATCH = 256;

    private final FlipSetGenerator generator = new FlipSetGenerator();
    private final double[] logFlip = new double[Margins.BITS];
    private final long[] batch = new long[BATCH];

    /** Searches with flip probabilities from the query's margins under {@code model}. */
    public void search(
            SortedFingerprints table, long query, Margins margins, FlipModel model, Params params, Matches out) {
        search(table, query, margins, model, params, NO_DOC, out);
    }

    /**
     * As {@link #search(SortedFingerprints, long, Margins, FlipModel, Params, Matches)}, never
     * reporting {@code excludedDoc}: the query's own document, which would otherwise end a PSM_F
     * search at the empty flip set.
     */
    public void search(
            SortedFingerprints table,
            long query,
            Margins margins,
            FlipModel model,
            Params params,
            int excludedDoc,
            Matches out) {
        if (params == null) {
            throw new IllegalArgumentException("params must not be null");
        }
        if (params.mode() == Mode.EXACT) {
            exact(table, query, params.maxDistance(), params.prefixBits(), out);
            return;
        }
        if (model == null) {
            throw new IllegalArgumentException("model must not be null");
        }
        model.logFlipProbabilities(margins, params.prefixBits(), logFlip);
        search(table, query, logFlip, params, excludedDoc, out);
    }

    /**
     * Searches with the given per-bit log flip probabilities ({@code logFlipProbabilities[i]} for
     * prefix index i, fingerprint bit {@code 63 - i}). Appends to {@code out} (does not clear it).
     */
    public void search(
            SortedFingerprints table, long query, double[] logFlipProbabilities, Params params, Matches out) {
        search(table, query, logFlipProbabilities, params, NO_DOC, out);
    }

    private void search(
            SortedFingerprints table,
            long query,
            double[] logFlipProbabilities,
            Params params,
            int excludedDoc,
            Matches out) {
        if (table == null || out == null || params == null) {
            throw new IllegalArgumentException("table, params and out must not be null");
        }
        int p = params.prefixBits();
        int h = params.maxDistance();
        if (params.mode() == Mode.EXACT) {
            exact(table, query, h, p, out);
            return;
        }
        generator.reset(logFlipProbabilities, p, h, params.k());
        int shift = 64 - p;
        if (params.mode() == Mode.PSM_F) {
            // One run at a time: the search ends at the first run holding a match.
            while (generator.next()) {
                if (lookup(table, query, (query ^ generator.mask()) >>> shift, p, h, excludedDoc, out)) {
                    return;
                }
            }
            return;
        }
        int pending = 0;
        while (generator.next()) {
            if (pending == BATCH) {
                lookupBatch(table, query, batch, pending, p, h, excludedDoc, out);
                pending = 0;
            }
            batch[pending++] = (query ^ generator.mask()) >>> shift;
        }
        lookupBatch(table, query, batch, pending, p, h, excludedDoc, out);
    }

    /**
     * Looks up {@code count} distinct prefixes (their runs are disjoint) and adds their matches. All runs are found
     * first, so their index reads are independent of each other, then read in ascending position: a reader that only
     * moves forward (doc values) never starts over, and neighbouring runs share cache lines. Overwrites
     * {@code prefixes} with the runs.
     */
    private static void lookupBatch(
            SortedFingerprints table,
            long query,
            long[] prefixes,
            int count,
            int p,
            int h,
            int excludedDoc,
            Matches out) {
        for (int i = 0; i < count; i++) {
            prefixes[i] = table.run(prefixes[i], p);
        }
        sort(prefixes, count); // packed runs sort by their start
        for (int i = 0; i < count; i++) {
            scan(table, query, prefixes[i], h, excludedDoc, out);
        }
    }

    /** Heapsort of {@code a[0, n)}, ascending, in place: the JDK's sort allocates when its input holds ascending runs. */
    static void sort(long[] a, int n) {
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(a, i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            long top = a[0];
            a[0] = a[end];
            a[end] = top;
            siftDown(a, 0, end);
        }
    }

    private static void siftDown(long[] a, int i, int n) {
        long v = a[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && a[child + 1] > a[child]) {
                child++;
            }
            if (a[child] <= v) {
                break;
            }
            a[i] = a[child];
            i = child;
        }
        a[i] = v;
    }

    /** Looks up one prefix run and adds its matches; true if it added any. */
    private static boolean lookup(
            SortedFingerprints table, long query, long prefix, int p, int h, int excludedDoc, Matches out) {
        return scan(table, query, table.run(prefix, p), h, excludedDoc, out);
    }

    /** Adds the matches of one run; true if it added any. */
    private static boolean scan(SortedFingerprints table, long query, long run, int h, int excludedDoc, Matches out) {
        int start = SortedFingerprints.runStart(run);
        int end = SortedFingerprints.runEnd(run);
        out.countLookup();
        out.countCandidates(end - start);
        boolean found = false;
        for (int i = start; i < end; i++) {
            int d = Long.bitCount(table.fingerprintAt(i) ^ query);
            if (d <= h && table.docAt(i) != excludedDoc) {
                out.add(table.docAt(i), d);
                found = true;
            }
        }
        return found;
    }

    private void exact(SortedFingerprints table, long query, int h, int p, Matches out) {
        if (table == null || out == null) {
            throw new IllegalArgumentException("table and out must not be null");
        }
        if (exactUsesScan(table, p, h)) {
            LinearScan.search(table, query, h, out);
            return;
        }
        exhaustive(table, query, h, p, out, batch);
    }

    /** Every flip set of size <= h within the p-bit prefix, looked up (EXACT without the scan fallback). */
    static void exhaustive(SortedFingerprints table, long query, int h, int p, Matches out, long[] batch) {
        long queryPrefix = query >>> (64 - p);
        int maxSize = Math.min(h, p);
        long limit = 1L << p;
        batch[0] = queryPrefix;
        int pending = 1;
        for (int size = 1; size <= maxSize; size++) {
            // Gosper's hack: every p-bit mask with exactly `size` bits, in increasing order.
            long comb = (1L << size) - 1;
            while (comb < limit) {
                if (pending == batch.length) {
                    lookupBatch(table, query, batch, pending, p, h, NO_DOC, out);
                    pending = 0;
                }
                batch[pending++] = queryPrefix ^ comb;
                long c = comb & -comb;
                long r = comb + c;
                comb = (((r ^ comb) >>> 2) / c) | r;
            }
        }
        lookupBatch(table, query, batch, pending, p, h, NO_DOC, out);
    }

    /** {@code Σ_{i <= min(h, p)} C(p, i)}: the lookups of an exhaustive search (and the k at which PSM_A is exact). */
    public static long exhaustiveLookups(int prefixBits, int maxDistance) {
        long total = 0;
        long c = 1;
        for (int i = 0; i <= Math.min(maxDistance, prefixBits); i++) {
            total += c;
            c = c * (prefixBits - i) / (i + 1);
        }
        return total;
    }

    /** Whether EXACT mode scans: its lookups, priced in scanned fingerprints, exceed the table's size. */
    public static boolean exactUsesScan(SortedFingerprints table, int prefixBits, int maxDistance) {
        int n = table.size();
        long perLookup = (long) LOOKUP_COST_IN_SCANNED * table.lookupCostFactor();
        return exhaustiveLookups(prefixBits, maxDistance) * perLookup > n;
    }
}
