/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import io.neardup.core.ContainmentSampling;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;

/**
 * Accuracy of the {@code near_duplicate} containment query ({@code min_containment}, {@code contained}) on a planted
 * containment corpus ({@link PlantedContainment}) built from a development corpus, against the exact containment of
 * every pair, per size-ratio band, in both directions, on a real node.
 *
 * <p>Truth (independent of the plugin's hashing and code): each document's set of word 3-shingles, the words from
 * Lucene's StandardAnalyzer (OpenSearch's {@code standard}), each shingle hashed with FNV-1a 64 over its characters
 * ({@link Corpus#truthShingles}); the intersection of every pair counted over an inverted index. C(A, B) = |S(A) ∩
 * S(B)| / |S(A)|.
 *
 * <p>System: every planted document bulk-indexed through {@code near_dup_fingerprint} into an index (1 shard,
 * force-merged to one segment) whose {@code text_fp.minhash} is mapped with {@code containment: true} at each
 * {@code containment_sampling} asked for; then, for each c in {0.7, 0.8, 0.9}:
 *
 * <ul>
 *   <li>{@code contained: like}: every embedded text is the {@code like.text}; the true hits are the other documents
 *       that contain at least c of it (its hosts, mostly);
 *   <li>{@code contained: document}: every host (positive or negative) is the {@code like.text}; the true hits are the
 *       other documents at least c of which lies inside it (the embedded texts, mostly).
 * </ul>
 *
 * The query's own document is left out of its hits and of its truth. Precision and recall are over (query, document)
 * pairs, each pair in its planted band where one was planted with the other, else in the band of the ratio of its
 * two shingle sets' sizes (larger over smaller), with "&lt; 1.2" and "≥ 20" for pairs the planting did not make
 * (copies within the corpus, its boilerplate). Latency is the client's,
 * from sending the request to reading the whole answer, one query at a time on a blocking connection
 * ({@link Node#okBlocking}), after a warm-up. Missed pairs are broken
 * down by how many shingles they share, beside the misses that the binomial model of {@link ContainmentSampling}
 * expects. An index without {@code containment} is built too, for the index size of the opt-in.
 *
 * <pre>
 * java -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) io.neardup.bench.eval.ContainmentAccuracy \
 *     http://127.0.0.1:9200 $DATA/manpages.jsonl.gz [--embedded 500] [--min-words 20] [--max-words 1000] \
 *     [--max-edit 0.05] [--sampling 4[,2]] [--seed 33] [--out report.md] [--export DIR] [--keep]
 * </pre>
 *
 * {@code --export DIR} writes, for a side-by-side run of another library on the same shingle sets
 * ({@code docs/containment_datasketch.py}): {@code sets.tsv} (one line a document: position, kind, the position of the
 * embedded text it was planted with, its planted band or -1, set size, the truth shingles folded to 32 bits) and {@code truth.tsv} ({@code a b C(a, b)} for every ordered pair with C(a, b) ≥ 0.7).
 */
public final class ContainmentAccuracy {
    static final double[] CS = {0.7, 0.8, 0.9};
    static final String[] DIRECTIONS = {"like", "document"};
    /** Pair bands: ratio of the larger shingle set's size to the smaller's. */
    static final double[] BAND_EDGES = {1.2, 2, 5, 10, 20};

