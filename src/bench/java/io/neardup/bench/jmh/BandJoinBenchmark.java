/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.core.BandJoin;
import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import io.neardup.core.MinHasher;
import java.nio.ByteBuffer;
import java.util.Random;
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
 * The band self-join in memory ({@link BandJoin}, single linkage), one thread, on the minhash field's
 * default banding (128 values, 42 bands of 3 rows): {@code n} documents of 100 random shingles, a
 * fifth of them near-copies (5 shingles replaced) of an earlier one, at τ = 0.5 (m = 1) and τ = 0.8
 * (m = 14, as the query's automatic {@code min_band_matches}). Candidates are verified by the
 * signature estimate (equal values of 128), so the time is the join's own: sorting the bands into
 * buckets, counting shared buckets, verifying each candidate once. What one shard's join would cost
 * beside reading its band keys and shingle sets.
 *
 * <pre>
 * mvn -Pbench test-compile exec:exec -Dbench.args="BandJoinBenchmark -f 1"
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx6g")
@State(Scope.Benchmark)
public class BandJoinBenchmark {
    private static final int K = 128;
    private static final LshBanding BANDING = LshBanding.of(42, 3, K);

    @Param({"100000", "1000000"})
    public int n;

    @Param({"0.5", "0.8"})
    public double tau;

    private long[] keys;
    private int[][] signatures;
    private int minBandMatches;

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(42);
        MinHasher hasher = MinHasher.of(K, 7L, MinHasher.Method.ONE_PERMUTATION);
        long[][] sets = new long[n][];
        signatures = new int[n][];
        keys = new long[n * BANDING.bands()];
        for (int d = 0; d < n; d++) {
            if (d > 0 && random.nextInt(5) == 0) {
                sets[d] = sets[random.nextInt(d)].clone();
                for (int r = 0; r < 5; r++) {
                    sets[d][random.nextInt(sets[d].length)] = random.nextLong();
                }
            } else {
                sets[d] = random.longs(100).toArray();
            }
            signatures[d] = hasher.signature(sets[d], sets[d].length);
            ByteBuffer bytes = ByteBuffer.allocate(4 * K);
            for (int value : signatures[d]) {
                bytes.putInt(value);
            }
            for (int band = 0; band < BANDING.bands(); band++) {
                keys[d * BANDING.bands() + band] = LshBanding.bandKey(bytes.array(), band, BANDING.rows());
            }
        }
        minBandMatches = BANDING.minBandMatchesFor(tau);
    }

    private double estimate(int a, int b) {
        int equal = 0;
        for (int i = 0; i < K; i++) {
            equal += signatures[a][i] == signatures[b][i] ? 1 : 0;
        }
        return equal / (double) K;
    }

    @Benchmark
    public BandJoin.Stats singleLinkage() {
        return BandJoin.join(
                BandJoin.ofKeys(keys, n, BANDING.bands(), MemoryBudget.NONE),
                n,
                minBandMatches,
                tau,
                1_000,
                64,
                true,
                this::estimate,
                (a, b, similarity) -> {},
                MemoryBudget.NONE);
    }
}
