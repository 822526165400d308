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
     * How much dearer a lookup is without the prefix index (two binary searches). Measured: PSM_A
     * k = 23 takes 7.9 µs instead of 3.4 µs, of which 1.1 µs is flip-set generation, so ~3x per
     * lookup (the top levels of the binary search stay cached). A slower accessor (doc values)
     * would need its own measurement.
     */
    public static final int UNINDEXED_LOOKUP_FACTOR = 3;

    /** No document excluded. */
    public static final int NO_DOC = -1;

    private final FlipSetGenerator generator = new FlipSetGenerator();
    private final double[] logFlip = new double[Margins.BITS];

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
        boolean stopAtFirst = params.mode() == Mode.PSM_F;
        generator.reset(logFlipProbabilities, p, h, params.k());
        int shift = 64 - p;
        while (generator.next()) {
            long flipped = query ^ generator.mask();
            if (lookup(table, query, flipped >>> shift, p, h, excludedDoc, out) && stopAtFirst) {
                return;
            }
        }
    }

    /** Looks up one prefix run and adds its matches; true if it added any. */
    private static boolean lookup(
            SortedFingerprints table, long query, long prefix, int p, int h, int excludedDoc, Matches out) {
        long run = table.run(prefix, p);
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

    private static void exact(SortedFingerprints table, long query, int h, int p, Matches out) {
        if (table == null || out == null) {
            throw new IllegalArgumentException("table and out must not be null");
        }
        if (exactUsesScan(table, p, h)) {
            LinearScan.search(table, query, h, out);
            return;
        }
        exhaustive(table, query, h, p, out);
    }

    /** Every flip set of size <= h within the p-bit prefix, looked up (EXACT without the scan fallback). */
    static void exhaustive(SortedFingerprints table, long query, int h, int p, Matches out) {
        long queryPrefix = query >>> (64 - p);
        int maxSize = Math.min(h, p);
        long limit = 1L << p;
        lookup(table, query, queryPrefix, p, h, NO_DOC, out);
        for (int size = 1; size <= maxSize; size++) {
            // Gosper's hack: every p-bit mask with exactly `size` bits, in increasing order.
            long comb = (1L << size) - 1;
            while (comb < limit) {
                lookup(table, query, queryPrefix ^ comb, p, h, NO_DOC, out);
                long c = comb & -comb;
                long r = comb + c;
                comb = (((r ^ comb) >>> 2) / c) | r;
            }
        }
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