    static final String[] BAND_LABELS = {"< 1.2", "1.2–2", "2–5", "5–10", "10–20", "≥ 20"};
    private static final String INDEX = "containment-eval";
    private static final String PIPELINE = "containment-eval";
    private static final int WARM_UP = 50;
    private static final int MAX_HITS = 10_000;
    private static final Pattern ID = Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"");
    private static final Pattern TOTAL = Pattern.compile("\"total\"\\s*:\\s*\\{\\s*\"value\"\\s*:\\s*(\\d+)");

    private ContainmentAccuracy() {}

    /**
     * The band of a pair: a host (or negative) and the embedded text it was planted with are in their planted band;
     * any other pair in the band of the ratio of its shingle sets' sizes (for a short text the shingle ratio runs
     * above the word ratio the planting drew: n words make n - 2 shingles).
     */
    static int band(List<PlantedContainment.Document> docs, int[] sizes, int a, int b) {
        PlantedContainment.Document x = docs.get(a), y = docs.get(b);
        if (x.kind() != PlantedContainment.Kind.EMBEDDED && x.source() == b) {
            return x.band() + 1;
        }
        if (y.kind() != PlantedContainment.Kind.EMBEDDED && y.source() == a) {
            return y.band() + 1;
        }
        return band(sizes[a], sizes[b]);
    }

    static int band(int sizeA, int sizeB) {
        double ratio = (double) Math.max(sizeA, sizeB) / Math.max(1, Math.min(sizeA, sizeB));
        int band = 0;
        while (band < BAND_EDGES.length && ratio >= BAND_EDGES[band]) {
            band++;
        }
        return band;
    }

    /** Exact containment of every ordered pair at or above {@code floor}: contained → (container, C) and back. */
    record Truth(int[] sizes, List<List<double[]>> containedIn, List<List<double[]>> contains, long pairs) {
        static Truth of(long[][] sets, double floor) {
            int n = sets.length;
            Corpus.Postings index = Corpus.Postings.of(sets);
            int[] sizes = new int[n];
            List<List<double[]>> containedIn = new ArrayList<>();
            List<List<double[]>> contains = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sizes[i] = sets[i].length;
                containedIn.add(new ArrayList<>());
                contains.add(new ArrayList<>());
            }
            int[] common = new int[n];
            int[] touched = new int[n];
            long pairs = 0;
            for (int i = 0; i < n; i++) {
                int touchedCount = 0;
                for (int id : index.ids()[i]) {
                    for (int p = index.start()[id]; p < index.start()[id + 1]; p++) {
                        int j = index.postings()[p];
                        if (j != i && common[j]++ == 0) {
                            touched[touchedCount++] = j;
                        }
                    }
                }
                for (int t = 0; t < touchedCount; t++) {
                    int j = touched[t];
                    double c = (double) common[j] / Math.max(1, sizes[i]);
                    if (c >= floor) {
                        containedIn.get(i).add(new double[] {j, c});
                        contains.get(j).add(new double[] {i, c});
                        pairs++;
                    }
                    common[j] = 0;
                }
            }
            return new Truth(sizes, containedIn, contains, pairs);
        }
    }

    /** Counts a direction and threshold: per band true positives, false positives, false negatives; latencies. */
    static final class Tally {
        final long[] tp = new long[BAND_LABELS.length];
        final long[] fp = new long[BAND_LABELS.length];
        final long[] fn = new long[BAND_LABELS.length];
        final List<Double> millis = new ArrayList<>();
        long truncated;
        /** Missed pairs and the model's expected misses, by shared shingles (see {@link #SHARED_EDGES}). */
        final long[] truePairsByShared = new long[SHARED_EDGES.length + 1];

        final long[] missedByShared = new long[SHARED_EDGES.length + 1];
        final double[] expectedMissesByShared = new double[SHARED_EDGES.length + 1];
    }

    static final int[] SHARED_EDGES = {11, 21, 41, 81};
    static final String[] SHARED_LABELS = {"1–10", "11–20", "21–40", "41–80", "> 80"};

    static int sharedBin(long shared) {
        int bin = 0;
        while (bin < SHARED_EDGES.length && shared >= SHARED_EDGES[bin]) {
            bin++;
        }
        return bin;
    }

    /** P(Binomial(n, p) < k). */
    static double binomialBelow(long n, double p, int k) {
        double pmf = Math.exp(n * Math.log1p(-p));
        double cdf = 0;
        for (int x = 0; x < k && x <= n; x++) {
            cdf += pmf;
            pmf *= (n - x) / (x + 1.0) * p / (1 - p);
        }
        return Math.min(1, cdf);
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                2,
                "ContainmentAccuracy <http://host:port> <corpus.jsonl.gz> [--embedded 500] [--min-words 20] "
                        + "[--max-words 1000] [--max-edit 0.05] [--sampling 4] [--seed 33] [--out FILE] "
                        + "[--export DIR] [--keep]",
                List.of("keep"),
                List.of("embedded", "min-words", "max-words", "max-edit", "sampling", "seed", "out", "export", "keep"));
        Node node = new Node(args[0], Duration.ofMinutes(10));
        Path corpusPath = Path.of(args[1]);
        PlantedContainment.Settings settings = new PlantedContainment.Settings(
                Integer.parseInt(opt.getOrDefault("embedded", "500")),
                Integer.parseInt(opt.getOrDefault("min-words", "20")),
                Integer.parseInt(opt.getOrDefault("max-words", "1000")),
                Double.parseDouble(opt.getOrDefault("max-edit", "0.05")),
                5,
                Long.parseLong(opt.getOrDefault("seed", "33")));
        int[] samplings = Options.ints(opt.getOrDefault("sampling", "4"));
        PrintStream out = opt.containsKey("out")
                ? new PrintStream(Files.newOutputStream(Path.of(opt.get("out"))), true, StandardCharsets.UTF_8)
                : System.out;

        List<Corpus.Doc> corpus = Corpus.read(corpusPath, Integer.MAX_VALUE);
        PlantedContainment.Planted planted = PlantedContainment.plant(corpus, settings);
        List<PlantedContainment.Document> docs = planted.documents();
        int n = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        long[][] sets = new long[n][];
        long words = 0;
        for (int i = 0; i < n; i++) {
            Corpus.Tokens tokens = Corpus.tokenize(analyzer, docs.get(i).text());
            words += tokens.size();
            sets[i] = Corpus.truthShingles(tokens, 3);
        }
        Truth truth = Truth.of(sets, CS[0]);
        log(
                "planted %,d documents (%,d embedded texts, %,d words), %,d ordered pairs with C >= %.1f",
                n, planted.embedded(), words, truth.pairs(), CS[0]);
        if (opt.containsKey("export")) {
            export(Path.of(opt.get("export")), docs, sets, truth);
        }

        List<Integer> likeQueries = new ArrayList<>();
        List<Integer> documentQueries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            (docs.get(i).kind() == PlantedContainment.Kind.EMBEDDED ? likeQueries : documentQueries).add(i);
        }

        out.printf(
                Locale.ROOT,
                "## %s: %,d planted documents%n%n%,d embedded texts of %d to %d words, each in %d hosts (one a band) "
                        + "with 0–%.0f%% word edits, a half and a header negative; %d boilerplate passages; %,d words "
                        + "in all; %,d ordered pairs with C ≥ 0.7. Seed %d. Load before: %s.%n%n",
                corpusPath.getFileName(),
                n,
                planted.embedded(),
                settings.minWords(),
                settings.maxWords(),
                PlantedContainment.BANDS.length,
                100 * settings.maxEditRate(),
                planted.boilerplates(),
                words,
                truth.pairs(),
                settings.seed(),
                Stats.loadAverage(3, "unknown"));

        String baseline = INDEX + "-off";
        long baselineBytes = index(node, baseline, docs, 0);
        out.printf(
                Locale.ROOT,
                "| index | store after force-merge | bytes a document | over no containment |%n|---|---|---|---|%n");
        out.printf(Locale.ROOT, "| no containment | %,d | %.0f | |%n", baselineBytes, baselineBytes / (double) n);
        long[] storeBytes = new long[samplings.length];
        for (int s = 0; s < samplings.length; s++) {
            storeBytes[s] = index(node, INDEX + "-r" + samplings[s], docs, samplings[s]);
            out.printf(
                    Locale.ROOT,
                    "| containment_sampling %d | %,d | %.0f | +%.0f (+%.1f%%) |%n",
                    samplings[s],
                    storeBytes[s],
                    storeBytes[s] / (double) n,
                    (storeBytes[s] - baselineBytes) / (double) n,
                    100.0 * (storeBytes[s] - baselineBytes) / baselineBytes);
        }
        out.println();
        if (opt.containsKey("keep") == false) {
            node.okOr404("DELETE", "/" + baseline);
        }

        for (int sampling : samplings) {
            String index = INDEX + "-r" + sampling;
            Tally[][] tallies = new Tally[DIRECTIONS.length][CS.length];
            for (int d = 0; d < DIRECTIONS.length; d++) {
                List<Integer> queries = d == 0 ? likeQueries : documentQueries;
                for (int q = 0; q < Math.min(WARM_UP, queries.size()); q++) {
                    search(node, index, docs.get(queries.get(q)).text(), CS[0], DIRECTIONS[d]);
                }
                for (int c = 0; c < CS.length; c++) {
                    tallies[d][c] = evaluate(node, index, docs, truth, queries, d, CS[c], sampling);
                    log(
                            "sampling %d, contained %s, c %.1f: done (load %s)",
                            sampling, DIRECTIONS[d], CS[c], Stats.loadAverage(3, "?"));
                }
            }
            report(out, sampling, tallies, likeQueries.size(), documentQueries.size());
            if (opt.containsKey("keep") == false) {
                node.okOr404("DELETE", "/" + index);
            }
        }
        out.printf(Locale.ROOT, "Load after: %s.%n", Stats.loadAverage(3, "unknown"));
        node.okOr404("DELETE", "/_ingest/pipeline/" + PIPELINE);
    }

    private static Tally evaluate(
            Node node,
            String index,
            List<PlantedContainment.Document> docs,
            Truth truth,
            List<Integer> queries,
            int direction,
            double c,
            int sampling) {
        Tally tally = new Tally();
        boolean likeContained = direction == 0;
        boolean[] hit = new boolean[docs.size()];
        int done = 0;
        for (int q : queries) {
            Node.Response r = search(node, index, docs.get(q).text(), c, DIRECTIONS[direction]);
            tally.millis.add(r.nanos() / 1e6);
            Matcher total = TOTAL.matcher(r.body());
            if (total.find() && Long.parseLong(total.group(1)) > MAX_HITS) {
                tally.truncated++;
            }
            List<Integer> hits = new ArrayList<>();
            Matcher m = ID.matcher(r.body());
            while (m.find()) {
                int id = Integer.parseInt(m.group(1));
                if (id != q) {
                    hits.add(id);
                    hit[id] = true;
                }
            }
            // The truth of this query: documents containing it (like), or contained in it (document).
            List<double[]> related = likeContained
                    ? truth.containedIn().get(q)
                    : truth.contains().get(q);
            for (double[] pair : related) {
                int other = (int) pair[0];
                if (pair[1] < c) {
                    continue;
                }
                int containedSize = likeContained ? truth.sizes()[q] : truth.sizes()[other];
                int band = band(docs, truth.sizes(), q, other);
                long shared = Math.round(pair[1] * containedSize);
                int bin = sharedBin(shared);
                tally.truePairsByShared[bin]++;
                int needed = ContainmentSampling.minSharedSamples(
                        ContainmentSampling.sharedShinglesFor(c, containedSize), sampling);
                tally.expectedMissesByShared[bin] += binomialBelow(shared, 1.0 / sampling, needed);
                if (hit[other]) {
                    tally.tp[band]++;
                    hit[other] = false; // counted
                } else {
                    tally.fn[band]++;
                    tally.missedByShared[bin]++;
                }
            }
            for (int other : hits) {
                if (hit[other]) {
                    tally.fp[band(docs, truth.sizes(), q, other)]++;
                    hit[other] = false;
                }
            }
            if (++done % 1000 == 0) {
                log("  %s c=%.1f: %,d / %,d queries", DIRECTIONS[direction], c, done, queries.size());
            }
        }
        return tally;
    }

    static Node.Response search(Node node, String index, String text, double c, String contained) {
        String body = "{\"size\": " + MAX_HITS + ", \"_source\": false, \"track_total_hits\": true, \"query\": "
                + "{\"near_duplicate\": {\"field\": \"text_fp.minhash\", \"like\": {\"text\": " + Json.quote(text)
                + "}, \"min_containment\": " + c + ", \"contained\": \"" + contained + "\"}}}";
        return node.okBlocking("POST", "/" + index + "/_search", body);
    }

    /** Creates {@code index} ({@code sampling} 0: no containment), bulk-indexes the documents, returns its store size. */
    private static long index(Node node, String index, List<PlantedContainment.Document> docs, int sampling) {
        node.ok(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}");
        node.okOr404("DELETE", "/" + index);
        String minhash = sampling == 0
                ? "{\"type\": \"minhash\"}"
                : "{\"type\": \"minhash\", \"containment\": true, \"containment_sampling\": " + sampling + "}";
        node.ok(
                "PUT",
                "/" + index,
                "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0, \"refresh_interval\": \"-1\", "
                        + "\"index.default_pipeline\": \"" + PIPELINE + "\"}, \"mappings\": {\"properties\": {"
                        + "\"text\": {\"type\": \"text\"}, \"kind\": {\"type\": \"keyword\"}, "
                        + "\"text_fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}, \"minhash\": "
                        + minhash + ", \"content_hash\": {\"type\": \"keyword\"}, \"tokens\": {\"type\": "
                        + "\"integer\"}}}}}}");
        long t0 = System.nanoTime();
        int batch = 100;
        for (int from = 0; from < docs.size(); from += batch) {
            StringBuilder body = new StringBuilder();
            for (int i = from; i < Math.min(docs.size(), from + batch); i++) {
                body.append("{\"index\": {\"_id\": \"")
                        .append(i)
                        .append("\"}}\n{\"kind\": \"")
                        .append(docs.get(i).kind().label())
                        .append("\", \"text\": ")
                        .append(Json.quote(docs.get(i).text()))
                        .append("}\n");
            }
            Node.Response r = node.ok("POST", "/" + index + "/_bulk", body.toString());
            if (r.body().contains("\"errors\":true")) {
                throw new IllegalStateException("bulk errors: " + Node.abbreviate(r.body(), 2000));
            }
        }
        double bulkSeconds = (System.nanoTime() - t0) / 1e9;
        node.ok("POST", "/" + index + "/_refresh", null);
        node.ok("POST", "/" + index + "/_forcemerge?max_num_segments=1", null, Duration.ofMinutes(30));
        node.ok("POST", "/" + index + "/_refresh", null);
        long bytes = Long.parseLong(node.ok("GET", "/_cat/indices/" + index + "?bytes=b&h=pri.store.size", null)
                .body()
                .trim());
        log("%s: %,d documents in %.1f s, %,d bytes after force-merge", index, docs.size(), bulkSeconds, bytes);
        return bytes;
    }

    private static void report(PrintStream out, int sampling, Tally[][] tallies, int likeQueries, int documentQueries) {
        out.printf(Locale.ROOT, "### containment_sampling %d%n%n", sampling);
        out.println("F1 (precision / recall) per band of the pair's size ratio; TP+FN = the true pairs.");
        out.println();
        for (int d = 0; d < DIRECTIONS.length; d++) {
            out.printf(
                    Locale.ROOT,
                    "contained: %s (%,d queries: %s)%n%n",
                    DIRECTIONS[d],
                    d == 0 ? likeQueries : documentQueries,
                    d == 0 ? "the embedded texts" : "the hosts and negatives");
            StringBuilder header = new StringBuilder("| c |");
            StringBuilder rule = new StringBuilder("|---|");
            for (String label : BAND_LABELS) {
                header.append(' ').append(label).append(" |");
                rule.append("---|");
            }
            out.println(header.append(" all | latency median / p90 ms |"));
            out.println(rule.append("---|---|"));
            for (int c = 0; c < CS.length; c++) {
                Tally t = tallies[d][c];
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %.1f |", CS[c]));
                long tp = 0, fp = 0, fn = 0;
                for (int b = 0; b < BAND_LABELS.length; b++) {
                    row.append(' ').append(cell(t.tp[b], t.fp[b], t.fn[b])).append(" |");
                    tp += t.tp[b];
                    fp += t.fp[b];
                    fn += t.fn[b];
                }
                double[] ms = t.millis.stream()
                        .mapToDouble(Double::doubleValue)
                        .sorted()
                        .toArray();
                row.append(' ').append(cell(tp, fp, fn)).append(" |");
                row.append(String.format(
                        Locale.ROOT,
                        " %.1f / %.1f%s |",
                        Stats.median(ms),
                        percentile(ms, 0.9),
                        t.truncated > 0 ? " (" + t.truncated + " truncated)" : ""));
                out.println(row);
            }
            out.println();
            out.printf(
                    Locale.ROOT,
                    "Missed true pairs of contained: %s by shingles shared (missed / true pairs; the binomial model's "
                            + "expected misses):%n%n",
                    DIRECTIONS[d]);
            StringBuilder h = new StringBuilder("| c |");
            StringBuilder r = new StringBuilder("|---|");
            for (String label : SHARED_LABELS) {
                h.append(' ').append(label).append(" |");
                r.append("---|");
            }
            out.println(h);
            out.println(r);
            for (int c = 0; c < CS.length; c++) {
                Tally t = tallies[d][c];
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %.1f |", CS[c]));
                for (int b = 0; b < SHARED_LABELS.length; b++) {
                    row.append(String.format(
                            Locale.ROOT,
                            " %d / %,d (%.1f) |",
                            t.missedByShared[b],
                            t.truePairsByShared[b],
                            t.expectedMissesByShared[b]));
                }
                out.println(row);
            }
            out.println();
        }
    }

    /** F1 (P / R), with the true pairs' count; "–" where a band has no true pair and no hit. */
    static String cell(long tp, long fp, long fn) {
        if (tp + fp + fn == 0) {
            return "–";
        }
        double p = tp + fp == 0 ? 1 : (double) tp / (tp + fp);
        double r = tp + fn == 0 ? 1 : (double) tp / (tp + fn);
        double f1 = p + r == 0 ? 0 : 2 * p * r / (p + r);
        return String.format(Locale.ROOT, "**%.3f** (%.3f / %.3f, %,d)", f1, p, r, tp + fn);
    }

    /** Nearest-rank percentile of ascending values; NaN for none. */
    static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }

    private static void export(Path dir, List<PlantedContainment.Document> docs, long[][] sets, Truth truth)
            throws Exception {
        Files.createDirectories(dir);
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("sets.tsv"), StandardCharsets.UTF_8)) {
            for (int i = 0; i < docs.size(); i++) {
                PlantedContainment.Document doc = docs.get(i);
                w.write(i + "\t" + doc.kind().label() + "\t" + doc.source() + "\t" + doc.band() + "\t" + sets[i].length
                        + "\t");
                for (int k = 0; k < sets[i].length; k++) {
                    if (k > 0) {
                        w.write(' ');
                    }
                    long h = sets[i][k];
                    w.write(Integer.toUnsignedString((int) (h ^ (h >>> 32))));
                }
                w.write('\n');
            }
        }
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("truth.tsv"), StandardCharsets.UTF_8)) {
            for (int a = 0; a < docs.size(); a++) {
                for (double[] pair : truth.containedIn().get(a)) {
                    w.write(a + "\t" + (int) pair[0] + "\t" + String.format(Locale.ROOT, "%.6f", pair[1]) + "\n");
                }
            }
        }
        log("exported %d sets and the truth to %s", docs.size(), dir);
    }

    static void log(String format, Object... args) {
        System.err.printf(Locale.ROOT, format + "%n", args);
    }
}
