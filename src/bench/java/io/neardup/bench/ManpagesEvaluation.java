/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import io.neardup.core.FeatureWeighting;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.IdfTable;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleHasher;
import io.neardup.core.TokenHasher;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.lucene.analysis.Analyzer;

/**
 * Measures simhash spread, the Jaccard-to-Hamming relation (fig. 6b of Sood, "Probabilistic Simhash Matching" (2011)) and MinHash error
 * on the man-pages corpus, for simhash_shingle_size 1/2/3 x weighting binary/tf/log_tf x IDF
 * none / held-out IDF.
 *
 * <p>Truth: the exact Jaccard similarity of the documents' sets of 3-token shingle hashes (the
 * same tokens, {@link TokenHasher} and {@link ShingleHasher}, seed 0, as the fingerprinter's
 * MinHash side; a 64-bit collision is negligible). Pairs: every same-group pair, plus a fixed
 * random sample of different-group pairs. Held-out IDF: groups are split into two halves by a hash
 * of the group name; each document is fingerprinted with document frequencies counted on the
 * <em>other</em> half, and every evaluated pair lies within one half, so no pair is ever scored
 * with statistics that saw it. All configurations are scored on the same pairs.
 *
 * <p>Command line (from the project root; {@code cp.txt} holds the test classpath):
 * <pre>
 * export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow
 * mvn -B -o -Dbuild.dir=/tmp/h3-target test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=/tmp/h3-target/cp.txt -Dmdep.includeScope=test
 * $JAVA_HOME/bin/java -Xmx3g -cp /tmp/h3-target/test-classes:/tmp/h3-target/classes:$(cat /tmp/h3-target/cp.txt) \
 *     io.neardup.bench.ManpagesEvaluation ../shared/corpus/manpages.jsonl.gz \
 *     [--out out.md] [--pairs 200000] [--seed 42] [--idf-file path/to/table.tsv]
 * </pre>
 * Writes markdown to {@code --out} (or stdout). {@code --pairs}: the number of different-group
 * pairs; {@code --idf-file}: also score every shingle size and weighting with this external IDF
 * table (format of {@link IdfTable#load}); it is only honest if the table did not see the man
 * pages. Deterministic for a given seed; takes about a minute.
 */
public final class ManpagesEvaluation {
    private static final int TRUTH_SHINGLE = 3;
    private static final double[] BIN_EDGES = {0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1.0};
    private static final int BINS = 11; // ten half-open bins, then exactly 1.0

    private record Pair(int a, int b, boolean sameGroup, double jaccard) {}

    /** idf: 0 none, 1 held-out df from the other half, 2 the external table. */
    private record Config(int shingle, FeatureWeighting weighting, int idf) {
        String name() {
            return "s" + shingle + " " + weighting.paramName() + (idf == 1 ? " +idf" : idf == 2 ? " +ext-idf" : "");
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length % 2 != 1) {
            System.err.println("usage: ManpagesEvaluation <manpages.jsonl.gz> [--out out.md] [--pairs N] [--seed S] "
                    + "[--idf-file table.tsv]");
            System.exit(2);
        }
        Path corpus = Path.of(args[0]);
        PrintStream out = System.out;
        int diffPairs = 200_000;
        long seed = 42L;
        IdfTable external = null;
        String externalPath = null;
        for (int a = 1; a < args.length; a += 2) {
            switch (args[a]) {
                case "--out" ->
                    out = new PrintStream(Files.newOutputStream(Path.of(args[a + 1])), true, StandardCharsets.UTF_8);
                case "--pairs" -> diffPairs = Integer.parseInt(args[a + 1]);
                case "--seed" -> seed = Long.parseLong(args[a + 1]);
                case "--idf-file" -> {
                    externalPath = args[a + 1];
                    try (var in = Files.newInputStream(Path.of(externalPath))) {
                        external = IdfTable.load("external", 0L, in);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[a]);
            }
        }
        long t0 = System.nanoTime();

        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        int n = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        Corpus.Tokens[] tokens = new Corpus.Tokens[n];
        long[][] shingleSets = new long[n][];
        TokenHasher th = new TokenHasher(0);
        ShingleHasher sh = new ShingleHasher(TRUTH_SHINGLE, 0);
        long totalTokens = 0;
        for (int i = 0; i < n; i++) {
            tokens[i] = Corpus.tokenize(analyzer, docs.get(i).text());
            totalTokens += tokens[i].size();
            shingleSets[i] = shingleSet(tokens[i], th, sh);
        }
        // Halves by group.
        int[] half = new int[n];
        for (int i = 0; i < n; i++) {
            half[i] = (docs.get(i).group().hashCode() * 0x9E3779B9 >>> 31);
        }
        // Pairs.
        Map<String, List<Integer>> byGroup = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            byGroup.computeIfAbsent(docs.get(i).group(), g -> new ArrayList<>()).add(i);
        }
        List<Pair> pairs = new ArrayList<>();
        int multiGroups = 0;
        for (List<Integer> members : byGroup.values()) {
            if (members.size() > 1) {
                multiGroups++;
            }
            for (int x = 0; x < members.size(); x++) {
                for (int y = x + 1; y < members.size(); y++) {
                    int a = members.get(x), b = members.get(y);
                    pairs.add(new Pair(a, b, true, jaccard(shingleSets[a], shingleSets[b])));
                }
            }
        }
        int samePairs = pairs.size();
        int[][] halves = new int[2][];
        for (int h = 0; h < 2; h++) {
            final int hh = h;
            halves[h] = java.util.stream.IntStream.range(0, n)
                    .filter(i -> half[i] == hh)
                    .toArray();
        }
        SplittableRandom random = new SplittableRandom(seed);
        while (pairs.size() < samePairs + diffPairs) {
            int[] pool = halves[random.nextInt(2)];
            int a = pool[random.nextInt(pool.length)], b = pool[random.nextInt(pool.length)];
            if (docs.get(a).group().equals(docs.get(b).group())) {
                continue;
            }
            pairs.add(new Pair(a, b, false, jaccard(shingleSets[a], shingleSets[b])));
        }
        // Held-out IDF tables: table[h] counts df on half h, used for documents of half 1 - h.
        IdfTable[] tables = new IdfTable[2];
        for (int h = 0; h < 2; h++) {
            tables[h] = dfTable("manpages-half" + h, docs, tokens, half, h);
        }

