/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import io.neardup.core.Fingerprint;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Query fingerprints with at least one neighbour within h in a {@link SyntheticTable}, and their ground truth (ids within h). */
public final class SyntheticQueries {
    public final long[] fingerprints;
    public final String[] margins;
    public final int[][] truth;
    public final int[][] truthDistances;
    public final int tried;

    SyntheticQueries(long[] fingerprints, String[] margins, int[][] truth, int[][] truthDistances, int tried) {
        this.fingerprints = fingerprints;
        this.margins = margins;
        this.truth = truth;
        this.truthDistances = truthDistances;
        this.tried = tried;
    }

    public int size() {
        return fingerprints.length;
    }

    public int pairs(int from, int to) {
        int p = 0;
        for (int i = from; i < to; i++) {
            p += truth[i].length;
        }
        return p;
    }

    public int[] pairsByDistance(int from, int to, int h) {
        int[] by = new int[h + 1];
        for (int i = from; i < to; i++) {
            for (int d : truthDistances[i]) {
                by[d]++;
            }
        }
        return by;
    }

    public static SyntheticQueries loadOrBuild(Path dir, SyntheticTable table, int count, int h, long seed)
            throws IOException {
        Path file = dir.resolve("qbench-queries-v1-n" + table.size() + "-c" + count + "-h" + h + "-s" + seed + ".bin");
        if (Files.exists(file)) {
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
                int tried = in.readInt();
                long[] fps = new long[count];
                String[] ms = new String[count];
                int[][] truth = new int[count][];
                int[][] dist = new int[count][];
                for (int i = 0; i < count; i++) {
                    fps[i] = in.readLong();
                    ms[i] = in.readUTF();
                    int k = in.readInt();
                    truth[i] = new int[k];
                    dist[i] = new int[k];
                    for (int j = 0; j < k; j++) {
                        truth[i][j] = in.readInt();
                        dist[i][j] = in.readInt();
                    }
                }
                System.out.println("queries: read " + file);
                return new SyntheticQueries(fps, ms, truth, dist, tried);
            }
        }
        long t0 = System.nanoTime();
        int n = table.size();
        int originals = (int) (n * 0.8);
        SyntheticCorpus.Generator gen = new SyntheticCorpus.Generator(seed);
        long[] fps = new long[count];
        String[] ms = new String[count];
        int[][] truth = new int[count][];
        int[][] dist = new int[count][];
        int kept = 0;
        int tried = 0;
        long[] t = table.fingerprints;
        while (kept < count) {
            gen.queryDocument(tried, originals);
            tried++;
            Fingerprint f = gen.fingerprint();
            long fp = f.simhash();
            List<int[]> found = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int d = Long.bitCount(t[i] ^ fp);
                if (d <= h) {
                    found.add(new int[] {i, d});
                }
            }
            if (found.isEmpty()) {
                continue;
            }
            fps[kept] = fp;
            ms[kept] = f.margins().encode();
            truth[kept] = found.stream().mapToInt(a -> a[0]).toArray();
            dist[kept] = found.stream().mapToInt(a -> a[1]).toArray();
            kept++;
        }
        System.out.printf(
                Locale.ROOT,
                "queries: %,d of %,d fresh variants have a neighbour within %d (%.0f s)%n",
                count,
                tried,
                h,
                (System.nanoTime() - t0) / 1e9);
        Path tmp = Files.createTempFile(dir, "qbench-queries", ".tmp");
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp)))) {
            out.writeInt(tried);
            for (int i = 0; i < count; i++) {
                out.writeLong(fps[i]);
                out.writeUTF(ms[i]);
                out.writeInt(truth[i].length);
                for (int j = 0; j < truth[i].length; j++) {
                    out.writeInt(truth[i][j]);
                    out.writeInt(dist[i][j]);
                }
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        return new SyntheticQueries(fps, ms, truth, dist, tried);
    }
}
