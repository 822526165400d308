/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import io.neardup.bench.common.SyntheticCorpus;
import io.neardup.bench.common.SyntheticQueries;
import io.neardup.bench.common.SyntheticTable;
import io.neardup.core.FingerprintScheme;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Speed, recall and memory of the {@code near_duplicate} query against a real node, compared with a
 * {@code script_score} Painless Hamming scan over the same field.
 *
 * <p>Corpus: {@link SyntheticCorpus}'s generator (Zipf(1.0) vocabulary of 200k words, documents of
 * 200–2,000 words, fingerprinted by the real {@code Fingerprinter} with
 * {@code FingerprintScheme.defaults("standard")}); the first 80% of the N documents are originals,
 * the rest variants (1–10% of words edited) of random originals — the same recipe as
 * {@link SyntheticCorpus#build} but with every table document's margins kept, since the documents
 * are indexed with them. Cached in {@code --cache} (fingerprint + 64 margin bytes a document).
 * Queries are fresh variants of random originals (not in the index), kept only if at least one
 * indexed document lies within {@code h} bits (brute force in-process, which is also the ground
 * truth every method is checked against).
 *
 * <p>Per index ({@code unsorted}, then {@code sorted} with {@code index.sort.field: fp.simhash}):
 * one shard, 0 replicas, bulk with {@code ?pipeline=_none}, force-merge to one segment; then, after
 * warm-up, one interleaved loop over the queries running PSM (k = 64), PSM (k = 23), EXACT and (on
 * every {@code Q / script-queries}-th query) the script_score scan, plus an {@code ids} query returning
 * one hit as the floor (HTTP, parsing, fetch); then a pass with {@code "profile": true} for the
 * server-side query time, a check of {@code like: {_id}}, the neardup breaker and the store size. Before the loop,
 * on the first index, PSM's pair recall for each {@code --sweep} k ({@code _msearch} batches), and the smallest k
 * reaching 0.99 joins the timed methods; after it, queries per second with {@code --throughput-clients} concurrent
 * clients ({@code --throughput-requests} requests a cell) and 100 queries as one {@code _msearch} against the same 100
 * as single requests, for every {@code near_duplicate} method.
 *
 * <pre>
 * cd opensearch-neardup &amp;&amp; export
 * java -Xmx3g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) io.neardup.bench.eval.QueryBenchmark \
 *     --url http://127.0.0.1:9290 --n 1000000 --queries 500 --warmup 100 --script-queries 50 --h 3 \
 *     --indices unsorted,sorted --cache $CACHE [--profile-queries 100] [--id-queries 50] [--reuse] [--threads 2]
 *     [--sweep 16,23,32,...|none] [--throughput-clients 1,2,4] [--throughput-requests 2000]
 * </pre>
 * {@code --reuse} keeps an existing index that already holds N documents in one segment.
 */
public final class QueryBenchmark {

    static final String FIELD = "fp.simhash";
    /** The timed methods; {@link #main} adds {@code psm_k<K>} for the smallest swept k reaching 0.99 pair recall. */
    static String[] METHODS = {"psm_k64", "psm_k23", "exact", "script_score", "ids_baseline"};
    /** PSM flip budgets whose pair recall the sweep measures (per index, before the timed loop). */
    static int[] sweepKs = {16, 23, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 2048};
    /** Concurrent clients of the throughput pass. */
    static int[] throughputClients = {1, 2, 4};
    /** Requests of each throughput measurement (all clients together). */
    static int throughputRequests = 2_000;

    private static boolean swept;
    static final String SCRIPT =
            "int d = Long.bitCount(doc['fp.simhash'].value ^ params.q); return d <= params.h ? 64 - d : 0;";

    private final Node node;

