/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.FingerprintScratch;
import io.neardup.core.Fingerprinter;
import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import io.neardup.core.MinHasher;
import io.neardup.core.SignatureCodec;
import io.neardup.index.MinhashFieldMapper;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.lucene.analysis.Analyzer;

/**
 * How far {@link JaccardAccuracy}'s numbers move with the MinHash function alone: its counts for format 1's
 * signatures, format 2's, and {@code --seeds N} other seeds of format 2's function (one-permutation MinHash of the
 * shingle set, {@link FingerprintFormat#signatureOfSet}, with seed s instead of 0), on the same corpus, truth and
 * default field (42 bands of 3 rows, {@code min_band_matches} per τ). So that a difference between the formats can be
 * told from the spread any one hash function has.
 *
 * <p>Computed from the band keys, not through Lucene: a pair is a candidate where at least m of its 8-byte band keys
 * agree (format 2's 4-byte keys add the few collisions {@code JaccardAccuracy} counts); exact verification returns
 * every candidate whose truth Jaccard is at least τ; the estimate, every candidate whose signatures agree on a share
 * of at least τ. Every document is a query. The rows of formats 1 and 2 give {@code JaccardAccuracy}'s misses and
 * estimate F1 (its candidates per query are sampled on every 10th query).
 *
 * <pre>
 * $JAVA_HOME/bin/java -Xmx8g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.SignatureSpread $DATA/manpages.jsonl.gz [--seeds 10] [--out report.md]
 * </pre>
 */
public final class SignatureSpread {
    private static final double[] TAUS = JaccardAccuracy.TAUS;

    private SignatureSpread() {}