        out.println("# ManpagesEvaluation output");
        out.println();
        out.printf(
                Locale.ROOT,
                "Corpus: %s: %d docs, %d groups (%d with 2+ versions), %d tokens (StandardAnalyzer), "
                        + "halves %d / %d docs; IDF tables: %d / %d terms.%n",
                corpus,
                n,
                byGroup.size(),
                multiGroups,
                totalTokens,
                halves[0].length,
                halves[1].length,
                tables[0].size(),
                tables[1].size());
        if (external != null) {
            out.printf(
                    Locale.ROOT,
                    "External IDF table (`+ext-idf`): %s, %d docs, %d terms.%n",
                    externalPath,
                    external.docCount(),
                    external.size());
        }
        out.printf(
                Locale.ROOT,
                "Pairs: %d same-group (all), %d different-group (random, within a half, seed %d).%n%n",
                samePairs,
                diffPairs,
                seed);

        List<Config> configs = new ArrayList<>();
        for (int idf = 0; idf < (external == null ? 2 : 3); idf++) {
            for (int s = 1; s <= 3; s++) {
                for (FeatureWeighting w : FeatureWeighting.values()) {
                    configs.add(new Config(s, w, idf));
                }
            }
        }
        Map<Config, long[]> simhashes = new LinkedHashMap<>();
        for (Config c : configs) {
            long[] fps = new long[n];
            Fingerprinter[] fpr = new Fingerprinter[2];
            for (int h = 0; h < 2; h++) {
                IdfTable table = c.idf == 0 ? null : c.idf == 1 ? tables[1 - h] : external;
                FingerprintScheme scheme = new FingerprintScheme(
                        FingerprintScheme.CURRENT_VERSION,
                        "standard",
                        c.shingle,
                        c.weighting,
                        table == null ? FingerprintScheme.NO_IDF : table.identity(),
                        3,
                        1,
                        MinHasher.Method.ONE_PERMUTATION,
                        0L);
                fpr[h] = new Fingerprinter(scheme, table);
            }
            for (int i = 0; i < n; i++) {
                Fingerprinter f = fpr[half[i]];
                f.reset();
                Corpus.Tokens t = tokens[i];
                for (int k = 0; k < t.size(); k++) {
                    f.token(t.chars(), t.start(k), t.length(k));
                }
                fps[i] = f.finish().simhash();
            }
            simhashes.put(c, fps);
        }

