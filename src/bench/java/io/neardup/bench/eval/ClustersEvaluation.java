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
import io.neardup.core.ClusterGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.analysis.Analyzer;

/**
 * Evidence for {@code POST /<index>/_near_dup_clusters} (issue #11) against a real node: the corpus is
 * indexed through the {@code near_dup_fingerprint} pipeline exactly as {@link Evaluate} does
 * ({@link Evaluate#indexCorpus}, {@code _id} = line number, {@code fp.simhash} / {@code fp.minhash}), then
 * for each clustering setting of {@code --configs}:
 * <ol>
 * <li>optionally ({@code --dry-run}) a {@code dry_run=true} run (finding only), then the real run into
 *     its own target field; the response ({@code took}, counts, {@code cluster_sizes}) and the client's
 *     wall time; while it runs, {@code _nodes/stats/jvm,breaker} is polled every 200 ms for the peak heap
 *     and the peak of the {@code neardup} breaker; {@code GET _plugins/neardup/stats} before and after;</li>
 * <li>every document's {@code <target>.cluster} read back ({@code docvalue_fields}, scroll); a document
 *     without one is a cluster of its own; against the corpus {@code group} labels (a document without a
 *     group is a group of its own): the adjusted Rand index (Hubert and Arabie, from the contingency
 *     table, computed here, independent of the plugin) and pairwise precision / recall / F1 (unordered
 *     pairs in one cluster against pairs in one group), and the cluster-size histogram of what was written;</li>
 * <li>{@code --baseline all|N} (simhash settings): what a user does today, a client looping over every
 *     document (or a fixed random sample of N, seed {@code --seed}, time extrapolated linearly) with
 *     {@code _msearch} batches of {@code --msearch} {@code near_duplicate} queries
 *     {@code {"like": {"_id": …, "_index": …}}} with the same options, one request in flight, and a
 *     union-find in the client; its time against the task's, and its clusters against the task's
 *     (identical partitions and pairwise agreement over every document, or on a sample, the share of the
 *     baseline's pairs that the task put into one cluster).</li>
 * </ol>
 * Then, on the {@code --collapse-config} setting, a rerun with {@code "singletons": true} (which also
 * shows that a rerun keeps every cluster: its updates are the singletons, the clusters are no-ops), and
 * one result page of a {@code match} query on {@code text} ({@code --collapse-query}, {@code --page}
 * hits) without and with stock {@code collapse} on {@code <target>.cluster}: hits, distinct corpus groups
 * on the page, copies folded into {@code inner_hits}, and {@code cardinality} of the cluster field.
 *
 * <p>Configs: {@code minhash:<tau>} or {@code simhash:<h>[:exact|:psm]}, each optionally {@code :leader},
 * {@code :pages} (a {@code match_all} query: the same run through the pages, one query a document, instead of the
 * shards' join) and URL
 * parameters of the run such as {@code :slices=auto}; the target field is {@code dup_<kind>_<threshold>[_exact][_leader][_pages][_slicesauto]}. Writes {@code report.md},
 * {@code summary.md} and {@code clusters.csv} to the report folder. The usual entry point is
 * {@code src/scripts/evaluate.sh} with {@code EVAL_CLASS=io.neardup.bench.eval.ClustersEvaluation}:
 *
 * <pre>
 * EVAL_CLASS=io.neardup.bench.eval.ClustersEvaluation bash src/scripts/evaluate.sh $DATA/manpages.jsonl.gz $REPORTS/clusters-manpages \
 *     [--configs minhash:0.5,minhash:0.8,simhash:3,simhash:6] [--shards 1] [--baseline all|N] [--msearch 100] [--dry-run true]
 *     [--collapse-config minhash:0.8|none] [--collapse-query "file descriptor"] [--page 20] [--batch 500] [--max-docs N] [--seed 42]
 *     [--exact-truth false] [--minhash-floor F]
 *     [--keep-index false]
 * </pre>
 * {@code --keep-index true} leaves the index and pipeline on the node (with {@code --url}, for runs by hand afterwards).
 *
 * <p>{@code --generations K} (issue 41; default 0: one index only) also indexes the corpus into the data stream
 * {@value #STREAM} (an index template with {@code data_stream: {}} and the index's settings, mapping and pipeline,
 * {@code @timestamp} added to each document, written with op_type {@code create}), rolled over with
 * {@code POST <stream>/_rollover} so that its K backing indices ({@code --shards} each) hold the corpus split evenly
 * in corpus order. Each setting then runs {@code --repeat R} (default 2) dry runs on the one index and on the stream in
 * turns (A B A B), then the run with writes on each; it reports both {@code took}s, the stream's over the one index's
 * (medians), the load, and the two written partitions compared document by document. The groups and
 * {@code --exact-truth} measure the stream's partition. {@code --baseline} is for one index only.
 * {@code --exact-truth true} compares each {@code minhash} setting with the components of exact Jaccard (see
 * {@code exactTruth}); {@code --minhash-floor F} maps {@code fp.minhash} with {@code min_similarity_floor} F (its
 * banding) instead of the default.
 */
public final class ClustersEvaluation {
    static final String INDEX = Evaluate.INDEX;
    /** The data stream of {@code --generations}. */
    static final String STREAM = "neardup-eval-stream";

    private final Evaluate evaluate;
    private final Node node;
    private final StringBuilder report = new StringBuilder();
    private final Map<String, String> summary = new LinkedHashMap<>();
    private final StringBuilder csv = new StringBuilder(
            "config,took_ms,wall_ms,dry_run_took_ms,matches,clusters,clustered_docs,updated,ari,precision,recall,f1,peak_breaker_bytes,peak_heap_bytes,"
                    + "baseline_ms,baseline_queries,baseline_extrapolated_ms\n");