    /** One signature function's counts per τ. */
    private record Row(String name, double[] missed, double[] estimateF1, double[] candidates) {}

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args[0]);
        PrintStream out = System.out;
        int seeds = 10;
        for (int a = 1; a < args.length; a += 2) {
            switch (args[a]) {
                case "--out" ->
                    out = new PrintStream(Files.newOutputStream(Path.of(args[a + 1])), true, StandardCharsets.UTF_8);
                case "--seeds" -> seeds = Integer.parseInt(args[a + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[a]);
            }
        }
        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        int n = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        long[][] truthSets = new long[n][];
        int[][] sets = new int[n][];
        int[][] formatOne = new int[n][];
        int[][] formatTwo = new int[n][];
        for (int i = 0; i < n; i++) {
            Corpus.Tokens tokens = Corpus.tokenize(analyzer, docs.get(i).text());
            truthSets[i] = Corpus.truthShingles(tokens, 3);
            formatOne[i] =
                    fingerprint(scheme, FingerprintFormat.SIGNATURE, tokens).minhash();
            Fingerprint compact = fingerprint(scheme, FingerprintFormat.COMPACT, tokens);
            formatTwo[i] = compact.minhash();
            sets[i] = compact.shingleSet();
        }
        Map<Long, Double> truth = Corpus.exactPairs(truthSets, 0.5);
        LshBanding banding = LshBanding.forFloor(MinhashFieldMapper.DEFAULT_MIN_SIMILARITY_FLOOR, 128);
        List<Row> rows = new ArrayList<>();
        rows.add(row("format 1", formatOne, truth, banding));
        rows.add(row("format 2 (seed 0)", formatTwo, truth, banding));
        for (int seed = 1; seed <= seeds; seed++) {
            MinHasher hasher = MinHasher.of(128, seed, MinHasher.Method.ONE_PERMUTATION);
            int[][] signatures = new int[n][];
            for (int i = 0; i < n; i++) {
                long[] values = Arrays.stream(sets[i])
                        .mapToLong(Integer::toUnsignedLong)
                        .toArray();
                signatures[i] = hasher.signature(values, values.length);
            }
            rows.add(row("seed " + seed, signatures, truth, banding));
            System.err.printf(Locale.ROOT, "seed %d of %d%n", seed, seeds);
        }
        out.printf(
                Locale.ROOT,
                "## %s: %,d documents, %d other seeds of format 2's signature%n%n",
                corpus.getFileName(),
                n,
                seeds);
        table(out, "exact verification: ordered true pairs not returned", rows, Row::missed, "%.0f", seeds);
        table(out, "estimate: F1", rows, Row::estimateF1, "%.3f", seeds);
        table(out, "candidates per query (itself included)", rows, Row::candidates, "%.1f", seeds);
    }

    private static Fingerprint fingerprint(FingerprintScheme scheme, FingerprintFormat format, Corpus.Tokens tokens) {
        Fingerprinter fingerprinter =
                new Fingerprinter(scheme, null, new FingerprintScratch(MemoryBudget.NONE), false, true, format);
        for (int k = 0; k < tokens.size(); k++) {
            fingerprinter.token(tokens.chars(), tokens.start(k), tokens.length(k));
        }
        return fingerprinter.finish(true);
    }

    /** Every document queried at every τ, on the band keys of {@code signatures}. */
    private static Row row(String name, int[][] signatures, Map<Long, Double> truth, LshBanding banding) {
        int n = signatures.length;
        long[][] keys = new long[banding.bands()][n];
        List<Map<Long, List<Integer>>> buckets = new ArrayList<>();
        for (int band = 0; band < banding.bands(); band++) {
            Map<Long, List<Integer>> bucket = new HashMap<>();
            for (int i = 0; i < n; i++) {
                keys[band][i] = LshBanding.bandKey(SignatureCodec.valueBytes(signatures[i]), band, banding.rows());
                bucket.computeIfAbsent(keys[band][i], k -> new ArrayList<>()).add(i);
            }
            buckets.add(bucket);
        }
        int[] minBandMatches =
                Arrays.stream(TAUS).mapToInt(banding::minBandMatchesFor).toArray();
        long[] positives = new long[TAUS.length],
                exactFound = new long[TAUS.length],
                candidates = new long[TAUS.length];
        long[] estimateFound = new long[TAUS.length], estimateCorrect = new long[TAUS.length];
        truth.values().forEach(j -> {
            for (int t = 0; t < TAUS.length; t++) {
                positives[t] += j >= TAUS[t] ? 2 : 0;
            }
        });
        int[] agreeing = new int[n];
        int[] touched = new int[n];
        for (int i = 0; i < n; i++) {
            int touchedCount = 0;
            for (int band = 0; band < banding.bands(); band++) {
                for (int doc : buckets.get(band).get(keys[band][i])) {
                    if (agreeing[doc]++ == 0) {
                        touched[touchedCount++] = doc;
                    }
                }
            }
            for (int k = 0; k < touchedCount; k++) {
                int doc = touched[k];
                Double j = doc == i ? null : truth.get(i < doc ? (long) i << 32 | doc : (long) doc << 32 | i);
                double estimate = MinHasher.jaccard(signatures[i], signatures[doc]);
                for (int t = 0; t < TAUS.length; t++) {
                    if (agreeing[doc] >= minBandMatches[t]) {
                        boolean positive = j != null && j >= TAUS[t];
                        candidates[t]++;
                        exactFound[t] += positive ? 1 : 0;
                        estimateFound[t] += doc != i && estimate >= TAUS[t] ? 1 : 0;
                        estimateCorrect[t] += positive && estimate >= TAUS[t] ? 1 : 0;
                    }
                }
                agreeing[doc] = 0;
            }
        }
        double[] missed = new double[TAUS.length], f1 = new double[TAUS.length], perQuery = new double[TAUS.length];
        for (int t = 0; t < TAUS.length; t++) {
            missed[t] = positives[t] - exactFound[t];
            double p = estimateFound[t] == 0 ? 1 : (double) estimateCorrect[t] / estimateFound[t];
            double r = positives[t] == 0 ? 1 : (double) estimateCorrect[t] / positives[t];
            f1[t] = p + r == 0 ? 0 : 2 * p * r / (p + r);
            perQuery[t] = (double) candidates[t] / n;
        }
        return new Row(name, missed, f1, perQuery);
    }

    /** One row a signature function, one column a τ, and the range over the other seeds. */
    private static void table(
            PrintStream out, String title, List<Row> rows, Function<Row, double[]> column, String cell, int seeds) {
        out.printf(Locale.ROOT, "%s%n%n| signatures |", title);
        for (double tau : TAUS) {
            out.printf(Locale.ROOT, " τ = %.2f |", tau);
        }
        out.println();
        out.println("|---".repeat(TAUS.length + 1) + "|");
        for (Row row : rows) {
            out.print("| " + row.name() + " |");
            for (double value : column.apply(row)) {
                out.print(" " + String.format(Locale.ROOT, cell, value) + " |");
            }
            out.println();
        }
        if (seeds > 0) {
            out.print("| seeds 1–" + seeds + ", min – max |");
            for (int t = 0; t < TAUS.length; t++) {
                double min = Double.MAX_VALUE, max = -Double.MAX_VALUE;
                for (Row row : rows.subList(2, rows.size())) {
                    min = Math.min(min, column.apply(row)[t]);
                    max = Math.max(max, column.apply(row)[t]);
                }
                out.print(" " + String.format(Locale.ROOT, cell + " – " + cell, min, max) + " |");
            }
            out.println();
        }
        out.println();
    }
}
