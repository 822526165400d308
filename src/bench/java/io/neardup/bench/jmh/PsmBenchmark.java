/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.bench.common.SyntheticCorpus;
import io.neardup.core.FlipModel;
import io.neardup.core.FlipSetGenerator;
import io.neardup.core.LinearScan;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.MultiIndexTables;
import io.neardup.core.PsmSearch;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time per query, single thread, of the simhash near-duplicate searches over n = 2^20
 * fingerprints of {@link SyntheticCorpus} (h = 3, p = 20), cycling through its queries (fresh
 * variants; most have no neighbour within 3 bits, as in production):
 * <ul>
 *   <li>{@code psmA23}: PSM_A, k = 23, eq. 4.5 order, 2^p prefix index;</li>
 *   <li>{@code psmA23Gauss}: the same with the calibrated Φ order (c = 0.2);</li>
 *   <li>{@code psmF15}: PSM_F, k = 15;</li>
 *   <li>{@code psmA23BinarySearch}: PSM_A k = 23 over the same sorted array without the index (the
 *       doc-values-sorted case: each lookup is two binary searches);</li>
 *   <li>{@code generate23}: generating the 23 flip sets only (no lookups);</li>
 *   <li>{@code exact}: EXACT, 1,351 indexed lookups;</li>
 *   <li>{@code multiIndex}: Manku's 4 permuted tables (4x the memory);</li>
 *   <li>{@code linearScan}: every fingerprint compared.</li>
 * </ul>
 * Sample mode: JMH reports the median (p0.50) per query.
 *
 * <p>Run (from the project root; the corpus is built in the setup, which takes ~4 minutes the first time, and
 * cached in {@code -Dneardup.cache} or java.io.tmpdir, see {@link SyntheticCorpus#loadOrBuild}):
 * <pre>
 * mvn -B -o -Pbench -Dbuild.dir=$BUILD test-compile exec:exec -Dbench.args="PsmBenchmark -f 1 -wi 2 -i 3"
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@State(Scope.Thread)
public class PsmBenchmark {
    @Param("20")
    public int log2n;

    private long[] fps;
    private int[] docs;
    private SortedFingerprintTable table;
    private SortedFingerprints withoutIndex;
    private MultiIndexTables multi;
    private long[] queries;
    private Margins[] margins;
    private final PsmSearch search = new PsmSearch();
    private final FlipSetGenerator generator = new FlipSetGenerator();
    private final double[] logP = new double[64];
    private final Matches out = new Matches();
    private PsmSearch.Params psmA23;
    private PsmSearch.Params psmF15;
    private PsmSearch.Params exact;
    private final FlipModel eq45 = FlipModel.marginComplement();
    private final FlipModel gauss = FlipModel.gaussian(0.2);
    private int next;

    @Setup(Level.Trial)
    public void setup() {
        setup(SyntheticCorpus.loadOrBuild(1 << log2n, 40_000, 1));
    }

    /** The setup over a corpus of 2^{@link #log2n} documents (the suite's run uses a tiny one). */
    public void setup(SyntheticCorpus corpus) {
        int n = 1 << log2n;
        fps = corpus.table;
        docs = new int[n];
        for (int i = 0; i < n; i++) {
            docs[i] = i;
        }
        table = SortedFingerprintTable.build(fps, docs, n, log2n);
        withoutIndex = table.withoutIndex();
        multi = MultiIndexTables.build(fps, docs, n, 3);
        queries = corpus.queries;
        margins = corpus.queryMargins;
        psmA23 = new PsmSearch.Params(PsmSearch.Mode.PSM_A, 3, 23, log2n);
        psmF15 = new PsmSearch.Params(PsmSearch.Mode.PSM_F, 3, 15, log2n);
        exact = new PsmSearch.Params(PsmSearch.Mode.EXACT, 3, 1, log2n);
        if (PsmSearch.exactUsesScan(table, log2n, 3)) {
            throw new IllegalStateException("EXACT would scan at n = 2^" + log2n + ": the benchmark wants its lookups");
        }
    }

    private int nextQuery() {
        int q = next;
        next = q + 1 == queries.length ? 0 : q + 1;
        return q;
    }

    @Benchmark
    public int psmA23() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], eq45, psmA23, out);
        return out.size();
    }

    @Benchmark
    public int psmA23Gauss() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], gauss, psmA23, out);
        return out.size();
    }

    @Benchmark
    public int psmF15() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], eq45, psmF15, out);
        return out.size();
    }

    @Benchmark
    public int psmA23BinarySearch() {
        int q = nextQuery();
        out.clear();
        search.search(withoutIndex, queries[q], margins[q], eq45, psmA23, out);
        return out.size();
    }

    @Benchmark
    public long generate23() {
        int q = nextQuery();
        eq45.logFlipProbabilities(margins[q], log2n, logP);
        generator.reset(logP, log2n, 3, 23);
        long acc = 0;
        while (generator.next()) {
            acc ^= generator.mask();
        }
        return acc;
    }

    @Benchmark
    public int exact() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], null, exact, out);
        return out.size();
    }

    @Benchmark
    public int multiIndex() {
        int q = nextQuery();
        out.clear();
        multi.search(queries[q], out);
        return out.size();
    }

    @Benchmark
    public int linearScan() {
        int q = nextQuery();
        out.clear();
        LinearScan.search(fps, docs, fps.length, queries[q], 3, out);
        return out.size();
    }
}
