/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.bench.common.SyntheticQueries;
import io.neardup.bench.common.SyntheticTable;
import io.neardup.core.FlipModel;
import io.neardup.core.FlipSetGenerator;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.PsmSearch;
import io.neardup.core.SortedFingerprintTable;
import java.nio.file.Path;
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
 * Where a PSM query's time goes inside the shard at {@link QueryBenchmark}'s corpus size (10M by default): the
 * plugin's own path (Φ flip model with c = 0.5, PSM_A, h = 3, p = ⌊log2 n⌋, the unsorted segment's sorted copy with
 * its prefix index), split into the flip probabilities alone, the flip probabilities plus the k flip sets, and the
 * whole search; and EXACT mode. Single thread, cycling through the benchmark's 600 query fingerprints (each with a neighbour within
 * 3 bits). Reads {@link QueryBenchmark}'s cache, which must exist (run QueryBenchmark with the same n first).
 *
 * <pre>
 * java -Xmx4g -cp $B/classes:$B/test-classes:$(cat $B/bench-cp.txt) org.openjdk.jmh.Main PsmAtScaleBenchmark \
 *     -p n=10000000 -p cache=/tmp/q10m-cache -p k=23,64,128 -f 1 -jvmArgs -Xmx4g
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
@State(Scope.Thread)
public class PsmAtScaleBenchmark {
    private static final int H = 3;
    private static final int QUERIES = 600;

    @Param("10000000")
    public int n;

    @Param("/tmp/q10m-cache")
    public String cache;

    @Param({"23", "64"})
    public int k;

    private SortedFingerprintTable table;
    private long[] fingerprints;
    private int[] docs;
    private long[] queries;
    private Margins[] margins;
    private int prefixBits;
    private PsmSearch.Params params;
    private PsmSearch.Params exactParams;
    private final PsmSearch search = new PsmSearch();
    private final FlipSetGenerator generator = new FlipSetGenerator();
    private final FlipModel model = FlipModel.gaussian(0.5);
    private final double[] logFlip = new double[Margins.BITS];
    private final Matches out = new Matches();
    private int next;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        SyntheticTable corpus = SyntheticTable.loadOrBuild(Path.of(cache), n, 1, 2);
        SyntheticQueries q = SyntheticQueries.loadOrBuild(Path.of(cache), corpus, QUERIES, H, 1);
        fingerprints = corpus.fingerprints;
        docs = new int[n];
        for (int i = 0; i < n; i++) {
            docs[i] = i;
        }
        prefixBits = SortedFingerprintTable.defaultIndexBits(n);
        table = SortedFingerprintTable.build(corpus.fingerprints, docs, n, prefixBits);
        queries = q.fingerprints;
        margins = new Margins[QUERIES];
        for (int i = 0; i < QUERIES; i++) {
            margins[i] = Margins.decode(q.margins[i]);
        }
        params = new PsmSearch.Params(PsmSearch.Mode.PSM_A, H, k, prefixBits);
        exactParams = new PsmSearch.Params(PsmSearch.Mode.EXACT, H, 1, prefixBits);
    }

    private int nextQuery() {
        int q = next;
        next = q + 1 == queries.length ? 0 : q + 1;
        return q;
    }

    /** The flip probabilities of the query's prefix bits from its margins. */
    @Benchmark
    public double flipProbabilities() {
        int q = nextQuery();
        model.logFlipProbabilities(margins[q], prefixBits, logFlip);
        return logFlip[0];
    }

    /** The flip probabilities and the k most probable flip sets, no lookups. */
    @Benchmark
    public long flipSets() {
        int q = nextQuery();
        model.logFlipProbabilities(margins[q], prefixBits, logFlip);
        generator.reset(logFlip, prefixBits, H, k);
        long acc = 0;
        while (generator.next()) {
            acc ^= generator.mask();
        }
        return acc;
    }

    /**
     * Building the unsorted segment's structure from its fingerprints in doc id order (what the first query after a
     * merge pays besides reading the doc values): copy, sort with the doc ids, prefix index.
     */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    @Warmup(iterations = 2)
    @Measurement(iterations = 5)
    public SortedFingerprintTable build() {
        return SortedFingerprintTable.build(fingerprints, docs, n, prefixBits);
    }

    /** EXACT mode (every flip set of size <= 3 within the prefix: 2,048 lookups at p = 23), k ignored. */
    @Benchmark
    public int exact() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], model, exactParams, out);
        return out.size();
    }

    /** The whole search as the plugin runs it on one segment. */
    @Benchmark
    public int search() {
        int q = nextQuery();
        out.clear();
        search.search(table, queries[q], margins[q], model, params, out);
        return out.size();
    }
}
