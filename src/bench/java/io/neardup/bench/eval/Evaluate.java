/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import io.neardup.bench.common.SyntheticTable;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.LshBanding;
import io.neardup.core.Margins;
import io.neardup.core.Murmur3;
import io.neardup.core.ShingleHasher;
import io.neardup.core.TokenHasher;
import io.neardup.index.MinhashFieldMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;

/**
 * The benchmark and evaluation command (issue #7): one run over a JSON-lines corpus ({@code id},
 * {@code text}, optional {@code group}; gzipped or not) against a real node with the plugin.
 *
 * <ol>
 * <li><b>Ingest</b>: {@link IngestBenchmark#measure} (plain bulk vs the {@code near_dup_fingerprint}
 *     pipeline) on the first {@code --ingest-docs} documents; then the whole corpus is bulk-indexed
 *     through the pipeline into {@code neardup-eval} (1 shard, 0 replicas, {@code index.sort.field:
 *     fp.simhash}, {@code fp.simhash} / {@code fp.minhash} (default banding) / {@code fp.content_hash}),
 *     {@code _id} = line number, and force-merged to one segment.</li>
 * <li><b>Truth</b>, independent of the query path: the fingerprints the node stored are read back from
 *     {@code _source} (scroll); simhash neighbours by brute-force Hamming distance in-process; the exact
 *     Jaccard of the sets of distinct 3-token shingle hashes ({@link Corpus#shingleSet}, the
 *     set the processor's MinHash hashes), for every (query, document) pair by an exact inverted-index
 *     join (postings of the query documents' shingles, every document probed). Query documents: all
 *     documents, or a fixed random sample ({@code --sample}, seed {@code --seed}).</li>
 * <li><b>Quality</b>: for every query document, {@code near_duplicate} with {@code like: {_id}} through the
 *     node: simhash {@code exact} and {@code psm} at each h of {@code --hs} and each k of {@code --ks},
 *     minhash at each tau of {@code --taus}; precision / recall / F1 against Jaccard >= tau (directed
 *     pairs, micro-averaged), exact against the brute-force Hamming truth, PSM recall against exact, the
 *     empirical LSH S-curve (from the stored signatures and the field's banding) against theory.</li>
 * <li><b>Latency</b> on the first {@code --latency-queries} query documents, interleaved: PSM (h = 3,
 *     k = 64), exact, the {@code script_score} Painless Hamming scan ({@link QueryBenchmark#body}),
 *     near_duplicate on the minhash field, OpenSearch's {@code min_hash} token filter (index
 *     {@code neardup-eval-minhash-filter}: standard tokenizer, lowercase, 3-word shingles, min_hash 1 x 128
 *     with rotation) queried with a bool of the document's min_hash tokens (from {@code _termvectors}),
 *     {@code minimum_should_match} 80% (docs/minhash.md), and an {@code ids} query (the floor).</li>
 * <li><b>Memory</b>: {@code GET _plugins/neardup/stats} ({@code segment_structures.bytes}) and the
 *     {@code neardup} breaker, store sizes.</li>
 * <li>{@code --sizes}: for each size, an index of the first n fingerprints only ({@link QueryBenchmark#index},
 *     sorted) and the simhash latencies on it.</li>
 * </ol>
 * Writes {@code report.md}, {@code summary.md} and CSVs ({@code recall_k.csv}, {@code scurve.csv},
 * {@code latency.csv}, {@code latency_sizes.csv}) to the report folder, then prints the summary table
 * last. Plots: {@code docs/benchmarks/plot.py <report-dir>}. The usual entry point is
 * {@code src/scripts/evaluate.sh}, which builds, starts a node and runs this.
 *
 * <pre>
 * java -Xmx3g -cp target/classes:target/test-classes:$(cat target/bench-cp.txt) io.neardup.bench.eval.Evaluate \
 *     corpus.jsonl.gz report-dir --url http://127.0.0.1:9320 [--sample 2000] [--sizes 10000,100000] [--seed 42]
 *     [--latency-queries 200] [--warmup 20] [--ingest-docs 20000] [--ingest-runs 1] [--batch 500] [--threads 2]
 *     [--hs 3,6] [--ks 1,4,16,64,256] [--taus 0.5,0.7,0.8,0.9] [--max-docs N] [--no-minhash-filter] [--command "…"]
 * </pre>
 */
public final class Evaluate {
    static final String INDEX = "neardup-eval";
    static final String MH_INDEX = "neardup-eval-minhash-filter";
    static final String PIPELINE = "neardup-eval";
    /** The {@code @timestamp} of the first document written into a data stream (2026-01-01T00:00:00Z). */
    static final long STREAM_EPOCH_MS = 1_767_225_600_000L;

    static final int SHINGLE = 3;
    static final int SBINS = 20;
    /** Pairs with at least this Jaccard are kept per query (the lowest tau evaluated is above it). */
    static final double KEEP_JACCARD = 0.3;

    static final int QUALITY_SIZE = 1000;
    static final int LATENCY_H = 3;
    static final double LATENCY_TAU = 0.8;
    static final double MH_FILTER_MSM = 0.8;
    static final String SCRIPT = "if (doc['fp.simhash'].size() == 0) { return 0; } " + QueryBenchmark.SCRIPT;

    private final Node node;
    private final String url;
    private final QueryBenchmark qb;
    private final StringBuilder report = new StringBuilder();
    private final Map<String, String> summary = new LinkedHashMap<>();

    Evaluate(String url) {
        this.node = new Node(url, Duration.ofMinutes(30));
        this.url = node.url();
        this.qb = new QueryBenchmark(node);
    }

    /** The node this evaluation runs against. */
    Node node() {
        return node;
    }

