/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/** Medians, percentiles, a seeded permutation and the machine's load: what the evaluation programs report with. */
public final class Stats {
    private Stats() {}

    /** The median of ascending values; NaN for none. */
    public static double median(double[] sorted) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int m = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    }

    /** Nearest-rank 99th percentile of ascending values; NaN for none. */
    public static double p99(double[] sorted) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(0.99 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** 0 .. n-1 shuffled (Fisher-Yates) by a {@link SplittableRandom} of {@code seed}. */
    public static int[] permutation(int n, long seed) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /**
     * The first {@code count} load averages of this machine (1, 5, 15 minutes) as {@code uptime} prints them, or
     * {@code unknown} where {@code /proc/loadavg} cannot be read: a run on a shared machine is only worth its load.
     */
    public static String loadAverage(int count, String unknown) {
        try {
            String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.join(" ", java.util.Arrays.copyOf(p, count));
        } catch (Exception e) {
            return unknown;
        }
    }
}