    ClustersEvaluation(String url) {
        this.evaluate = new Evaluate(url);
        this.node = evaluate.node();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                2,
                "ClustersEvaluation <corpus.jsonl[.gz]> <report-dir> --url http://127.0.0.1:9330 [--configs …] [--baseline all|N] …",
                List.of(),
                List.of(
                        "url",
                        "configs",
                        "shards",
                        "baseline",
                        "msearch",
                        "dry-run",
                        "collapse-config",
                        "collapse-query",
                        "page",
                        "batch",
                        "max-docs",
                        "seed",
                        "command",
                        "exact-truth",
                        "minhash-floor",
                        "keep-index",
                        "generations",
                        "repeat"));
        new ClustersEvaluation(opt.getOrDefault("url", "http://127.0.0.1:9330"))
                .run(Path.of(args[0]), Path.of(args[1]), opt);
    }

    /** One clustering setting. */
    record Config(
            String spec,
            String field,
            String options,
            String target,
            boolean simhash,
            String urlParams,
            boolean pages) {
        static Config parse(String spec) {
            String[] p = spec.trim().split(":");
            boolean leader = Arrays.asList(p).contains("leader");
            boolean exact = Arrays.asList(p).contains("exact");
            // A match_all query: the same documents, through the pages (one query a document) instead of the join.
            boolean pages = Arrays.asList(p).contains("pages");
            String linkage = ", \"linkage\": \"" + (leader ? "leader" : "single") + "\"";
            StringBuilder params = new StringBuilder();
            StringBuilder suffix =
                    new StringBuilder((exact ? "_exact" : "") + (leader ? "_leader" : "") + (pages ? "_pages" : ""));
            for (String token : p) {
                if (token.contains("=")) { // a URL parameter of the run, e.g. slices=auto
                    params.append('&').append(token);
                    suffix.append('_').append(token.replaceAll("[^A-Za-z0-9]", ""));
                }
            }
            return switch (p[0]) {
                case "minhash" ->
                    new Config(
                            spec,
                            "fp.minhash",
                            "\"min_similarity\": " + p[1] + linkage,
                            "dup_mh_" + p[1].replace(".", "") + suffix,
                            false,
                            params.toString(),
                            pages);
                case "simhash" ->
                    new Config(
                            spec,
                            "fp.simhash",
                            // no [mode]: a simhash run finds every pair within max_distance exactly (block tables), and
                            // refuses [mode] without min_similarity; :exact only names the target field, as in earlier
                            // reports
                            "\"max_distance\": " + p[1] + linkage,
                            "dup_sh_" + p[1] + suffix,
                            true,
                            params.toString(),
                            pages);
                default ->
                    throw new IllegalArgumentException(
                            "config must be minhash:<tau> or simhash:<h>[:exact], got " + spec);
            };
        }

        String body(String target, boolean singletons) {
            return "{\"field\": \"" + field + "\", \"target_field\": \"" + target + "\", " + options
                    + (pages ? ", \"query\": {\"match_all\": {}}" : "")
                    + (singletons ? ", \"singletons\": true" : "") + "}";
        }

        /** The same options as a {@code near_duplicate} query on one document (what the baseline sends). */
        String query(String id) {
            return "{\"size\": 1000, \"_source\": false, \"query\": {\"near_duplicate\": {\"field\": \"" + field
                    + "\", \"like\": {\"_id\": \""
                    + id + "\", \"_index\": \"" + INDEX + "\"}, "
                    + options.replace(", \"linkage\": \"single\"", "").replace(", \"linkage\": \"leader\"", "") + "}}}";
        }
    }

    void run(Path corpus, Path out, Map<String, String> opt) throws Exception {
        long t0 = System.nanoTime();
        Files.createDirectories(out);
        List<Config> configs = Arrays.stream(opt.getOrDefault("configs", "minhash:0.5,minhash:0.8,simhash:3,simhash:6")
                        .split(","))
                .map(Config::parse)
                .toList();
        int shards = Integer.parseInt(opt.getOrDefault("shards", "1"));
        int batch = Integer.parseInt(opt.getOrDefault("batch", "500"));
        boolean dryRun = Boolean.parseBoolean(opt.getOrDefault("dry-run", "false"));
        String baseline = opt.getOrDefault("baseline", "none");
        long seed = Long.parseLong(opt.getOrDefault("seed", "42"));
        List<Corpus.Doc> docs =
                Corpus.read(corpus, Integer.parseInt(opt.getOrDefault("max-docs", String.valueOf(Integer.MAX_VALUE))));
        int n = docs.size();
        int[] truth = groupLabels(docs);
        String version =
                Json.string(Json.path(Json.parse(node.ok("GET", "/", null).body()), "version", "number"));
        Evaluate.log("corpus %s: %,d documents; OpenSearch %s", corpus, n, version);
        report.append("# _near_dup_clusters evaluation: ")
                .append(corpus.getFileName())
                .append("\n\n");
        if (opt.containsKey("command")) {
            report.append("Command: `").append(opt.get("command")).append("`\n\n");
        }
        long[] truthPairs = pairCounts(truth);
        report.append(String.format(
                Locale.ROOT,
                "Corpus `%s`: %,d documents, %,d groups of two or more holding %,d documents (%,d same-group "
                        + "pairs). OpenSearch %s, one node, index `%s` in %d shard(s), 0 replicas, sorted by `fp.simhash`, one segment a shard. "
                        + "Options: %s. Load before the run: %s.%n%n",
                corpus,
                n,
                truthPairs[1],
                truthPairs[2],
                truthPairs[0],
                version,
                INDEX,
                shards,
                new TreeMap<>(opt),
                Stats.loadAverage(3, "?")));

        String floor = opt.get("minhash-floor");
        double[] ingest = evaluate.indexCorpus(
                docs, batch, shards, floor == null ? "" : ", \"min_similarity_floor\": " + Double.parseDouble(floor));
        report.append(String.format(
                Locale.ROOT,
                "Indexed through the `near_dup_fingerprint` pipeline in %.1f s (%,.0f docs/s), force-merged "
                        + "in %.1f s; %s.%n%n",
                ingest[0],
                n / ingest[0],
                ingest[1],
                Stats.loadAverage(3, "?")));
        int generations = Integer.parseInt(opt.getOrDefault("generations", "0"));
        if (generations >= 1) {
            if (baseline.equals("none") == false) {
                throw new IllegalArgumentException("--baseline runs on one index: not with --generations");
            }
            double[] streamIngest = indexStream(docs, batch, shards, floor, generations);
            report.append(String.format(
                    Locale.ROOT,
                    "The same documents indexed into the data stream `%s`, rolled over into %d backing indices of %d "
                            + "shard(s) (%,d–%,d documents each, in corpus order), in %.1f s, force-merged in %.1f s; %s.%n%n",
                    STREAM,
                    generations,
                    shards,
                    n / generations,
                    (n + generations - 1) / generations,
                    streamIngest[0],
                    streamIngest[1],
                    Stats.loadAverage(3, "?")));
        }
        long[] structuresBefore = evaluate.nearDupStats();

        section("Clusters against the `group` labels");
        report.append(
                "Every document's `<target>.cluster` read back; a document without one is a cluster of its own, a document "
                        + "without a group a group of its own. ARI: adjusted Rand index; P / R / F1: unordered pairs of documents in one cluster "
                        + "against pairs in one group. `took` is the task's own, wall the client's; peak breaker / heap: highest `neardup` breaker "
                        + "estimate and heap used seen by polling `_nodes/stats` every 200 ms during the run (the breaker also holds the segment "
                        + "structures). Load: `uptime` right after the run.\n\n");
        report.append(
                "| setting | took (s) | wall (s) | dry run took (s) | matches | clusters ≥ 2 | clustered docs | updated | ARI | P | R | F1 "
                        + "| peak breaker (MB) | peak heap (MB) | load |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        Map<Config, Map<String, Object>> responses = new LinkedHashMap<>();
        Map<Config, int[]> clusterings = new LinkedHashMap<>();
        StringBuilder histograms = new StringBuilder();
        StringBuilder baselines = new StringBuilder();
        StringBuilder streamRuns = new StringBuilder();
        int repeat = Integer.parseInt(opt.getOrDefault("repeat", "2"));
        for (Config c : configs) {
            if (generations >= 1) {
                StreamRun stream = againstOneIndex(c, truth, repeat, streamRuns);
                int[] clusterOf = stream.partition();
                clusterings.put(c, clusterOf);
                appendQualityRow(
                        "`" + c.spec() + "` on the stream (dry run: the median)",
                        stream.written(),
                        stream.medianDryTookMs(),
                        quality(clusterOf, truth),
                        Stats.loadAverage(3, "?"));
                histograms.append(String.format(Locale.ROOT, "| `%s` | %s | – |%n", c.spec(), histogram(clusterOf)));
                continue;
            }
            Long dryTook = null;
            if (dryRun) {
                Map<String, Object> dry = clusters(c, c.target(), false, true).response;
                dryTook = (Long) dry.get("took");
            }
            Run r = clusters(c, c.target(), false, false);
            responses.put(c, r.response);
            int[] clusterOf = readClusters(n, c.target());
            clusterings.put(c, clusterOf);
            if (c.pages()) {
                // The same run through the join, if it came earlier: both partitions should be one.
                String joined = c.spec().replace(":pages", "");
                clusterings.forEach((other, otherClusters) -> {
                    if (other.spec().equals(joined)) {
                        double[] same = quality(clusterOf, otherClusters);
                        summary.put(
                                "`" + c.spec() + "` against `" + joined + "`: pairwise F1, ARI",
                                String.format(Locale.ROOT, "%.4f, %.4f", same[3], same[0]));
                    }
                });
            }
            double[] q = quality(clusterOf, truth);
            Map<String, Object> resp = r.response;
            String load = Stats.loadAverage(3, "?");
            appendQualityRow("`" + c.spec() + "`", r, dryTook, q, load);
            summary.put(
                    "`" + c.spec() + "`: ARI, P / R / F1",
                    String.format(Locale.ROOT, "%.4f, %.4f / %.4f / %.4f", q[0], q[1], q[2], q[3]));
            summary.put(
                    "`" + c.spec() + "`: task took (dry run took)",
                    String.format(
                            Locale.ROOT,
                            "%.2f s (%s); %,d clusters, %,d docs; load %s",
                            (Long) resp.get("took") / 1e3,
                            dryTook == null ? "–" : String.format(Locale.ROOT, "%.2f s", dryTook / 1e3),
                            (Long) resp.get("clusters"),
                            (Long) resp.get("clustered_documents"),
                            load));
            histograms.append(String.format(
                    Locale.ROOT, "| `%s` | %s | %s |%n", c.spec(), histogram(clusterOf), resp.get("cluster_sizes")));
            long[] baselineMs = {-1, 0, -1};
            if (c.simhash() && baseline.equals("none") == false) {
                baselineMs = baseline(
                        c,
                        n,
                        clusterOf,
                        baseline,
                        seed,
                        Integer.parseInt(opt.getOrDefault("msearch", "100")),
                        r,
                        baselines);
            }
            csv.append(String.format(
                    Locale.ROOT,
                    "%s,%d,%d,%s,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,%d,%d,%d,%d,%d%n",
                    c.spec(),
                    (Long) resp.get("took"),
                    r.wallMs,
                    dryTook == null ? "" : dryTook.toString(),
                    (Long) resp.get("matches"),
                    (Long) resp.get("clusters"),
                    (Long) resp.get("clustered_documents"),
                    (Long) resp.get("updated"),
                    q[0],
                    q[1],
                    q[2],
                    q[3],
                    r.peakBreaker,
                    r.peakHeap,
                    baselineMs[0],
                    baselineMs[1],
                    baselineMs[2]));
        }
        long[] structuresAfter = evaluate.nearDupStats();
        report.append(String.format(
                Locale.ROOT,
                "%n`GET _plugins/neardup/stats` segment structures: %,d entries / %,d bytes before the runs, "
                        + "%,d / %,d after (%.1f bytes a document).%n%n",
                structuresBefore[0],
                structuresBefore[1],
                structuresAfter[0],
                structuresAfter[1],
                structuresAfter[1] / (double) n));

        if (streamRuns.length() > 0) {
            section("Over the data stream against one index");
            report.append(streamRuns);
        }
        if (Boolean.parseBoolean(opt.getOrDefault("exact-truth", "false"))) {
            exactTruth(docs, clusterings);
        }

        section("Cluster sizes");
        report.append(
                        "Clusters of two or more by size: as read back from the documents, and as the task's response reports them.\n\n"
                                + "| setting | read back | `cluster_sizes` in the response |\n|---|---|---|\n")
                .append(histograms)
                .append('\n');
        if (baselines.length() > 0) {
            section("Against a client looping `near_duplicate` over every document");
            report.append(baselines);
        }

        String collapseSpec = opt.getOrDefault("collapse-config", configs.get(0).spec());
        if (collapseSpec.equals("none") == false) {
            Config cc = configs.stream()
                    .filter(c -> c.spec().equals(collapseSpec))
                    .findFirst()
                    .orElse(Config.parse(collapseSpec));
            if (clusterings.containsKey(cc) == false) {
                clusters(generations >= 1 ? STREAM : INDEX, cc, cc.target(), false, false);
            }
            collapse(
                    cc,
                    docs,
                    opt.getOrDefault("collapse-query", "library"),
                    Integer.parseInt(opt.getOrDefault("page", "20")));
        }

        Files.writeString(out.resolve("clusters.csv"), csv.toString());
        StringBuilder sum = new StringBuilder("| what | result |\n|---|---|\n");
        summary.forEach(
                (k, v) -> sum.append("| ").append(k).append(" | ").append(v).append(" |\n"));
        Files.writeString(out.resolve("summary.md"), sum.toString());
        report.append(String.format(Locale.ROOT, "%n_Run took %.0f s in all._%n", (System.nanoTime() - t0) / 1e9));
        Files.writeString(out.resolve("report.md"), report.toString());
        if (Boolean.parseBoolean(opt.getOrDefault("keep-index", "false")) == false) {
            evaluate.cleanup();
            deleteStream();
        }
        System.out.println();
        System.out.print(sum);
    }

    // ------------------------------------------------------------------ one task run

    record Run(Map<String, Object> response, long wallMs, long peakBreaker, long peakHeap) {}

    /** Runs {@code _near_dup_clusters} (waiting for completion) while polling the node's breaker and heap. */
    Run clusters(Config c, String target, boolean singletons, boolean dryRun) throws Exception {
        return clusters(INDEX, c, target, singletons, dryRun);
    }

    /** As above, on {@code index} (an index or a data stream). */
    Run clusters(String index, Config c, String target, boolean singletons, boolean dryRun) throws Exception {
        AtomicLong peakBreaker = new AtomicLong();
        AtomicLong peakHeap = new AtomicLong();
        AtomicBoolean done = new AtomicBoolean();
        Thread poller = new Thread(() -> {
            while (done.get() == false) {
                try {
                    long[] s = breakerAndHeap();
                    peakBreaker.accumulateAndGet(s[0], Math::max);
                    peakHeap.accumulateAndGet(s[1], Math::max);
                    Thread.sleep(200);
                } catch (Exception e) {
                    return;
                }
            }
        });
        poller.setDaemon(true);
        poller.start();
        long t0 = System.nanoTime();
        String path =
                "/" + index + "/_near_dup_clusters?refresh=true" + (dryRun ? "&dry_run=true" : "") + c.urlParams();
        Node.Response r;
        try {
            r = node.ok("POST", path, c.body(target, singletons));
        } finally {
            done.set(true);
            poller.join();
        }
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        Map<String, Object> response = Json.parse(r.body());
        Evaluate.log(
                "%s%s%s%s: took %d ms (wall %d ms): %s",
                c.spec(),
                index.equals(INDEX) ? "" : " on " + index,
                dryRun ? " (dry run)" : "",
                singletons ? " (singletons)" : "",
                response.get("took"),
                wallMs,
                Node.abbreviate(r.body(), 600));
        if (response.get("failures") instanceof List<?> failures && failures.isEmpty() == false) {
            Evaluate.log("  failures: %s", Node.abbreviate(failures.toString(), 1000));
        }
        return new Run(response, wallMs, peakBreaker.get(), peakHeap.get());
    }

    /** A row of the table of clusters against the groups: the run {@code r} (with writes) and its quality {@code q}. */
    private void appendQualityRow(String label, Run r, Long dryTook, double[] q, String load) {
        Map<String, Object> resp = r.response();
        report.append(String.format(
                Locale.ROOT,
                "| %s | %.2f | %.2f | %s | %,d | %,d | %,d | %,d | %.4f | %.4f | %.4f | %.4f | %.1f | %.0f | %s |%n",
                label,
                (Long) resp.get("took") / 1e3,
                r.wallMs() / 1e3,
                dryTook == null ? "–" : String.format(Locale.ROOT, "%.2f", dryTook / 1e3),
                (Long) resp.get("matches"),
                (Long) resp.get("clusters"),
                (Long) resp.get("clustered_documents"),
                (Long) resp.get("updated"),
                q[0],
                q[1],
                q[2],
                q[3],
                r.peakBreaker() / 1e6,
                r.peakHeap() / 1e6,
                load));
    }

    /** {neardup breaker estimate, heap used}, summed over the nodes. */
    long[] breakerAndHeap() throws Exception {
        Map<String, Object> s =
                Json.parse(node.ok("GET", "/_nodes/stats/jvm,breaker", null).body());
        long[] r = new long[2];
        for (Object n : ((Map<?, ?>) s.get("nodes")).values()) {
            r[0] += ((Number) Json.path(n, "breakers", "neardup", "estimated_size_in_bytes")).longValue();
            r[1] += ((Number) Json.path(n, "jvm", "mem", "heap_used_in_bytes")).longValue();
        }
        return r;
    }

    /** Each document's cluster as the line number of its representative (its own line where it has none). */
    int[] readClusters(int n, String target) throws Exception {
        return readClusters(INDEX, n, target);
    }

    /** As above, from {@code index} (an index or a data stream; {@code _id}s are line numbers, unique across it). */
    int[] readClusters(String index, int n, String target) throws Exception {
        int[] clusterOf = new int[n];
        for (int i = 0; i < n; i++) {
            clusterOf[i] = i;
        }
        String field = target + ".cluster";
        evaluate.scroll(
                index,
                "{\"size\": 10000, \"sort\": [\"_doc\"], \"_source\": false, \"query\": {\"exists\": {\"field\": \""
                        + field + "\"}}, \"docvalue_fields\": [\"" + field + "\"]}",
                h -> clusterOf[Integer.parseInt((String) h.get("_id"))] =
                        Integer.parseInt((String) ((List<?>) Json.path(h, "fields", field)).get(0)));
        return clusterOf;
    }

    // ------------------------------------------------------------------ quality

    /** Group labels as ints; a document without a group gets a label of its own. */
    static int[] groupLabels(List<Corpus.Doc> docs) {
        Map<String, Integer> ids = new HashMap<>();
        int[] labels = new int[docs.size()];
        for (int i = 0; i < labels.length; i++) {
            String g = docs.get(i).group();
            labels[i] = g == null ? labels.length + i : ids.computeIfAbsent(g, k -> ids.size());
        }
        return labels;
    }

    static double pairs(long k) {
        return k * (k - 1) / 2.0;
    }

    /** {same-label pairs, labels with two or more members, their members}. */
    static long[] pairCounts(int[] labels) {
        Map<Integer, Integer> size = new HashMap<>();
        for (int l : labels) {
            size.merge(l, 1, Integer::sum);
        }
        long[] r = new long[3];
        for (int s : size.values()) {
            r[0] += (long) s * (s - 1) / 2;
            if (s >= 2) {
                r[1]++;
                r[2] += s;
            }
        }
        return r;
    }

    /**
     * {ARI, pairwise precision, recall, F1} of {@code clusters} against {@code truth}, from the
     * contingency table: ARI = (Σ C(n_ij,2) − E) / (½(Σ C(a_i,2) + Σ C(b_j,2)) − E), E = Σ C(a_i,2) Σ C(b_j,2) / C(n,2).
     */
    static double[] quality(int[] clusters, int[] truth) {
        Map<Long, Integer> cells = new HashMap<>();
        for (int i = 0; i < clusters.length; i++) {
            cells.merge(((long) clusters[i] << 32) | (truth[i] & 0xffffffffL), 1, Integer::sum);
        }
        double both = 0;
        for (int v : cells.values()) {
            both += pairs(v);
        }
        double sameCluster = pairCounts(clusters)[0];
        double sameGroup = pairCounts(truth)[0];
        double expected = sameCluster * sameGroup / pairs(clusters.length);
        double max = (sameCluster + sameGroup) / 2;
        double ari = max == expected ? 1 : (both - expected) / (max - expected);
        double p = sameCluster == 0 ? 1 : both / sameCluster;
        double r = sameGroup == 0 ? 1 : both / sameGroup;
        return new double[] {ari, p, r, p + r == 0 ? 0 : 2 * p * r / (p + r)};
    }

    /**
     * Each {@code minhash} setting's written clusters against the connected components of exact Jaccard
     * >= τ over every pair of documents, computed from the texts without the plugin's code: StandardAnalyzer
     * words, 3-shingles hashed with FNV-1a 64 ({@link Corpus#truthShingles}), every pair by an inverted
     * index ({@link Corpus#exactPairs}). The plugin verifies on 32-bit shingle values, so a pair within
     * one shingle collision of τ may fall on the other side; a pair of J >= τ that the run leaves in two
     * clusters is a candidate the bands missed (single linkage) or the price of {@code leader} linkage.
     */
    private void exactTruth(List<Corpus.Doc> docs, Map<Config, int[]> clusterings) {
        List<Config> minhash =
                clusterings.keySet().stream().filter(c -> c.simhash() == false).toList();
        if (minhash.isEmpty()) {
            return;
        }
        int n = docs.size();
        double floor =
                minhash.stream().mapToDouble(ClustersEvaluation::tau).min().getAsDouble();
        long started = System.nanoTime();
        Analyzer analyzer = Corpus.analyzer();
        long[][] sets = new long[n][];
        for (int i = 0; i < n; i++) {
            sets[i] = Corpus.truthShingles(Corpus.tokenize(analyzer, docs.get(i).text()), 3);
        }
        Map<Long, Double> pairs = Corpus.exactPairs(sets, floor);
        section("Clusters against the components of exact Jaccard");
        report.append(String.format(
                Locale.ROOT,
                "Every unordered pair's exact Jaccard of word 3-shingles computed from the texts, independent of the "
                        + "plugin (StandardAnalyzer words, FNV-1a 64 shingle hashes, an inverted index): %,d pairs with J "
                        + ">= %.2f, in %.1f s. Truth at τ: the connected components of the pairs with J >= τ. \"split\": "
                        + "pairs with J >= τ whose documents the run left in two clusters.%n%n"
                        + "| setting | pairs J >= τ | components ≥ 2 (docs) | split | ARI | P | R | F1 |%n|---|---|---|---|---|---|---|---|%n",
                pairs.size(),
                floor,
                (System.nanoTime() - started) / 1e9));
        StringBuilder splits = new StringBuilder();
        for (Config c : minhash) {
            double tau = tau(c);
            long above = pairs.values().stream().filter(j -> j >= tau).count();
            int[] exact = exactComponents(pairs, n, tau);
            int[] clusterOf = clusterings.get(c);
            long split = 0;
            StringBuilder splitPairs = new StringBuilder();
            for (Map.Entry<Long, Double> pair : pairs.entrySet()) {
                int i = (int) (pair.getKey() >>> 32), j = (int) (long) pair.getKey();
                if (pair.getValue() >= tau && clusterOf[i] != clusterOf[j] && split++ < 10) {
                    splitPairs.append(String.format(Locale.ROOT, " %d–%d (J %.4f)", i, j, pair.getValue()));
                }
            }
            if (split > 0) {
                splits.append(
                        String.format(Locale.ROOT, "* `%s` splits (`_id`s, first 10):%s%n", c.spec(), splitPairs));
            }
            long[] components = pairCounts(exact);
            double[] q = quality(clusterOf, exact);
            report.append(String.format(
                    Locale.ROOT,
                    "| `%s` | %,d | %,d (%,d) | %,d | %.4f | %.4f | %.4f | %.4f |%n",
                    c.spec(),
                    above,
                    components[1],
                    components[2],
                    split,
                    q[0],
                    q[1],
                    q[2],
                    q[3]));
            summary.put(
                    "`" + c.spec() + "` against exact-Jaccard components: ARI, P / R / F1; pairs of J >= τ split",
                    String.format(
                            Locale.ROOT, "%.4f, %.4f / %.4f / %.4f; %,d of %,d", q[0], q[1], q[2], q[3], split, above));
        }
        report.append('\n').append(splits).append('\n');
    }

    /**
     * The connected components of the pairs of {@link Corpus#exactPairs} (keyed {@code i << 32 | j}) with Jaccard >=
     * {@code tau}, over {@code n} documents: each document's label is its component's smallest member.
     */
    static int[] exactComponents(Map<Long, Double> pairs, int n, double tau) {
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        for (Map.Entry<Long, Double> pair : pairs.entrySet()) {
            if (pair.getValue() >= tau) {
                union(parent, (int) (pair.getKey() >>> 32), (int) (long) pair.getKey());
            }
        }
        int[] exact = new int[n];
        for (int i = 0; i < n; i++) {
            exact[i] = find(parent, i);
        }
        return exact;
    }

    private static double tau(Config c) {
        return Double.parseDouble(c.spec().split(":")[1]);
    }

    static String histogram(int[] clusterOf) {
        boolean[] all = new boolean[clusterOf.length];
        Arrays.fill(all, true);
        long[] h = ClusterGraph.sizeHistogram(clusterOf, all);
        StringBuilder s = new StringBuilder();
        for (int b = 0; b < h.length; b++) {
            if (h[b] > 0) {
                s.append(s.length() == 0 ? "" : ", ")
                        .append(ClusterGraph.bucketLabel(b))
                        .append(": ")
                        .append(h[b]);
            }
        }
        return s.length() == 0 ? "none" : s.toString();
    }

    // ------------------------------------------------------------------ the client baseline

    /**
     * The client loop: {@code _msearch} of {@code perRequest} near_duplicate queries by {@code _id} over all documents or a
     * fixed sample, union-find here. Returns {ms, queries, extrapolated ms to all documents}.
     */
    long[] baseline(
            Config c, int n, int[] taskClusters, String which, long seed, int perRequest, Run task, StringBuilder out)
            throws Exception {
        int[] queries;
        if (which.equals("all")) {
            queries = new int[n];
            for (int i = 0; i < n; i++) {
                queries[i] = i;
            }
        } else {
            queries = Arrays.copyOf(Stats.permutation(n, seed), Math.min(n, Integer.parseInt(which)));
            Arrays.sort(queries);
        }
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) {
            parent[i] = i;
        }
        long edges = 0, edgesInOneTaskCluster = 0, errors = 0;
        String load0 = Stats.loadAverage(3, "?");
        long t0 = System.nanoTime();
        for (int from = 0; from < queries.length; from += perRequest) {
            int to = Math.min(queries.length, from + perRequest);
            StringBuilder body = new StringBuilder();
            for (int q = from; q < to; q++) {
                body.append("{}\n")
                        .append(c.query(Integer.toString(queries[q])))
                        .append('\n');
            }
            Node.Response r = node.ok(
                    "POST",
                    "/" + INDEX + "/_msearch?filter_path=responses.hits.hits._id,responses.error,responses.status",
                    body.toString());
            List<?> responses = (List<?>) Json.parse(r.body()).get("responses");
            for (int q = from; q < to; q++) {
                Object resp = responses.get(q - from);
                if (Json.path(resp, "error") != null) {
                    if (errors++ < 3) {
                        Evaluate.log(
                                "baseline: query of %d failed: %s", queries[q], Node.abbreviate(resp.toString(), 500));
                    }
                    continue;
                }
                Object hits = Json.path(resp, "hits", "hits");
                if (hits instanceof List<?> list) {
                    for (Object h : list) {
                        int b = Integer.parseInt((String) ((Map<?, ?>) h).get("_id"));
                        int a = queries[q];
                        edges++;
                        if (taskClusters[a] == taskClusters[b]) {
                            edgesInOneTaskCluster++;
                        }
                        union(parent, a, b);
                    }
                }
            }
            if ((from / perRequest) % 100 == 99) {
                System.err.printf(
                        Locale.ROOT,
                        "  baseline %s: %,d of %,d queries (%.0f s)%n",
                        c.spec(),
                        to,
                        queries.length,
                        (System.nanoTime() - t0) / 1e9);
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String load1 = Stats.loadAverage(3, "?");
        long extrapolated = Math.round(ms * (double) n / queries.length);
        long took = (Long) task.response().get("took");
        boolean full = queries.length == n;
        out.append(String.format(
                Locale.ROOT,
                "**`%s`**: the client sent %,d `near_duplicate` queries (%s) in `_msearch` requests of %d, "
                        + "one request in flight, in %.1f s%s (load before / after: %s / %s, %d failed queries); the task took %.2f s (wall %.2f s): "
                        + "**%.1f× faster**%s.%n%n",
                c.spec(),
                queries.length,
                full ? "every document" : "a fixed random sample, seed " + seed,
                perRequest,
                ms / 1e3,
                full
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                ", extrapolated linearly to all %,d documents: %.1f s",
                                n,
                                extrapolated / 1e3),
                load0,
                load1,
                errors,
                took / 1e3,
                task.wallMs() / 1e3,
                extrapolated / (double) took,
                full ? "" : " (against the extrapolation)"));
        summary.put(
                "`" + c.spec() + "`: task vs client `_msearch` loop",
                String.format(
                        Locale.ROOT,
                        "%.2f s vs %.1f s%s: %.1f×",
                        took / 1e3,
                        extrapolated / 1e3,
                        full ? "" : " (extrapolated from " + queries.length + " queries)",
                        extrapolated / (double) took));
        if (full) {
            int[] base = new int[n];
            for (int i = 0; i < n; i++) {
                base[i] = find(parent, i);
            }
            double[] agree = quality(taskClusters, base);
            int differ = differing(taskClusters, base);
            long[] taskPairs = pairCounts(taskClusters);
            long[] basePairs = pairCounts(base);
            out.append(String.format(
                    Locale.ROOT,
                    "Clusters: the task %,d clusters of two or more (%,d documents, %,d pairs), the client %,d "
                            + "(%,d documents, %,d pairs); %s; documents whose cluster differs: %,d; pairwise agreement (client as truth): ARI %.5f, "
                            + "P %.5f, R %.5f; %,d of %,d pairs the client found lie in one task cluster.%n%n",
                    taskPairs[1],
                    taskPairs[2],
                    taskPairs[0],
                    basePairs[1],
                    basePairs[2],
                    basePairs[0],
                    differ == 0 ? "**identical partitions**" : "partitions differ",
                    differ,
                    agree[0],
                    agree[1],
                    agree[2],
                    edgesInOneTaskCluster,
                    edges));
            summary.put(
                    "`" + c.spec() + "`: task clusters vs client clusters",
                    differ == 0
                            ? "identical"
                            : String.format(
                                    Locale.ROOT,
                                    "%,d documents differ; ARI %.5f, P %.5f, R %.5f",
                                    differ,
                                    agree[0],
                                    agree[1],
                                    agree[2]));
        } else {
            out.append(String.format(
                    Locale.ROOT,
                    "Clusters on the sample: %,d of the %,d pairs the client found lie in one task cluster "
                            + "(%.4f).%n%n",
                    edgesInOneTaskCluster,
                    edges,
                    edges == 0 ? 1 : edgesInOneTaskCluster / (double) edges));
            summary.put(
                    "`" + c.spec() + "`: client's pairs within one task cluster (sample)",
                    String.format(Locale.ROOT, "%,d of %,d", edgesInOneTaskCluster, edges));
        }
        return new long[] {ms, queries.length, extrapolated};
    }

    static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    static void union(int[] parent, int a, int b) {
        int ra = find(parent, a), rb = find(parent, b);
        if (ra != rb) {
            parent[Math.max(ra, rb)] = Math.min(ra, rb);
        }
    }

    /** Documents whose cluster is not the same set of documents in the two partitions. */
    static int differing(int[] a, int[] b) {
        int[] canonicalA = canonical(a);
        int[] canonicalB = canonical(b);
        int differ = 0;
        for (int i = 0; i < a.length; i++) {
            if (canonicalA[i] != canonicalB[i]) {
                differ++;
            }
        }
        return differ;
    }

    /** Labels renamed to the smallest member of each cluster, so two partitions compare element by element. */
    static int[] canonical(int[] labels) {
        Map<Integer, Integer> smallest = new HashMap<>();
        for (int i = 0; i < labels.length; i++) {
            smallest.putIfAbsent(labels[i], i);
        }
        int[] r = new int[labels.length];
        for (int i = 0; i < labels.length; i++) {
            r[i] = smallest.get(labels[i]);
        }
        return r;
    }

    // ------------------------------------------------------------------ collapse

    void collapse(Config c, List<Corpus.Doc> docs, String text, int page) throws Exception {
        section("What `collapse` on the cluster field does to a result page");
        Run rerun = clusters(c, c.target(), true, false);
        Map<String, Object> r = rerun.response();
        report.append(String.format(
                Locale.ROOT,
                "Rerun of `%s` into `%s` with `\"singletons\": true`, so that every document has a cluster id: "
                        + "took %.2f s, %,d updated (the singletons), %,d no-ops (the documents already in their cluster: the rerun kept every "
                        + "cluster), %,d clusters, %,d version conflicts.%n%n",
                c.spec(),
                c.target(),
                (Long) r.get("took") / 1e3,
                (Long) r.get("updated"),
                (Long) r.get("noops"),
                (Long) r.get("clusters"),
                (Long) r.get("version_conflicts")));
        String field = c.target() + ".cluster";
        String query = "{\"match\": {\"text\": " + Json.quote(text) + "}}";
        String plain = "{\"size\": " + page + ", \"track_total_hits\": true, \"_source\": false, \"query\": " + query
                + ", \"aggs\": {\"distinct\": {\"cardinality\": {\"field\": \"" + field
                + "\", \"precision_threshold\": 40000}}}}";
        String collapsed = "{\"size\": " + page + ", \"track_total_hits\": true, \"_source\": false, \"query\": "
                + query + ", \"collapse\": {\"field\": \"" + field
                + "\", \"inner_hits\": {\"name\": \"copies\", \"size\": 100, \"_source\": false}}}";
        report.append(String.format(
                Locale.ROOT,
                "Query `%s`, first page of %d hits; groups: distinct corpus `group` labels among the hits "
                        + "(a document without a group counts as its own).%n%n| search | hits on the page | distinct groups on the page | copies folded into "
                        + "`inner_hits` | total hits | `cardinality` of `%s` |%n|---|---|---|---|---|---|%n",
                query,
                page,
                field));
        String[][] searches = {{"plain `match`", plain}, {"`match` + `collapse` on `" + field + "`", collapsed}};
        for (String[] s : searches) {
            Map<String, Object> resp =
                    Json.parse(node.ok("POST", "/" + INDEX + "/_search", s[1]).body());
            List<?> hits = (List<?>) Json.path(resp, "hits", "hits");
            Set<String> groups = new HashSet<>();
            long copies = 0;
            for (Object h : hits) {
                int id = Integer.parseInt((String) ((Map<?, ?>) h).get("_id"));
                String g = docs.get(id).group();
                groups.add(g == null ? "#" + id : g);
                Object inner = Json.path(h, "inner_hits", "copies", "hits", "total", "value");
                if (inner instanceof Number v) {
                    copies += v.longValue() - 1;
                }
            }
            Object distinct = Json.path(resp, "aggregations", "distinct", "value");
            report.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %s | %s | %s |%n",
                    s[0],
                    hits.size(),
                    groups.size(),
                    s == searches[0] ? "–" : Long.toString(copies),
                    Json.path(resp, "hits", "total", "value"),
                    distinct == null ? "–" : distinct));
            summary.put(
                    "collapse on `" + field + "`, "
                            + s[0].replaceAll("`[^`]*`$", "").trim() + ": hits / distinct groups on a page of " + page,
                    hits.size() + " / " + groups.size());
        }
        report.append('\n');
    }

    // ------------------------------------------------------------------ a data stream (--generations)

    /**
     * The corpus in the data stream {@link #STREAM}: an index template matching only its name, whose template is the
     * one index's definition with {@code @timestamp}; {@code generations} backing indices of {@code shards} shards.
     * Returns {bulk s, force-merge s, failed items}.
     */
    double[] indexStream(List<Corpus.Doc> docs, int batch, int shards, String floor, int generations) throws Exception {
        return indexStream(docs, batch, shards, floor, generations, 1);
    }

    /** As above, the backing indices in fingerprint {@code format}. */
    double[] indexStream(List<Corpus.Doc> docs, int batch, int shards, String floor, int generations, int format)
            throws Exception {
        deleteStream();
        evaluate.putPipeline();
        String minhashParams = floor == null ? "" : ", \"min_similarity_floor\": " + Double.parseDouble(floor);
        node.ok(
                "PUT",
                "/_index_template/" + STREAM,
                "{\"index_patterns\": [\"" + STREAM + "\"], \"data_stream\": {}, \"priority\": 500, \"template\": "
                        + Evaluate.indexDefinition(
                                shards,
                                minhashParams,
                                "\"@timestamp\": {\"type\": \"date\"}, ",
                                Evaluate.PIPELINE,
                                format)
                        + "}");
        node.ok("PUT", "/_data_stream/" + STREAM, null);
        double[] r = evaluate.bulk(STREAM, docs, batch, generations);
        Object backing = Json.path(
                Json.parse(node.ok("GET", "/_data_stream/" + STREAM, null).body()), "data_streams");
        int indices = ((List<?>) Json.path(((List<?>) backing).get(0), "indices")).size();
        if (indices != generations) {
            throw new IllegalStateException(STREAM + " has " + indices + " backing indices, not " + generations);
        }
        return r;
    }

    void deleteStream() {
        node.call("DELETE", "/_data_stream/" + STREAM, null);
        node.call("DELETE", "/_index_template/" + STREAM, null);
    }

    /**
     * One setting on the one index (A) and on the stream (B): {@code repeat} dry runs A B A B, then the run with writes
     * on A and on B; appends their {@code took}s and the two partitions compared document by document to {@code out}.
     * Returns the stream's partition and run with writes.
     */
    StreamRun againstOneIndex(Config c, int[] truth, int repeat, StringBuilder out) throws Exception {
        String[] layouts = {INDEX, STREAM};
        List<List<Long>> dry = List.of(new java.util.ArrayList<>(), new java.util.ArrayList<>());
        StringBuilder loads = new StringBuilder();
        for (int round = 0; round < repeat; round++) {
            for (int l = 0; l < 2; l++) {
                String before = Stats.loadAverage(1, "?");
                dry.get(l).add((Long) clusters(layouts[l], c, c.target(), false, true)
                        .response()
                        .get("took"));
                loads.append(loads.length() == 0 ? "" : ", ").append(before);
            }
        }
        Run[] written = new Run[2];
        int[][] partitions = new int[2][];
        String[] writeLoads = new String[2];
        for (int l = 0; l < 2; l++) {
            String before = Stats.loadAverage(1, "?");
            written[l] = clusters(layouts[l], c, c.target(), false, false);
            writeLoads[l] = before + "–" + Stats.loadAverage(1, "?");
            partitions[l] = readClusters(layouts[l], truth.length, c.target());
        }
        double[] medians = {median(dry.get(0)), median(dry.get(1))};
        long[] writeTook = {
            (Long) written[0].response().get("took"),
            (Long) written[1].response().get("took")
        };
        int differ = differing(partitions[1], partitions[0]);
        double[] same = quality(partitions[1], partitions[0]);
        double[] q = quality(partitions[1], truth);
        if (out.length() == 0) {
            out.append(
                    "A = the one index, B = the stream. Dry runs in turns A B A B …, `took` of the task in s; then the run with "
                            + "writes on A and on B. Load: the 1-minute average before each run, in run order. \"differ\": "
                            + "documents whose cluster (as a set of documents) is not the same in the two written partitions.\n\n"
                            + "| setting | dry runs A (s) | dry runs B (s) | B / A (medians) | with writes A / B (s) | B / A | "
                            + "matches A / B | clusters A / B | differ | F1 (ARI) B vs A | load during the dry runs | load, writes A; B |\n"
                            + "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        }
        out.append(String.format(
                Locale.ROOT,
                "| `%s` | %s | %s | %.2f | %.2f / %.2f | %.2f | %,d / %,d | %,d / %,d | %,d | %.4f (%.4f) | %s | %s; %s |%n",
                c.spec(),
                seconds(dry.get(0)),
                seconds(dry.get(1)),
                medians[1] / medians[0],
                writeTook[0] / 1e3,
                writeTook[1] / 1e3,
                writeTook[1] / (double) writeTook[0],
                (Long) written[0].response().get("matches"),
                (Long) written[1].response().get("matches"),
                (Long) written[0].response().get("clusters"),
                (Long) written[1].response().get("clusters"),
                differ,
                same[3],
                same[0],
                loads,
                writeLoads[0],
                writeLoads[1]));
        summary.put(
                "`" + c.spec() + "`: stream / one index, dry run took (medians); with writes",
                String.format(
                        Locale.ROOT,
                        "%.2f s / %.2f s = %.2f×; %.2f s / %.2f s = %.2f×",
                        medians[1] / 1e3,
                        medians[0] / 1e3,
                        medians[1] / medians[0],
                        writeTook[1] / 1e3,
                        writeTook[0] / 1e3,
                        writeTook[1] / (double) writeTook[0]));
        summary.put(
                "`" + c.spec() + "`: documents whose cluster differs, stream vs one index",
                differ + " of " + truth.length);
        summary.put(
                "`" + c.spec() + "` on the stream: ARI, P / R / F1 against the groups",
                String.format(Locale.ROOT, "%.4f, %.4f / %.4f / %.4f", q[0], q[1], q[2], q[3]));
        return new StreamRun(partitions[1], written[1], Math.round(medians[1]));
    }

    /** The stream's side of {@link #againstOneIndex}: its written partition, its run with writes, its dry runs' median. */
    record StreamRun(int[] partition, Run written, long medianDryTookMs) {}

    static double median(List<Long> values) {
        long[] v = values.stream().mapToLong(Long::longValue).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
    }

    static String seconds(List<Long> millis) {
        StringBuilder s = new StringBuilder();
        for (long ms : millis) {
            s.append(s.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", ms / 1e3));
        }
        return s.toString();
    }

    // ------------------------------------------------------------------ report helpers

    void section(String title) {
        report.append("\n## ").append(title).append("\n\n");
    }
}