        // (a) Spread and summary.
        out.println("## Summary: spread of different-group pairs, and same-group behaviour");
        out.println();
        out.println("Hamming distance of simhashes. `diff`: different-group pairs (ideal: mean ~32, binomial(64, 1/2) "
                + "has p5/p50/p95 = 25/32/39 and P(<= 3) ~ 2e-15). `J>=0.9`: pairs (almost all same-group) whose 3-shingle "
                + "Jaccard is at least 0.9. `rho`: Spearman correlation of Jaccard and Hamming distance over all pairs "
                + "(-1 is a perfectly monotone fall). `pfx8`/`pfx12`: share of different-group pairs whose top 8 / 12 bits "
                + "are equal, as a multiple of the uniform 2^-8 / 2^-12 (1.0 = random; PSM looks fingerprints up by prefix, "
                + "so this is how much fuller its buckets run). `bit bias`: mean and max over the 64 bits of |P(bit = 1) - 0.5| "
                + "over one document per group (random: ~0.008 / ~0.02).");
        out.println();
        out.println(
                "| config | diff mean | p5 | p50 | p95 | diff <= 3 | diff <= 6 | J>=0.9 mean h | J>=0.9 h<=3 | J 0.5-0.9 mean h | J<0.1 mean h | rho | pfx8 | pfx12 | bit bias |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        int[] groupReps = byGroup.values().stream().mapToInt(m -> m.get(0)).toArray();
        for (Config c : configs) {
            long[] fps = simhashes.get(c);
            int[] diff = new int[diffPairs];
            int d = 0;
            double hiSum = 0, midSum = 0, loSum = 0;
            int hi = 0, hi3 = 0, mid = 0, lo = 0, p8 = 0, p12 = 0;
            double[] js = new double[pairs.size()];
            double[] hs = new double[pairs.size()];
            for (int p = 0; p < pairs.size(); p++) {
                Pair pr = pairs.get(p);
                int h = Long.bitCount(fps[pr.a] ^ fps[pr.b]);
                js[p] = pr.jaccard;
                hs[p] = h;
                if (!pr.sameGroup) {
                    diff[d++] = h;
                    long x = fps[pr.a] ^ fps[pr.b];
                    if (x >>> 56 == 0) {
                        p8++;
                    }
                    if (x >>> 52 == 0) {
                        p12++;
                    }
                }
                if (pr.jaccard >= 0.9) {
                    hi++;
                    hiSum += h;
                    if (h <= 3) {
                        hi3++;
                    }
                } else if (pr.jaccard >= 0.5) {
                    mid++;
                    midSum += h;
                } else if (pr.jaccard < 0.1) {
                    lo++;
                    loSum += h;
                }
            }
            Arrays.sort(diff);
            double mean = Arrays.stream(diff).average().orElse(0);
            double biasSum = 0, biasMax = 0;
            for (int bit = 0; bit < 64; bit++) {
                int ones = 0;
                for (int r : groupReps) {
                    ones += (int) (fps[r] >>> bit) & 1;
                }
                double bias = Math.abs((double) ones / groupReps.length - 0.5);
                biasSum += bias;
                biasMax = Math.max(biasMax, bias);
            }
            out.printf(
                    Locale.ROOT,
                    "| %s | %.1f | %d | %d | %d | %.3f%% | %.3f%% | %.2f | %.1f%% | %.1f | %.1f | %.3f "
                            + "| %.2f | %.1f | %.3f / %.3f |%n",
                    c.name(),
                    mean,
                    pct(diff, 5),
                    pct(diff, 50),
                    pct(diff, 95),
                    100.0 * countLe(diff, 3) / diff.length,
                    100.0 * countLe(diff, 6) / diff.length,
                    hiSum / hi,
                    100.0 * hi3 / hi,
                    midSum / mid,
                    loSum / lo,
                    spearman(js, hs),
                    p8 * 256.0 / diffPairs,
                    p12 * 4096.0 / diffPairs,
                    biasSum / 64,
                    biasMax);
        }
        out.println();

        // (b) Fig. 6b tables.
        out.println("## Jaccard (3-shingles) against Hamming distance, per configuration");
        out.println();
        for (Config c : configs) {
            long[] fps = simhashes.get(c);
            out.println("### " + c.name());
            out.println();
            out.println("| Jaccard | pairs (same / diff group) | mean h | median h | h <= 3 | h <= 6 |");
            out.println("|---|---|---|---|---|---|");
            List<List<Integer>> bins = new ArrayList<>();
            int[][] counts = new int[BINS][2];
            for (int b = 0; b < BINS; b++) {
                bins.add(new ArrayList<>());
            }
            for (Pair pr : pairs) {
                int b = bin(pr.jaccard);
                bins.get(b).add(Long.bitCount(fps[pr.a] ^ fps[pr.b]));
                counts[b][pr.sameGroup ? 0 : 1]++;
            }
            for (int b = 0; b < BINS; b++) {
                int[] hsb = bins.get(b).stream()
                        .mapToInt(Integer::intValue)
                        .sorted()
                        .toArray();
                if (hsb.length == 0) {
                    out.printf(Locale.ROOT, "| %s | 0 | | | | |%n", binName(b));
                    continue;
                }
                out.printf(
                        Locale.ROOT,
                        "| %s | %d (%d / %d) | %.2f | %.1f | %.1f%% | %.1f%% |%n",
                        binName(b),
                        hsb.length,
                        counts[b][0],
                        counts[b][1],
                        Arrays.stream(hsb).average().orElse(0),
                        median(hsb),
                        100.0 * countLe(hsb, 3) / hsb.length,
                        100.0 * countLe(hsb, 6) / hsb.length);
            }
            out.println();
        }

        // (c) MinHash.
        out.println("## MinHash (128 values, 3-shingles): mean absolute error of the estimate");
        out.println();
        MinHasher classic = MinHasher.of(128, 0L, MinHasher.Method.CLASSIC);
        MinHasher oph = MinHasher.of(128, 0L, MinHasher.Method.ONE_PERMUTATION);
        int[][] sigC = new int[n][];
        int[][] sigO = new int[n][];
        for (int i = 0; i < n; i++) {
            sigC[i] = classic.signature(shingleSets[i], shingleSets[i].length);
            sigO[i] = oph.signature(shingleSets[i], shingleSets[i].length);
        }
        // Bias (mean signed error) averaged over MinHash seeds 0..4, to tell a real bias from one seed's luck.
        double[][] bias5 = new double[BINS][2];
        for (long ms = 0; ms < 5; ms++) {
            MinHasher c5 = MinHasher.of(128, ms, MinHasher.Method.CLASSIC);
            MinHasher o5 = MinHasher.of(128, ms, MinHasher.Method.ONE_PERMUTATION);
            int[][] sc = new int[n][];
            int[][] so = new int[n][];
            for (int i = 0; i < n; i++) {
                sc[i] = c5.signature(shingleSets[i], shingleSets[i].length);
                so[i] = o5.signature(shingleSets[i], shingleSets[i].length);
            }
            for (Pair pr : pairs) {
                int b = bin(pr.jaccard);
                bias5[b][0] += MinHasher.jaccard(sc[pr.a], sc[pr.b]) - pr.jaccard;
                bias5[b][1] += MinHasher.jaccard(so[pr.a], so[pr.b]) - pr.jaccard;
            }
        }
        out.println(
                "MAE and bias (mean signed error) with seed 0; `bias, 5 seeds`: the bias averaged over MinHash seeds 0-4.");
        out.println();
        out.println("| Jaccard | pairs | classic MAE | classic bias | classic bias, 5 seeds | one_permutation MAE "
                + "| one_permutation bias | one_permutation bias, 5 seeds |");
        out.println("|---|---|---|---|---|---|---|---|");
        double[][] agg = new double[BINS][5];
        for (Pair pr : pairs) {
            int b = bin(pr.jaccard);
            double ec = MinHasher.jaccard(sigC[pr.a], sigC[pr.b]) - pr.jaccard;
            double eo = MinHasher.jaccard(sigO[pr.a], sigO[pr.b]) - pr.jaccard;
            agg[b][0]++;
            agg[b][1] += Math.abs(ec);
            agg[b][2] += ec;
            agg[b][3] += Math.abs(eo);
            agg[b][4] += eo;
        }
        double[] all = new double[5];
        for (int b = 0; b < BINS; b++) {
            double[] a = agg[b];
            for (int k = 0; k < 5; k++) {
                all[k] += a[k];
            }
            if (a[0] == 0) {
                out.printf(Locale.ROOT, "| %s | 0 | | | | | | |%n", binName(b));
                continue;
            }
            out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.4f | %+.4f | %+.4f | %.4f | %+.4f | %+.4f |%n",
                    binName(b),
                    (long) a[0],
                    a[1] / a[0],
                    a[2] / a[0],
                    bias5[b][0] / (5 * a[0]),
                    a[3] / a[0],
                    a[4] / a[0],
                    bias5[b][1] / (5 * a[0]));
        }
        out.printf(
                Locale.ROOT,
                "| all | %d | %.4f | %+.4f | | %.4f | %+.4f | |%n",
                (long) all[0],
                all[1] / all[0],
                all[2] / all[0],
                all[3] / all[0],
                all[4] / all[0]);
        out.println();
        out.printf(
                Locale.ROOT,
                "(sqrt(J(1-J)/128) at J = 0.5 is 0.044; the expected MAE of an unbiased 128-value estimate "
                        + "there is ~0.035.) Run time: %.1f s.%n",
                (System.nanoTime() - t0) / 1e9);
        if (out != System.out) {
            out.close();
        }
    }

