/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.core.Murmur3;
import io.neardup.core.ShingleHasher;
import io.neardup.core.TokenHasher;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;

/**
 * Quality of the MinHash side of the {@code near_duplicate} query on the man-pages corpus, computed
 * in-process from the signatures (no node): precision / recall / F1 of the query rule against the
 * exact Jaccard similarity, the empirical LSH S-curve against the theoretical one, and Broder's
 * "k-similar" (super-shingle) rule.
 *
 * <p>Truth: the exact Jaccard similarity of the documents' sets of distinct 3-token shingle hashes
 * ({@link TokenHasher} and {@link ShingleHasher}, seed 0, tokens from Lucene's StandardAnalyzer =
 * OpenSearch's {@code standard}): exactly the set the {@link Fingerprinter}'s MinHash side hashes.
 * The tool checks that for every document {@link Fingerprinter#finish()} (default scheme) gives
 * the same signature as {@link MinHasher} over that set. All unordered pairs are visited: an
 * inverted index over shingle hashes counts the intersections, and every pair's signatures are
 * compared; pairs with Jaccard 0 that share no signature value are true negatives everywhere.
 *
 * <p>The query rule (as {@code MinhashSimilarityQuery}): a document is a candidate iff it shares at
 * least m = {@code min_band_matches} LSH bands with the query document (band i = values
 * {@code [i*r, (i+1)*r)} all equal; compared here via the mapper's band key, murmur3-64 of the
 * band's big-endian int32 values), and is returned iff also its estimate (equal values / 128) is
 * {@code >= tau}. Truth positive: Jaccard {@code >= tau}. Counted over unordered pairs.
 *
 * <p>Command line (from the project root):
 * <pre>
 * export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow
 * mvn -B -o -Dbuild.dir=/tmp/h7-target test-compile
 * mvn -B -o -Dbuild.dir=/tmp/h7-target dependency:build-classpath -Dmdep.outputFile=/tmp/h7-cp.txt -Dmdep.includeScope=test
 * $JAVA_HOME/bin/java -Xmx2g -cp /tmp/h7-target/classes:/tmp/h7-target/test-classes:$(cat /tmp/h7-cp.txt) \
 *     io.neardup.bench.MinhashEvaluation ../shared/corpus/manpages.jsonl.gz \
 *     [--out /tmp/h7-minhash.md] [--csv docs/minhash-scurve.csv] [--seeds 0,1,2,3,4] [--num-hashes 128] \
 *     [--truth-out /tmp/h7-truth.tsv]
 * /usr/bin/python3 docs/plot_minhash.py docs/minhash-scurve.csv docs/minhash-scurve.png
 * </pre>
 * {@code --num-hashes}: signature length (default 128 = the default scheme; other lengths skip the
 * processor check and the super-shingle bandings). {@code --truth-out}: writes every pair with
 * Jaccard >= 0.5 as {@code i<TAB>j<TAB>jaccard} (line numbers in the corpus) for
 * {@code docs/minhash_speed.py}. {@code --seeds}: extra MinHash seeds for the tau = 0.8 F1 rows (the variation of the result with
 * the hash functions; seed 0 is the shipped default). Single-threaded, about a minute.
 */
public final class MinhashEvaluation {
    private static int K = 128;
    private static final int SHINGLE = 3;
    private static final double[] TAUS = {0.5, 0.7, 0.8, 0.9};
    private static final int SBINS = 20;
    /** Pairs below these are negatives of every rule evaluated here and are not stored. */
    private static final double STORE_JACCARD = 0.4;

    private static final int STORE_EQUAL = 48;

    /** One stored pair: the two docs, the exact Jaccard, equal values and band matches per method and banding. */
    private static final class Pairs {
        int size;
        int[] a = new int[1 << 16], b = new int[1 << 16];
        double[] jac = new double[1 << 16];
        short[][] eq = new short[2][1 << 16];
        byte[][][] bands; // [method][banding][pair]

