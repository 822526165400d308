/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import com.carrotsearch.randomizedtesting.ThreadFilter;
import com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters;
import io.neardup.NearDupRestTestCase;
import io.neardup.bench.TinyCorpus;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The evaluation programs that talk to a node, each run through its {@code main} against the build's test node on a
 * tiny corpus (the demo corpus's first lines; QueryBenchmark's synthetic table of 1,000), so that none can rot
 * unnoticed. Their timings mean nothing here; that they run to their report does, and the counts in it match the tiny
 * corpus. The framework wipes the node's indices and pipelines after each test.
 */
@ThreadLeakFilters(filters = NodeProgramsIT.JdkHttpClientThreads.class)
public class NodeProgramsIT extends NearDupRestTestCase {

    /** The JDK HTTP client's selector thread, which ends when its client is collected, not when the test ends. */
    public static final class JdkHttpClientThreads implements ThreadFilter {
        @Override
        public boolean reject(Thread t) {
            return t.getName().startsWith("HttpClient-");
        }
    }

    private String url() {
        return "http://" + getClusterHosts().get(0).toHostString();
    }

    @Override
    protected boolean preserveIndicesUponCompletion() {
        return false;
    }

    /** A program run through its {@code main}. */
    private interface Program {
        void run() throws Exception;
    }

