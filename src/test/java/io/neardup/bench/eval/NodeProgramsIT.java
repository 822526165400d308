/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import com.carrotsearch.randomizedtesting.ThreadFilter;
import com.carrotsearch.randomizedtesting.annotations.ThreadLeakFilters;
import io.neardup.NearDupRestTestCase;
import io.neardup.bench.TinyCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The evaluation programs that talk to a node, each run through its {@code main} against the build's test node on a
 * tiny corpus (the demo corpus's first lines; QueryBenchmark's synthetic table of 1,000), so that none can rot
 * unnoticed. Their numbers mean nothing here; that they run to their report does. The framework wipes the node's
 * indices and pipelines after each test.
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

    public void testIngestBenchmark() throws Exception {
        Path corpus = TinyCorpus.write(createTempDir(), "tiny.jsonl", 30);
        IngestBenchmark.main(new String[] {url(), corpus.toString(), "10", "1", "plain,mapped_lookup"});
    }

    public void testLookupWindowEvaluation() throws Exception {
        Path corpus = TinyCorpus.write(createTempDir(), "tiny.jsonl", 30);
        LookupWindowEvaluation.main(new String[] {url(), corpus.toString(), "30", "1s", "1000", "5s"});
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

    public void testQueryBenchmark() throws Exception {
        QueryBenchmark.main(new String[] {
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
        });
    }

    public void testContainmentLatency() throws Exception {
        ContainmentLatency.main(new String[] {
            "--url", url(), "--n", "3000", "--articles", "20", "--queries", "10", "--warmup", "2", "--plain-index"
        });
    }
}