        Pairs(int bandings) {
            bands = new byte[2][bandings][1 << 16];
        }

        void add(int x, int y, double j, int[] eqs, int[][] mb) {
            if (size == a.length) {
                int cap = size * 2;
                a = Arrays.copyOf(a, cap);
                b = Arrays.copyOf(b, cap);
                jac = Arrays.copyOf(jac, cap);
                for (int m = 0; m < 2; m++) {
                    eq[m] = Arrays.copyOf(eq[m], cap);
                    for (int k = 0; k < bands[m].length; k++) {
                        bands[m][k] = Arrays.copyOf(bands[m][k], cap);
                    }
                }
            }
            a[size] = x;
            b[size] = y;
            jac[size] = j;
            for (int m = 0; m < 2; m++) {
                eq[m][size] = (short) eqs[m];
                for (int k = 0; k < bands[m].length; k++) {
                    bands[m][k][size] = (byte) mb[m][k];
                }
            }
            size++;
        }

        double jac(int p) {
            return jac[p];
        }

        int eq(int method, int p) {
            return eq[method][p];
        }
    }

    /** Result of one pass over all pairs with one MinHash seed. */
    private record Pass(
            Pairs pairs,
            long[][][] scurveCount,
            double[][] scurveTheory,
            long[] binPairs,
            long zeroJaccardCandidates,
            long jaccardPositivePairs,
            double seconds) {}

