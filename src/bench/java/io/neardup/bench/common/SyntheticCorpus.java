/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.Margins;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Synthetic text for PSM experiments, fingerprinted by the real {@link Fingerprinter} with
 * {@code FingerprintScheme.defaults("standard")} (2-word shingles, tf, no IDF): a Zipf(1.0)
 * vocabulary of {@value #VOCABULARY} words, documents of 200–2,000 words. The table holds 80%
 * originals and 20% variants of random originals; queries are fresh variants of random originals
 * (so not in the table). A variant edits each word with probability r, r uniform in [1%, 10%] per
 * variant, the edit being a replacement, an insertion or a deletion (equally likely).
 *
 * <p>Deterministic for a seed: document i is generated from its own random stream, so variants
 * regenerate their original instead of storing it. Fingerprinting 2^20 documents (~1.2 G words)
 * takes minutes, so {@link #loadOrBuild} caches the result in a file (the words themselves are
 * never stored).
 */
public final class SyntheticCorpus {
    public static final int VOCABULARY = 200_000;
    public static final double MIN_EDIT = 0.01;
    public static final double MAX_EDIT = 0.10;

    /** Table fingerprints (doc id = index), query fingerprints, query margins. */
    public final long[] table;

    public final long[] queries;
    public final Margins[] queryMargins;
    /** The original each query was derived from (its planted near-duplicate, if close enough). */
    public final int[] queryOrigin;

    private SyntheticCorpus(long[] table, long[] queries, Margins[] queryMargins, int[] queryOrigin) {
        this.table = table;
        this.queries = queries;
        this.queryMargins = queryMargins;
        this.queryOrigin = queryOrigin;
    }

    public static SyntheticCorpus loadOrBuild(int n, int queries, long seed) {
        // -Dneardup.cache=<dir> picks the cache folder (default: java.io.tmpdir).
        Path cache = Path.of(
                System.getProperty("neardup.cache", System.getProperty("java.io.tmpdir")),
                "neardup-synth-v1-n" + n + "-q" + queries + "-s" + seed + ".bin");
        if (Files.exists(cache)) {
            try {
                return read(cache, n, queries);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + cache, e);
            }
        }
        SyntheticCorpus corpus = build(n, queries, seed);
        try {
            Path tmp = Files.createTempFile(cache.getParent(), "neardup-synth", ".tmp");
            try (DataOutputStream out =
                    new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
                for (long fp : corpus.table) {
                    out.writeLong(fp);
                }
                for (int q = 0; q < queries; q++) {
                    out.writeLong(corpus.queries[q]);
                    out.writeInt(corpus.queryOrigin[q]);
                    out.write(corpus.queryMargins[q].toBytes());
                }
            }
            Files.move(tmp, cache, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            System.err.println("could not cache the corpus at " + cache + ": " + e);
        }
        return corpus;
    }

    private static SyntheticCorpus read(Path path, int n, int queries) throws IOException {
        long[] table = new long[n];
        long[] qs = new long[queries];
        int[] origin = new int[queries];
        Margins[] margins = new Margins[queries];
        try (DataInputStream in =
                new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(path), 1 << 16))) {
            for (int i = 0; i < n; i++) {
                table[i] = in.readLong();
            }
            byte[] m = new byte[Margins.BITS];
            for (int q = 0; q < queries; q++) {
                qs[q] = in.readLong();
                origin[q] = in.readInt();
                in.readFully(m);
                margins[q] = Margins.ofQuantized(m);
            }
        }
        return new SyntheticCorpus(table, qs, margins, origin);
    }

    public static SyntheticCorpus build(int n, int queries, long seed) {
        return build(n, queries, seed, new Generator(seed));
    }

    /** As {@link #build(int, int, long)}, documents of minWords to maxWords words (the suite builds a tiny one). */
    public static SyntheticCorpus build(int n, int queries, long seed, int minWords, int maxWords) {
        return build(n, queries, seed, new Generator(seed, minWords, maxWords));
    }

    private static SyntheticCorpus build(int n, int queries, long seed, Generator gen) {
        int originals = (int) (n * 0.8);
        long[] table = new long[n];
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            gen.tableDocument(i, originals);
            Fingerprint f = gen.fingerprint();
            table[i] = f.simhash();
            if ((i & ((1 << 18) - 1)) == (1 << 18) - 1) {
                System.err.printf(
                        Locale.ROOT,
                        "  fingerprinted %,d of %,d documents (%.0f s)%n",
                        i + 1,
                        n,
                        (System.nanoTime() - t0) / 1e9);
            }
        }
        long[] qs = new long[queries];
        int[] origin = new int[queries];
        Margins[] margins = new Margins[queries];
        for (int q = 0; q < queries; q++) {
            int o = gen.queryDocument(q, originals);
            Fingerprint f = gen.fingerprint();
            qs[q] = f.simhash();
            margins[q] = f.margins();
            origin[q] = o;
        }
        return new SyntheticCorpus(table, qs, margins, origin);
    }

    /** Words, documents and fingerprints; reuses its buffers. */
    public static final class Generator {
        private final long seed;
        private final char[][] words = new char[VOCABULARY][];
        private final double[] cumulative = new double[VOCABULARY];
        private final Fingerprinter fingerprinter = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        private int[] doc = new int[4096];
        private int docLength;
        private int[] edited = new int[4096];
        private final int minWords;
        private final int maxWords;

        public Generator(long seed) {
            this(seed, 200, 2000);
        }

        /** Documents of minWords to maxWords words (the PSM experiments use 200–2,000; {@link SyntheticJsonl} 50–300). */
        public Generator(long seed, int minWords, int maxWords) {
            this.seed = seed;
            this.minWords = minWords;
            this.maxWords = maxWords;
            double sum = 0;
            for (int r = 0; r < VOCABULARY; r++) {
                words[r] = ("w" + Integer.toString(r, 36)).toCharArray();
                sum += 1.0 / (r + 1); // Zipf, exponent 1
                cumulative[r] = sum;
            }
        }

        private int word(SplittableRandom random) {
            double u = random.nextDouble() * cumulative[VOCABULARY - 1];
            int lo = 0;
            int hi = VOCABULARY - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cumulative[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        private int pick(long salt, int i, int bound) {
            return new SplittableRandom(salt * 31 + i).nextInt(bound);
        }

        /** Generates original document i into the internal buffer. */
        public void original(int i) {
            SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + i);
            int len = minWords + random.nextInt(maxWords - minWords + 1);
            if (doc.length < len) {
                doc = new int[len];
            }
            for (int j = 0; j < len; j++) {
                doc[j] = word(random);
            }
            docLength = len;
        }

        /**
         * Table document i of a table whose first {@code originals} documents are originals: original i, or a variant
         * of a random original.
         */
        public void tableDocument(int i, int originals) {
            if (i < originals) {
                original(i);
            } else {
                original(pick(seed, i, originals));
                variant(seed ^ 0x5EEDL, i);
            }
        }

        /** Query q: a fresh variant of a random one of the table's {@code originals}; returns that original. */
        public int queryDocument(int q, int originals) {
            int o = pick(seed ^ 0x9E3779B97F4A7C15L, q, originals);
            original(o);
            variant(seed ^ 0xC0FFEEL, q);
            return o;
        }

        /** Edits the current document (from {@link #original}) into variant i of a stream named by salt. */
        public void variant(long salt, int i) {
            SplittableRandom random = new SplittableRandom(salt * 0xBF58476D1CE4E5B9L + i);
            double rate = MIN_EDIT + random.nextDouble() * (MAX_EDIT - MIN_EDIT);
            int out = 0;
            for (int j = 0; j < docLength; j++) {
                if (out + 2 >= edited.length) {
                    edited = java.util.Arrays.copyOf(edited, edited.length * 2);
                }
                if (random.nextDouble() < rate) {
                    switch (random.nextInt(3)) {
                        case 0 -> edited[out++] = word(random); // replace
                        case 1 -> { // insert before
                            edited[out++] = word(random);
                            edited[out++] = doc[j];
                        }
                        default -> {} // delete
                    }
                } else {
                    edited[out++] = doc[j];
                }
            }
            int[] t = doc;
            doc = edited;
            edited = t;
            if (edited.length < doc.length) {
                edited = new int[doc.length];
            }
            docLength = out;
        }

        /** The current document as text: its words separated by single spaces. */
        public void text(StringBuilder out) {
            for (int j = 0; j < docLength; j++) {
                if (j > 0) {
                    out.append(' ');
                }
                out.append(words[doc[j]]);
            }
        }

        /** Fingerprints the current document. */
        public Fingerprint fingerprint() {
            fingerprinter.reset();
            for (int j = 0; j < docLength; j++) {
                char[] w = words[doc[j]];
                fingerprinter.token(w, 0, w.length);
            }
            return fingerprinter.finish();
        }
    }
}
