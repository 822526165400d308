/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.core.FingerprintFormat;
import io.neardup.core.LshBanding;
import io.neardup.core.SignatureCodec;
import io.neardup.index.MinhashFieldMapper;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The band candidates a field's band keys add over 8-byte keys ({@link FingerprintFormat#SIGNATURE}'s) of the same
 * signatures: in the compact format, the pairs whose 4-byte keys agree in a band where their 8-byte keys differ.
 * Found by sorting each band's keys, so every pair of the corpus is covered without comparing every pair.
 */
final class KeyTruncation {
    private KeyTruncation() {}

    /** Documents {@code a < b} whose keys agree in {@code narrowBands} bands, and whose 8-byte keys in {@code wideBands}. */
    record Pair(int a, int b, int wideBands, int narrowBands) {
        /** A candidate of a query requiring {@code minBandMatches} bands with the field's keys, and not with 8-byte ones. */
        boolean extraAt(int minBandMatches) {
            return narrowBands >= minBandMatches && wideBands < minBandMatches;
        }
    }

    /** Every pair whose band keys of {@code type} agree in more bands than its 8-byte keys do. */
    static List<Pair> pairs(int[][] signatures, MinhashFieldMapper.MinhashFieldType type) {
        int n = signatures.length;
        int bands = type.banding().bands();
        long[][] wide = new long[bands][n];
        long[][] narrow = new long[bands][n];
        for (int i = 0; i < n; i++) {
            byte[] bytes = SignatureCodec.valueBytes(signatures[i]);
            for (int band = 0; band < bands; band++) {
                wide[band][i] = FingerprintFormat.SIGNATURE.bandKey(
                        bytes, 0, band, type.banding().rows());
                narrow[band][i] = type.bandKey(bytes, 0, band);
            }
        }
        Map<Long, Pair> pairs = new LinkedHashMap<>();
        for (int band = 0; band < bands; band++) {
            long[] w = wide[band];
            long[] k = narrow[band];
            Integer[] order = IntStream.range(0, n).boxed().toArray(Integer[]::new);
            Arrays.sort(order, Comparator.<Integer>comparingLong(i -> k[i]).thenComparingLong(i -> w[i]));
            for (int start = 0, end; start < n; start = end) {
                end = start + 1;
                while (end < n && k[order[end]] == k[order[start]]) {
                    end++;
                }
                if (w[order[start]] == w[order[end - 1]]) {
                    continue; // one 8-byte key: no pair of this run is new
                }
                for (int x = start; x < end; x++) {
                    for (int y = x + 1; y < end; y++) {
                        if (w[order[x]] != w[order[y]]) {
                            int a = Math.min(order[x], order[y]);
                            int b = Math.max(order[x], order[y]);
                            pairs.computeIfAbsent((long) a << 32 | b, key -> agreements(a, b, wide, narrow));
                        }
                    }
                }
            }
        }
        return new ArrayList<>(pairs.values());
    }

    private static Pair agreements(int a, int b, long[][] wide, long[][] narrow) {
        int wideBands = 0, narrowBands = 0;
        for (int band = 0; band < wide.length; band++) {
            wideBands += wide[band][a] == wide[band][b] ? 1 : 0;
            narrowBands += narrow[band][a] == narrow[band][b] ? 1 : 0;
        }
        return new Pair(a, b, wideBands, narrowBands);
    }

    /** The (pair, band) agreements the field's keys add: each a collision of keys whose 8-byte keys differ. */
    static long collisions(List<Pair> pairs) {
        return pairs.stream().mapToLong(p -> p.narrowBands() - p.wideBands()).sum();
    }

    /** The collisions expected of {@code keyBytes}-byte keys over {@code n} documents: pairs × bands / 2^(8 keyBytes). */
    static double expected(int n, LshBanding banding, int keyBytes) {
        return n * (n - 1.0) / 2 * banding.bands() / Math.pow(2, 8 * keyBytes);
    }
}