    private static final String[] METHOD = {"one_permutation", "classic"};

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length % 2 != 1) {
            System.err.println(
                    "usage: MinhashEvaluation <manpages.jsonl.gz> [--out out.md] [--csv scurve.csv] [--seeds 0,1,2]");
            System.exit(2);
        }
        Path corpus = Path.of(args[0]);
        PrintStream out = System.out;
        Path csv = null;
        long[] extraSeeds = {};
        Path truthOut = null;
        for (int a = 1; a < args.length; a += 2) {
            switch (args[a]) {
                case "--out" ->
                    out = new PrintStream(Files.newOutputStream(Path.of(args[a + 1])), true, StandardCharsets.UTF_8);
                case "--csv" -> csv = Path.of(args[a + 1]);
                case "--truth-out" -> truthOut = Path.of(args[a + 1]);
                case "--num-hashes" -> K = Integer.parseInt(args[a + 1]);
                case "--seeds" ->
                    extraSeeds = Arrays.stream(args[a + 1].split(","))
                            .mapToLong(Long::parseLong)
                            .toArray();
                default -> throw new IllegalArgumentException("unknown option " + args[a]);
            }
        }
        long t0 = System.nanoTime();
        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        int n = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        Corpus.Tokens[] tokens = new Corpus.Tokens[n];
        long[][] sets = new long[n][];
        TokenHasher th = new TokenHasher(0);
        ShingleHasher sh = new ShingleHasher(SHINGLE, 0);
        long totalShingles = 0;
        int empty = 0;
        for (int i = 0; i < n; i++) {
            tokens[i] = Corpus.tokenize(analyzer, docs.get(i).text());
            sets[i] = ManpagesEvaluation.shingleSet(tokens[i], th, sh);
            totalShingles += sets[i].length;
            if (sets[i].length == 0) {
                empty++;
            }
        }
        String[] group = docs.stream().map(Corpus.Doc::group).toArray(String[]::new);

        boolean defaultScheme = K == 128;
        // The system's signatures, from the processor's own code path, must equal MinHash over the truth's sets.
        Fingerprinter fpr = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        MinHasher oph0 = MinHasher.of(K, 0L, MinHasher.Method.ONE_PERMUTATION);
        int mismatches = 0;
        for (int i = 0; i < n && defaultScheme; i++) {
            fpr.reset();
            Corpus.Tokens t = tokens[i];
            for (int k = 0; k < t.size(); k++) {
                fpr.token(t.chars(), t.start(k), t.length(k));
            }
            Fingerprint f = fpr.finish();
            if (!Arrays.equals(f.minhash(), oph0.signature(sets[i], sets[i].length))) {
                mismatches++;
            }
        }

        // Inverted index: dictionary of shingle hashes, CSR postings (doc ids ascending).
        Corpus.Postings index = Corpus.Postings.of(sets);
        int[][] ids = index.ids();
        int[] df = index.df();
        int[] start = index.start();
        int[] postings = index.postings();
        double work = 0;
        for (int d : df) {
            work += (double) d * (d - 1) / 2;
        }

        // Bandings.
        Map<String, LshBanding> bandings = new LinkedHashMap<>();
        LshBanding def = LshBanding.optimal(0.8, K);
        out.printf(
                Locale.ROOT,
                "num_hashes: %d%s.%n%n",
                K,
                defaultScheme ? " (the default scheme)" : " (NOT the default; the signature check is skipped)");
        bandings.put("default", def);
        for (double tau : TAUS) {
            bandings.put("opt" + tau, LshBanding.optimal(tau, K));
            bandings.put("fn" + tau, LshBanding.optimal(tau, K, 0.2, 0.8));
        }
        bandings.put("fn0.8/0.3", LshBanding.optimal(0.8, K, 0.3, 0.7));
        bandings.put("fn0.8/0.1", LshBanding.optimal(0.8, K, 0.1, 0.9));
        if (K >= 128) {
            bandings.put("6x14", new LshBanding(6, 14));
            bandings.put("16x8", new LshBanding(16, 8));
        }
        List<LshBanding> distinct = bandings.values().stream().distinct().toList();

        Pass main = pass(sets, ids, start, postings, distinct, 0L, true);

        out.println("# MinhashEvaluation output");
        out.println();
        out.printf(
                Locale.ROOT,
                "Corpus: %s: %d docs (%d without shingles), %d distinct-shingle entries, %d distinct shingles; "
                        + "inverted-index pair work %.3g; pairs: %d total, %d with Jaccard > 0, %d stored (Jaccard >= %.1f, or >= %d equal "
                        + "values, or a shared band). Signature check: the processor's Fingerprinter (default scheme) and MinHasher over the "
                        + "truth's shingle sets differ on %d of %d documents. Pass time %.1f s.%n%n",
                corpus,
                n,
                empty,
                totalShingles,
                index.dictionarySize(),
                work,
                (long) n * (n - 1) / 2,
                main.jaccardPositivePairs,
                main.pairs.size,
                STORE_JACCARD,
                STORE_EQUAL,
                mismatches,
                n,
                main.seconds);

        // Bandings table.
        out.println("## Bandings");
        out.println();
        out.println(
                "| name | bands x rows | values used | P(candidate) at 0.5 / 0.7 / 0.8 / 0.9 | S-curve midpoint (1/b)^(1/r) | FP area / FN area at 0.8 |");
        out.println("|---|---|---|---|---|---|");
        for (Map.Entry<String, LshBanding> e : bandings.entrySet()) {
            LshBanding bd = e.getValue();
            out.printf(
                    Locale.ROOT,
                    "| %s | %d x %d | %d | %.3f / %.3f / %.3f / %.3f | %.3f | %.4f / %.4f |%n",
                    e.getKey(),
                    bd.bands(),
                    bd.rows(),
                    bd.bands() * bd.rows(),
                    bd.candidateProbability(0.5),
                    bd.candidateProbability(0.7),
                    bd.candidateProbability(0.8),
                    bd.candidateProbability(0.9),
                    Math.pow(1.0 / bd.bands(), 1.0 / bd.rows()),
                    LshBanding.falsePositiveArea(0.8, bd.bands(), bd.rows()),
                    LshBanding.falseNegativeArea(0.8, bd.bands(), bd.rows()));
        }
        out.println();

        // (3) P/R/F1 of the query rule.
        out.println("## Query rule: candidate (m = 1) AND estimate >= tau, against Jaccard >= tau");
        out.println();
        out.println(
                "`none`: no banding, every pair verified (the estimator alone; the ceiling for any banding). `candidates`: pairs "
                        + "sharing >= 1 band (the verification work).");
        out.println();
        out.println("| tau | banding | method | truth pairs | candidates | returned | TP | precision | recall | F1 |");
        out.println("|---|---|---|---|---|---|---|---|---|---|");
        for (double tau : TAUS) {
            List<String> names = new ArrayList<>(List.of("opt" + tau, "default", "fn" + tau));
            if (tau == 0.8) {
                names.add("fn0.8/0.3");
                names.add("fn0.8/0.1");
            }
            names.add("none");
            List<String> seen = new ArrayList<>();
            for (String name : names) {
                LshBanding bd = bandings.get(name);
                String key = bd == null ? "none" : bd.toString();
                if (seen.contains(key)) {
                    continue;
                }
                seen.add(key);
                for (int m = 0; m < 2; m++) {
                    long[] c = prf(main.pairs, m, bd == null ? -1 : distinct.indexOf(bd), tau, 1);
                    out.println(
                            prfRow(tau, name + (bd == null ? "" : " " + bd.bands() + "x" + bd.rows()), METHOD[m], c));
                }
            }
        }
        out.println();

        // Seeds.
        List<Pass> seedPasses = new ArrayList<>();
        if (extraSeeds.length > 0) {
            out.println("## tau = 0.8 over MinHash seeds (one_permutation)");
            out.println();
            out.println("| seed | banding | truth pairs | candidates | returned | TP | precision | recall | F1 |");
            out.println("|---|---|---|---|---|---|---|---|---|");
            List<LshBanding> b08 = List.of(def, bandings.get("fn0.8"), bandings.get("fn0.8/0.1"));
            List<LshBanding> b08d = b08.stream().distinct().toList();
            for (long seed : extraSeeds) {
                // The shingle hashes keep seed 0 (they are the truth); only the MinHash functions change.
                Pass p = seed == 0 ? main : pass(sets, ids, start, postings, b08d, seed, true);
                seedPasses.add(p);
                List<LshBanding> idx = seed == 0 ? distinct : b08d;
                for (LshBanding bd : b08d) {
                    long[] c = prf(p.pairs, 0, idx.indexOf(bd), 0.8, 1);
                    out.printf(
                            Locale.ROOT,
                            "| %d | %dx%d | %d | %d | %d | %d | %.4f | %.4f | %.4f |%n",
                            seed,
                            bd.bands(),
                            bd.rows(),
                            c[0],
                            c[3],
                            c[1],
                            c[2],
                            prec(c),
                            rec(c),
                            f1(c));
                }
                long[] c = prf(p.pairs, 0, -1, 0.8, 1);
                out.printf(
                        Locale.ROOT,
                        "| %d | none | %d | - | %d | %d | %.4f | %.4f | %.4f |%n",
                        seed,
                        c[0],
                        c[1],
                        c[2],
                        prec(c),
                        rec(c),
                        f1(c));
            }
            out.println();
        }

        // (4) S-curve.
        out.println("## S-curve: P(candidate, m = 1) against exact Jaccard");
        out.println();
        out.println(
                "Pairs with Jaccard > 0 in bins of 0.05 (the last bin includes 1.0). `theory`: 1 - (1 - s^r)^b averaged over the "
                        + "bin's pairs. Pairs with Jaccard 0 that became candidates: " + main.zeroJaccardCandidates
                        + ".");
        out.println();
        List<LshBanding> curves = List.of(def, bandings.get("fn0.8"), bandings.get("opt0.9"));
        StringBuilder head = new StringBuilder("| Jaccard | pairs |");
        StringBuilder line = new StringBuilder("|---|---|");
        for (LshBanding bd : curves.stream().distinct().toList()) {
            String t = bd.bands() + "x" + bd.rows();
            head.append(" ")
                    .append(t)
                    .append(" oph | ")
                    .append(t)
                    .append(" classic | ")
                    .append(t)
                    .append(" theory |");
            line.append("---|---|---|");
        }
        if (!seedPasses.isEmpty()) {
            head.append(" ")
                    .append(def.bands())
                    .append("x")
                    .append(def.rows())
                    .append(" oph, mean of ")
                    .append(seedPasses.size())
                    .append(" seeds | classic, mean of ")
                    .append(seedPasses.size())
                    .append(" seeds |");
            line.append("---|---|");
        }
        out.println(head);
        out.println(line);
        for (int bin = 0; bin < SBINS; bin++) {
            long np = main.binPairs[bin];
            StringBuilder row = new StringBuilder(
                    String.format(Locale.ROOT, "| %.2f-%.2f | %d |", bin / 20.0, (bin + 1) / 20.0, np));
            for (LshBanding bd : curves.stream().distinct().toList()) {
                int k = distinct.indexOf(bd);
                row.append(String.format(
                        Locale.ROOT,
                        " %.4f | %.4f | %.4f |",
                        ratio(main.scurveCount[0][k][bin], np),
                        ratio(main.scurveCount[1][k][bin], np),
                        np == 0 ? Double.NaN : main.scurveTheory[k][bin] / np));
            }
            if (!seedPasses.isEmpty()) {
                row.append(String.format(
                        Locale.ROOT,
                        " %.4f | %.4f |",
                        seedMean(seedPasses, 0, bin, np),
                        seedMean(seedPasses, 1, bin, np)));
            }
            out.println(row);
        }
        out.println();
        out.println(
                "By the size of the union of the two shingle sets (default banding " + def.bands() + "x" + def.rows()
                        + "; from the stored pairs, which include every pair with Jaccard >= " + STORE_JACCARD
                        + "), seed 0: one-permutation "
                        + "hashing samples the union without replacement, which would make r equal values in a row rarer than s^r for small unions; "
                        + "compare the columns to see whether it shows.");
        out.println();
        int[] unionEdges = {0, 256, 1024, Integer.MAX_VALUE};
        StringBuilder uh = new StringBuilder("| Jaccard |");
        StringBuilder ul = new StringBuilder("|---|");
        for (int u = 0; u + 1 < unionEdges.length; u++) {
            String t = unionEdges[u + 1] == Integer.MAX_VALUE
                    ? "union >= " + unionEdges[u]
                    : "union " + unionEdges[u] + "-" + (unionEdges[u + 1] - 1);
            uh.append(" ").append(t).append(": pairs | oph | classic | theory |");
            ul.append("---|---|---|---|");
        }
        out.println(uh);
        out.println(ul);
        int dk = distinct.indexOf(def);
        for (int bin = 12; bin < SBINS; bin++) {
            StringBuilder row =
                    new StringBuilder(String.format(Locale.ROOT, "| %.2f-%.2f |", bin / 20.0, (bin + 1) / 20.0));
            for (int u = 0; u + 1 < unionEdges.length; u++) {
                long np = 0, co = 0, cc = 0;
                double th2 = 0;
                for (int p = 0; p < main.pairs.size; p++) {
                    double j = main.pairs.jac(p);
                    if (Math.min(SBINS - 1, (int) Math.floor(j * SBINS)) != bin) {
                        continue;
                    }
                    int x = main.pairs.a[p], y = main.pairs.b[p];
                    long union = Math.round((sets[x].length + sets[y].length) / (1 + j));
                    if (union < unionEdges[u] || union >= unionEdges[u + 1]) {
                        continue;
                    }
                    np++;
                    co += main.pairs.bands[0][dk][p] > 0 ? 1 : 0;
                    cc += main.pairs.bands[1][dk][p] > 0 ? 1 : 0;
                    th2 += def.candidateProbability(j);
                }
                row.append(String.format(
                        Locale.ROOT,
                        " %d | %.3f | %.3f | %.3f |",
                        np,
                        ratio(co, np),
                        ratio(cc, np),
                        np == 0 ? Double.NaN : th2 / np));
            }
            out.println(row);
        }
        out.println();
        if (csv != null) {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
                w.println(
                        "banding,bin_lo,bin_hi,pairs,empirical_oph,empirical_classic,theory_mean,oph_seed_mean,classic_seed_mean,seeds");
                for (LshBanding bd : distinct) {
                    int k = distinct.indexOf(bd);
                    for (int bin = 0; bin < SBINS; bin++) {
                        long np = main.binPairs[bin];
                        boolean withSeeds = bd.equals(def) && !seedPasses.isEmpty();
                        w.printf(
                                Locale.ROOT,
                                "%dx%d,%.2f,%.2f,%d,%.6f,%.6f,%.6f,%s,%s,%d%n",
                                bd.bands(),
                                bd.rows(),
                                bin / 20.0,
                                (bin + 1) / 20.0,
                                np,
                                ratio(main.scurveCount[0][k][bin], np),
                                ratio(main.scurveCount[1][k][bin], np),
                                np == 0 ? Double.NaN : main.scurveTheory[k][bin] / np,
                                withSeeds ? String.format(Locale.ROOT, "%.6f", seedMean(seedPasses, 0, bin, np)) : "",
                                withSeeds ? String.format(Locale.ROOT, "%.6f", seedMean(seedPasses, 1, bin, np)) : "",
                                withSeeds ? seedPasses.size() : 1);
                    }
                }
            }
        }

        if (truthOut != null) {
            // For the speed comparison (docs/minhash_speed.py): every pair with Jaccard >= 0.5, by line number in the
            // corpus.
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(truthOut, StandardCharsets.UTF_8))) {
                for (int p = 0; p < main.pairs.size; p++) {
                    if (main.pairs.jac(p) >= 0.5) {
                        w.printf(Locale.ROOT, "%d\t%d\t%.6f%n", main.pairs.a[p], main.pairs.b[p], main.pairs.jac(p));
                    }
                }
            }
        }

        // (5) k-similar.
        long truth08 = 0;
        for (int p = 0; p < main.pairs.size; p++) {
            if (main.pairs.jac(p) >= 0.8) {
                truth08++;
            }
        }
        out.println("## Broder's k-similar rule: shares m bands (no verification), as a detector of Jaccard >= 0.8");
        out.println();
        out.printf(
                Locale.ROOT,
                "one_permutation signatures. %d pairs have Jaccard >= 0.8. `exactly m` rows are comparable to seed 004's "
                        + "table (2-sim ... 6-sim: pairs sharing exactly that many super-shingles); `>= m` is the query's `min_band_matches: m` without "
                        + "`min_similarity`. `same page`: the pair is the same man page in two releases (the corpus's group).%n%n",
                truth08);
        for (String name : List.of("default", "6x14", "16x8")) {
            LshBanding bd = bandings.get(name);
            if (bd == null) {
                continue;
            }
            int k = distinct.indexOf(bd);
            out.printf(Locale.ROOT, "### %d x %d%n%n", bd.bands(), bd.rows());
            out.println(
                    "| m | pairs sharing exactly m | precision (J >= 0.8) | same page | mean J | pairs sharing >= m | precision | recall | F1 | same page |");
            out.println("|---|---|---|---|---|---|---|---|---|---|");
            for (int m = 1; m <= Math.min(6, bd.bands()); m++) {
                long ex = 0, exTrue = 0, exGroup = 0, ge = 0, geTrue = 0, geGroup = 0;
                double exJ = 0;
                for (int p = 0; p < main.pairs.size; p++) {
                    int mb = main.pairs.bands[0][k][p];
                    if (mb < m) {
                        continue;
                    }
                    boolean pos = main.pairs.jac(p) >= 0.8;
                    boolean same = group[main.pairs.a[p]].equals(group[main.pairs.b[p]]);
                    ge++;
                    geTrue += pos ? 1 : 0;
                    geGroup += same ? 1 : 0;
                    if (mb == m) {
                        ex++;
                        exTrue += pos ? 1 : 0;
                        exGroup += same ? 1 : 0;
                        exJ += main.pairs.jac[p];
                    }
                }
                long[] c = {truth08, ge, geTrue, ge};
                out.printf(
                        Locale.ROOT,
                        "| %d | %d | %.3f | %.3f | %.3f | %d | %.3f | %.3f | %.3f | %.3f |%n",
                        m,
                        ex,
                        ratio(exTrue, ex),
                        ratio(exGroup, ex),
                        ex == 0 ? Double.NaN : exJ / ex,
                        ge,
                        ratio(geTrue, ge),
                        ratio(geTrue, truth08),
                        f1(c),
                        ratio(geGroup, ge));
            }
            out.println();
        }
        out.printf(Locale.ROOT, "Run time: %.1f s.%n", (System.nanoTime() - t0) / 1e9);
        if (out != System.out) {
            out.close();
        }
    }

    /** Visits every unordered pair once; stores the pairs that can matter and fills the S-curve bins. */
    private static Pass pass(
            long[][] sets,
            int[][] ids,
            int[] start,
            int[] postings,
            List<LshBanding> bandings,
            long seed,
            boolean classicToo) {
        long t0 = System.nanoTime();
        int n = sets.length;
        int nb = bandings.size();
        MinHasher[] hashers = {
            MinHasher.of(K, seed, MinHasher.Method.ONE_PERMUTATION), MinHasher.of(K, seed, MinHasher.Method.CLASSIC)
        };
        int methods = classicToo ? 2 : 1;
        int[][][] sig = new int[2][n][];
        long[][][][] keys = new long[2][nb][n][];
        for (int m = 0; m < methods; m++) {
            for (int i = 0; i < n; i++) {
                sig[m][i] = hashers[m].signature(sets[i], sets[i].length);
                byte[] bytes = new byte[K * 4];
                for (int v = 0; v < K; v++) {
                    int x = sig[m][i][v];
                    bytes[4 * v] = (byte) (x >>> 24);
                    bytes[4 * v + 1] = (byte) (x >>> 16);
                    bytes[4 * v + 2] = (byte) (x >>> 8);
                    bytes[4 * v + 3] = (byte) x;
                }
                for (int k = 0; k < nb; k++) {
                    LshBanding bd = bandings.get(k);
                    long[] ks = new long[bd.bands()];
                    for (int band = 0; band < bd.bands(); band++) {
                        ks[band] = Murmur3.hash64(bytes, band * bd.rows() * 4, bd.rows() * 4, 0L);
                    }
                    keys[m][k][i] = ks;
                }
            }
        }
        Pairs pairs = new Pairs(nb);
        long[][][] scurve = new long[2][nb][SBINS];
        double[][] theory = new double[nb][SBINS];
        long[] binPairs = new long[SBINS];
        long zeroCandidates = 0, positive = 0;
        int[] inter = new int[n];
        int[] eqs = new int[2];
        int[][] mb = new int[2][nb];
        for (int i = 0; i < n; i++) {
            Arrays.fill(inter, 0);
            for (int id : ids[i]) {
                int lo = start[id], hi = start[id + 1];
                int pos = Arrays.binarySearch(postings, lo, hi, i);
                for (int q = pos + 1; q < hi; q++) {
                    inter[postings[q]]++;
                }
            }
            int[] si0 = sig[0][i], si1 = sig[1][i];
            for (int j = i + 1; j < n; j++) {
                eqs[0] = equal(si0, sig[0][j]);
                eqs[1] = classicToo ? equal(si1, sig[1][j]) : 0;
                if (inter[j] == 0 && eqs[0] == 0 && eqs[1] == 0 && !(sets[i].length == 0 && sets[j].length == 0)) {
                    continue;
                }
                double jac = sets[i].length == 0 && sets[j].length == 0
                        ? 1.0
                        : (double) inter[j] / (sets[i].length + sets[j].length - inter[j]);
                boolean any = false;
                for (int m = 0; m < methods; m++) {
                    for (int k = 0; k < nb; k++) {
                        int c = 0;
                        if (eqs[m] >= bandings.get(k).rows()) {
                            long[] x = keys[m][k][i], y = keys[m][k][j];
                            for (int band = 0; band < x.length; band++) {
                                if (x[band] == y[band]) {
                                    c++;
                                }
                            }
                        }
                        mb[m][k] = c;
                        any |= c > 0;
                    }
                }
                if (jac > 0) {
                    positive++;
                    int bin = Math.min(SBINS - 1, (int) Math.floor(jac * SBINS));
                    binPairs[bin]++;
                    for (int k = 0; k < nb; k++) {
                        LshBanding bd = bandings.get(k);
                        theory[k][bin] += bd.candidateProbability(jac);
                        for (int m = 0; m < methods; m++) {
                            if (mb[m][k] > 0) {
                                scurve[m][k][bin]++;
                            }
                        }
                    }
                } else if (any) {
                    zeroCandidates++;
                }
                if (jac >= STORE_JACCARD || eqs[0] >= STORE_EQUAL || eqs[1] >= STORE_EQUAL || any) {
                    pairs.add(i, j, jac, eqs, mb);
                }
            }
        }
        return new Pass(pairs, scurve, theory, binPairs, zeroCandidates, positive, (System.nanoTime() - t0) / 1e9);
    }

    /** Candidate rate of the default banding (index 0 in every pass) in one bin, averaged over the seed passes. */
    private static double seedMean(List<Pass> passes, int method, int bin, long np) {
        double sum = 0;
        for (Pass p : passes) {
            sum += ratio(p.scurveCount[method][0][bin], np);
        }
        return sum / passes.size();
    }

    private static int equal(int[] a, int[] b) {
        int c = 0;
        for (int v = 0; v < a.length; v++) {
            if (a[v] == b[v]) {
                c++;
            }
        }
        return c;
    }

    /** {truth positives, returned, true positives, candidates}; banding -1 = no banding (all pairs verified). */
    private static long[] prf(Pairs pairs, int method, int banding, double tau, int minBands) {
        long truth = 0, returned = 0, tp = 0, candidates = 0;
        for (int p = 0; p < pairs.size; p++) {
            boolean t = pairs.jac(p) >= tau;
            boolean cand = banding < 0 || pairs.bands[method][banding][p] >= minBands;
            boolean ret = cand && (double) pairs.eq(method, p) / K >= tau;
            truth += t ? 1 : 0;
            candidates += cand && banding >= 0 ? 1 : 0;
            returned += ret ? 1 : 0;
            tp += ret && t ? 1 : 0;
        }
        return new long[] {truth, returned, tp, candidates};
    }

    private static String prfRow(double tau, String banding, String method, long[] c) {
        return String.format(
                Locale.ROOT,
                "| %.1f | %s | %s | %d | %s | %d | %d | %.4f | %.4f | **%.4f** |",
                tau,
                banding,
                method,
                c[0],
                banding.equals("none") ? "-" : Long.toString(c[3]),
                c[1],
                c[2],
                prec(c),
                rec(c),
                f1(c));
    }

    private static double prec(long[] c) {
        return ratio(c[2], c[1]);
    }

    private static double rec(long[] c) {
        return ratio(c[2], c[0]);
    }

    private static double f1(long[] c) {
        double p = prec(c), r = rec(c);
        return p + r == 0 ? 0 : 2 * p * r / (p + r);
    }

    private static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }
}
