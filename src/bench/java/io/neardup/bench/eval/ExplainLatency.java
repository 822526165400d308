/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * What {@code near_dup_explain} adds to a search (issue 42's target: a page of 10 hits of up to 5,000 words each, with
 * explanations, at most 2x the same search without them). An index (one shard, the plugin's fingerprint pipeline as
 * its default) of {@code --docs} near-copies of one text of {@code --words} words (a vocabulary of 20,000 words, each
 * copy with 2% of its words replaced), so every hit shares long runs with the like text and has a few differences;
 * the search is a {@code match} on a word of the text, {@code size} 10, {@code _source} returned, alternately
 * without and with {@code "ext": {"near_dup_explain": {"like": {"text": <the text>}, "field": "body"}}}. Each is timed
 * by the client (request sent to response read, one request at a time on a blocking connection); medians and p99 of
 * {@code --rounds} rounds after {@code --warmup}, and their ratio. Each explained answer is checked: 10 hits, each with
 * an explanation of Jaccard below 1 and passages.
 *
 * <pre>
 * java -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) io.neardup.bench.eval.ExplainLatency \
 *     --url http://127.0.0.1:9281 [--docs 50] [--words 5000] [--rounds 100] [--warmup 30]
 * </pre>
 */
public final class ExplainLatency {
    private static final String INDEX = "explain-latency";
    private static final String PIPELINE = "explain-latency-fp";

    private ExplainLatency() {}

    public static void main(String[] args) {
        Map<String, String> opt =
                Options.parse(args, 0, Set.of(), Set.of("url", "docs", "words", "rounds", "warmup", "seed"));
        Node node = new Node(opt.getOrDefault("url", "http://127.0.0.1:9281"), Duration.ofMinutes(5));
        int docs = Integer.parseInt(opt.getOrDefault("docs", "50"));
        int words = Integer.parseInt(opt.getOrDefault("words", "5000"));
        int rounds = Integer.parseInt(opt.getOrDefault("rounds", "100"));
        int warmup = Integer.parseInt(opt.getOrDefault("warmup", "30"));
        SplittableRandom random = new SplittableRandom(Long.parseLong(opt.getOrDefault("seed", "42")));
        System.out.printf(Locale.ROOT, "load average before: %s%n", Stats.loadAverage(3, "unknown"));

        List<String> base = new ArrayList<>(words);
        for (int i = 0; i < words; i++) {
            base.add("w" + random.nextInt(20_000));
        }
        String like = String.join(" ", base);
        node.okOr404("DELETE", "/" + INDEX);
        node.ok(
                "PUT",
                "/_ingest/pipeline/" + PIPELINE,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", \"target_field\": \"body_fp\"}}]}");
        node.ok(
                "PUT",
                "/" + INDEX,
                "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0, \"index.default_pipeline\": \""
                        + PIPELINE + "\"}, \"mappings\": {\"properties\": {\"body\": {\"type\": \"text\"}, "
                        + "\"body_fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}, "
                        + "\"minhash\": {\"type\": \"minhash\"}, \"content_hash\": {\"type\": \"keyword\"}}}}}}");
        StringBuilder bulk = new StringBuilder();
        for (int d = 0; d < docs; d++) {
            List<String> copy = new ArrayList<>(base);
            for (int e = 0; e < words / 50; e++) {
                copy.set(random.nextInt(words), "edit" + d + "x" + e);
            }
            bulk.append("{\"index\": {\"_id\": \"d")
                    .append(d)
                    .append("\"}}\n{\"body\": ")
                    .append(Json.quote(String.join(" ", copy)))
                    .append("}\n");
        }
        node.ok("POST", "/" + INDEX + "/_bulk?refresh=true", bulk.toString());
        node.ok("POST", "/" + INDEX + "/_forcemerge?max_num_segments=1", null);
        node.ok("POST", "/" + INDEX + "/_refresh", null);

        String query = "{\"query\": {\"match\": {\"body\": \"" + base.get(0) + "\"}}, \"size\": 10";
        String plain = query + "}";
        String likeJson = "{\"text\": " + Json.quote(like) + "}";
        String explained =
                query + ", \"ext\": {\"near_dup_explain\": {\"like\": " + likeJson + ", \"field\": \"body\"}}}";
        check(Json.parse(
                node.okBlocking("POST", "/" + INDEX + "/_search", explained).body()));

        double[] without = new double[rounds];
        double[] with = new double[rounds];
        for (int r = -warmup; r < rounds; r++) {
            // alternated, so that a change in the machine's load falls on both
            long plainNanos =
                    node.okBlocking("POST", "/" + INDEX + "/_search", plain).nanos();
            long explainedNanos =
                    node.okBlocking("POST", "/" + INDEX + "/_search", explained).nanos();
            if (r >= 0) {
                without[r] = plainNanos / 1e6;
                with[r] = explainedNanos / 1e6;
            }
        }
        Arrays.sort(without);
        Arrays.sort(with);
        System.out.printf(
                Locale.ROOT,
                "page of 10 hits of %d words: without %.2f ms (p99 %.2f), with near_dup_explain %.2f ms (p99 %.2f): "
                        + "%.2fx%n",
                words,
                Stats.median(without),
                Stats.p99(without),
                Stats.median(with),
                Stats.p99(with),
                Stats.median(with) / Stats.median(without));
        System.out.printf(Locale.ROOT, "load average after: %s%n", Stats.loadAverage(3, "unknown"));
    }

    /** Ten hits, each explained with passages and differences: a fast answer without them cannot pass. */
    @SuppressWarnings("unchecked")
    private static void check(Map<String, Object> response) {
        List<Object> hits = (List<Object>) Json.path(response, "hits", "hits");
        if (hits == null || hits.size() != 10) {
            throw new IllegalStateException("expected 10 hits: " + Node.abbreviate(String.valueOf(response), 500));
        }
        for (Object hit : hits) {
            List<Object> explanation = (List<Object>) Json.path(hit, "fields", "near_dup_explain");
            Map<String, Object> explained = explanation == null ? null : (Map<String, Object>) explanation.get(0);
            if (explained == null
                    || ((Number) explained.get("jaccard")).doubleValue() >= 1
                    || ((List<Object>) explained.get("shared")).isEmpty()
                    || Boolean.TRUE.equals(explained.get("truncated"))) {
                throw new IllegalStateException("not explained in full: " + Node.abbreviate(String.valueOf(hit), 500));
            }
        }
    }
}
