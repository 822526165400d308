/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.ShingleTruth;
import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.Murmur3;
import io.neardup.core.ShingleSetCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Query latency of {@code near_duplicate} with {@code min_containment} on an index of N synthetic hosts (issue 33's
 * target: median ≤ 10 ms end to end at 1M documents), and the index's bytes a document with and without {@code
 * containment: true}.
 *
 * <p>Hosts are 60–300 words of a Zipf(1.0) vocabulary of 200,000 words; one in ten embeds, at a random position and
 * with 0–5% of its words replaced, one of {@code --articles} articles of 40–200 words. Every text is fingerprinted in
 * this process by the real {@link Fingerprinter} (3-word shingles) and indexed as the compact fingerprint the
 * processor writes ({@code {"shingles", "scheme"}}, {@code ?pipeline=_none}), so that loading a million documents
 * does not wait for a pipeline. Queries give {@code like} the same way: an article ({@code contained: like}, "where
 * is it quoted?") or a host ({@code contained: document}, "what is it made of?"). Each answer is checked against the
 * hosts planted with the article (their exact containment computed here from the sets), so a fast empty answer
 * cannot pass. Time is the client's, from sending the request to parsing the response, on a blocking connection
 * ({@link Node#okBlocking}).
 *
 * <pre>
 * java -Xmx4g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) io.neardup.bench.eval.ContainmentLatency \
 *     --url http://127.0.0.1:9281 --n 1000000 --articles 1000 --queries 500 --warmup 100 [--shards 1] [--reuse]
 *     [--min 0.8] [--size 10] [--plain-index]
 * </pre>
 * Each query is timed asking for {@code --size} hits, the first page a user reads, and then sent again untimed for
 * all its hits, which are checked.
 * {@code --plain-index} also loads the same documents into an index without {@code containment} and reports both
 * sizes after a force-merge to one segment.
 */
public final class ContainmentLatency {
    private static final int VOCABULARY = 200_000;
    private static final String INDEX = "containment-latency";
    private static final String PLAIN_INDEX = "containment-latency-plain";
    private static final FingerprintScheme SCHEME = FingerprintScheme.defaults("standard");

    private final long seed;
    private final int articles;
    private final double[] zipfCdf;

    private ContainmentLatency(long seed, int articles) {
        this.seed = seed;
        this.articles = articles;
        this.zipfCdf = new double[VOCABULARY];
        double sum = 0;
        for (int i = 0; i < VOCABULARY; i++) {
            sum += 1.0 / (i + 1);
            zipfCdf[i] = sum;
        }
        for (int i = 0; i < VOCABULARY; i++) {
            zipfCdf[i] /= sum;
        }
    }

    private String word(SplittableRandom random) {
        int at = Arrays.binarySearch(zipfCdf, random.nextDouble());
        return "w" + (at < 0 ? -at - 1 : at);
    }

    private List<String> words(SplittableRandom random, int min, int max) {
        int n = min + random.nextInt(max - min + 1);
        List<String> words = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            words.add(word(random));
        }
        return words;
    }

    /**
     * The random stream of text {@code i} of a kind: seeds spread by a mixer, since SplittableRandom's streams of seeds
     * that differ by multiples of its own increment are shifted copies of one another (articles drawn from {@code seed
     * ^ (0x9E3779B97F4A7C15L * j)} shared most of their words).
     */
    private SplittableRandom stream(long kind, int i) {
        return new SplittableRandom(Murmur3.fmix64(Murmur3.fmix64(seed ^ kind) + i));
    }

    List<String> article(int j) {
        return words(stream(1, j), 40, 200);
    }

    /** The article host {@code i} embeds, or -1. */
    int embeddedIn(int i) {
        SplittableRandom random = stream(2, i);
        return random.nextInt(10) == 0 ? random.nextInt(articles) : -1;
    }

    List<String> host(int i) {
        SplittableRandom random = stream(2, i);
        int article = random.nextInt(10) == 0 ? random.nextInt(articles) : -1;
        List<String> words = words(random, 60, 300);
        if (article >= 0) {
            List<String> embedded = new ArrayList<>(article(article));
            double edits = random.nextDouble() * 0.05;
            for (int w = 0; w < embedded.size(); w++) {
                if (random.nextDouble() < edits) {
                    embedded.set(w, word(random));
                }
            }
            words.addAll(random.nextInt(words.size() + 1), embedded);
        }
        return words;
    }

    static int[] shingleSet(Fingerprinter fingerprinter, List<String> words) {
        fingerprinter.reset();
        for (String word : words) {
            fingerprinter.token(word);
        }
        Fingerprint fingerprint = fingerprinter.finish(true);
        return fingerprint.shingleSet();
    }

    static String fingerprintJson(int[] set) {
        return "{\"shingles\": \"" + ShingleSetCodec.encode(set, SCHEME.schemeHash(), 128) + "\", \"scheme\": \""
                + SCHEME.id() + "\"}";
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                0,
                Set.of("reuse", "plain-index"),
                Set.of(
                        "url",
                        "n",
                        "articles",
                        "queries",
                        "warmup",
                        "shards",
                        "reuse",
                        "min",
                        "plain-index",
                        "seed",
                        "batch",
                        "size"));
        Node node = new Node(opt.getOrDefault("url", "http://127.0.0.1:9281"), Duration.ofMinutes(30));
        int n = Integer.parseInt(opt.getOrDefault("n", "1000000"));
        int articles = Integer.parseInt(opt.getOrDefault("articles", "1000"));
        int queries = Integer.parseInt(opt.getOrDefault("queries", "500"));
        int warmup = Integer.parseInt(opt.getOrDefault("warmup", "100"));
        int shards = Integer.parseInt(opt.getOrDefault("shards", "1"));
        double min = Double.parseDouble(opt.getOrDefault("min", "0.8"));
        int batch = Integer.parseInt(opt.getOrDefault("batch", "2000"));
        int size = Integer.parseInt(opt.getOrDefault("size", "10"));
        ContainmentLatency corpus = new ContainmentLatency(Long.parseLong(opt.getOrDefault("seed", "33")), articles);
        Fingerprinter fingerprinter = new Fingerprinter(SCHEME, null);
        System.out.printf(Locale.ROOT, "load average before: %s%n", Stats.loadAverage(3, "unknown"));

        List<String> indices = new ArrayList<>(List.of(INDEX));
        if (opt.containsKey("plain-index")) {
            indices.add(PLAIN_INDEX);
        }
        boolean reuse =
                opt.containsKey("reuse") && node.call("HEAD", "/" + INDEX, null).status() == 200;
        // The sets of the hosts that embed an article, for the answers' check: a tenth of the corpus.
        Map<Integer, List<Integer>> hostsOf = new HashMap<>();
        Map<Integer, int[]> plantedSets = new HashMap<>();
        if (reuse == false) {
            for (String index : indices) {
                node.okOr404("DELETE", "/" + index);
                node.ok(
                        "PUT",
                        "/" + index,
                        "{\"settings\": {\"number_of_shards\": " + shards + ", \"number_of_replicas\": 0, "
                                + "\"refresh_interval\": \"-1\"}, \"mappings\": {\"properties\": {\"fp\": {\"properties\": "
                                + "{\"minhash\": {\"type\": \"minhash\""
                                + (index.equals(INDEX) ? ", \"containment\": true" : "")
                                + "}}}}}}");
            }
        }
        long loadStart = System.nanoTime();
        StringBuilder[] bulks = new StringBuilder[indices.size()];
        for (int i = 0; i < n; i++) {
            int article = corpus.embeddedIn(i);
            int[] set = null;
            if (reuse == false || article >= 0) {
                set = shingleSet(fingerprinter, corpus.host(i));
            }
            if (article >= 0) {
                hostsOf.computeIfAbsent(article, a -> new ArrayList<>()).add(i);
                plantedSets.put(i, set);
            }
            if (reuse) {
                continue;
            }
            String source = "{\"fp\": {\"minhash\": " + fingerprintJson(set) + "}}\n";
            for (int x = 0; x < indices.size(); x++) {
                if (bulks[x] == null) {
                    bulks[x] = new StringBuilder();
                }
                bulks[x].append("{\"index\": {\"_id\": \"")
                        .append(i)
                        .append("\"}}\n")
                        .append(source);
            }
            if ((i + 1) % batch == 0 || i == n - 1) {
                for (int x = 0; x < indices.size(); x++) {
                    Node.Response response =
                            node.ok("POST", "/" + indices.get(x) + "/_bulk?pipeline=_none", bulks[x].toString());
                    if (response.body().contains("\"errors\":true")) {
                        throw new IllegalStateException("bulk failed: " + Node.abbreviate(response.body(), 2000));
                    }
                    bulks[x].setLength(0);
                }
                if ((i + 1) % 100_000 == 0) {
                    System.out.printf(
                            Locale.ROOT, "loaded %,d in %.0f s%n", i + 1, (System.nanoTime() - loadStart) / 1e9);
                }
            }
        }
        if (reuse == false) {
            for (String index : indices) {
                node.ok("POST", "/" + index + "/_refresh", null);
                node.ok("POST", "/" + index + "/_forcemerge?max_num_segments=1", null, Duration.ofHours(2));
                node.ok("POST", "/" + index + "/_refresh", null);
            }
            System.out.printf(Locale.ROOT, "loaded and merged in %.0f s%n", (System.nanoTime() - loadStart) / 1e9);
        }
        for (String index : indices) {
            Object stats = Json.parse(
                    node.ok("GET", "/" + index + "/_stats/store,docs", null).body());
            long bytes = ((Number) Json.path(stats, "_all", "primaries", "store", "size_in_bytes")).longValue();
            long docs = ((Number) Json.path(stats, "_all", "primaries", "docs", "count")).longValue();
            System.out.printf(
                    Locale.ROOT,
                    "%s: %,d documents, %,d bytes, %.1f bytes a document%n",
                    index,
                    docs,
                    bytes,
                    bytes / (double) docs);
        }

        SplittableRandom pick = new SplittableRandom(7);
        for (String contained : new String[] {"like", "document"}) {
            double[] millis = new double[queries];
            long hits = 0, expected = 0, found = 0;
            for (int q = -warmup; q < queries; q++) {
                int article = pick.nextInt(articles);
                int[] articleSet = shingleSet(fingerprinter, corpus.article(article));
                List<Integer> hosts = hostsOf.getOrDefault(article, List.of());
                int[] likeSet;
                Set<String> truth = new HashSet<>();
                if (contained.equals("like")) {
                    likeSet = articleSet;
                    for (int host : hosts) {
                        if (containment(articleSet, plantedSets.get(host)) >= min) {
                            truth.add(Integer.toString(host));
                        }
                    }
                } else {
                    if (hosts.isEmpty()) {
                        q--;
                        continue;
                    }
                    // A host as the query: the documents it contains (none are articles: they are not indexed alone).
                    int host = hosts.get(pick.nextInt(hosts.size()));
                    likeSet = plantedSets.get(host);
                }
                String query = "{\"near_duplicate\": {\"field\": \"fp.minhash\", \"like\": " + fingerprintJson(likeSet)
                        + ", \"min_containment\": " + min + ", \"contained\": \"" + contained + "\"}}";
                // Timed as a user asks (the first page of hits), the answer checked on all of them, untimed.
                long start = System.nanoTime();
                Json.parse(node.okBlocking(
                                "POST",
                                "/" + INDEX + "/_search?filter_path=hits.hits._id",
                                "{\"size\": " + size + ", \"_source\": false, \"query\": " + query + "}")
                        .body());
                long elapsed = System.nanoTime() - start;
                Object parsed = Json.parse(node.ok(
                                "POST",
                                "/" + INDEX + "/_search?filter_path=hits.hits._id",
                                "{\"size\": 10000, \"_source\": false, \"query\": " + query + "}")
                        .body());
                Object hitList = Json.path(parsed, "hits", "hits");
                Set<String> ids = new HashSet<>();
                if (hitList instanceof List<?> list) {
                    for (Object hit : list) {
                        ids.add(Json.string(Json.path(hit, "_id")));
                    }
                }
                if (q >= 0) {
                    millis[q] = elapsed / 1e6;
                    hits += ids.size();
                    expected += truth.size();
                    found += truth.stream().filter(ids::contains).count();
                }
            }
            Arrays.sort(millis);
            System.out.printf(
                    Locale.ROOT,
                    "contained=%s min_containment=%s: %d queries, median %.2f ms, p90 %.2f ms, p99 %.2f ms; "
                            + "%.1f hits a query; planted hosts found %d of %d%n",
                    contained,
                    min,
                    queries,
                    Stats.median(millis),
                    millis[(int) Math.ceil(0.9 * queries) - 1],
                    Stats.p99(millis),
                    hits / (double) queries,
                    found,
                    expected);
            if (found < 0.95 * expected) {
                throw new IllegalStateException("the queries found " + found + " of " + expected
                        + " planted hosts at or above min_containment: a fast answer that misses them proves nothing");
            }
        }
        System.out.printf(Locale.ROOT, "load average after: %s%n", Stats.loadAverage(3, "unknown"));
    }

    /** |A ∩ B| / |A| by Java's own sets ({@link ShingleTruth}), not the plugin's merge. */
    static double containment(int[] a, int[] b) {
        return ShingleTruth.containment(boxed(a), boxed(b));
    }

    private static Set<Integer> boxed(int[] values) {
        Set<Integer> set = new HashSet<>();
        for (int value : values) {
            set.add(value);
        }
        return set;
    }
}
