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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What {@code near_dup_lookup} into many indices costs (issue 41: "a lookup into a stream of 30 backing indices holding
 * N documents takes at most 1.3x the lookup into one index holding the same N"). The corpus (N documents) is indexed
 * twice through the fingerprint pipeline: into one index of one shard (A, {@link Evaluate#indexCorpus}) and into the
 * data stream of {@link ClustersEvaluation#indexStream} rolled over into {@code --generations} backing indices of one
 * shard each (B), both force-merged. Then the same N documents ({@code _id} = line number) are bulk-indexed, as
 * {@link Evaluate#bulk} does (one bulk of {@code --batch} at a time), into a fresh index whose default pipeline is
 * {@code near_dup_fingerprint} + {@code near_dup_lookup} (minhash, {@code --min-similarity}, default 0.8) into A or
 * into B, in turns A B A B … ({@code --repeat} each, default 3). A document is not matched with the document of its
 * own {@code _id} (the lookup leaves out its {@code _id} in every index searched), so each looks for its
 * near-duplicates among the other N - 1. Reports each run's ingest throughput and the load, the medians and B/A, and
 * the written answers of the first A and B runs compared document by document ({@code duplicate_of}'s {@code _id}s
 * are line numbers, unique across the stream too; those that differ in {@code differences.csv}). The usual entry point:
 *
 * <pre>
 * EVAL_CLASS=io.neardup.bench.eval.LookupCostEvaluation bash src/scripts/evaluate.sh $DATA/manpages.jsonl.gz $REPORTS/lookup-cost \
 *     [--generations 30] [--repeat 3] [--batch 500] [--min-similarity 0.8] [--max-docs N]
 * </pre>
 */
public final class LookupCostEvaluation {
    private static final String SINK = "neardup-lookup-sink";
    static final String TARGET = "dup";

    private final Evaluate evaluate;
    private final ClustersEvaluation stream;
    private final Node node;

    LookupCostEvaluation(String url) {
        this.evaluate = new Evaluate(url);
        this.stream = new ClustersEvaluation(url);
        this.node = evaluate.node();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                2,
                "LookupCostEvaluation <corpus.jsonl[.gz]> <report-dir> --url http://127.0.0.1:9320 [--generations 30] …",
                List.of(),
                List.of("url", "generations", "repeat", "batch", "min-similarity", "max-docs", "command"));
        new LookupCostEvaluation(opt.getOrDefault("url", "http://127.0.0.1:9320"))
                .run(Path.of(args[0]), Path.of(args[1]), opt);
    }

    /** The answers one run wrote, by line number: the {@code _id} found (null: none) and its similarity. */
    private record Answers(String[] duplicateOf, double[] similarity) {}

    void run(Path corpus, Path out, Map<String, String> opt) throws Exception {
        int generations = Integer.parseInt(opt.getOrDefault("generations", "30"));
        int repeat = Integer.parseInt(opt.getOrDefault("repeat", "3"));
        int batch = Integer.parseInt(opt.getOrDefault("batch", "500"));
        double tau = Double.parseDouble(opt.getOrDefault("min-similarity", "0.8"));
        int maxDocs = Integer.parseInt(opt.getOrDefault("max-docs", String.valueOf(Integer.MAX_VALUE)));
        List<Corpus.Doc> docs = Corpus.read(corpus, maxDocs);
        int n = docs.size();
        StringBuilder report = new StringBuilder("# near_dup_lookup into one index (A) and into a data stream (B)\n\n");
        if (opt.containsKey("command")) {
            report.append("Command: `").append(opt.get("command")).append("`\n\n");
        }
        report.append(String.format(
                Locale.ROOT,
                "%s: %,d documents. A: one index of 1 shard; B: a data stream of %d backing indices of 1 shard "
                        + "(%,d to %,d documents each), both force-merged. Each run bulk-indexes the %,d documents "
                        + "(bulks of %d, one at a time) through near_dup_fingerprint + near_dup_lookup (minhash, "
                        + "min_similarity %s) into A or B.%n%n",
                corpus.getFileName(),
                n,
                generations,
                n / generations,
                (n + generations - 1) / generations,
                n,
                batch,
                tau));

        evaluate.indexCorpus(docs, batch);
        stream.indexStream(docs, batch, 1, null, generations);
        putLookupPipeline("neardup-lookup-one", Evaluate.INDEX, tau);
        putLookupPipeline("neardup-lookup-stream", ClustersEvaluation.STREAM, tau);

        double[] one = new double[repeat];
        double[] many = new double[repeat];
        long failed = 0;
        Answers[] first = new Answers[2];
        report.append("| run | lookup into | docs/s | failed | load before (1, 5, 15 min) | load after |\n");
        report.append("|---|---|---|---|---|---|\n");
        for (int r = 0; r < repeat; r++) {
            for (int b = 0; b < 2; b++) {
                String pipeline = b == 0 ? "neardup-lookup-one" : "neardup-lookup-stream";
                String loadBefore = Stats.loadAverage(3, "?");
                double[] ingest = ingest(docs, batch, pipeline);
                String loadAfter = Stats.loadAverage(3, "?");
                double rate = n / ingest[0];
                (b == 0 ? one : many)[r] = rate;
                failed += (long) ingest[2];
                if (r == 0) {
                    first[b] = read(n);
                }
                String row = String.format(
                        Locale.ROOT,
                        "| %d | %s | %,.0f | %.0f | %s | %s |%n",
                        r + 1,
                        b == 0 ? "A: one index" : "B: " + generations + " backing indices",
                        rate,
                        ingest[2],
                        loadBefore,
                        loadAfter);
                report.append(row);
                System.out.print(row);
            }
        }
        double[] sortedOne = one.clone();
        double[] sortedMany = many.clone();
        Arrays.sort(sortedOne);
        Arrays.sort(sortedMany);
        double medianOne = Stats.median(sortedOne);
        double medianMany = Stats.median(sortedMany);
        // Throughput is docs/s: the stream's lookup takes (A's rate / B's rate) times as long.
        double cost = medianOne / medianMany;
        String answers = compare(first[0], first[1]);
        String verdict = String.format(
                Locale.ROOT,
                "median A %,.0f docs/s, median B %,.0f docs/s: B takes %.2fx A's time (target at most 1.3x: %s)",
                medianOne,
                medianMany,
                cost,
                failed > 0 ? "no answer, " + failed + " documents failed" : cost <= 1.3 ? "met" : "not met");
        report.append('\n')
                .append(verdict)
                .append(".\n\nAnswers (first A run against first B run): ")
                .append(answers)
                .append(".\n");
        System.out.println(verdict);
        System.out.println("answers: " + answers);
        Files.createDirectories(out);
        Files.writeString(out.resolve("report.md"), report.toString());
        StringBuilder differences = new StringBuilder("line,a_duplicate_of,a_similarity,b_duplicate_of,b_similarity\n");
        for (int i = 0; i < n; i++) {
            if (Objects.equals(first[0].duplicateOf()[i], first[1].duplicateOf()[i]) == false) {
                differences.append(String.format(
                        Locale.ROOT,
                        "%d,%s,%s,%s,%s%n",
                        i,
                        first[0].duplicateOf()[i],
                        first[0].similarity()[i],
                        first[1].duplicateOf()[i],
                        first[1].similarity()[i]));
            }
        }
        Files.writeString(out.resolve("differences.csv"), differences.toString());
        Files.writeString(
                out.resolve("summary.md"),
                "| what | result |\n|---|---|\n| lookup cost, " + generations + " backing indices over one index | "
                        + verdict + " |\n| answers | " + answers + " |\n");
        node.call("DELETE", "/" + SINK, null);
        stream.deleteStream();
        evaluate.cleanup();
        for (String pipeline : new String[] {"neardup-lookup-one", "neardup-lookup-stream"}) {
            node.call("DELETE", "/_ingest/pipeline/" + pipeline, null);
        }
    }

    private void putLookupPipeline(String name, String lookupIndex, double tau) {
        putLookupPipeline(node, name, lookupIndex, tau, "");
    }

    /**
     * The pipeline {@code name}: {@code near_dup_fingerprint} into {@code fp}, then {@code near_dup_lookup} on
     * {@code fp.minhash} into {@code lookupIndex} at {@code tau}, writing {@value #TARGET}; {@code extraOptions} (e.g.
     * {@code , "recent_size": 0}) are added to the lookup's.
     */
    static void putLookupPipeline(Node node, String name, String lookupIndex, double tau, String extraOptions) {
        node.ok(
                "PUT",
                "/_ingest/pipeline/" + name,
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\", \"target_field\": \"fp\"}}, "
                        + "{\"near_dup_lookup\": {\"field\": \"fp.minhash\", \"index\": \"" + lookupIndex
                        + "\", \"min_similarity\": " + tau + ", \"target_field\": \"" + TARGET + "\"" + extraOptions
                        + "}}]}");
    }

    /** An index of the evaluation's definition whose default pipeline is {@code pipeline}, {@value #TARGET} mapped. */
    static String sinkDefinition(String pipeline) {
        return sinkDefinition(pipeline, 1);
    }

    /** As above, in fingerprint {@code format}. */
    static String sinkDefinition(String pipeline, int format) {
        return Evaluate.indexDefinition(
                1,
                "",
                "\"" + TARGET + "\": {\"properties\": {\"duplicate_of\": {\"type\": \"keyword\"}, "
                        + "\"duplicate_of_index\": {\"type\": \"keyword\"}, \"cluster\": {\"type\": \"keyword\"}, "
                        + "\"cluster_index\": {\"type\": \"keyword\"}, \"similarity\": {\"type\": \"double\"}}}, ",
                pipeline,
                format);
    }

    /** The corpus into a fresh {@link #SINK} of the evaluation's definition, through {@code pipeline}. */
    private double[] ingest(List<Corpus.Doc> docs, int batch, String pipeline) throws Exception {
        node.call("DELETE", "/" + SINK, null);
        node.ok("PUT", "/" + SINK, sinkDefinition(pipeline));
        return evaluate.bulk(SINK, docs, batch);
    }

    /** What the last run wrote into {@link #SINK}. */
    private Answers read(int n) throws Exception {
        String[] duplicateOf = new String[n];
        double[] similarity = new double[n];
        String field = TARGET + ".duplicate_of";
        evaluate.scroll(
                SINK,
                "{\"size\": 10000, \"sort\": [\"_doc\"], \"_source\": false, \"query\": {\"exists\": {\"field\": \""
                        + field + "\"}}, \"docvalue_fields\": [\"" + field + "\", \"" + TARGET + ".similarity\"]}",
                h -> {
                    int id = Integer.parseInt((String) h.get("_id"));
                    duplicateOf[id] = (String) ((List<?>) Json.path(h, "fields", field)).get(0);
                    similarity[id] =
                            ((Number) ((List<?>) Json.path(h, "fields", TARGET + ".similarity")).get(0)).doubleValue();
                });
        return new Answers(duplicateOf, similarity);
    }

    /**
     * How many documents got another answer in B than in A: found in one only, or another {@code _id} (of those, how
     * many at the same similarity, a tie broken another way).
     */
    private static String compare(Answers a, Answers b) {
        int foundA = 0;
        int foundB = 0;
        int onlyOne = 0;
        int otherId = 0;
        int otherIdTied = 0;
        int higherInB = 0;
        for (int i = 0; i < a.duplicateOf().length; i++) {
            String x = a.duplicateOf()[i];
            String y = b.duplicateOf()[i];
            foundA += x == null ? 0 : 1;
            foundB += y == null ? 0 : 1;
            if ((x == null) != (y == null)) {
                onlyOne++;
            } else if (x != null && Objects.equals(x, y) == false) {
                otherId++;
                otherIdTied += a.similarity()[i] == b.similarity()[i] ? 1 : 0;
                higherInB += b.similarity()[i] > a.similarity()[i] ? 1 : 0;
            }
        }
        return String.format(
                Locale.ROOT,
                "duplicate_of written for %,d documents in A and %,d in B; %,d found in one only, %,d another _id "
                        + "(%,d of them at the same similarity, a tie; %,d at a higher similarity in B)",
                foundA,
                foundB,
                onlyOne,
                otherId,
                otherIdTied,
                higherInB);
    }
}
