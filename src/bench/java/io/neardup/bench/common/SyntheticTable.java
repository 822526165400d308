/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import io.neardup.core.Fingerprint;
import io.neardup.core.Margins;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The indexed fingerprints of {@code QueryBenchmark} and {@code PsmAtScaleBenchmark} and their margins (64 bytes each,
 * consecutive): {@link SyntheticCorpus}'s recipe with every document's margins kept, cached in a folder.
 */
public final class SyntheticTable {
    public final long[] fingerprints;
    public final byte[] margins;

    public SyntheticTable(long[] fingerprints, byte[] margins) {
        this.fingerprints = fingerprints;
        this.margins = margins;
    }

    public int size() {
        return fingerprints.length;
    }

    public String marginsB64(int i) {
        return Margins.ofQuantized(Arrays.copyOfRange(margins, i * Margins.BITS, (i + 1) * Margins.BITS))
                .encode();
    }

    public static SyntheticTable loadOrBuild(Path dir, int n, long seed, int threads) throws Exception {
        Path file = dir.resolve("qbench-table-v1-n" + n + "-s" + seed + ".bin");
        if (Files.exists(file)) {
            long[] fps = new long[n];
            byte[] m = new byte[n * Margins.BITS];
            try (DataInputStream in =
                    new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
                for (int i = 0; i < n; i++) {
                    fps[i] = in.readLong();
                }
                in.readFully(m);
            }
            System.out.println("table: read " + file);
            return new SyntheticTable(fps, m);
        }
        long[] fps = new long[n];
        byte[] m = new byte[n * Margins.BITS];
        int originals = (int) (n * 0.8);
        long t0 = System.nanoTime();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int first = t;
            workers[t] = new Thread(() -> {
                try {
                    SyntheticCorpus.Generator gen = new SyntheticCorpus.Generator(seed);
                    for (int i = first; i < n; i += threads) {
                        gen.tableDocument(i, originals);
                        Fingerprint f = gen.fingerprint();
                        fps[i] = f.simhash();
                        System.arraycopy(f.margins().toBytes(), 0, m, i * Margins.BITS, Margins.BITS);
                        if (first == 0 && (i / threads) % 100_000 == 0 && i > 0) {
                            System.err.printf(
                                    Locale.ROOT,
                                    "  fingerprinted ~%,d of %,d (%.0f s)%n",
                                    i,
                                    n,
                                    (System.nanoTime() - t0) / 1e9);
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            throw new RuntimeException(failure.get());
        }
        System.out.printf(
                Locale.ROOT,
                "table: fingerprinted %,d documents in %.0f s (%d threads)%n",
                n,
                (System.nanoTime() - t0) / 1e9,
                threads);
        Path tmp = Files.createTempFile(dir, "qbench-table", ".tmp");
        try (DataOutputStream out =
                new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
            for (long fp : fps) {
                out.writeLong(fp);
            }
            out.write(m);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        return new SyntheticTable(fps, m);
    }
}