    // ------------------------------------------------------------------ options

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                2,
                "Evaluate <corpus.jsonl[.gz]> <report-dir> --url http://127.0.0.1:9320 [--sample N] [--sizes n1,n2] ...",
                List.of("no-minhash-filter"),
                List.of(
                        "url",
                        "sample",
                        "sizes",
                        "seed",
                        "latency-queries",
                        "warmup",
                        "ingest-docs",
                        "ingest-runs",
                        "batch",
                        "threads",
                        "hs",
                        "ks",
                        "taus",
                        "max-docs",
                        "no-minhash-filter",
                        "command"));
        Evaluate e = new Evaluate(opt.getOrDefault("url", "http://127.0.0.1:9320"));
        e.run(Path.of(args[0]), Path.of(args[1]), opt);
    }

    // ------------------------------------------------------------------ the run

    void run(Path corpus, Path out, Map<String, String> opt) throws Exception {
        long t0 = System.nanoTime();
        Files.createDirectories(out);
        long seed = Long.parseLong(opt.getOrDefault("seed", "42"));
        int threads = Integer.parseInt(opt.getOrDefault("threads", "2"));
        int batch = Integer.parseInt(opt.getOrDefault("batch", "500"));
        int[] hs = Options.ints(opt.getOrDefault("hs", "3,6"));
        int[] ks = Options.ints(opt.getOrDefault("ks", "1,4,16,64,256"));
        double[] taus = Arrays.stream(
                        opt.getOrDefault("taus", "0.5,0.7,0.8,0.9").split(","))
                .mapToDouble(Double::parseDouble)
                .toArray();
        boolean mhFilter = opt.containsKey("no-minhash-filter") == false;

        List<Corpus.Doc> docs =
                Corpus.read(corpus, Integer.parseInt(opt.getOrDefault("max-docs", String.valueOf(Integer.MAX_VALUE))));
        int n = docs.size();
        long textBytes = IngestBenchmark.textBytes(docs);
        String version =
                Json.string(Json.path(Json.parse(node.ok("GET", "/", null).body()), "version", "number"));
        log(
                "corpus %s: %,d documents, %.1f MB of text; node %s (OpenSearch %s)",
                corpus, n, textBytes / 1e6, url, version);
        report.append("# Evaluation report: ").append(corpus.getFileName()).append("\n\n");
        if (opt.containsKey("command")) {
            report.append("Command: `").append(opt.get("command")).append("`\n\n");
        }
        report.append(String.format(
                Locale.ROOT,
                "Corpus `%s`: %,d documents, %.1f MB of text (UTF-8). Node: %s, OpenSearch %s, "
                        + "%d available processors in this JVM. Options: %s.%n%n",
                corpus,
                n,
                textBytes / 1e6,
                url,
                version,
                Runtime.getRuntime().availableProcessors(),
                new java.util.TreeMap<>(opt)));

        // 1. Ingest.
        int ingestDocs = Math.min(n, Integer.parseInt(opt.getOrDefault("ingest-docs", "20000")));
        int ingestRuns = Integer.parseInt(opt.getOrDefault("ingest-runs", "1"));
        String[] variants = {"plain", "fingerprint"};
        double[] med = IngestBenchmark.measure(url, docs.subList(0, ingestDocs), batch, ingestRuns, true, variants);
        long ingestBytes = IngestBenchmark.textBytes(docs.subList(0, ingestDocs));
        section("Ingest");
        report.append(String.format(
                Locale.ROOT,
                "`IngestBenchmark.measure`: the first %,d documents (%.1f MB), bulk %d, one client, "
                        + "1 shard, refresh off; one untimed warm-up run per variant, then the median of %d run(s). `fingerprint` = the "
                        + "`near_dup_fingerprint` processor with default options (target mapped as a disabled object).%n%n",
                ingestDocs,
                ingestBytes / 1e6,
                batch,
                ingestRuns));
        report.append("| variant | docs/s | MB/s | time (s) | overhead vs plain |\n|---|---|---|---|---|\n");
        for (int v = 0; v < variants.length; v++) {
            report.append(String.format(
                    Locale.ROOT,
                    "| %s | %,.0f | %.2f | %.2f | %+.1f%% |%n",
                    variants[v],
                    ingestDocs / med[v],
                    ingestBytes / 1e6 / med[v],
                    med[v],
                    100 * (med[v] / med[0] - 1)));
        }
        summary.put(
                "ingest, plain bulk (docs/s, MB/s)",
                String.format(Locale.ROOT, "%,.0f docs/s, %.2f MB/s", ingestDocs / med[0], ingestBytes / 1e6 / med[0]));
        summary.put(
                "ingest, near_dup_fingerprint pipeline (docs/s, MB/s)",
                String.format(
                        Locale.ROOT,
                        "%,.0f docs/s, %.2f MB/s (%+.0f%% time)",
                        ingestDocs / med[1],
                        ingestBytes / 1e6 / med[1],
                        100 * (med[1] / med[0] - 1)));

        double[] evalIngest = indexCorpus(docs, batch);
        report.append(String.format(
                Locale.ROOT,
                "%nThe evaluation index `%s` (all %,d documents through the pipeline into the `simhash`/`minhash`/"
                        + "`keyword` mapping, sorted by `fp.simhash`): bulk %.1f s (%,.0f docs/s, %.2f MB/s), force-merge to 1 segment %.1f s; "
                        + "%,d bulk item failures.%n",
                INDEX,
                n,
                evalIngest[0],
                n / evalIngest[0],
                textBytes / 1e6 / evalIngest[0],
                evalIngest[1],
                (long) evalIngest[2]));
        summary.put(
                "ingest into the evaluation index (pipeline, sorted, all docs)",
                String.format(
                        Locale.ROOT, "%,.0f docs/s, %.2f MB/s", n / evalIngest[0], textBytes / 1e6 / evalIngest[0]));

        // 2. Fingerprints from _source, sample, truth.
        Stored st = fetch(n);
        String sampleOpt = opt.get("sample");
        int sampleSize = sampleOpt != null ? Math.min(n, Integer.parseInt(sampleOpt)) : (n <= 20_000 ? n : 2_000);
        int[] perm = Stats.permutation(n, seed);
        TokenHasher th = new TokenHasher(0);
        Analyzer analyzer = Corpus.analyzer();
        List<Integer> qlist = new ArrayList<>();
        List<long[]> qsets = new ArrayList<>();
        int skippedNoFp = 0;
        int skippedNoShingles = 0;
        for (int i = 0; i < n && qlist.size() < sampleSize; i++) {
            int d = perm[i];
            if (st.has[d] == false) {
                skippedNoFp++;
                continue;
            }
            long[] set =
                    Corpus.shingleSet(Corpus.tokenize(analyzer, docs.get(d).text()), th, new ShingleHasher(SHINGLE, 0));
            if (set.length == 0) {
                skippedNoShingles++;
                continue;
            }
            qlist.add(d);
            qsets.add(set);
        }
        int[] queries = qlist.stream().mapToInt(Integer::intValue).toArray();
        int q = queries.length;
        int[] fpMismatch = checkFingerprints(docs, st, queries);
        log(
                "query documents: %,d (%s); skipped %d without a stored fingerprint, %d without a shingle; processor vs in-process "
                        + "Fingerprinter on them: simhash differs on %d, minhash on %d",
                q,
                q == n ? "all" : "random sample, seed " + seed,
                skippedNoFp,
                skippedNoShingles,
                fpMismatch[0],
                fpMismatch[1]);

        long tt = System.nanoTime();
        Truth truth =
                truth(docs, st, queries, qsets, threads, Arrays.stream(hs).max().orElse(3));
        double truthSeconds = (System.nanoTime() - tt) / 1e9;
        log(
                "truth: %.1f s; %,d (query, doc) pairs with Jaccard >= %.1f, %,d with Jaccard > 0",
                truthSeconds,
                truth.keptPairs(),
                KEEP_JACCARD,
                Arrays.stream(truth.binPairs).sum());

        // 3. Quality through the node.
        Map<String, int[][]> results = new LinkedHashMap<>();
        Map<String, Integer> truncated = new LinkedHashMap<>();
        Map<String, Integer> errors = new LinkedHashMap<>();
        Map<String, String> warnings = new ConcurrentHashMap<>();
        List<String> configs = new ArrayList<>();
        for (int h : hs) {
            configs.add("exact h=" + h);
            for (int k : ks) {
                configs.add("psm h=" + h + " k=" + k);
            }
        }
        for (double tau : taus) {
            configs.add("minhash tau=" + tau);
        }
        long tq = System.nanoTime();
        qualityQueries(configs, queries, threads, results, truncated, errors, warnings);
        double qualitySeconds = (System.nanoTime() - tq) / 1e9;
        log("quality: %,d queries x %d configurations in %.0f s", q, configs.size(), qualitySeconds);
        long[] nodeStatsAfterQuality = nearDupStats();
        long breakerAfterQuality = qb.breakerBytes();

        section("Query documents and truth");
        report.append(String.format(
                Locale.ROOT,
                "%,d query documents (%s; skipped: %d without a stored fingerprint, %d without a 3-word shingle). "
                        + "Fingerprints read back from `_source` for %,d of %,d documents; on the query documents the in-process `Fingerprinter` "
                        + "(default scheme, Lucene StandardAnalyzer) gives a different simhash for %d and a different MinHash signature for %d. "
                        + "Truth: exact Jaccard of distinct 3-word shingle hashes by an inverted-index join over all documents "
                        + "(%,d directed pairs with Jaccard > 0, %,d with Jaccard >= 0.5, %.1f s); exact Hamming neighbours by brute force "
                        + "(%,d pairs within %d bits). Quality queries: %,d x %d configurations, `size` %d, %d client threads, %.0f s.%n%n",
                q,
                q == n ? "every document" : "a random sample, seed " + seed,
                skippedNoFp,
                skippedNoShingles,
                st.count,
                n,
                fpMismatch[0],
                fpMismatch[1],
                Arrays.stream(truth.binPairs).sum(),
                truth.pairsAtLeast(0.5),
                truthSeconds,
                truth.hammingPairs(),
                truth.maxH,
                q,
                configs.size(),
                QUALITY_SIZE,
                threads,
                qualitySeconds));
        report.append("Truth pairs by Jaccard threshold: ");
        for (double tau : taus) {
            report.append(String.format(Locale.ROOT, "J >= %.1f: %,d; ", tau, truth.pairsAtLeast(tau)));
        }
        report.append("by Hamming distance: ");
        for (int h : hs) {
            report.append(String.format(Locale.ROOT, "d <= %d: %,d; ", h, truth.hammingAtMost(h)));
        }
        report.append("\n\n");

        section("Simhash: exact mode against brute force, PSM recall against exact");
        report.append(
                "| h | k | exact pairs | exact = brute force (queries) | PSM found | PSM recall vs exact | PSM results not in exact | truncated responses |\n");
        report.append("|---|---|---|---|---|---|---|---|\n");
        StringBuilder recallCsv = new StringBuilder("h,k,exact_pairs,psm_found,recall\n");
        for (int h : hs) {
            int[][] ex = results.get("exact h=" + h);
            int agree = 0;
            long exactPairs = 0;
            for (int i = 0; i < q; i++) {
                exactPairs += ex[i] == null ? 0 : ex[i].length;
                if (ex[i] != null && Arrays.equals(sorted(ex[i]), truth.hamming(i, h))) {
                    agree++;
                }
            }
            for (int k : ks) {
                String c = "psm h=" + h + " k=" + k;
                int[][] ps = results.get(c);
                long found = 0, extra = 0;
                for (int i = 0; i < q; i++) {
                    if (ps[i] == null || ex[i] == null) {
                        continue;
                    }
                    int[] e = sorted(ex[i]);
                    for (int d : ps[i]) {
                        if (Arrays.binarySearch(e, d) >= 0) {
                            found++;
                        } else {
                            extra++;
                        }
                    }
                }
                double rec = exactPairs == 0 ? Double.NaN : found / (double) exactPairs;
                report.append(String.format(
                        Locale.ROOT,
                        "| %d | %d | %,d | %d / %d | %,d | %.4f | %d | %d |%n",
                        h,
                        k,
                        exactPairs,
                        agree,
                        q,
                        found,
                        rec,
                        extra,
                        truncated.getOrDefault(c, 0) + truncated.getOrDefault("exact h=" + h, 0)));
                recallCsv.append(String.format(Locale.ROOT, "%d,%d,%d,%d,%.6f%n", h, k, exactPairs, found, rec));
                if (k == 64) {
                    summary.put(
                            "PSM recall vs exact, h = " + h + ", k = 64",
                            String.format(Locale.ROOT, "%.4f (%,d of %,d pairs)", rec, found, exactPairs));
                }
            }
            summary.put("exact mode = brute-force Hamming, h = " + h, agree + " / " + q + " queries");
        }
        Files.writeString(out.resolve("recall_k.csv"), recallCsv.toString());
        report.append("\n![PSM recall against k](recall_k.png)\n\n");

        section("Precision, recall and F1 against the exact shingle Jaccard");
        report.append(
                "Directed (query, document) pairs, micro-averaged; truth positive: Jaccard >= tau. `min_similarity` = tau for the "
                        + "minhash rows. A `Warning` header from the node is noted.\n\n");
        report.append(
                "| tau | query | truth pairs | returned | TP | precision | recall | F1 |\n|---|---|---|---|---|---|---|---|\n");
        StringBuilder prfCsv = new StringBuilder("tau,query,truth,returned,tp,precision,recall,f1\n");
        for (double tau : taus) {
            List<String> rows = new ArrayList<>();
            rows.add("minhash tau=" + tau);
            for (int h : hs) {
                rows.add("exact h=" + h);
                if (Arrays.stream(ks).anyMatch(k -> k == 64)) {
                    rows.add("psm h=" + h + " k=64");
                }
            }
            for (String c : rows) {
                long[] m = prf(results.get(c), truth, tau);
                String label = c.startsWith("minhash")
                        ? "near_duplicate minhash, min_similarity " + tau
                        : "near_duplicate simhash " + c;
                report.append(String.format(
                        Locale.ROOT,
                        "| %.2f | %s%s | %,d | %,d | %,d | %.4f | %.4f | **%.4f** |%n",
                        tau,
                        label,
                        warnings.containsKey(c) ? " (Warning)" : "",
                        m[0],
                        m[1],
                        m[2],
                        prec(m),
                        rec(m),
                        f1(m)));
                prfCsv.append(String.format(
                        Locale.ROOT,
                        "%.2f,%s,%d,%d,%d,%.6f,%.6f,%.6f%n",
                        tau,
                        c,
                        m[0],
                        m[1],
                        m[2],
                        prec(m),
                        rec(m),
                        f1(m)));
                if (tau == 0.8 && (c.equals("minhash tau=0.8") || c.equals("exact h=3"))) {
                    summary.put(
                            "F1 at Jaccard >= 0.8: "
                                    + (c.startsWith("minhash") ? "minhash, min_similarity 0.8" : "simhash, h = 3"),
                            String.format(Locale.ROOT, "%.3f (P %.3f, R %.3f)", f1(m), prec(m), rec(m)));
                }
            }
        }
        Files.writeString(out.resolve("prf.csv"), prfCsv.toString());
        for (Map.Entry<String, String> w : warnings.entrySet()) {
            report.append("\nWarning on `")
                    .append(w.getKey())
                    .append("`: ")
                    .append(w.getValue())
                    .append('\n');
        }
        StringBuilder errs = new StringBuilder();
        errors.forEach((c, e) -> {
            if (e > 0) {
                errs.append(c).append(": ").append(e).append("; ");
            }
        });
        if (errs.length() > 0) {
            report.append("\nFailed requests: ").append(errs).append('\n');
        }

        section("LSH S-curve");
        LshBanding banding = st.banding;
        int[][] mh08 = results.get("minhash tau=0.8");
        long[] returnedByBin = new long[SBINS];
        long[] keptByBin = new long[SBINS];
        for (int i = 0; i < q; i++) {
            int[] tr = truth.pairDocs[i];
            for (int j = 0; j < tr.length; j++) {
                keptByBin[bin(truth.pairJac[i][j])]++;
            }
            if (mh08 == null || mh08[i] == null) {
                continue;
            }
            for (int d : mh08[i]) {
                double jac = truth.jaccard(i, d);
                if (jac >= KEEP_JACCARD) {
                    returnedByBin[bin(jac)]++;
                }
            }
        }
        report.append(String.format(
                Locale.ROOT,
                "Banding of `fp.minhash` (the default min_similarity_floor %.1f): %d bands x %d rows. Empirical "
                        + "P(candidate) = share of (query, document) pairs in each Jaccard bin that share >= 1 band (band keys from the stored "
                        + "signatures, as the mapper indexes them); theory = mean of 1 - (1 - J^r)^b over the bin's pairs; `returned at 0.8` = "
                        + "share returned by the node's query with min_similarity 0.8 (automatic min_band_matches, exact verification).%n%n",
                MinhashFieldMapper.DEFAULT_MIN_SIMILARITY_FLOOR,
                banding.bands(),
                banding.rows()));
        report.append(
                "| Jaccard | pairs | empirical P(candidate) | theory | returned at 0.8 |\n|---|---|---|---|---|\n");
        StringBuilder sc =
                new StringBuilder("bin_lo,bin_hi,pairs,candidates,empirical,theory,returned_08,bands,rows\n");
        for (int b = 0; b < SBINS; b++) {
            long np = truth.binPairs[b];
            double emp = ratio(truth.binCandidates[b], np);
            double theory = np == 0 ? Double.NaN : truth.binTheory[b] / np;
            double ret = b / (double) SBINS >= KEEP_JACCARD - 1e-9 ? ratio(returnedByBin[b], keptByBin[b]) : Double.NaN;
            report.append(String.format(
                    Locale.ROOT,
                    "| %.2f-%.2f | %,d | %.4f | %.4f | %.4f |%n",
                    b / 20.0,
                    (b + 1) / 20.0,
                    np,
                    emp,
                    theory,
                    ret));
            sc.append(String.format(
                    Locale.ROOT,
                    "%.2f,%.2f,%d,%d,%.6f,%.6f,%.6f,%d,%d%n",
                    b / 20.0,
                    (b + 1) / 20.0,
                    np,
                    truth.binCandidates[b],
                    emp,
                    theory,
                    ret,
                    banding.bands(),
                    banding.rows()));
        }
        Files.writeString(out.resolve("scurve.csv"), sc.toString());
        report.append("\n![S-curve](scurve.png)\n\n");

        // 4. Latency.
        int lq = Math.min(q, Integer.parseInt(opt.getOrDefault("latency-queries", "200")));
        int warmup = Math.min(lq, Integer.parseInt(opt.getOrDefault("warmup", "20")));
        double[] mhIngest = null;
        Map<Integer, List<String>> tokens = new HashMap<>();
        if (mhFilter) {
            mhIngest = indexMinhashFilter(docs, batch);
            for (int i = 0; i < lq; i++) {
                tokens.put(queries[i], termVector(queries[i]));
            }
        }
        String[] methods = mhFilter
                ? new String[] {
                    "psm",
                    "exact",
                    "script_score",
                    "nd_minhash",
                    "nd_minhash_estimate",
                    "minhash_filter",
                    "ids_baseline"
                }
                : new String[] {"psm", "exact", "script_score", "nd_minhash", "nd_minhash_estimate", "ids_baseline"};
        Map<String, double[]> lat = latency(INDEX, methods, queries, lq, warmup, st, tokens, n, truth);
        section("Latency");
        report.append(String.format(
                Locale.ROOT,
                "%d query documents (after %d warm-up queries), sequential, one interleaved loop (every "
                        + "method per query, the order rotating), client wall time over HTTP/1.1 keep-alive; `size` 100, `_source` false, "
                        + "`track_total_hits` true. psm / exact: `near_duplicate` on `fp.simhash`, h = %d (k = 64), `like` the stored fingerprint; "
                        + "script_score: Painless `Long.bitCount` over every document (`min_score` 1; documents without a simhash score 0); nd_minhash: `near_duplicate` on "
                        + "`fp.minhash`, min_similarity %.1f, `like` the stored signature and shingle set (exact verification); nd_minhash_estimate: "
                        + "the same with `verification: estimate` and no set; minhash_filter: `bool` of `term` queries on the "
                        + "document's distinct `min_hash` tokens (from `_termvectors`, not timed) with minimum_should_match %.0f%% on `%s`; "
                        + "ids_baseline: an `ids` query for one document (HTTP + search floor).%n%n",
                lq - warmup,
                warmup,
                LATENCY_H,
                LATENCY_TAU,
                100 * MH_FILTER_MSM,
                MH_INDEX));
        report.append(
                "| method | median ms | p99 ms | mean ms | median took ms | precision / recall / F1 at J >= 0.8 (size 100) |\n|---|---|---|---|---|---|\n");
        StringBuilder latCsv = new StringBuilder("method,median_ms,p99_ms,mean_ms,median_took_ms\n");
        for (String m : methods) {
            double[] r = lat.get(m);
            report.append(String.format(
                    Locale.ROOT,
                    "| %s | %.2f | %.2f | %.2f | %.0f | %s |%n",
                    m,
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    m.startsWith("nd_minhash") || m.equals("minhash_filter")
                            ? String.format(Locale.ROOT, "%.3f / %.3f / %.3f", r[4], r[5], r[6])
                            : "-"));
            latCsv.append(String.format(Locale.ROOT, "%s,%.4f,%.4f,%.4f,%.1f%n", m, r[0], r[1], r[2], r[3]));
        }
        Files.writeString(out.resolve("latency.csv"), latCsv.toString());
        double ssPsm = lat.get("script_score")[0] / lat.get("psm")[0];
        report.append(String.format(
                Locale.ROOT,
                "%nRatios of medians: script_score / psm = %.1f, script_score / exact = %.1f, exact / psm = %.2f",
                ssPsm,
                lat.get("script_score")[0] / lat.get("exact")[0],
                lat.get("exact")[0] / lat.get("psm")[0]));
        if (mhFilter) {
            report.append(String.format(
                    Locale.ROOT,
                    ", minhash_filter / nd_minhash = %.2f",
                    lat.get("minhash_filter")[0] / lat.get("nd_minhash")[0]));
        }
        report.append(".\n\n");
        summary.put("latency median / p99 ms: near_duplicate psm (h 3, k 64)", fmtLat(lat.get("psm")));
        summary.put("latency median / p99 ms: near_duplicate exact (h 3)", fmtLat(lat.get("exact")));
        summary.put(
                "latency median / p99 ms: script_score Hamming scan",
                fmtLat(lat.get("script_score")) + String.format(Locale.ROOT, " (%.1fx psm)", ssPsm));
        summary.put(
                "latency median / p99 ms: near_duplicate minhash (0.8)",
                fmtLat(lat.get("nd_minhash")) + String.format(Locale.ROOT, ", F1 %.3f", lat.get("nd_minhash")[6]));
        if (mhFilter) {
            summary.put(
                    "latency median / p99 ms: min_hash token filter, bool msm 80%",
                    fmtLat(lat.get("minhash_filter"))
                            + String.format(
                                    Locale.ROOT,
                                    " (%.2fx nd_minhash), F1 %.3f",
                                    lat.get("minhash_filter")[0] / lat.get("nd_minhash")[0],
                                    lat.get("minhash_filter")[6]));
        }

        // 5. Memory and size.
        long mainStore = qb.storeBytes(INDEX);
        section("Memory and index size");
        report.append(String.format(
                Locale.ROOT,
                "After the quality queries on `%s` (%,d documents, 1 segment, sorted by `fp.simhash`): "
                        + "`GET _plugins/neardup/stats` segment_structures: %,d entries, %,d bytes = **%.2f bytes/document** (%d builds); `neardup` "
                        + "breaker %,d bytes = %.2f bytes/document. Store size (primaries) of `%s`: %,d bytes = %.0f bytes/document (text, "
                        + "fingerprints in `_source`, doc values, band terms)",
                INDEX,
                st.count,
                nodeStatsAfterQuality[0],
                nodeStatsAfterQuality[1],
                nodeStatsAfterQuality[1] / (double) st.count,
                nodeStatsAfterQuality[2],
                breakerAfterQuality,
                breakerAfterQuality / (double) st.count,
                INDEX,
                mainStore,
                mainStore / (double) n));
        if (mhFilter) {
            long mhStore = qb.storeBytes(MH_INDEX);
            report.append(String.format(
                    Locale.ROOT,
                    "; of `%s` (text + min_hash tokens with term vectors): %,d bytes = %.0f bytes/document. "
                            + "Indexing `%s`: bulk %.1f s (%,.0f docs/s), force-merge %.1f s",
                    MH_INDEX,
                    mhStore,
                    mhStore / (double) n,
                    MH_INDEX,
                    mhIngest[0],
                    n / mhIngest[0],
                    mhIngest[1]));
        }
        report.append(".\n\n");
        summary.put(
                "plugin heap per document (segment_structures.bytes / docs)",
                String.format(
                        Locale.ROOT,
                        "%.2f bytes (breaker %.2f)",
                        nodeStatsAfterQuality[1] / (double) st.count,
                        breakerAfterQuality / (double) st.count));
        summary.put(
                "index size per document (text + fingerprints)",
                String.format(Locale.ROOT, "%,.0f bytes", mainStore / (double) n));

        // 6. Sizes.
        int[] sizes = Options.ints(opt.getOrDefault("sizes", ""));
        if (sizes.length > 0) {
            sizes(sizes, st, queries, lq, warmup, out);
        }
        double total = (System.nanoTime() - t0) / 1e9;
        report.append(String.format(Locale.ROOT, "Run time: %.0f s.%n", total));

        // Summary: report, file, stdout (last).
        StringBuilder sum = new StringBuilder();
        sum.append(String.format(
                Locale.ROOT, "## Summary: %s, %,d documents, %,d query documents%n%n", corpus.getFileName(), n, q));
        sum.append("| measure | result |\n|---|---|\n");
        summary.forEach(
                (k, v) -> sum.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        String text = report.toString().replaceFirst("\n\n", "\n\n" + sum + "\n");
        Files.writeString(out.resolve("report.md"), text);
        Files.writeString(out.resolve("summary.md"), sum.toString());
        cleanup();
        System.out.println();
        System.out.print(sum);
    }

    static String fmtLat(double[] r) {
        return String.format(Locale.ROOT, "%.2f / %.2f", r[0], r[1]);
    }

    void section(String title) {
        while (report.length() > 0 && report.toString().endsWith("\n\n") == false) {
            report.append('\n');
        }
        report.append("## ").append(title).append("\n\n");
    }

    static void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, format + "%n", args);
    }

    void cleanup() throws Exception {
        for (String i : new String[] {INDEX, MH_INDEX}) {
            node.call("DELETE", "/" + i, null);
        }
        node.call("DELETE", "/_ingest/pipeline/" + PIPELINE, null);
    }

    // ------------------------------------------------------------------ indexing

    /** Returns {bulk seconds, merge seconds, failed items}. */
    double[] indexCorpus(List<Corpus.Doc> docs, int batch) throws Exception {
        return indexCorpus(docs, batch, 1);
    }

    double[] indexCorpus(List<Corpus.Doc> docs, int batch, int shards) throws Exception {
        return indexCorpus(docs, batch, shards, "");
    }

    /**
     * The evaluation index in {@code shards} primary shards (sorted by {@code fp.simhash} within each), the corpus
     * bulk-indexed through the pipeline; {@code minhashParams} (e.g. {@code , "min_similarity_floor": 0.8}) are added
     * to the {@code fp.minhash} mapping.
     */
    double[] indexCorpus(List<Corpus.Doc> docs, int batch, int shards, String minhashParams) throws Exception {
        node.call("DELETE", "/" + INDEX, null);
        putPipeline();
        node.ok("PUT", "/" + INDEX, indexDefinition(shards, minhashParams, ""));
        return bulk(INDEX, docs, batch);
    }

    void putPipeline() throws Exception {
        node.ok(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"description\": \"neardup evaluation\", \"processors\": [{\"near_dup_fingerprint\": "
                        + "{\"field\": \"text\", \"target_field\": \"fp\"}}]}");
    }

    /**
     * The evaluation index's settings and mappings: {@code shards} primary shards sorted by {@code fp.simhash}, the
     * pipeline as default; {@code extraProperties} (e.g. {@code "@timestamp": {"type": "date"}, }) are mapped first.
     * Also the {@code template} of a data stream's index template, so that its backing indices are this index.
     */
    static String indexDefinition(int shards, String minhashParams, String extraProperties) {
        return indexDefinition(shards, minhashParams, extraProperties, PIPELINE);
    }

    /** As above, with {@code pipeline} as the default pipeline. */
    static String indexDefinition(int shards, String minhashParams, String extraProperties, String pipeline) {
        return indexDefinition(shards, minhashParams, extraProperties, pipeline, 1);
    }

    /**
     * As above, in fingerprint format {@code format}: 1 for the programs that model the band terms on stored signatures,
     * 2 (the default of a new index) where only the node's answers are read.
     */
    static String indexDefinition(
            int shards, String minhashParams, String extraProperties, String pipeline, int format) {
        return "{\"settings\": {\"number_of_shards\": " + shards
                + ", \"number_of_replicas\": 0, \"refresh_interval\": \"-1\", "
                + "\"index.default_pipeline\": \"" + pipeline
                // Format 1: this program models the field's band terms on stored signatures (8-byte keys).
                + "\", \"index.sort.field\": \"fp.simhash\", \"index.neardup.fingerprint_format\": " + format + "},"
                + " \"mappings\": {\"properties\": {" + extraProperties
                + "\"text\": {\"type\": \"text\"}, \"group\": {\"type\": \"keyword\"}, \"fp\": {\"properties\": {"
                + "\"simhash\": {\"type\": \"simhash\"}, \"minhash\": {\"type\": \"minhash\"" + minhashParams
                + "}, "
                + "\"content_hash\": {\"type\": \"keyword\"}}}}}}";
    }

    double[] indexMinhashFilter(List<Corpus.Doc> docs, int batch) throws Exception {
        node.call("DELETE", "/" + MH_INDEX, null);
        node.ok(
                "PUT",
                "/" + MH_INDEX,
                "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0, \"refresh_interval\": \"-1\", "
                        + "\"analysis\": {\"filter\": {\"sh3\": {\"type\": \"shingle\", \"min_shingle_size\": 3, \"max_shingle_size\": 3, "
                        + "\"output_unigrams\": false}, \"mh128\": {\"type\": \"min_hash\", \"hash_count\": 1, \"bucket_count\": 128, "
                        + "\"hash_set_size\": 1, \"with_rotation\": true}}, \"analyzer\": {\"minhash\": {\"type\": \"custom\", \"tokenizer\": "
                        + "\"standard\", \"filter\": [\"lowercase\", \"sh3\", \"mh128\"]}}}}, \"mappings\": {\"properties\": {\"text\": "
                        + "{\"type\": \"text\", \"analyzer\": \"minhash\", \"term_vector\": \"yes\"}, \"group\": {\"type\": \"keyword\"}}}}");
        return bulk(MH_INDEX, docs, batch);
    }

    private static final Pattern BULK_ERROR = Pattern.compile(
            "\"_id\"\\s*:\\s*\"(\\d+)\"[^{}]*?\"error\"\\s*:\\s*\\{\\s*\"type\"\\s*:\\s*\"([^\"]+)\"\\s*,\\s*\"reason\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** Bulk-indexes docs (_id = position), one request at a time; returns {bulk s, force-merge s, failed items}. */
    double[] bulk(String index, List<Corpus.Doc> docs, int batch) throws Exception {
        return bulk(index, docs, batch, 0);
    }

    /**
     * As {@link #bulk(String, List, int)}; with {@code generations} >= 1, {@code index} is a data stream: each document
     * gets {@code @timestamp} = a fixed instant + its position in ms and is written with op_type {@code create}, and the
     * stream is rolled over ({@code POST <stream>/_rollover}) after each {@code n / generations} documents in corpus
     * order, so that its {@code generations} backing indices hold the corpus split evenly, oldest first.
     */
    double[] bulk(String index, List<Corpus.Doc> docs, int batch, int generations) throws Exception {
        JsonFactory json = new JsonFactory();
        long failed = 0;
        long t0 = System.nanoTime();
        int n = docs.size();
        int parts = Math.max(1, generations);
        for (int g = 0; g < parts; g++) {
            int end = (int) ((long) n * (g + 1) / parts);
            for (int from = (int) ((long) n * g / parts); from < end; from += batch) {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                for (int i = from; i < Math.min(end, from + batch); i++) {
                    Corpus.Doc d = docs.get(i);
                    body.write(("{\"" + (generations >= 1 ? "create" : "index") + "\":{\"_id\":\"" + i + "\"}}\n")
                            .getBytes(StandardCharsets.UTF_8));
                    try (JsonGenerator gen = json.createGenerator(body)) {
                        gen.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
                        gen.writeStartObject();
                        if (generations >= 1) {
                            gen.writeNumberField("@timestamp", STREAM_EPOCH_MS + i);
                        }
                        gen.writeStringField("text", d.text());
                        if (d.group() != null) {
                            gen.writeStringField("group", d.group());
                        }
                        gen.writeEndObject();
                    }
                    body.write('\n');
                }
                Node.Response r =
                        node.callRaw("POST", "/" + index + "/_bulk", body.toByteArray(), Duration.ofMinutes(10));
                if (r.status() != 200) {
                    throw new IllegalStateException(
                            "bulk into " + index + " -> " + r.status() + ": " + Node.abbreviate(r.body(), 2000));
                }
                if (r.body().contains("\"errors\":true")) {
                    Matcher m = BULK_ERROR.matcher(r.body());
                    while (m.find()) {
                        if (failed++ < 5) {
                            log(
                                    "bulk item failed: _id %s: %s: %s",
                                    m.group(1), m.group(2), Node.abbreviate(m.group(3), 300));
                        }
                    }
                }
                if ((from / batch) % 200 == 199) {
                    System.err.printf(
                            Locale.ROOT,
                            "  %s: %,d of %,d documents (%.0f s)%n",
                            index,
                            from + batch,
                            n,
                            (System.nanoTime() - t0) / 1e9);
                }
            }
            if (g < parts - 1) {
                node.ok("POST", "/" + index + "/_rollover", null);
            }
        }
        double bulkSeconds = (System.nanoTime() - t0) / 1e9;
        node.ok("POST", "/" + index + "/_refresh", null);
        long t1 = System.nanoTime();
        node.ok("POST", "/" + index + "/_forcemerge?max_num_segments=1", null);
        node.ok("POST", "/" + index + "/_refresh", null);
        double mergeSeconds = (System.nanoTime() - t1) / 1e9;
        long count = qb.docCount(index);
        log(
                "index %s: %,d documents bulk-indexed in %.1f s (%,.0f docs/s), force-merged in %.1f s; %,d documents, %d failed items",
                index, n, bulkSeconds, n / bulkSeconds, mergeSeconds, count, failed);
        return new double[] {bulkSeconds, mergeSeconds, failed};
    }

    // ------------------------------------------------------------------ fingerprints from _source

    /** The fingerprints the node stored, by _id. */
    static final class Stored {
        long[] simhash;
        byte[] margins; // 64 a document
        boolean[] has;
        long[] bandKeys; // bands a document
        String[] marginsB64;
        Map<Integer, String> minhash = new HashMap<>(); // only of the query documents (latency)
        Map<Integer, String> shingles = new HashMap<>();
        String scheme;
        int count;
        LshBanding banding;
    }

    /** Each hit of the search {@code body} (with a size and a sort) on {@code index}, page by page through a scroll. */
    void scroll(String index, String body, Consumer<Map<?, ?>> hit) throws Exception {
        Map<String, Object> r = Json.parse(
                node.ok("POST", "/" + index + "/_search?scroll=5m", body).body());
        while (true) {
            List<?> hits = (List<?>) Json.path(r, "hits", "hits");
            if (hits == null || hits.isEmpty()) {
                break;
            }
            for (Object h : hits) {
                hit.accept((Map<?, ?>) h);
            }
            r = Json.parse(node.ok(
                            "POST",
                            "/_search/scroll",
                            "{\"scroll\": \"5m\", \"scroll_id\": \"" + r.get("_scroll_id") + "\"}")
                    .body());
        }
        node.call("DELETE", "/_search/scroll/_all", null);
    }

    Stored fetch(int n) throws Exception {
        Stored st = new Stored();
        st.simhash = new long[n];
        st.margins = new byte[n * Margins.BITS];
        st.has = new boolean[n];
        st.marginsB64 = new String[n];
        st.banding = LshBanding.forFloor(
                MinhashFieldMapper.DEFAULT_MIN_SIMILARITY_FLOOR, MinhashFieldMapper.DEFAULT_NUM_HASHES);
        int bands = st.banding.bands();
        int rows = st.banding.rows();
        st.bandKeys = new long[(long) n * bands > Integer.MAX_VALUE ? 0 : n * bands];
        long t0 = System.nanoTime();
        String body = "{\"size\": 5000, \"sort\": [\"_doc\"], \"_source\": [\"fp.simhash\", \"fp.minhash\"]}";
        Map<String, Object> r = Json.parse(
                node.ok("POST", "/" + INDEX + "/_search?scroll=5m", body).body());
        Base64.Decoder b64 = Base64.getUrlDecoder();
        while (true) {
            List<?> hits = (List<?>) Json.path(r, "hits", "hits");
            if (hits == null || hits.isEmpty()) {
                break;
            }
            for (Object o : hits) {
                Map<?, ?> h = (Map<?, ?>) o;
                int id = Integer.parseInt((String) h.get("_id"));
                Object sim = Json.path(h, "_source", "fp", "simhash");
                Object mh = Json.path(h, "_source", "fp", "minhash");
                if (sim instanceof Map<?, ?> s && mh instanceof Map<?, ?> m) {
                    st.simhash[id] = Long.parseUnsignedLong((String) s.get("value"), 16);
                    String mb = (String) s.get("margins");
                    st.marginsB64[id] = mb;
                    System.arraycopy(Margins.decode(mb).toBytes(), 0, st.margins, id * Margins.BITS, Margins.BITS);
                    if (st.scheme == null) {
                        st.scheme = (String) s.get("scheme");
                    }
                    String sig = (String) m.get("value");
                    byte[] bytes = b64.decode(sig);
                    for (int b = 0; b < bands; b++) {
                        // the mapper's band term: murmur3-64 (seed 0) of the band's big-endian int32 values, after the
                        // 5-byte header
                        st.bandKeys[id * bands + b] = Murmur3.hash64(bytes, 5 + b * rows * 4, rows * 4, 0L);
                    }
                    st.minhash.put(id, sig);
                    if (m.get("shingles") instanceof String set) {
                        st.shingles.put(id, set);
                    }
                    st.has[id] = true;
                    st.count++;
                }
            }
            String scroll = (String) r.get("_scroll_id");
            r = Json.parse(node.ok("POST", "/_search/scroll", "{\"scroll\": \"5m\", \"scroll_id\": \"" + scroll + "\"}")
                    .body());
        }
        node.call("DELETE", "/_search/scroll/_all", null);
        log(
                "fingerprints read back from _source: %,d of %,d documents in %.1f s; scheme %s; minhash banding %d x %d",
                st.count, n, (System.nanoTime() - t0) / 1e9, st.scheme, bands, rows);
        return st;
    }

    /** Processor's stored fingerprints against the in-process Fingerprinter (default scheme) on the query documents. */
    static int[] checkFingerprints(List<Corpus.Doc> docs, Stored st, int[] queries) {
        Fingerprinter f = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        Analyzer analyzer = Corpus.analyzer();
        int simDiff = 0, mhDiff = 0;
        Base64.Decoder b64 = Base64.getUrlDecoder();
        for (int d : queries) {
            Corpus.Tokens t = Corpus.tokenize(analyzer, docs.get(d).text());
            f.reset();
            for (int k = 0; k < t.size(); k++) {
                f.token(t.chars(), t.start(k), t.length(k));
            }
            Fingerprint fp = f.finish();
            if (fp.simhash() != st.simhash[d]) {
                simDiff++;
            }
            byte[] bytes = b64.decode(st.minhash.get(d));
            int[] sig = new int[(bytes.length - 5) / 4];
            java.nio.ByteBuffer.wrap(bytes, 5, bytes.length - 5).asIntBuffer().get(sig);
            if (Arrays.equals(sig, fp.minhash()) == false) {
                mhDiff++;
            }
        }
        return new int[] {simDiff, mhDiff};
    }

    // ------------------------------------------------------------------ truth

    /** Per query (index into the queries array): kept Jaccard pairs (doc ascending) and Hamming neighbours. */
    static final class Truth {
        int[][] pairDocs;
        float[][] pairJac;
        int[][] hamDocs; // ascending
        byte[][] hamDist;
        long[] binPairs = new long[SBINS];
        long[] binCandidates = new long[SBINS];
        double[] binTheory = new double[SBINS];
        int maxH;

        long keptPairs() {
            return Arrays.stream(pairDocs).mapToLong(a -> a.length).sum();
        }

        long pairsAtLeast(double tau) {
            long c = 0;
            for (float[] js : pairJac) {
                for (float j : js) {
                    c += j >= tau - 1e-9 ? 1 : 0;
                }
            }
            return c;
        }

        double jaccard(int qi, int d) {
            int p = Arrays.binarySearch(pairDocs[qi], d);
            return p < 0 ? 0 : pairJac[qi][p];
        }

        int[] hamming(int qi, int h) {
            List<Integer> l = new ArrayList<>();
            for (int j = 0; j < hamDocs[qi].length; j++) {
                if (hamDist[qi][j] <= h) {
                    l.add(hamDocs[qi][j]);
                }
            }
            return l.stream().mapToInt(Integer::intValue).toArray();
        }

        long hammingPairs() {
            return Arrays.stream(hamDocs).mapToLong(a -> a.length).sum();
        }

        long hammingAtMost(int h) {
            long c = 0;
            for (byte[] ds : hamDist) {
                for (byte d : ds) {
                    c += d <= h ? 1 : 0;
                }
            }
            return c;
        }
    }

    static Truth truth(List<Corpus.Doc> docs, Stored st, int[] queries, List<long[]> qsets, int threads, int maxH)
            throws Exception {
        int q = queries.length;
        int n = docs.size();
        // Postings of the query documents' shingles: dictionary (sorted distinct hashes), CSR lists of query indexes.
        long total = 0;
        for (long[] s : qsets) {
            total += s.length;
        }
        long[] all = new long[(int) total];
        int p = 0;
        for (long[] s : qsets) {
            System.arraycopy(s, 0, all, p, s.length);
            p += s.length;
        }
        Arrays.sort(all);
        int u = 0;
        for (int i = 0; i < all.length; i++) {
            if (i == 0 || all[i] != all[i - 1]) {
                all[u++] = all[i];
            }
        }
        long[] dict = Arrays.copyOf(all, u);
        all = null;
        int[] start = new int[dict.length + 1];
        int[][] idx = new int[q][];
        for (int i = 0; i < q; i++) {
            long[] s = qsets.get(i);
            idx[i] = new int[s.length];
            for (int k = 0; k < s.length; k++) {
                idx[i][k] = Arrays.binarySearch(dict, s[k]);
                start[idx[i][k] + 1]++;
            }
        }
        for (int k = 0; k < dict.length; k++) {
            start[k + 1] += start[k];
        }
        int[] postings = new int[start[dict.length]];
        int[] fill = Arrays.copyOf(start, dict.length);
        for (int i = 0; i < q; i++) {
            for (int id : idx[i]) {
                postings[fill[id]++] = i;
            }
        }
        int[] qsize = qsets.stream().mapToInt(s -> s.length).toArray();
        int[] queryOf = new int[n];
        Arrays.fill(queryOf, -1);
        for (int i = 0; i < q; i++) {
            queryOf[queries[i]] = i;
        }
        LshBanding bd = st.banding;
        int bands = bd.bands();

        Truth truth = new Truth();
        truth.maxH = maxH;
        List<List<long[]>> perThread = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        long[][] binPairs = new long[threads][SBINS];
        long[][] binCand = new long[threads][SBINS];
        double[][] binTheory = new double[threads][SBINS];
        for (int t = 0; t < threads; t++) {
            List<long[]> found = new ArrayList<>(); // {query, doc, jaccard bits}
            perThread.add(found);
            int tt = t;
            futures.add(pool.submit(() -> {
                Analyzer analyzer = Corpus.analyzer();
                TokenHasher th = new TokenHasher(0);
                ShingleHasher sh = new ShingleHasher(SHINGLE, 0);
                int[] inter = new int[q];
                int[] touched = new int[q];
                int chunk = 256;
                for (int from = next.getAndAdd(chunk); from < n; from = next.getAndAdd(chunk)) {
                    for (int d = from; d < Math.min(n, from + chunk); d++) {
                        if (st.has[d] == false) {
                            continue;
                        }
                        long[] set = queryOf[d] >= 0
                                ? qsets.get(queryOf[d])
                                : Corpus.shingleSet(
                                        Corpus.tokenize(analyzer, docs.get(d).text()), th, sh);
                        if (set.length == 0) {
                            continue;
                        }
                        int nt = 0;
                        for (long s : set) {
                            int k = Arrays.binarySearch(dict, s);
                            if (k < 0) {
                                continue;
                            }
                            for (int x = start[k]; x < start[k + 1]; x++) {
                                int qi = postings[x];
                                if (inter[qi]++ == 0) {
                                    touched[nt++] = qi;
                                }
                            }
                        }
                        for (int x = 0; x < nt; x++) {
                            int qi = touched[x];
                            int c = inter[qi];
                            inter[qi] = 0;
                            int qd = queries[qi];
                            if (qd == d) {
                                continue;
                            }
                            double jac = (double) c / (qsize[qi] + set.length - c);
                            int b = bin(jac);
                            binPairs[tt][b]++;
                            binTheory[tt][b] += bd.candidateProbability(jac);
                            for (int band = 0; band < bands; band++) {
                                if (st.bandKeys[qd * bands + band] == st.bandKeys[d * bands + band]) {
                                    binCand[tt][b]++;
                                    break;
                                }
                            }
                            if (jac >= KEEP_JACCARD) {
                                found.add(new long[] {qi, d, Double.doubleToLongBits(jac)});
                            }
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        for (int t = 0; t < threads; t++) {
            for (int b = 0; b < SBINS; b++) {
                truth.binPairs[b] += binPairs[t][b];
                truth.binCandidates[b] += binCand[t][b];
                truth.binTheory[b] += binTheory[t][b];
            }
        }
        List<List<long[]>> byQuery = new ArrayList<>();
        for (int i = 0; i < q; i++) {
            byQuery.add(new ArrayList<>());
        }
        for (List<long[]> l : perThread) {
            for (long[] e : l) {
                byQuery.get((int) e[0]).add(e);
            }
        }
        truth.pairDocs = new int[q][];
        truth.pairJac = new float[q][];
        for (int i = 0; i < q; i++) {
            List<long[]> l = byQuery.get(i);
            l.sort((a, b) -> Long.compare(a[1], b[1]));
            truth.pairDocs[i] = l.stream().mapToInt(e -> (int) e[1]).toArray();
            truth.pairJac[i] = new float[l.size()];
            for (int j = 0; j < l.size(); j++) {
                truth.pairJac[i][j] = (float) Double.longBitsToDouble(l.get(j)[2]);
            }
        }
        // Hamming neighbours, brute force.
        truth.hamDocs = new int[q][];
        truth.hamDist = new byte[q][];
        long[] fps = st.simhash;
        java.util.stream.IntStream.range(0, q).parallel().forEach(i -> {
            long f = fps[queries[i]];
            List<int[]> l = new ArrayList<>();
            for (int d = 0; d < n; d++) {
                if (st.has[d] && d != queries[i]) {
                    int dist = Long.bitCount(fps[d] ^ f);
                    if (dist <= maxH) {
                        l.add(new int[] {d, dist});
                    }
                }
            }
            truth.hamDocs[i] = l.stream().mapToInt(a -> a[0]).toArray();
            truth.hamDist[i] = new byte[l.size()];
            for (int j = 0; j < l.size(); j++) {
                truth.hamDist[i][j] = (byte) l.get(j)[1];
            }
        });
        return truth;
    }

    static int bin(double jac) {
        return Math.min(SBINS - 1, (int) Math.floor(jac * SBINS + 1e-9));
    }

    // ------------------------------------------------------------------ quality queries

    static String qualityBody(String config, int doc) {
        String head = "{\"size\": " + QUALITY_SIZE
                + ", \"_source\": false, \"track_total_hits\": true, \"query\": {\"near_duplicate\": {";
        String like = "\"like\": {\"_id\": \"" + doc + "\"}";
        String[] parts = config.split(" ");
        if (parts[0].equals("minhash")) {
            return head + "\"field\": \"fp.minhash\", " + like + ", \"min_similarity\": " + parts[1].substring(4)
                    + "}}}";
        }
        String h = parts[1].substring(2);
        if (parts[0].equals("exact")) {
            return head + "\"field\": \"fp.simhash\", " + like + ", \"max_distance\": " + h
                    + ", \"mode\": \"exact\"}}}";
        }
        return head + "\"field\": \"fp.simhash\", " + like + ", \"max_distance\": " + h
                + ", \"mode\": \"psm\", \"max_flips\": " + parts[2].substring(2) + "}}}";
    }

    private static final Pattern ID = Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"");
    private static final Pattern TOTAL = Pattern.compile("\"total\"\\s*:\\s*\\{\\s*\"value\"\\s*:\\s*(\\d+)");
    private static final Pattern TOOK = Pattern.compile("\"took\"\\s*:\\s*(\\d+)");

    static int[] hitIds(String body) {
        Matcher m = ID.matcher(body);
        List<Integer> ids = new ArrayList<>();
        while (m.find()) {
            ids.add(Integer.parseInt(m.group(1)));
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    void qualityQueries(
            List<String> configs,
            int[] queries,
            int threads,
            Map<String, int[][]> results,
            Map<String, Integer> truncated,
            Map<String, Integer> errors,
            Map<String, String> warnings)
            throws Exception {
        int q = queries.length;
        for (String c : configs) {
            results.put(c, new int[q][]);
            truncated.put(c, 0);
            errors.put(c, 0);
        }
        Map<String, AtomicInteger> trunc = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> errs = new ConcurrentHashMap<>();
        for (String c : configs) {
            trunc.put(c, new AtomicInteger());
            errs.put(c, new AtomicInteger());
        }
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        long t0 = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < q; i = next.getAndIncrement()) {
                    for (String c : configs) {
                        Node.Response r = node.call("POST", "/" + INDEX + "/_search", qualityBody(c, queries[i]));
                        if (r.status() != 200) {
                            if (errs.get(c).getAndIncrement() < 3) {
                                log(
                                        "ERROR %s on doc %d -> %d: %s",
                                        c, queries[i], r.status(), Node.abbreviate(r.body(), 500));
                            }
                            continue;
                        }
                        r.headers().firstValue("Warning").ifPresent(w -> warnings.putIfAbsent(c, w));
                        int[] ids = hitIds(r.body());
                        Matcher tm = TOTAL.matcher(r.body());
                        if (tm.find() && Long.parseLong(tm.group(1)) > ids.length) {
                            trunc.get(c).incrementAndGet();
                        }
                        results.get(c)[i] = ids;
                    }
                    int dn = done.incrementAndGet();
                    if (dn % 1000 == 0) {
                        System.err.printf(
                                Locale.ROOT,
                                "  quality: %,d of %,d query documents (%.0f s)%n",
                                dn,
                                q,
                                (System.nanoTime() - t0) / 1e9);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        for (String c : configs) {
            truncated.put(c, trunc.get(c).get());
            errors.put(c, errs.get(c).get());
        }
    }

    /** {truth positives, returned, true positives} over all queries. */
    static long[] prf(int[][] res, Truth truth, double tau) {
        long t = 0, ret = 0, tp = 0;
        for (int i = 0; i < truth.pairDocs.length; i++) {
            for (float j : truth.pairJac[i]) {
                t += j >= tau - 1e-9 ? 1 : 0;
            }
            if (res == null || res[i] == null) {
                continue;
            }
            for (int d : res[i]) {
                ret++;
                tp += truth.jaccard(i, d) >= tau - 1e-9 ? 1 : 0;
            }
        }
        return new long[] {t, ret, tp};
    }

    static double prec(long[] m) {
        return ratio(m[2], m[1]);
    }

    static double rec(long[] m) {
        return ratio(m[2], m[0]);
    }

    static double f1(long[] m) {
        double p = prec(m), r = rec(m);
        return p + r == 0 || Double.isNaN(p) || Double.isNaN(r) ? 0 : 2 * p * r / (p + r);
    }

    static double ratio(long a, long b) {
        return b == 0 ? Double.NaN : (double) a / b;
    }

    static int[] sorted(int[] a) {
        int[] s = a.clone();
        Arrays.sort(s);
        return s;
    }

    // ------------------------------------------------------------------ latency

    List<String> termVector(int doc) throws Exception {
        Map<String, Object> tv = Json.parse(node.ok(
                        "GET",
                        "/" + MH_INDEX + "/_termvectors/" + doc
                                + "?fields=text&positions=false&offsets=false&term_statistics=false&field_statistics=false",
                        null)
                .body());
        Object terms = Json.path(tv, "term_vectors", "text", "terms");
        return terms instanceof Map<?, ?> m
                ? m.keySet().stream().map(Object::toString).sorted().toList()
                : List.of();
    }

    String latencyBody(String method, int doc, Stored st, Map<Integer, List<String>> tokens, int n, int size)
            throws IOException {
        long fp = st.simhash[doc];
        String margins = st.marginsB64[doc];
        return switch (method) {
            case "psm" -> QueryBenchmark.body("psm_k64", fp, margins, LATENCY_H);
            case "exact" -> QueryBenchmark.body(method, fp, margins, LATENCY_H);
            // QueryBenchmark's script, guarded for documents without a simhash (a text without a token has none)
            case "script_score" ->
                QueryBenchmark.body(method, fp, margins, LATENCY_H).replace(QueryBenchmark.SCRIPT, SCRIPT);
            case "ids_baseline" -> QueryBenchmark.body(method, fp, margins, LATENCY_H, doc % n, false);
            case "nd_minhash" ->
                "{\"size\": " + size
                        + ", \"_source\": false, \"track_total_hits\": true, \"query\": {\"near_duplicate\": "
                        + "{\"field\": \"fp.minhash\", \"like\": {\"minhash\": \"" + st.minhash.get(doc) + "\""
                        + (st.shingles.containsKey(doc) ? ", \"shingles\": \"" + st.shingles.get(doc) + "\"" : "")
                        + "}, \"min_similarity\": "
                        + LATENCY_TAU + "}}}";
            case "nd_minhash_estimate" ->
                "{\"size\": " + size + ", \"_source\": false, \"track_total_hits\": true, \"query\": {"
                        + "\"near_duplicate\": {\"field\": \"fp.minhash\", \"like\": {\"minhash\": \""
                        + st.minhash.get(doc) + "\"}, "
                        + "\"verification\": \"estimate\", \"min_similarity\": " + LATENCY_TAU + "}}}";
            case "minhash_filter" -> {
                List<String> ts = tokens.get(doc);
                StringWriter w = new StringWriter();
                try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
                    g.writeStartObject();
                    g.writeNumberField("size", size);
                    g.writeBooleanField("_source", false);
                    g.writeBooleanField("track_total_hits", true);
                    g.writeObjectFieldStart("query");
                    g.writeObjectFieldStart("bool");
                    g.writeArrayFieldStart("should");
                    for (String t : ts) {
                        g.writeStartObject();
                        g.writeObjectFieldStart("term");
                        g.writeStringField("text", t);
                        g.writeEndObject();
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                    g.writeNumberField("minimum_should_match", Math.max(1, (int) Math.ceil(MH_FILTER_MSM * ts.size())));
                    g.writeEndObject();
                    g.writeEndObject();
                    g.writeEndObject();
                }
                yield w.toString();
            }
            default -> throw new IllegalArgumentException(method);
        };
    }

    /** Per method: {median ms, p99 ms, mean ms, median took, precision, recall, F1 (minhash methods, J >= 0.8)}. */
    Map<String, double[]> latency(
            String index,
            String[] methods,
            int[] queries,
            int lq,
            int warmup,
            Stored st,
            Map<Integer, List<String>> tokens,
            int n,
            Truth truth)
            throws Exception {
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        Map<String, List<Double>> took = new LinkedHashMap<>();
        Map<String, long[]> prf = new LinkedHashMap<>();
        for (String m : methods) {
            ms.put(m, new ArrayList<>());
            took.put(m, new ArrayList<>());
            prf.put(m, new long[3]);
        }
        for (int j = 0; j < lq; j++) {
            int doc = queries[j];
            for (int r = 0; r < methods.length; r++) {
                String m = methods[(j + r) % methods.length];
                String idx = m.equals("minhash_filter") ? MH_INDEX : index;
                String body = latencyBody(m, doc, st, tokens, n, 100);
                long t0 = System.nanoTime();
                Node.Response resp = node.call("POST", "/" + idx + "/_search", body);
                long nanos = System.nanoTime() - t0;
                if (resp.status() != 200) {
                    log(
                            "ERROR latency %s on doc %d -> %d: %s",
                            m, doc, resp.status(), Node.abbreviate(resp.body(), 500));
                    continue;
                }
                if (j < warmup) {
                    continue;
                }
                ms.get(m).add(nanos / 1e6);
                Matcher tm = TOOK.matcher(resp.body());
                if (tm.find()) {
                    took.get(m).add(Double.parseDouble(tm.group(1)));
                }
                if (truth != null && (m.startsWith("nd_minhash") || m.equals("minhash_filter"))) {
                    long[] c = prf.get(m);
                    for (float jac : truth.pairJac[j]) {
                        c[0] += jac >= LATENCY_TAU - 1e-9 ? 1 : 0;
                    }
                    for (int d : hitIds(resp.body())) {
                        if (d == doc) {
                            continue; // the min_hash query finds the document itself
                        }
                        c[1]++;
                        c[2] += truth.jaccard(j, d) >= LATENCY_TAU - 1e-9 ? 1 : 0;
                    }
                }
            }
        }
        Map<String, double[]> out = new LinkedHashMap<>();
        for (String m : methods) {
            double[] c =
                    ms.get(m).stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double[] t = took.get(m).stream()
                    .mapToDouble(Double::doubleValue)
                    .sorted()
                    .toArray();
            long[] p = prf.get(m);
            out.put(m, new double[] {
                Stats.median(c),
                Stats.p99(c),
                Arrays.stream(c).average().orElse(Double.NaN),
                Stats.median(t),
                prec(p),
                rec(p),
                f1(p)
            });
        }
        return out;
    }

    // ------------------------------------------------------------------ sizes

    void sizes(int[] sizes, Stored st, int[] queries, int lq, int warmup, Path out) throws Exception {
        section("Latency against corpus size");
        report.append(String.format(
                Locale.ROOT,
                "For each size: an index holding only the fingerprints (with margins) of the first n documents "
                        + "that have one (`QueryBenchmark.index`: bulk with `?pipeline=_none`, sorted by `fp.simhash`, 1 segment), the same %d "
                        + "query fingerprints (after %d warm-up), methods as above.%n%n",
                lq - warmup,
                warmup));
        report.append(
                "| documents | psm median / p99 ms | exact median / p99 ms | script_score median / p99 ms | ids_baseline median ms | "
                        + "segment_structures bytes/doc |\n|---|---|---|---|---|---|\n");
        StringBuilder csv = new StringBuilder("size,method,median_ms,p99_ms\n");
        int[] withFp = java.util.stream.IntStream.range(0, st.has.length)
                .filter(i -> st.has[i])
                .toArray();
        String[] methods = {"psm", "exact", "script_score", "ids_baseline"};
        for (int s : sizes) {
            int m = Math.min(s, withFp.length);
            long[] fps = new long[m];
            byte[] margins = new byte[m * Margins.BITS];
            for (int i = 0; i < m; i++) {
                fps[i] = st.simhash[withFp[i]];
                System.arraycopy(st.margins, withFp[i] * Margins.BITS, margins, i * Margins.BITS, Margins.BITS);
            }
            String index = "neardup-eval-size-" + m;
            long[] before = nearDupStats();
            qb.index(index, true, new SyntheticTable(fps, margins), st.scheme, false);
            Map<String, double[]> lat = latency(index, methods, queries, lq, warmup, st, Map.of(), m, null);
            long[] after = nearDupStats();
            report.append(String.format(
                    Locale.ROOT,
                    "| %,d | %s | %s | %s | %.2f | %.2f |%n",
                    m,
                    fmtLat(lat.get("psm")),
                    fmtLat(lat.get("exact")),
                    fmtLat(lat.get("script_score")),
                    lat.get("ids_baseline")[0],
                    (after[1] - before[1]) / (double) m));
            for (String me : methods) {
                csv.append(String.format(Locale.ROOT, "%d,%s,%.4f,%.4f%n", m, me, lat.get(me)[0], lat.get(me)[1]));
            }
            node.call("DELETE", "/" + index, null);
            log(
                    "size %,d: psm %s, exact %s, script_score %s ms",
                    m, fmtLat(lat.get("psm")), fmtLat(lat.get("exact")), fmtLat(lat.get("script_score")));
            if (s == sizes[sizes.length - 1]) {
                summary.put(
                        String.format(Locale.ROOT, "latency median ms, fingerprint-only index of %,d docs", m),
                        String.format(
                                Locale.ROOT,
                                "psm %.2f, exact %.2f, script_score %.2f",
                                lat.get("psm")[0],
                                lat.get("exact")[0],
                                lat.get("script_score")[0]));
            }
        }
        report.append("\n![latency against size](latency_sizes.png)\n\n");
        Files.writeString(out.resolve("latency_sizes.csv"), csv.toString());
    }

    // ------------------------------------------------------------------ HTTP and JSON

    /** {entries, bytes, builds} of segment_structures, summed over the nodes. */
    long[] nearDupStats() throws Exception {
        Map<String, Object> s =
                Json.parse(node.ok("GET", "/_plugins/neardup/stats", null).body());
        long[] r = new long[3];
        Map<?, ?> nodes = (Map<?, ?>) s.get("nodes");
        for (Object node : nodes.values()) {
            Map<?, ?> ss = (Map<?, ?>) ((Map<?, ?>) node).get("segment_structures");
            r[0] += ((Number) ss.get("entries")).longValue();
            r[1] += ((Number) ss.get("bytes")).longValue();
            r[2] += ((Number) ss.get("builds")).longValue();
        }
        return r;
    }
}