    QueryBenchmark(Node node) {
        this.node = node;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(args, 0, List.of("reuse"), null);
        String url = opt.getOrDefault("url", "http://127.0.0.1:9290");
        int n = Integer.parseInt(opt.getOrDefault("n", "1000000"));
        int q = Integer.parseInt(opt.getOrDefault("queries", "500"));
        int warmup = Integer.parseInt(opt.getOrDefault("warmup", "100"));
        int scriptQueries = Integer.parseInt(opt.getOrDefault("script-queries", "50"));
        int h = Integer.parseInt(opt.getOrDefault("h", "3"));
        long seed = Long.parseLong(opt.getOrDefault("seed", "1"));
        int threads = Integer.parseInt(opt.getOrDefault("threads", "2"));
        boolean reuse = opt.containsKey("reuse");
        if (opt.containsKey("sweep")) {
            sweepKs = opt.get("sweep").equals("none")
                    ? new int[0]
                    : Arrays.stream(opt.get("sweep").split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
        }
        if (opt.containsKey("throughput-clients")) {
            throughputClients = Arrays.stream(opt.get("throughput-clients").split(","))
                    .mapToInt(Integer::parseInt)
                    .toArray();
        }
        throughputRequests = Integer.parseInt(opt.getOrDefault("throughput-requests", "2000"));
        profileQueries = Integer.parseInt(opt.getOrDefault("profile-queries", "100"));
        idQueries = Integer.parseInt(opt.getOrDefault("id-queries", "50"));
        corpusSeed = seed;
        Path cache = Path.of(opt.getOrDefault("cache", "/tmp/h5-cache"));
        String[] indices = opt.getOrDefault("indices", "unsorted,sorted").split(",");
        Files.createDirectories(cache);

        String scheme = FingerprintScheme.defaults("standard").id();
        SyntheticTable table = SyntheticTable.loadOrBuild(cache, n, seed, threads);
        SyntheticQueries queries = SyntheticQueries.loadOrBuild(cache, table, warmup + q, h, seed);
        System.out.printf(
                Locale.ROOT,
                "corpus: n = %,d (%,d originals + %,d variants), scheme %s; queries: %,d fresh variants tried, "
                        + "%,d kept (>= 1 document within %d bits): %,d pairs, by distance 0..%d %s%n",
                n,
                (int) (n * 0.8),
                n - (int) (n * 0.8),
                scheme,
                queries.tried,
                queries.size(),
                h,
                queries.pairs(warmup, warmup + q),
                h,
                Arrays.toString(queries.pairsByDistance(warmup, warmup + q, h)));

        QueryBenchmark bench = new QueryBenchmark(new Node(url, Duration.ofMinutes(30)));
        long breakerBefore = bench.breakerBytes();
        System.out.printf(Locale.ROOT, "neardup breaker before: %,d bytes%n", breakerBefore);
        for (String index : indices) {
            boolean sorted = index.equals("sorted") || index.endsWith("_sorted");
            bench.index(index, sorted, table, scheme, reuse);
            bench.run(index, table, queries, warmup, q, scriptQueries, h, breakerBefore);
            breakerBefore = bench.breakerBytes();
        }
    }

    // ---------------------------------------------------------------- corpus

    // ---------------------------------------------------------------- HTTP

    // ---------------------------------------------------------------- indexing

    void index(String index, boolean sorted, SyntheticTable table, String scheme, boolean reuse) throws Exception {
        int n = table.size();
        Node.Response exists = node.call("HEAD", "/" + index, null, Duration.ofSeconds(30));
        if (exists.status() == 200 && reuse) {
            long count = docCount(index);
            int segments = segments(index);
            if (count == n && segments == 1) {
                System.out.printf(Locale.ROOT, "%n== index %s: reused (%,d docs, 1 segment)%n", index, count);
                return;
            }
            System.out.printf(
                    Locale.ROOT, "index %s exists with %,d docs in %d segments: rebuilding%n", index, count, segments);
        }
        if (exists.status() == 200) {
            node.ok("DELETE", "/" + index, null, Duration.ofMinutes(2));
        }
        String settings = "\"number_of_shards\": 1, \"number_of_replicas\": 0, \"refresh_interval\": \"-1\""
                + (sorted ? ", \"index.sort.field\": \"" + FIELD + "\"" : "");
        node.ok(
                "PUT",
                "/" + index,
                "{\"settings\": {" + settings + "}, \"mappings\": {\"properties\": {\"fp\": {\"properties\": "
                        + "{\"simhash\": {\"type\": \"simhash\"}}}}}}",
                Duration.ofMinutes(2));
        node.ok(
                "GET",
                "/_cluster/health/" + index + "?wait_for_status=green&timeout=60s",
                null,
                Duration.ofSeconds(90));

        int batch = 5_000;
        Semaphore inFlight = new Semaphore(2);
        AtomicReference<String> error = new AtomicReference<>();
        long t0 = System.nanoTime();
        for (int from = 0; from < n && error.get() == null; from += batch) {
            int to = Math.min(n, from + batch);
            StringBuilder sb = new StringBuilder((to - from) * 180);
            for (int i = from; i < to; i++) {
                sb.append("{\"index\":{\"_id\":\"")
                        .append(i)
                        .append("\"}}\n{\"fp\":{\"simhash\":{\"value\":\"")
                        .append(String.format(Locale.ROOT, "%016x", table.fingerprints[i]))
                        .append("\",\"margins\":\"")
                        .append(table.marginsB64(i))
                        .append("\",\"scheme\":\"")
                        .append(scheme)
                        .append("\"}}}\n");
            }
            inFlight.acquire();
            int batchFrom = from;
            // Not kept: a completed future holds its response body (~750 KB a bulk).
            node.callAsync("POST", "/" + index + "/_bulk?pipeline=_none", sb.toString(), Duration.ofMinutes(5))
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            error.compareAndSet(null, "bulk from " + batchFrom + ": " + e);
                        } else if (r.status() != 200
                                || r.body().startsWith("{\"took\":") && r.body().contains("\"errors\":true")) {
                            error.compareAndSet(
                                    null,
                                    "bulk from " + batchFrom + " -> " + r.status() + ": "
                                            + Node.abbreviate(r.body(), 3000));
                        }
                        inFlight.release();
                    });
            if ((to / batch) % 40 == 0) {
                System.err.printf(
                        Locale.ROOT, "  %s: sent %,d of %,d (%.0f s)%n", index, to, n, (System.nanoTime() - t0) / 1e9);
            }
        }
        inFlight.acquire(2); // every bulk answered
        if (error.get() != null) {
            throw new IllegalStateException(error.get());
        }
        double indexSeconds = (System.nanoTime() - t0) / 1e9;
        node.ok("POST", "/" + index + "/_refresh", null, Duration.ofMinutes(10));
        long t1 = System.nanoTime();
        node.ok("POST", "/" + index + "/_forcemerge?max_num_segments=1", null, Duration.ofMinutes(60));
        node.ok("POST", "/" + index + "/_refresh", null, Duration.ofMinutes(10));
        double mergeSeconds = (System.nanoTime() - t1) / 1e9;
        long count = docCount(index);
        int segments = segments(index);
        System.out.printf(
                Locale.ROOT,
                "%n== index %s: %,d docs bulk-indexed in %.0f s (%,.0f docs/s), force-merged in %.0f s; %,d docs, %d segment(s)%n",
                index,
                n,
                indexSeconds,
                n / indexSeconds,
                mergeSeconds,
                count,
                segments);
        if (count != n) {
            throw new IllegalStateException("index " + index + " holds " + count + " documents, expected " + n);
        }
    }

    long docCount(String index) throws Exception {
        Node.Response r = node.ok("GET", "/_cat/indices/" + index + "?h=docs.count", null, Duration.ofSeconds(30));
        // a data stream or pattern lists one line an index
        return r.body().trim().lines().mapToLong(Long::parseLong).sum();
    }

    int segments(String index) throws Exception {
        Node.Response r = node.ok("GET", "/_cat/segments/" + index + "?h=segment", null, Duration.ofSeconds(30));
        return (int) r.body().lines().filter(l -> l.isBlank() == false).count();
    }

    long storeBytes(String index) throws Exception {
        Node.Response r =
                node.ok("GET", "/_cat/indices/" + index + "?bytes=b&h=pri.store.size", null, Duration.ofSeconds(30));
        return Long.parseLong(r.body().trim());
    }

    private static final Pattern BREAKER =
            Pattern.compile("\"neardup\"\\s*:\\s*\\{[^}]*?\"estimated_size_in_bytes\"\\s*:\\s*(\\d+)");

    long breakerBytes() throws Exception {
        Node.Response r = node.ok("GET", "/_nodes/stats/breaker", null, Duration.ofSeconds(30));
        Matcher m = BREAKER.matcher(r.body());
        if (m.find() == false) {
            throw new IllegalStateException(
                    "no [neardup] breaker in _nodes/stats/breaker: " + Node.abbreviate(r.body(), 3000));
        }
        return Long.parseLong(m.group(1));
    }

    // ---------------------------------------------------------------- queries

    static String body(String method, long fp, String margins, int h) {
        return body(method, fp, margins, h, -1, false);
    }

    /**
     * The request of a method; {@code ids_baseline} (the HTTP + search floor: an {@code ids} query
     * returning one hit) looks up {@code baselineId}.
     */
    static String body(String method, long fp, String margins, int h, int baselineId, boolean profile) {
        String hex = String.format(Locale.ROOT, "%016x", fp);
        String head = "{\"size\": 100, \"_source\": false, \"track_total_hits\": true, "
                + (profile ? "\"profile\": true, " : "") + "\"query\": ";
        if (method.startsWith("psm_k")) {
            return head + "{\"near_duplicate\": {\"field\": \"" + FIELD + "\", \"like\": {\"simhash\": \"" + hex
                    + "\", \"margins\": \"" + margins + "\"}, \"max_distance\": " + h
                    + ", \"mode\": \"psm\", \"max_flips\": " + Integer.parseInt(method.substring(5)) + "}}}";
        }
        return switch (method) {
            case "ids_baseline" -> head + "{\"ids\": {\"values\": [\"" + baselineId + "\"]}}}";
            case "exact" ->
                head + "{\"near_duplicate\": {\"field\": \"" + FIELD + "\", \"like\": {\"simhash\": \"" + hex
                        + "\"}, \"max_distance\": " + h + ", \"mode\": \"exact\"}}}";
            case "script_score" ->
                head + "{\"script_score\": {\"query\": {\"match_all\": {}}, \"script\": {\"source\": \"" + SCRIPT
                        + "\", \"params\": {\"q\": " + (fp ^ Long.MIN_VALUE) + ", \"h\": " + h
                        + "}}, \"min_score\": 1}}}";
            default -> throw new IllegalArgumentException(method);
        };
    }

    private static final Pattern TOOK = Pattern.compile("\"took\"\\s*:\\s*(\\d+)");
    private static final Pattern TOTAL = Pattern.compile(
            "\"total\"\\s*:\\s*\\{\\s*\"value\"\\s*:\\s*(\\d+)\\s*,\\s*\"relation\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern HIT =
            Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"\\s*,\\s*\"_score\"\\s*:\\s*([0-9.Ee+-]+|null)");
    private static final Pattern SHARDS_FAILED =
            Pattern.compile("\"_shards\"\\s*:\\s*\\{[^}]*\"failed\"\\s*:\\s*(\\d+)");

    /** Whether a search response reports failed shards. */
    static boolean shardsFailed(String response) {
        Matcher failed = SHARDS_FAILED.matcher(response);
        return failed.find() && Integer.parseInt(failed.group(1)) != 0;
    }

    record Result(long clientNanos, int took, int total, String relation, int[] ids, float[] scores) {}

    /** Per method: latencies, results by query index, errors. */
    static final class MethodStats {
        final List<Long> client = new ArrayList<>();
        final List<Integer> took = new ArrayList<>();
        final Map<Integer, Result> results = new LinkedHashMap<>();
        final List<String> errors = new ArrayList<>();
    }

    Result search(String index, String method, long fp, String margins, int h, MethodStats stats, int queryIndex)
            throws Exception {
        return search(index, method, fp, margins, h, stats, queryIndex, -1, false);
    }

    private String lastBody = "";

    Result search(
            String index,
            String method,
            long fp,
            String margins,
            int h,
            MethodStats stats,
            int queryIndex,
            int baselineId,
            boolean profile)
            throws Exception {
        String body = body(method, fp, margins, h, baselineId, profile);
        Node.Response r = node.call("POST", "/" + index + "/_search", body, Duration.ofMinutes(5));
        if (r.status() != 200) {
            String e = method + " query " + queryIndex + " -> HTTP " + r.status() + ": "
                    + Node.abbreviate(r.body(), 1500) + "\n  request: POST /" + index + "/_search " + body;
            if (stats != null) {
                stats.errors.add(e);
            }
            if (stats == null || stats.errors.size() <= 3) {
                System.out.println("ERROR " + e);
            }
            return null;
        }
        if (shardsFailed(r.body())) {
            String e = method + " query " + queryIndex + " -> shard failures: " + Node.abbreviate(r.body(), 1500)
                    + "\n  request: " + body;
            if (stats != null) {
                stats.errors.add(e);
            }
            System.out.println("ERROR " + e);
            return null;
        }
        Matcher took = TOOK.matcher(r.body());
        Matcher total = TOTAL.matcher(r.body());
        if (took.find() == false || total.find() == false) {
            throw new IllegalStateException("unexpected response: " + Node.abbreviate(r.body(), 1500));
        }
        Matcher hit = HIT.matcher(r.body());
        List<int[]> ids = new ArrayList<>();
        List<Float> scores = new ArrayList<>();
        while (hit.find()) {
            ids.add(new int[] {Integer.parseInt(hit.group(1))});
            scores.add(hit.group(2).equals("null") ? Float.NaN : Float.parseFloat(hit.group(2)));
        }
        int[] idArray = ids.stream().mapToInt(a -> a[0]).toArray();
        float[] scoreArray = new float[scores.size()];
        for (int i = 0; i < scoreArray.length; i++) {
            scoreArray[i] = scores.get(i);
        }
        lastBody = r.body();
        return new Result(
                r.nanos(),
                Integer.parseInt(took.group(1)),
                Integer.parseInt(total.group(1)),
                total.group(2),
                idArray,
                scoreArray);
    }

    static int profileQueries = 100;
    static int idQueries = 50;
    static long corpusSeed = 1;

    private static final Pattern PROFILE_QUERY = Pattern.compile(
            "\"searches\"\\s*:\\s*\\[\\s*\\{\\s*\"query\"\\s*:\\s*\\[\\s*\\{\\s*\"type\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"description\"\\s*:\\s*\"(?:[^\"\\\\]|\\\\.)*\"\\s*,\\s*\"time_in_nanos\"\\s*:\\s*(\\d+)");
    private static final Pattern PROFILE_COLLECTOR =
            Pattern.compile("\"collector\"\\s*:\\s*\\[\\s*\\{[^}]*?\"time_in_nanos\"\\s*:\\s*(\\d+)");

    /** Server-side query time from the search profiler (top-level query time_in_nanos, plus collector). */
    void profile(String index, SyntheticQueries queries, int warmup, int count, int h) throws Exception {
        if (count <= 0) {
            return;
        }
        Map<String, List<Double>> queryUs = new LinkedHashMap<>();
        Map<String, List<Double>> collectorUs = new LinkedHashMap<>();
        for (String m : METHODS) {
            queryUs.put(m, new ArrayList<>());
            collectorUs.put(m, new ArrayList<>());
        }
        int scriptEvery = 5;
        for (int j = 0; j < count; j++) {
            int qi = warmup + j;
            for (String m : METHODS) {
                if (m.equals("script_score") && j % scriptEvery != 0) {
                    continue;
                }
                Result r = search(
                        index,
                        m,
                        queries.fingerprints[qi],
                        queries.margins[qi],
                        h,
                        null,
                        qi,
                        queries.truth[qi][0],
                        true);
                if (r == null) {
                    continue;
                }
                Matcher pq = PROFILE_QUERY.matcher(lastBody);
                Matcher pc = PROFILE_COLLECTOR.matcher(lastBody);
                if (pq.find() == false) {
                    System.out.println("no profile in " + Node.abbreviate(lastBody, 1500));
                    continue;
                }
                queryUs.get(m).add(Long.parseLong(pq.group(1)) / 1e3);
                if (pc.find()) {
                    collectorUs.get(m).add(Long.parseLong(pc.group(1)) / 1e3);
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%nprofiled (\"profile\": true, %d queries; script_score on every %dth): server query time of the "
                        + "shard's top-level query, µs%n%n",
                count,
                scriptEvery);
        System.out.println("| method | queries | median query µs | p99 query µs | median collector µs |");
        System.out.println("|---|---|---|---|---|");
        for (String m : METHODS) {
            double[] q = queryUs.get(m).stream()
                    .mapToDouble(Double::doubleValue)
                    .sorted()
                    .toArray();
            double[] c = collectorUs.get(m).stream()
                    .mapToDouble(Double::doubleValue)
                    .sorted()
                    .toArray();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.1f | %.1f | %.1f |%n",
                    m,
                    q.length,
                    Stats.median(q),
                    Stats.p99(q),
                    Stats.median(c));
        }
        System.out.println(
                "(the profiler times every nextDoc/score call: for script_score's 1M calls that inflates its time; compare its `took` instead)");
    }

    /**
     * like: {_id} on indexed variants (margins from the stored field): psm k = 64 and exact against brute force over the table,
     * excluding the document itself.
     */
    void idCheck(String index, SyntheticTable table, int count, int h, long seed) throws Exception {
        if (count <= 0) {
            return;
        }
        int n = table.size();
        int originals = (int) (n * 0.8);
        long[] t = table.fingerprints;
        int checked = 0;
        int exactMismatch = 0;
        int psmFound = 0;
        int pairs = 0;
        int psmExtra = 0;
        for (int i = originals; i < n && checked < count; i++) {
            int o = new java.util.SplittableRandom(seed * 31 + i).nextInt(originals);
            if (Long.bitCount(t[i] ^ t[o]) > h) {
                continue;
            }
            Set<Integer> want = new TreeSet<>();
            for (int j = 0; j < n; j++) {
                if (j != i && Long.bitCount(t[j] ^ t[i]) <= h) {
                    want.add(j);
                }
            }
            checked++;
            for (String mode : new String[] {"exact", "psm"}) {
                String body =
                        "{\"size\": 100, \"_source\": false, \"track_total_hits\": true, \"query\": {\"near_duplicate\": {\"field\": \""
                                + FIELD + "\", \"like\": {\"_id\": \"" + i + "\"}, \"max_distance\": " + h
                                + ", \"mode\": \"" + mode + "\"}}}";
                Node.Response r = node.call("POST", "/" + index + "/_search", body, Duration.ofMinutes(1));
                if (r.status() != 200) {
                    System.out.println("ERROR like _id -> " + r.status() + ": " + Node.abbreviate(r.body(), 1500)
                            + "\n  request: POST /" + index + "/_search " + body);
                    continue;
                }
                Set<Integer> got = new TreeSet<>();
                Matcher hit = Pattern.compile("\"_id\"\\s*:\\s*\"(\\d+)\"").matcher(r.body());
                while (hit.find()) {
                    got.add(Integer.parseInt(hit.group(1)));
                }
                if (mode.equals("exact")) {
                    if (got.equals(want) == false && exactMismatch++ < 3) {
                        System.out.println("MISMATCH like _id exact: got " + got + ", want " + want
                                + "\n  request: POST /" + index + "/_search " + body);
                    }
                } else {
                    pairs += want.size();
                    for (int g : got) {
                        if (want.contains(g)) {
                            psmFound++;
                        } else {
                            psmExtra++;
                        }
                    }
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "like {_id} on %d indexed variants with their original within %d: exact mismatches %d; psm k=64 "
                        + "recall %d/%d, results not within %d or the document itself: %d%n",
                checked,
                h,
                exactMismatch,
                psmFound,
                pairs,
                h,
                psmExtra);
    }

    void run(
            String index,
            SyntheticTable table,
            SyntheticQueries queries,
            int warmup,
            int q,
            int scriptQueries,
            int h,
            long breakerBefore)
            throws Exception {
        int scriptStride = Math.max(1, q / Math.max(1, scriptQueries));
        // Warm-up: the first near_duplicate query builds the segment's structure; time it alone.
        long t0 = System.nanoTime();
        Result first = search(index, "exact", queries.fingerprints[0], queries.margins[0], h, null, -1);
        double firstMs = (System.nanoTime() - t0) / 1e6;
        long breakerAfterFirst = breakerBytes();
        System.out.printf(
                Locale.ROOT,
                "first near_duplicate query (builds the segment structure): %.1f ms client, took %s ms; "
                        + "neardup breaker %,d -> %,d bytes%n",
                firstMs,
                first == null ? "?" : String.valueOf(first.took()),
                breakerBefore,
                breakerAfterFirst);
        if (sweepKs.length > 0 && swept == false) {
            swept = true; // recall does not depend on the index's sort: once, on the first index
            int k99 = sweep(index, queries, warmup, q, h);
            System.out.printf(Locale.ROOT, "smallest swept max_flips with pair recall >= 0.99: %d%n", k99);
            if (k99 != 64 && k99 != 23) {
                List<String> methods = new ArrayList<>(Arrays.asList(METHODS));
                methods.add(2, "psm_k" + k99);
                METHODS = methods.toArray(new String[0]);
            }
        }
        long tw = System.nanoTime();
        for (int i = 0; i < warmup; i++) {
            for (String m : METHODS) {
                if (m.equals("script_score") && i % 10 != 0) {
                    continue;
                }
                search(index, m, queries.fingerprints[i], queries.margins[i], h, null, -1, queries.truth[i][0], false);
            }
        }
        System.out.printf(
                Locale.ROOT,
                "warm-up: %d queries (script_score on %d) in %.0f s%n",
                warmup,
                (warmup + 9) / 10,
                (System.nanoTime() - tw) / 1e9);

        Map<String, MethodStats> stats = new LinkedHashMap<>();
        for (String m : METHODS) {
            stats.put(m, new MethodStats());
        }
        long tl = System.nanoTime();
        for (int j = 0; j < q; j++) {
            int qi = warmup + j;
            boolean withScript =
                    j % scriptStride == 0 && stats.get("script_score").results.size() < scriptQueries;
            for (int r = 0; r < METHODS.length; r++) {
                String m = METHODS[(j + r) % METHODS.length]; // rotate the order so no method always runs first
                if (m.equals("script_score") && withScript == false) {
                    continue;
                }
                MethodStats s = stats.get(m);
                Result res = search(
                        index, m, queries.fingerprints[qi], queries.margins[qi], h, s, qi, queries.truth[qi][0], false);
                if (res != null) {
                    s.client.add(res.clientNanos());
                    s.took.add(res.took());
                    s.results.put(qi, res);
                }
            }
            if ((j + 1) % 100 == 0) {
                System.err.printf(
                        Locale.ROOT,
                        "  %s: %d of %d queries (%.0f s)%n",
                        index,
                        j + 1,
                        q,
                        (System.nanoTime() - tl) / 1e9);
            }
        }
        long breaker = breakerBytes();
        long store = storeBytes(index);
        String[] nearDuplicate = Arrays.stream(METHODS)
                .filter(m -> m.startsWith("psm_k") || m.equals("exact"))
                .toArray(String[]::new);
        throughput(index, queries, warmup, q, h, nearDuplicate);
        batches(index, queries, warmup, q, h, nearDuplicate);
        idCheck(index, table, idQueries, h, corpusSeed);
        int n = table.size();

        System.out.printf(
                Locale.ROOT, "%n### index `%s` (n = %,d, 1 shard, 1 segment, h = %d, size 100)%n%n", index, n, h);
        System.out.println(
                "| method | queries | median ms (client) | p99 ms (client) | mean ms (client) | median took ms | p99 took ms | "
                        + "median total hits | errors |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        Map<String, Double> medians = new HashMap<>();
        Map<String, Double> tookMedians = new HashMap<>();
        for (String m : METHODS) {
            MethodStats s = stats.get(m);
            double[] c = s.client.stream().mapToDouble(v -> v / 1e6).sorted().toArray();
            double[] t =
                    s.took.stream().mapToDouble(Integer::doubleValue).sorted().toArray();
            double[] totals = s.results.values().stream()
                    .mapToDouble(Result::total)
                    .sorted()
                    .toArray();
            medians.put(m, Stats.median(c));
            tookMedians.put(m, Stats.median(t));
            if (c.length == 0) {
                continue;
            }
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.2f | %.2f | %.2f | %.0f | %.0f | %.0f | %d |%n",
                    m,
                    c.length,
                    Stats.median(c),
                    Stats.p99(c),
                    Arrays.stream(c).average().orElse(Double.NaN),
                    Stats.median(t),
                    Stats.p99(t),
                    Stats.median(totals),
                    s.errors.size());
        }
        System.out.printf(
                Locale.ROOT,
                "%nratios of client medians: script_score / psm_k64 = %.1f, script_score / psm_k23 = %.1f, "
                        + "exact / psm_k64 = %.2f, exact / psm_k23 = %.2f%n",
                medians.get("script_score") / medians.get("psm_k64"),
                medians.get("script_score") / medians.get("psm_k23"),
                medians.get("exact") / medians.get("psm_k64"),
                medians.get("exact") / medians.get("psm_k23"));
        System.out.printf(
                Locale.ROOT,
                "ratios of server took medians: script_score / psm_k64 = %s, exact / psm_k64 = %s%n",
                ratio(tookMedians.get("script_score"), tookMedians.get("psm_k64")),
                ratio(tookMedians.get("exact"), tookMedians.get("psm_k64")));

        Map<String, Double> minusFloor = new LinkedHashMap<>();
        for (String m : METHODS) {
            if (m.equals("ids_baseline")) {
                continue;
            }
            List<Double> diffs = new ArrayList<>();
            for (Map.Entry<Integer, Result> e : stats.get(m).results.entrySet()) {
                Result base = stats.get("ids_baseline").results.get(e.getKey());
                if (base != null) {
                    diffs.add((e.getValue().clientNanos() - base.clientNanos()) / 1e6);
                }
            }
            minusFloor.put(
                    m,
                    Stats.median(diffs.stream()
                            .mapToDouble(Double::doubleValue)
                            .sorted()
                            .toArray()));
        }
        System.out.printf(Locale.ROOT, "median per-query (method - ids_baseline) client ms: %s%n", minusFloor);

        profile(index, queries, warmup, profileQueries, h);

        // Correctness and recall.
        MethodStats exact = stats.get("exact");
        int exactVsTruthMismatch = 0;
        int truncated = 0;
        int badScores = 0;
        for (Map.Entry<Integer, Result> e : exact.results.entrySet()) {
            Set<Integer> got = ids(e.getValue());
            Set<Integer> want = new TreeSet<>();
            for (int id : queries.truth[e.getKey()]) {
                want.add(id);
            }
            if (e.getValue().total() > 100) {
                truncated++;
            }
            if (got.equals(want) == false || e.getValue().total() != want.size()) {
                if (exactVsTruthMismatch++ < 5) {
                    System.out.println(
                            "MISMATCH exact vs brute force, query " + e.getKey() + ": got " + got + " (total "
                                    + e.getValue().total() + "), want " + want + "\n  request: "
                                    + body("exact", queries.fingerprints[e.getKey()], queries.margins[e.getKey()], h));
                }
            }
            badScores += checkScores(e.getValue(), queries.fingerprints[e.getKey()], table, 1f / 64f, false);
        }
        int scriptVsExact = 0;
        int compared = 0;
        int scriptBadScores = 0;
        for (Map.Entry<Integer, Result> e : stats.get("script_score").results.entrySet()) {
            Result ex = exact.results.get(e.getKey());
            if (ex == null) {
                continue;
            }
            compared++;
            if (ids(e.getValue()).equals(ids(ex)) == false || e.getValue().total() != ex.total()) {
                if (scriptVsExact++ < 5) {
                    System.out.println("MISMATCH script_score vs exact, query " + e.getKey() + ": script "
                            + ids(e.getValue()) + " (total " + e.getValue().total() + "), exact " + ids(ex) + " (total "
                            + ex.total() + ")");
                }
            }
            scriptBadScores += checkScores(e.getValue(), queries.fingerprints[e.getKey()], table, 1f, true);
        }
        System.out.printf(
                Locale.ROOT,
                "%nexact vs in-process brute force: %d mismatches of %d queries (%d with > 100 hits); "
                        + "script_score vs exact: %d mismatches of %d queries compared; hits with a wrong score: exact %d, script_score %d%n",
                exactVsTruthMismatch,
                exact.results.size(),
                truncated,
                scriptVsExact,
                compared,
                badScores,
                scriptBadScores);

        for (String m : METHODS) {
            if (m.startsWith("psm_k") == false) {
                continue;
            }
            int pairs = 0;
            int found = 0;
            int queriesWith = 0;
            int queriesFound = 0;
            int falsePositives = 0;
            int psmBadScores = 0;
            int[] byDistance = new int[h + 1];
            int[] foundByDistance = new int[h + 1];
            for (Map.Entry<Integer, Result> e : stats.get(m).results.entrySet()) {
                Result ex = exact.results.get(e.getKey());
                if (ex == null) {
                    continue;
                }
                Set<Integer> want = ids(ex);
                Set<Integer> got = ids(e.getValue());
                long fp = queries.fingerprints[e.getKey()];
                for (int id : want) {
                    int d = Long.bitCount(table.fingerprints[id] ^ fp);
                    byDistance[d]++;
                    if (got.contains(id)) {
                        foundByDistance[d]++;
                    }
                }
                pairs += want.size();
                int hit = 0;
                for (int id : got) {
                    if (want.contains(id)) {
                        hit++;
                    } else {
                        falsePositives++;
                    }
                }
                found += hit;
                if (want.isEmpty() == false) {
                    queriesWith++;
                    if (hit > 0) {
                        queriesFound++;
                    }
                }
                psmBadScores += checkScores(e.getValue(), fp, table, 1f / 64f, false);
            }
            StringBuilder byD = new StringBuilder();
            for (int d = 0; d <= h; d++) {
                byD.append(d == 0 ? "" : ", ")
                        .append("d=")
                        .append(d)
                        .append(": ")
                        .append(String.format(
                                Locale.ROOT,
                                "%.3f (%d/%d)",
                                byDistance[d] == 0 ? Double.NaN : foundByDistance[d] / (double) byDistance[d],
                                foundByDistance[d],
                                byDistance[d]));
            }
            System.out.printf(
                    Locale.ROOT,
                    "recall %s vs exact: pairs %.4f (%d/%d), queries with >= 1 found %.4f (%d/%d); by distance %s; "
                            + "results not in exact: %d; hits with a wrong score: %d%n",
                    m,
                    found / (double) pairs,
                    found,
                    pairs,
                    queriesFound / (double) queriesWith,
                    queriesFound,
                    queriesWith,
                    byD,
                    falsePositives,
                    psmBadScores);
        }

        for (String m : METHODS) {
            for (String e : stats.get(m).errors) {
                System.out.println("error: " + Node.abbreviate(e, 3000));
            }
        }

        long indexBytes = breaker - breakerBefore;
        System.out.printf(
                Locale.ROOT,
                "%nmemory: neardup breaker %,d bytes (before this index: %,d) -> %,d bytes for this index = %.2f bytes/doc; "
                        + "store size (primary) %,d bytes = %.1f bytes/doc%n",
                breaker,
                breakerBefore,
                indexBytes,
                indexBytes / (double) n,
                store,
                store / (double) n);
    }

    // ---------------------------------------------------------------- k sweep, throughput, _msearch

    /**
     * Hits of each query of {@code [from, to)} by {@code _msearch} in batches of {@code batch}; the client time of each
     * batch goes to {@code batchNanos} if given.
     */
    List<Set<Integer>> msearch(
            String index,
            String method,
            SyntheticQueries queries,
            int from,
            int to,
            int h,
            int batch,
            List<Long> batchNanos)
            throws Exception {
        List<Set<Integer>> hits = new ArrayList<>();
        for (int b = from; b < to; b += batch) {
            int end = Math.min(to, b + batch);
            StringBuilder sb = new StringBuilder();
            for (int qi = b; qi < end; qi++) {
                sb.append("{\"index\": \"")
                        .append(index)
                        .append("\"}\n")
                        .append(body(
                                method, queries.fingerprints[qi], queries.margins[qi], h, queries.truth[qi][0], false))
                        .append('\n');
            }
            Node.Response r = node.ok("POST", "/_msearch", sb.toString(), Duration.ofMinutes(10));
            if (batchNanos != null) {
                batchNanos.add(r.nanos());
            }
            // Every response of a successful search starts with "took"; the first part is the envelope's own.
            String[] parts = r.body().split("\\{\"took\"\\s*:");
            if (parts.length != end - b + 2) {
                throw new IllegalStateException(
                        method + ": _msearch of " + (end - b) + " returned " + Node.abbreviate(r.body(), 2000));
            }
            for (int i = 2; i < parts.length; i++) {
                if (shardsFailed(parts[i])) {
                    throw new IllegalStateException(
                            method + ": shard failure in _msearch: " + Node.abbreviate(parts[i], 2000));
                }
                Set<Integer> ids = new TreeSet<>();
                Matcher hit = HIT.matcher(parts[i]);
                while (hit.find()) {
                    ids.add(Integer.parseInt(hit.group(1)));
                }
                hits.add(ids);
            }
        }
        return hits;
    }

    /**
     * Pair recall of PSM against the in-process brute force for each swept k on the measured queries; returns the
     * smallest k reaching 0.99 (the largest swept if none does).
     */
    int sweep(String index, SyntheticQueries queries, int warmup, int q, int h) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "%nPSM recall by max_flips on `%s` (%d queries, %d pairs; _msearch in batches of 100, client time)%n%n",
                index,
                q,
                queries.pairs(warmup, warmup + q));
        System.out.println("| max_flips k | pair recall | queries with >= 1 found | ms per 100 queries |");
        System.out.println("|---|---|---|---|");
        int chosen = -1;
        for (int k : sweepKs) {
            List<Long> nanos = new ArrayList<>();
            List<Set<Integer>> hits = msearch(index, "psm_k" + k, queries, warmup, warmup + q, h, 100, nanos);
            int pairs = 0;
            int found = 0;
            int queriesFound = 0;
            for (int j = 0; j < q; j++) {
                int[] want = queries.truth[warmup + j];
                int hit = 0;
                for (int id : want) {
                    if (hits.get(j).contains(id)) {
                        hit++;
                    }
                }
                pairs += want.length;
                found += hit;
                queriesFound += hit > 0 ? 1 : 0;
            }
            double recall = found / (double) pairs;
            System.out.printf(
                    Locale.ROOT,
                    "| %d | %.4f (%d/%d) | %d/%d | %.1f |%n",
                    k,
                    recall,
                    found,
                    pairs,
                    queriesFound,
                    q,
                    nanos.stream().mapToLong(Long::longValue).sum() / 1e6 / nanos.size());
            if (chosen < 0 && recall >= 0.99) {
                chosen = k;
            }
        }
        return chosen < 0 ? sweepKs[sweepKs.length - 1] : chosen;
    }

    /**
     * Queries per second with 1, 2, 4 concurrent clients (one keep-alive connection each), cycling over the measured
     * queries; every response checked for HTTP 200 and no shard failure.
     */
    void throughput(String index, SyntheticQueries queries, int warmup, int q, int h, String[] methods)
            throws Exception {
        System.out.printf(
                Locale.ROOT,
                "%nthroughput on `%s`: %,d requests per cell, clients on the same 2-core machine as the node%n%n",
                index,
                throughputRequests);
        System.out.println("| method | clients | queries/s | median ms | p99 ms | errors |");
        System.out.println("|---|---|---|---|---|---|");
        for (String method : methods) {
            for (int clients : throughputClients) {
                java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
                java.util.concurrent.atomic.AtomicInteger errors = new java.util.concurrent.atomic.AtomicInteger();
                long[] latencies = new long[throughputRequests];
                Thread[] threads = new Thread[clients];
                long t0 = System.nanoTime();
                for (int c = 0; c < clients; c++) {
                    threads[c] = new Thread(() -> {
                        Node own = new Node(node.url(), Duration.ofMinutes(1));
                        for (int i; (i = next.getAndIncrement()) < throughputRequests; ) {
                            int qi = warmup + i % q;
                            String body = body(
                                    method,
                                    queries.fingerprints[qi],
                                    queries.margins[qi],
                                    h,
                                    queries.truth[qi][0],
                                    false);
                            long s0 = System.nanoTime();
                            try {
                                Node.Response r = own.call("POST", "/" + index + "/_search", body);
                                if (r.status() != 200 || shardsFailed(r.body())) {
                                    errors.incrementAndGet();
                                }
                            } catch (Exception e) {
                                errors.incrementAndGet();
                            }
                            latencies[i] = System.nanoTime() - s0;
                        }
                    });
                    threads[c].start();
                }
                for (Thread t : threads) {
                    t.join();
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                double[] ms = Arrays.stream(latencies)
                        .mapToDouble(v -> v / 1e6)
                        .sorted()
                        .toArray();
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %d | %.0f | %.2f | %.2f | %d |%n",
                        method,
                        clients,
                        throughputRequests / seconds,
                        Stats.median(ms),
                        Stats.p99(ms),
                        errors.get());
            }
        }
    }

    /**
     * 100 queries as one {@code _msearch} against the same 100 as single requests one after the other, batch by
     * batch alternating; the hits of both must be equal.
     */
    void batches(String index, SyntheticQueries queries, int warmup, int q, int h, String[] methods) throws Exception {
        System.out.printf(
                Locale.ROOT,
                "%n_msearch of 100 against 100 single requests on `%s` (client ms per 100 queries)%n%n",
                index);
        System.out.println("| method | batches | single requests: median ms per 100 | _msearch: median ms per 100 | "
                + "single / _msearch | queries whose hits differ |");
        System.out.println("|---|---|---|---|---|---|");
        for (String method : methods) {
            List<Double> singles = new ArrayList<>();
            List<Double> batched = new ArrayList<>();
            int differ = 0;
            for (int b = warmup; b + 100 <= warmup + q; b += 100) {
                long single = 0;
                List<Set<Integer>> one = new ArrayList<>();
                for (int qi = b; qi < b + 100; qi++) {
                    Result r = search(
                            index,
                            method,
                            queries.fingerprints[qi],
                            queries.margins[qi],
                            h,
                            null,
                            qi,
                            queries.truth[qi][0],
                            false);
                    if (r == null) {
                        throw new IllegalStateException(method + " query " + qi + " failed");
                    }
                    single += r.clientNanos();
                    one.add(ids(r));
                }
                List<Long> nanos = new ArrayList<>();
                List<Set<Integer>> many = msearch(index, method, queries, b, b + 100, h, 100, nanos);
                for (int i = 0; i < 100; i++) {
                    differ += one.get(i).equals(many.get(i)) ? 0 : 1;
                }
                singles.add(single / 1e6);
                batched.add(nanos.get(0) / 1e6);
            }
            double s = Stats.median(
                    singles.stream().mapToDouble(Double::doubleValue).sorted().toArray());
            double m = Stats.median(
                    batched.stream().mapToDouble(Double::doubleValue).sorted().toArray());
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %.1f | %.1f | %.1f | %d |%n",
                    method,
                    singles.size(),
                    s,
                    m,
                    s / m,
                    differ);
        }
    }

    /** Checks each hit's score: near_duplicate scores 1 - d/64, the script 64 - d. Returns the number of wrong ones. */
    static int checkScores(Result r, long fp, SyntheticTable table, float unit, boolean script) {
        int bad = 0;
        for (int i = 0; i < r.ids().length; i++) {
            int d = Long.bitCount(table.fingerprints[r.ids()[i]] ^ fp);
            float want = script ? 64f - d : 1f - d / 64f;
            if (Math.abs(r.scores()[i] - want) > 1e-4f * Math.max(1f, Math.abs(want))) {
                if (bad++ == 0) {
                    System.out.println("WRONG SCORE: doc " + r.ids()[i] + " at distance " + d + " scored "
                            + r.scores()[i] + ", want " + want);
                }
            }
        }
        return bad;
    }

    static Set<Integer> ids(Result r) {
        Set<Integer> s = new TreeSet<>();
        for (int id : r.ids()) {
            s.add(id);
        }
        return s;
    }

    static String ratio(Double a, Double b) {
        if (a == null || b == null || b == 0) {
            return "n/a (took rounds to 0 ms)";
        }
        return String.format(Locale.ROOT, "%.1f", a / b);
    }
}