    /** Runs {@code program} and returns what it printed to System.out, which it still prints there (the test's log). */
    private static String printed(Program program) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        PrintStream both = new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        original.write(b);
                        copy.write(b);
                    }

                    @Override
                    public void write(byte[] bytes, int offset, int length) {
                        original.write(bytes, offset, length);
                        copy.write(bytes, offset, length);
                    }
                },
                true,
                StandardCharsets.UTF_8);
        System.setOut(both);
        try {
            program.run();
        } finally {
            both.flush();
            System.setOut(original);
        }
        return copy.toString(StandardCharsets.UTF_8);
    }

    /** The cells of the Markdown table row of {@code output} whose first cell is {@code first}. */
    private static List<String> row(String output, String first) {
        return output.lines()
                .filter(line -> line.startsWith("| " + first + " |"))
                .findFirst()
                .map(line -> Arrays.stream(line.substring(1).split("\\|"))
                        .map(String::trim)
                        .toList())
                .orElseThrow(() -> new AssertionError("no row [" + first + "] in\n" + output));
    }

    /** The match of {@code regex} in {@code output}, which must hold one. */
    private static Matcher find(String output, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(output);
        assertTrue("no [" + regex + "] in\n" + output, matcher.find());
        return matcher;
    }

    /** A number as the programs print it ({@code %,d} groups thousands with commas). */
    private static double number(String printed) {
        return Double.parseDouble(printed.replace(",", ""));
    }

    public void testIngestBenchmark() throws Exception {
        Path corpus = TinyCorpus.write(createTempDir(), "tiny.jsonl", 30);
        String output = printed(
                () -> IngestBenchmark.main(new String[] {url(), corpus.toString(), "10", "1", "plain,mapped_lookup"}));
        find(output, "ingest benchmark: 30 docs, [0-9.]+ MB of text, 3 bulk requests of <= 10 docs");
        // | variant | median time (s) | docs/s | MB/s | ratio to plain | store a doc (merged) | store ratio |
        List<String> plain = row(output, "plain");
        List<String> mappedLookup = row(output, "mapped_lookup");
        for (List<String> variant : List.of(plain, mappedLookup)) {
            assertTrue(output, number(variant.get(1)) > 0 && number(variant.get(2)) > 0);
            assertTrue(output, number(variant.get(5)) > 0);
        }
        assertEquals(output, "1.00", plain.get(4));
        assertEquals(output, "1.00", plain.get(6));
        assertTrue("the fingerprints take room beside the text: " + output, number(mappedLookup.get(6)) > 1);
    }

    public void testLookupWindowEvaluation() throws Exception {
        // The first 30 lines hold no pair at Jaccard >= 0.8, the first 100 about a dozen: something to flag.
        Path corpus = TinyCorpus.write(createTempDir(), "tiny.jsonl", 100);
        String output = printed(
                () -> LookupWindowEvaluation.main(new String[] {url(), corpus.toString(), "100", "1s", "1000", "5s"}));
        int copies = Integer.parseInt(find(output, "100 documents, ([0-9]+) with an earlier near-duplicate")
                .group(1));
        assertTrue(output, copies > 0);
        // | refresh_interval | copies flagged | missed | false flags |
        List<String> row = row(output, "1s");
        Matcher flagged = find(row.get(1), "^([0-9]+) of ([0-9]+)$");
        int found = Integer.parseInt(flagged.group(1));
        int missed = Integer.parseInt(find(row.get(2), "^([0-9]+) \\(").group(1));
        assertEquals(output, copies, Integer.parseInt(flagged.group(2)));
        assertEquals(output, copies, found + missed);
        assertTrue("the recent window flags copies not yet refreshed: " + output, found > 0);
        assertTrue(output, Integer.parseInt(row.get(3)) <= 100 - copies);
    }

    /** An evaluation's main: corpus, report folder, options. */
    private interface Evaluation {
        void main(String[] args) throws Exception;
    }

    /** Runs {@code evaluation} on 30 documents with {@code options} and checks that it wrote each of {@code files}. */
    private void assertReports(Evaluation evaluation, List<String> options, String... files) throws Exception {
        Path dir = createTempDir();
        Path report = dir.resolve("report");
        List<String> args = new ArrayList<>(
                List.of(TinyCorpus.write(dir, "tiny.jsonl", 30).toString(), report.toString(), "--url", url()));
        args.addAll(options);
        evaluation.main(args.toArray(String[]::new));
        for (String file : files) {
            assertTrue(file, Files.size(report.resolve(file)) > 0);
        }
    }

    public void testEvaluate() throws Exception {
        assertReports(
                Evaluate::main,
                List.of(
                        "--ingest-docs",
                        "20",
                        "--latency-queries",
                        "6",
                        "--warmup",
                        "2",
                        "--threads",
                        "1",
                        "--ks",
                        "4,64",
                        "--sizes",
                        "20"),
                "report.md",
                "summary.md",
                "latency.csv",
                "latency_sizes.csv");
    }

    public void testClustersEvaluation() throws Exception {
        assertReports(
                ClustersEvaluation::main,
                List.of(
                        "--configs",
                        "minhash:0.8,simhash:3",
                        "--baseline",
                        "all",
                        "--dry-run",
                        "true",
                        "--collapse-config",
                        "minhash:0.8"),
                "report.md",
                "summary.md",
                "clusters.csv");
    }

    /** {@code --generations}: the corpus also in a data stream rolled over twice, each run on both, partitions compared. */
    public void testClustersEvaluationOverADataStream() throws Exception {
        Path dir = createTempDir();
        Path report = dir.resolve("report");
        String output = printed(() -> ClustersEvaluation.main(new String[] {
            TinyCorpus.write(dir, "tiny.jsonl", 30).toString(),
            report.toString(),
            "--url",
            url(),
            "--configs",
            "minhash:0.5",
            "--generations",
            "3",
            "--repeat",
            "1",
            "--exact-truth",
            "true",
            "--collapse-config",
            "none"
        }));
        assertEquals(
                output,
                "0 of 30",
                row(output, "`minhash:0.5`: documents whose cluster differs, stream vs one index")
                        .get(1));
        find(
                output,
                "`minhash:0.5`: stream / one index, dry run took \\(medians\\); with writes \\| [0-9.]+ s / [0-9.]+ s");
        String written = Files.readString(report.resolve("report.md"));
        find(written, "rolled over into 3 backing indices of 1 shard\\(s\\) \\(10–10 documents each");
        // the stream's run with writes, against the groups
        find(written, "\\| `minhash:0.5` on the stream \\(dry run: the median\\) \\| [0-9.]+ \\|");
        find(
                output,
                "`minhash:0.5` against exact-Jaccard components: ARI, P / R / F1; pairs of J >= τ split \\| 1.0000");
    }

    /**
     * The lookup into a data stream rolled over three times, into an alias of five daily indices and into a pattern,
     * each scored against exact truth: every layout's row, no answer naming a document below τ, the exact copies found.
     */
    public void testLookupAcrossIndicesEvaluation() throws Exception {
        Path dir = createTempDir();
        String output = printed(() -> LookupAcrossIndicesEvaluation.main(new String[] {
            TinyCorpus.write(dir, "tiny.jsonl", 60).toString(),
            dir.resolve("report").toString(),
            "--url",
            url(),
            "--generations",
            "4",
            "--planted",
            "20",
            "--fresh",
            "10",
            "--taus",
            "0.8",
            "--batch",
            "20"
        }));
        for (String layout : List.of(
                "stream (`index: \"neardup-eval-stream\"`), τ 0.8",
                "alias (`index: \"pages\"`), τ 0.8",
                "pattern (`index: \"pages-*\"`), τ 0.8")) {
            Matcher scores = find(
                    row(output, layout).get(1),
                    "^P [0-9.]+, R [0-9.]+, F1 [0-9.]+ \\(([0-9]+) copies of 30 sent; [0-9]+ missed, [0-9]+ false "
                            + "flags, 0 answers below τ\\); load ");
            // Two in ten planted documents are exact copies: at least 4 of the 20.
            assertTrue(output, Integer.parseInt(scores.group(1)) >= 4);
        }
        find(output, "\\| never indexed \\| 10 \\|");
        for (String layout : List.of("stream (`neardup-eval-stream`)", "alias (`pages`)", "pattern (`pages-*`)")) {
            // Each document's assignment found in its own index and resolved to the document it names.
            find(
                    output,
                    Pattern.quote("| `_near_dup_clusters` over " + layout + ", τ 0.8 | ")
                            + "P [0-9.]+, R [0-9.]+, F1 [0-9.]+, ARI [-0-9.]+ against the components of [0-9,]+ exact "
                            + "pairs; [0-9]+ of 50 documents in another cluster; 0 assignments not resolved by index and _id; "
                            + "[0-9]+ pairs of J >= τ split");
        }
        assertTrue(Files.exists(dir.resolve("report").resolve("summary.md")));
    }

    public void testQueryBenchmark() throws Exception {
        String output = printed(() -> QueryBenchmark.main(new String[] {
            "--url",
            url(),
            "--n",
            "1000",
            "--queries",
            "10",
            "--warmup",
            "2",
            "--script-queries",
            "5",
            "--profile-queries",
            "3",
            "--id-queries",
            "3",
            "--threads",
            "1",
            "--sweep",
            "16,23",
            "--throughput-clients",
            "1",
            "--throughput-requests",
            "10",
            "--indices",
            "unsorted,sorted",
            "--cache",
            createTempDir().toString()
        }));
        find(output, "corpus: n = 1,000 \\(800 originals \\+ 200 variants\\)");
        for (String index : List.of("unsorted", "sorted")) {
            find(output, "== index " + index + ": 1,000 docs bulk-indexed .*; 1,000 docs, 1 segment\\(s\\)");
        }
        // | max_flips k | pair recall | queries with >= 1 found | ms per 100 queries |
        for (String k : List.of("16", "23")) {
            Matcher recall = find(row(output, k).get(1), "^([0-9.]+) \\(([0-9]+)/([0-9]+)\\)$");
            int found = Integer.parseInt(recall.group(2));
            int pairs = Integer.parseInt(recall.group(3));
            assertTrue(output, pairs > 0 && found <= pairs);
            assertEquals(output, found / (double) pairs, Double.parseDouble(recall.group(1)), 1e-4);
        }
        // | method | queries | median, p99, mean ms (client) | median, p99 took ms | median total hits | errors |
        for (String method : List.of("psm_k64", "psm_k23", "exact")) {
            Matcher row =
                    find(output, "\\| " + method + " \\| ([0-9]+) \\|( [0-9.]+ \\|){5} ([0-9]+) \\| ([0-9]+) \\|\\n");
            assertEquals(output, "10", row.group(1));
            assertEquals(output, "0", row.group(4));
            // every query kept has a document within its distance
            assertTrue(output, method.startsWith("psm") || Integer.parseInt(row.group(3)) >= 1);
        }
        find(output, "exact vs in-process brute force: 0 mismatches of 10 queries");
        find(output, "hits with a wrong score: exact 0, script_score 0");
        find(
                output,
                "like \\{_id\\} on [0-9]+ indexed variants with their original within [0-9]+: exact mismatches 0;");
        for (String trouble : List.of("ERROR", "MISMATCH", "WRONG SCORE")) {
            assertFalse(output, output.contains(trouble));
        }
    }

    public void testContainmentLatency() throws Exception {
        String output = printed(() -> ContainmentLatency.main(new String[] {
            "--url", url(), "--n", "3000", "--articles", "20", "--queries", "10", "--warmup", "2", "--plain-index"
        }));
        for (String index : List.of("containment-latency", "containment-latency-plain")) {
            find(output, "\\n" + index + ": 3,000 documents, ");
        }
        for (String contained : List.of("like", "document")) {
            Matcher answers = find(
                    output,
                    "contained=" + contained + " min_containment=0.8: 10 queries, .*; ([0-9.]+) hits a query; "
                            + "planted hosts found ([0-9]+) of ([0-9]+)");
            int found = Integer.parseInt(answers.group(2));
            int expected = Integer.parseInt(answers.group(3));
            assertTrue(output, found <= expected && Double.parseDouble(answers.group(1)) >= found / 10.0);
            assertTrue("an article is in hosts of the corpus: " + output, contained.equals("document") || expected > 0);
        }
    }
}
