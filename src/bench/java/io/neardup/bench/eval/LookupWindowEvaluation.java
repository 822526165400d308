/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Stats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code near_dup_lookup}'s refresh window misses: streams a corpus in arrival order (a fixed
 * random permutation) at a steady rate through {@code near_dup_fingerprint} + {@code near_dup_lookup}
 * (minhash, τ = 0.8) into an index with a given {@code refresh_interval}, then counts, against exact
 * Jaccard truth over the arrival order (FNV-1a shingles of the analyzer's words, not the plugin's
 * hashing), the copies left unflagged and the flags without an earlier near-duplicate.
 *
 * <pre>
 * java -cp … io.neardup.bench.eval.LookupWindowEvaluation http://127.0.0.1:9240 $DATA/manpages.jsonl.gz \
 *     [docs=3000] [refresh=1s,30s] [docsPerSecond=100] [recentTtl=5s]
 * </pre>
 */
public final class LookupWindowEvaluation {
    private static final double TAU = 0.8;
    private static final int BULK = 20;

    public static void main(String[] args) throws Exception {
        List<Corpus.Doc> all = Corpus.read(Path.of(args[1]), Integer.MAX_VALUE);
        int n = Math.min(all.size(), args.length > 2 ? Integer.parseInt(args[2]) : 3000);
        String[] refreshes = (args.length > 3 ? args[3] : "1s,30s").split(",");
        int rate = args.length > 4 ? Integer.parseInt(args[4]) : 100;
        String recentTtl = args.length > 5 ? args[5] : "5s";
        int[] order = Stats.permutation(all.size(), 42);
        List<Corpus.Doc> arrivals = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            arrivals.add(all.get(order[i]));
        }
        boolean[] hasEarlierCopy = truth(arrivals);
        int copies = 0;
        for (boolean b : hasEarlierCopy) {
            copies += b ? 1 : 0;
        }
        Node node = new Node(args[0], Duration.ofMinutes(5));
        System.out.printf(
                Locale.ROOT,
                "%d documents, %d with an earlier near-duplicate (J >= %.1f); %d docs/s in bulks of %d; "
                        + "recent_ttl %s%n",
                n,
                copies,
                TAU,
                rate,
                BULK,
                recentTtl);
        System.out.println("| refresh_interval | copies flagged | missed | false flags |");
        System.out.println("|---|---|---|---|");
        for (String refresh : refreshes) {
            String index = "window-" + refresh.toLowerCase(Locale.ROOT);
            node.okOr404("DELETE", "/" + index + "?ignore_unavailable=true");
            node.ok(
                    "PUT",
                    "/_ingest/pipeline/window",
                    "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}, "
                            + "{\"near_dup_lookup\": {\"field\": \"text_fp.minhash\", \"min_similarity\": " + TAU
                            + ", \"target_field\": \"dup\", "
                            + "\"recent_ttl\": \"" + recentTtl + "\"}}]}");
            node.ok(
                    "PUT",
                    "/" + index,
                    "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0, "
                            + "\"refresh_interval\": \"" + refresh
                            + "\", \"index.default_pipeline\": \"window\"}, \"mappings\": {\"properties\": {"
                            + "\"text_fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}}}, \"dup\": {\"properties\": {\"cluster\": "
                            + "{\"type\": \"keyword\"}, \"duplicate_of\": {\"type\": \"keyword\"}}}}}}");
            long start = System.nanoTime();
            for (int from = 0; from < n; from += BULK) {
                StringBuilder bulk = new StringBuilder();
                for (int i = from; i < Math.min(n, from + BULK); i++) {
                    bulk.append("{\"index\": {\"_id\": \"")
                            .append(i)
                            .append("\"}}\n")
                            .append("{\"text\": ")
                            .append(Json.quote(arrivals.get(i).text()))
                            .append("}\n");
                }
                String response =
                        node.ok("POST", "/" + index + "/_bulk", bulk.toString()).body();
                if (response.contains("\"errors\":true")) {
                    throw new IllegalStateException(
                            "bulk errors: " + response.substring(0, Math.min(2000, response.length())));
                }
                long due = start + (long) ((from + BULK) * 1e9 / rate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
            node.ok("POST", "/" + index + "/_refresh", null);
            boolean[] flagged = new boolean[n];
            String hits = node.ok(
                            "POST",
                            "/" + index + "/_search",
                            "{\"size\": 10000, \"_source\": false, "
                                    + "\"query\": {\"exists\": {\"field\": \"dup.duplicate_of\"}}}")
                    .body();
            for (int id : Evaluate.hitIds(hits)) {
                flagged[id] = true;
            }
            int found = 0;
            int missed = 0;
            int falseFlags = 0;
            for (int i = 0; i < n; i++) {
                if (hasEarlierCopy[i]) {
                    found += flagged[i] ? 1 : 0;
                    missed += flagged[i] ? 0 : 1;
                } else if (flagged[i]) {
                    falseFlags++;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d of %d | %d (%.1f%%) | %d |%n",
                    refresh,
                    found,
                    copies,
                    missed,
                    100.0 * missed / Math.max(1, copies),
                    falseFlags);
        }
    }

    /** For each arrival, whether an earlier one has an exact shingle Jaccard of at least {@link #TAU}. */
    private static boolean[] truth(List<Corpus.Doc> arrivals) {
        var analyzer = Corpus.analyzer();
        long[][] sets = new long[arrivals.size()][];
        for (int i = 0; i < sets.length; i++) {
            sets[i] = Corpus.truthShingles(
                    Corpus.tokenize(analyzer, arrivals.get(i).text()), 3);
        }
        boolean[] result = new boolean[sets.length];
        for (int i = 0; i < sets.length; i++) {
            for (int j = 0; j < i && result[i] == false; j++) {
                result[i] = Corpus.jaccard(sets[i], sets[j]) >= TAU;
            }
        }
        return result;
    }

    private LookupWindowEvaluation() {}
}
