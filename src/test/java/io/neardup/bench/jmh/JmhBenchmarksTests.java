/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import static org.junit.Assert.assertEquals;

import io.neardup.bench.TinyCorpus;
import io.neardup.bench.common.SyntheticCorpus;
import java.nio.file.Path;
import java.util.List;
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

    @Test
    public void testBandJoin() throws Exception {
        for (double tau : new double[] {0.5, 0.8}) {
            BandJoinBenchmark bench = new BandJoinBenchmark();
            bench.n = 300;
            bench.tau = tau;
            assertEquals(List.of("singleLinkage"), OneInvocation.run(bench));
        }
    }

    @Test
    public void testCollapse() throws Exception {
        for (String kind : new String[] {"simhash", "minhash"}) {
            CollapseBenchmark bench = new CollapseBenchmark();
            bench.window = 100;
            bench.kind = kind;
            assertEquals(List.of("collapse"), OneInvocation.run(bench));
        }
    }

    @Test
    public void testFieldExposure() throws Exception {
        for (String reader : new String[] {"segment", "opensearch", "restricted"}) {
            FieldExposureBenchmark bench = new FieldExposureBenchmark();
            bench.n = 300; // at least the 256 queries it draws from the documents
            bench.reader = reader;
            assertEquals(List.of("minhash", "simhashPsm"), OneInvocation.run(bench));
        }
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
        String cache = tmp.newFolder("cache").toString();
        for (int k : new int[] {23, 64}) {
            PsmAtScaleBenchmark bench = new PsmAtScaleBenchmark();
            bench.n = 2_000;
            bench.cache = cache;
            bench.k = k;
            assertEquals(
                    List.of("build", "exact", "flipProbabilities", "flipSets", "search"), OneInvocation.run(bench));
        }
    }
}
