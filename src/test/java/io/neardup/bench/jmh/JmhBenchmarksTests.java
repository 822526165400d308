/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import static org.junit.Assert.assertEquals;

import io.neardup.bench.TinyCorpus;
import io.neardup.bench.common.SyntheticCorpus;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Every JMH benchmark's setup and one call of each of its {@code @Benchmark} methods, on tiny inputs, so that none can
 * rot unnoticed: {@code mvn -Pbench} is run by hand, the suite on every build. Each test names the methods it expects,
 * so a new benchmark method is run here or fails here.
 */
public class JmhBenchmarksTests {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /**
     * For each of {@code values} of the parameter {@code varied}, a benchmark from {@code make} with its {@code @Param}
     * fields set as JMH sets them ({@code fixed}, then the varied one) runs and calls {@code methods}.
     */
    private static void assertEachRuns(
            List<String> methods, Supplier<Object> make, Map<String, Object> fixed, String varied, Object... values)
            throws Exception {
        for (Object value : values) {
            Object bench = make.get();
            Map<String, Object> params = new HashMap<>(fixed);
            params.put(varied, value);
            for (Map.Entry<String, Object> param : params.entrySet()) {
                bench.getClass().getField(param.getKey()).set(bench, param.getValue());
            }
            assertEquals(params.toString(), methods, OneInvocation.run(bench));
        }
    }

    @Test
    public void testBandJoin() throws Exception {
        assertEachRuns(List.of("singleLinkage"), BandJoinBenchmark::new, Map.of("n", 300), "tau", 0.5, 0.8);
    }

    @Test
    public void testCollapse() throws Exception {
        assertEachRuns(
                List.of("collapse"), CollapseBenchmark::new, Map.of("window", 100), "kind", "simhash", "minhash");
    }

    @Test
    public void testContainmentLead() throws Exception {
        // n: enough planted documents for its 64 queries, and rare documents among their hosts
        assertEachRuns(
                List.of("led", "onePass", "twoPhase"),
                ContainmentLeadBenchmark::new,
                Map.of("n", 2_000, "leadFraction", 0.3),
                "contained",
                "like",
                "document");
    }

    @Test
    public void testFieldExposure() throws Exception {
        // n: at least the 256 queries it draws from the documents
        assertEachRuns(
                List.of("minhash", "simhashPsm"),
                FieldExposureBenchmark::new,
                Map.of("n", 300),
                "reader",
                "segment",
                "opensearch",
                "restricted");
    }

    @Test
    public void testFingerprint() throws Exception {
        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 20);
        FingerprintBenchmark bench = new FingerprintBenchmark();
        assertEquals(
                List.of(
                        "analysis",
                        "analysisAndFingerprint",
                        "contentHash",
                        "fingerprint",
                        "fingerprintSimhashOnly",
                        "jaccardFirstLayout",
                        "jaccardRice",
                        "shingleSetPayload"),
                OneInvocation.run(bench, () -> bench.setup(corpus)));
    }

    @Test
    public void testPsm() throws Exception {
        PsmBenchmark bench = new PsmBenchmark();
        bench.log2n = 15; // the smallest table at which EXACT still looks prefixes up (the setup checks it)
        SyntheticCorpus corpus = SyntheticCorpus.build(1 << bench.log2n, 100, 1, 5, 20);
        assertEquals(
                List.of(
                        "exact",
                        "generate23",
                        "linearScan",
                        "multiIndex",
                        "psmA23",
                        "psmA23BinarySearch",
                        "psmA23Gauss",
                        "psmF15"),
                OneInvocation.run(bench, () -> bench.setup(corpus)));
    }

    @Test
    public void testPsmAtScale() throws Exception {
        assertEachRuns(
                List.of("build", "exact", "flipProbabilities", "flipSets", "search"),
                PsmAtScaleBenchmark::new,
                Map.of("n", 2_000, "cache", tmp.newFolder("cache").toString()),
                "k",
                23,
                64);
    }
}