    static long[] shingleSet(Corpus.Tokens t, TokenHasher th, ShingleHasher sh) {
        sh.reset();
        long[] set = new long[Math.max(1, t.size())];
        int m = 0;
        for (int k = 0; k < t.size(); k++) {
            if (sh.add(th.hash(t.chars(), t.start(k), t.length(k)))) {
                set[m++] = sh.shingle();
            }
        }
        if (sh.finish()) {
            set[m++] = sh.shingle();
        }
        return Corpus.sortedDistinct(Arrays.copyOf(set, m));
    }

    /** Exact Jaccard of two sorted sets; two empty sets are equal (1). */
    static double jaccard(long[] a, long[] b) {
        if (a.length == 0 && b.length == 0) {
            return 1;
        }
        int i = 0, j = 0, inter = 0;
        while (i < a.length && j < b.length) {
            if (a[i] == b[j]) {
                inter++;
                i++;
                j++;
            } else if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return (double) inter / (a.length + b.length - inter);
    }

    private static IdfTable dfTable(String name, List<Corpus.Doc> docs, Corpus.Tokens[] tokens, int[] half, int h) {
        Map<String, long[]> df = new HashMap<>();
        long count = 0;
        for (int i = 0; i < docs.size(); i++) {
            if (half[i] != h) {
                continue;
            }
            count++;
            Set<String> seen = new HashSet<>();
            for (int k = 0; k < tokens[i].size(); k++) {
                String term = tokens[i].term(k);
                if (seen.add(term)) {
                    df.computeIfAbsent(term, x -> new long[1])[0]++;
                }
            }
        }
        String[] terms = df.keySet().toArray(new String[0]);
        long[] dfs = new long[terms.length];
        for (int i = 0; i < terms.length; i++) {
            dfs[i] = df.get(terms[i])[0];
        }
        return IdfTable.of(name, 0L, count, terms, dfs);
    }

    private static int bin(double j) {
        if (j >= 1.0) {
            return BINS - 1;
        }
        return Math.min(9, (int) Math.floor(j * 10));
    }

    private static String binName(int b) {
        return b == BINS - 1 ? "= 1.0" : String.format(Locale.ROOT, "%.1f-%.1f", BIN_EDGES[b], BIN_EDGES[b + 1]);
    }

    private static int pct(int[] sorted, int p) {
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))];
    }

    private static double median(int[] sorted) {
        int m = sorted.length;
        return m % 2 == 1 ? sorted[m / 2] : (sorted[m / 2 - 1] + sorted[m / 2]) / 2.0;
    }

    private static int countLe(int[] values, int limit) {
        int c = 0;
        for (int v : values) {
            if (v <= limit) {
                c++;
            }
        }
        return c;
    }

    private static double spearman(double[] x, double[] y) {
        double[] rx = ranks(x), ry = ranks(y);
        double mx = Arrays.stream(rx).average().orElse(0),
                my = Arrays.stream(ry).average().orElse(0);
        double sxy = 0, sxx = 0, syy = 0;
        for (int i = 0; i < rx.length; i++) {
            sxy += (rx[i] - mx) * (ry[i] - my);
            sxx += (rx[i] - mx) * (rx[i] - mx);
            syy += (ry[i] - my) * (ry[i] - my);
        }
        return sxy / Math.sqrt(sxx * syy);
    }

    private static double[] ranks(double[] v) {
        Integer[] idx = new Integer[v.length];
        for (int i = 0; i < v.length; i++) {
            idx[i] = i;
        }
        Arrays.sort(idx, (a, b) -> Double.compare(v[a], v[b]));
        double[] r = new double[v.length];
        for (int i = 0; i < v.length; ) {
            int j = i;
            while (j + 1 < v.length && v[idx[j + 1]] == v[idx[i]]) {
                j++;
            }
            double rank = (i + j) / 2.0;
            for (int k = i; k <= j; k++) {
                r[idx[k]] = rank;
            }
            i = j + 1;
        }
        return r;
    }
}
