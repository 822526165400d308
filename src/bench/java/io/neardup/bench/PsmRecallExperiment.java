/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import io.neardup.core.FlipModel;
import io.neardup.core.FlipSetGenerator;
import io.neardup.core.LinearScan;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.PsmSearch;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Recall of PSM_A and PSM_F against EXACT as a function of k, on {@link SyntheticCorpus}, h = 3,
 * p = log2 n. Prints markdown (docs/psm.md).
 *
 * <p>Recall of PSM_A is per neighbour: the share of (query, fingerprint within h) pairs found.
 * Recall of PSM_F is per query: the share of queries having a neighbour for which it finds one
 * (PSM_F finds one iff PSM_A with the same k does). For each query and model the flip sets are
 * generated once, up to {@code Σ C(p, i<=h)}, and each neighbour's rank is the position of the
 * flip set equal to its prefix difference; recall at k is then the share of ranks <= k. That is
 * cross-checked against real {@link PsmSearch} runs at every k printed (it fails loudly on a
 * mismatch), and EXACT against {@link LinearScan} on the first 200 queries.
 *
 * <p>Run (from the project root, after test-compile):
 * <pre>
 * java -cp "$(cat /tmp/h4-target/cp.txt):/tmp/h4-target/test-classes:/tmp/h4-target/classes" \
 *   io.neardup.bench.PsmRecallExperiment 20 20000 1
 * </pre>
 * arguments: log2 n, number of queries, seed.
 */
public final class PsmRecallExperiment {
    static final int[] KS = {1, 2, 4, 8, 15, 23, 32, 64, 128, 256};

    public static void main(String[] args) {
        int log2n = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
        int h = 3;
        int n = 1 << log2n;
        int p = log2n;

        long t0 = System.nanoTime();
        SyntheticCorpus corpus = SyntheticCorpus.loadOrBuild(n, queries, seed);
        System.out.printf(
                Locale.ROOT,
                "## n = 2^%d (%,d fingerprints), %,d queries, h = %d, p = %d, seed %d%n%n",
                log2n,
                n,
                queries,
                h,
                p,
                seed);
        System.out.printf(Locale.ROOT, "corpus ready in %.0f s%n%n", (System.nanoTime() - t0) / 1e9);
        int[] docs = new int[n];
        Arrays.setAll(docs, i -> i);
        SortedFingerprintTable table = SortedFingerprintTable.build(corpus.table, docs, n, p);
        spread(table, corpus.table, p);

        // Ground truth: EXACT (exhaustive flips), checked against a linear scan.
        PsmSearch search = new PsmSearch();
        Matches out = new Matches();
        Matches scan = new Matches();
        PsmSearch.Params exact = new PsmSearch.Params(PsmSearch.Mode.EXACT, h, 1, p);
        long[][] neighbours = new long[queries][];
        int[] byDistance = new int[h + 1];
        int withNeighbour = 0;
        int plantedFound = 0;
        long pairs = 0;
        for (int q = 0; q < queries; q++) {
            out.clear();
            search.search(table, corpus.queries[q], corpus.queryMargins[q], null, exact, out);
            if (q < 200) {
                scan.clear();
                LinearScan.search(corpus.table, docs, n, corpus.queries[q], h, scan);
                if (!Arrays.equals(scan.sortedDocs(), out.sortedDocs())) {
                    throw new AssertionError("EXACT differs from a linear scan at query " + q);
                }
            }
            neighbours[q] = new long[out.size()];
            for (int i = 0; i < out.size(); i++) {
                neighbours[q][i] = corpus.table[out.doc(i)];
                byDistance[out.distance(i)]++;
                if (out.doc(i) == corpus.queryOrigin[q]) {
                    plantedFound++;
                }
            }
            pairs += out.size();
            if (out.size() > 0) {
                withNeighbour++;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "ground truth: %,d of %,d queries have a neighbour within %d bits (%,d pairs; "
                        + "the query's own original is within %d bits for %,d queries); pairs by distance 0..%d: %s%n%n",
                withNeighbour,
                queries,
                h,
                pairs,
                h,
                plantedFound,
                h,
                Arrays.toString(byDistance));

        List<FlipModel> models = List.of(
                FlipModel.uniform(),
                FlipModel.marginComplement(),
                FlipModel.gaussian(0.1),
                FlipModel.gaussian(0.2),
                FlipModel.gaussian(0.3),
                FlipModel.gaussian(0.5),
                FlipModel.gaussian(1.0),
                FlipModel.gaussian(2.0),
                mirrored(FlipModel.marginComplement()));
        StringBuilder header = new StringBuilder("| ordering | recall |");
        StringBuilder rule = new StringBuilder("|---|---|");
        for (int k : KS) {
            header.append(" k=").append(k).append(" |");
            rule.append("---|");
        }
        header.append(" k for 0.95 / 0.99 |");
        rule.append("---|");
        System.out.println(header);
        System.out.println(rule);
        List<String> byDistanceRows = new ArrayList<>();
        for (FlipModel model : models) {
            long m0 = System.nanoTime();
            int maxK = (int) PsmSearch.exhaustiveLookups(p, h);
            List<Integer> pairRanks = new ArrayList<>();
            List<Integer> queryRanks = new ArrayList<>();
            List<List<Integer>> ranksByDistance = new ArrayList<>();
            for (int d = 0; d <= h; d++) {
                ranksByDistance.add(new ArrayList<>());
            }
            FlipSetGenerator g = new FlipSetGenerator();
            double[] logP = new double[64];
            long prefixMask = -1L << (64 - p);
            for (int q = 0; q < queries; q++) {
                long[] nb = neighbours[q];
                if (nb.length == 0) {
                    continue;
                }
                long query = corpus.queries[q];
                model.logFlipProbabilities(corpus.queryMargins[q], p, logP);
                g.reset(logP, p, h, maxK);
                int[] rank = new int[nb.length];
                int remaining = nb.length;
                while (remaining > 0 && g.next()) {
                    long mask = g.mask();
                    for (int i = 0; i < nb.length; i++) {
                        if (rank[i] == 0 && ((nb[i] ^ query) & prefixMask) == mask) {
                            rank[i] = g.emitted();
                            remaining--;
                        }
                    }
                }
                if (remaining > 0) {
                    throw new AssertionError("query " + q + ": a neighbour's flip set was never generated");
                }
                int best = Integer.MAX_VALUE;
                for (int i = 0; i < nb.length; i++) {
                    pairRanks.add(rank[i]);
                    ranksByDistance.get(Long.bitCount(nb[i] ^ query)).add(rank[i]);
                    best = Math.min(best, rank[i]);
                }
                queryRanks.add(best);
            }
            crossCheck(search, table, corpus, neighbours, model, h, p, pairRanks, queryRanks);
            System.out.println(row(model.name(), "PSM_A (pairs)", pairRanks));
            System.out.println(row(model.name(), "PSM_F (queries)", queryRanks));
            StringBuilder dist = new StringBuilder("| " + model.name() + " |");
            for (int d = 0; d <= h; d++) {
                dist.append(' ').append(kFor(ranksByDistance.get(d), 0.95)).append(" |");
            }
            byDistanceRows.add(dist.toString());
            System.err.printf(Locale.ROOT, "  %s: %.1f s%n", model.name(), (System.nanoTime() - m0) / 1e9);
        }
        System.out.println();
        System.out.println("k for PSM_A recall 0.95 by distance of the neighbour:");
        System.out.println();
        StringBuilder dh = new StringBuilder("| ordering |");
        StringBuilder dr = new StringBuilder("|---|");
        for (int d = 0; d <= h; d++) {
            dh.append(" d=").append(d).append(" |");
            dr.append("---|");
        }
        System.out.println(dh);
        System.out.println(dr);
        byDistanceRows.forEach(System.out::println);
        System.out.printf(Locale.ROOT, "%ntotal %.0f s%n", (System.nanoTime() - t0) / 1e9);
    }

    /** Runs the real searches at every printed k and compares with the rank-derived counts. */
    private static void crossCheck(
            PsmSearch search,
            SortedFingerprints table,
            SyntheticCorpus corpus,
            long[][] neighbours,
            FlipModel model,
            int h,
            int p,
            List<Integer> pairRanks,
            List<Integer> queryRanks) {
        Matches out = new Matches();
        for (int k : KS) {
            PsmSearch.Params a = new PsmSearch.Params(PsmSearch.Mode.PSM_A, h, k, p);
            PsmSearch.Params f = new PsmSearch.Params(PsmSearch.Mode.PSM_F, h, k, p);
            long foundPairs = 0;
            long foundQueries = 0;
            for (int q = 0; q < corpus.queries.length; q++) {
                if (neighbours[q].length == 0) {
                    continue;
                }
                out.clear();
                search.search(table, corpus.queries[q], corpus.queryMargins[q], model, a, out);
                foundPairs += out.size();
                out.clear();
                search.search(table, corpus.queries[q], corpus.queryMargins[q], model, f, out);
                foundQueries += out.size() > 0 ? 1 : 0;
            }
            long expectedPairs = pairRanks.stream().filter(r -> r <= k).count();
            long expectedQueries = queryRanks.stream().filter(r -> r <= k).count();
            if (foundPairs != expectedPairs || foundQueries != expectedQueries) {
                throw new AssertionError(model.name() + " k=" + k + ": search found " + foundPairs + " pairs / "
                        + foundQueries + " queries, ranks say " + expectedPairs + " / " + expectedQueries);
            }
        }
    }

    private static String row(String model, String what, List<Integer> ranks) {
        StringBuilder sb = new StringBuilder("| " + model + " | " + what + " |");
        for (int k : KS) {
            long found = ranks.stream().filter(r -> r <= k).count();
            sb.append(String.format(Locale.ROOT, " %.3f |", (double) found / ranks.size()));
        }
        sb.append(' ')
                .append(kFor(ranks, 0.95))
                .append(" / ")
                .append(kFor(ranks, 0.99))
                .append(" |");
        return sb.toString();
    }

    /** The smallest k with recall >= target. */
    static int kFor(List<Integer> ranks, double target) {
        if (ranks.isEmpty()) {
            return 0;
        }
        int[] sorted = ranks.stream().mapToInt(Integer::intValue).sorted().toArray();
        int need = (int) Math.ceil(target * sorted.length);
        return sorted[Math.max(0, need - 1)];
    }

    /** How fingerprints spread over prefixes (on synthetic text, the weighting decides everything). */
    private static void spread(SortedFingerprintTable table, long[] fps, int p) {
        int empty = 0;
        long nonEmpty = 0;
        int maxRun = 0;
        for (int b = 0; b < 1 << p; b++) {
            long run = table.run(b);
            int len = SortedFingerprints.runEnd(run) - SortedFingerprints.runStart(run);
            if (len == 0) {
                empty++;
            } else {
                nonEmpty++;
            }
            maxRun = Math.max(maxRun, len);
        }
        java.util.SplittableRandom random = new java.util.SplittableRandom(9);
        long sum = 0;
        int within3 = 0;
        int samples = 100_000;
        for (int i = 0; i < samples; i++) {
            int d = Long.bitCount(fps[random.nextInt(fps.length)] ^ fps[random.nextInt(fps.length)]);
            sum += d;
            within3 += d <= 3 ? 1 : 0;
        }
        System.out.printf(
                Locale.ROOT,
                "spread: %.1f%% of the 2^%d prefixes empty (%.1f%% for random fingerprints), "
                        + "%.2f entries per non-empty run, longest run %d; random pairs: mean distance %.2f bits, %.4f%% within 3%n%n",
                100.0 * empty / (1 << p),
                p,
                100.0 * Math.exp(-(double) fps.length / (1 << p)),
                (double) fps.length / nonEmpty,
                maxRun,
                (double) sum / samples,
                100.0 * within3 / samples);
    }

    /** The classic bug: margin(i) read for fingerprint bit i instead of 63 - i. */
    private static FlipModel mirrored(FlipModel model) {
        return new FlipModel() {
            @Override
            public void logFlipProbabilities(Margins margins, int prefixBits, double[] out) {
                byte[] b = margins.toBytes();
                byte[] rev = new byte[b.length];
                for (int i = 0; i < b.length; i++) {
                    rev[i] = b[b.length - 1 - i];
                }
                model.logFlipProbabilities(Margins.ofQuantized(rev), prefixBits, out);
            }

            @Override
            public String name() {
                return model.name() + " mirrored (bug)";
            }
        };
    }
}
