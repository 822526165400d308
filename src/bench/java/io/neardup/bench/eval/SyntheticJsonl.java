/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.neardup.bench.common.SyntheticCorpus;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a synthetic JSON-lines corpus for {@link Evaluate} at scale, with {@link SyntheticCorpus}'s
 * generator: a Zipf(1.0) vocabulary of 200k words ({@code w<rank in base 36>}), documents of 50–300
 * words, and planted near-duplicates: each document after the 10th is, with probability 0.2, a variant
 * of a random earlier original (each word replaced, preceded by an inserted word, or deleted with
 * probability r, r uniform in [1%, 10%] per variant, {@link SyntheticCorpus.Generator#variant}).
 * Variants and the originals they were made from get {@code "group": "g<line of the original>"};
 * other documents have no group. Deterministic for (n, seed, share). 1M documents are about 0.9 GB of
 * text (~0.35 GB gzipped) and take about a minute.
 *
 * <pre>
 * java -cp target/classes:target/test-classes:$(cat target/bench-cp.txt) io.neardup.bench.eval.SyntheticJsonl 1000000 1 $DATA/synthetic-1m.jsonl.gz
 * </pre>
 * The output is gzipped when its name ends in {@code .gz}. A fourth argument sets the share of variants
 * (0.2 by default): at 0.75, three documents in four are variants, as in a corpus made mostly of
 * copies (a crawl's mirrors, a training set's repeats): a run at {@code minhash} τ 0.8 assigns 45% of
 * the documents to a cluster (446,375 of the first 1M; docs/clusters.md section 10).
 */
public final class SyntheticJsonl {
    static final double VARIANT_SHARE = 0.2;
    static final int MIN_WORDS = 50;
    static final int MAX_WORDS = 300;

    private SyntheticJsonl() {}

    static boolean isVariant(long seed, double share, int i) {
        return i >= 10 && new SplittableRandom(seed * 0x632BE59BD9B4E019L + i).nextDouble() < share;
    }

    /** The earlier original document that variant i was made from. */
    static int originalOf(long seed, double share, int i) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L ^ (i * 0xBF58476D1CE4E5B9L));
        while (true) {
            int j = r.nextInt(i);
            if (isVariant(seed, share, j) == false) {
                return j;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3 && args.length != 4) {
            System.err.println("usage: SyntheticJsonl <n> <seed> <out.jsonl[.gz]> [variant share, 0.2]");
            System.exit(2);
        }
        int n = Integer.parseInt(args[0]);
        long seed = Long.parseLong(args[1]);
        Path out = Path.of(args[2]);
        double share = args.length == 4 ? Double.parseDouble(args[3]) : VARIANT_SHARE;
        if ((share >= 0 && share < 1) == false) {
            System.err.println("the variant share must be in [0, 1), got " + args[3]);
            System.exit(2);
        }
        long t0 = System.nanoTime();
        boolean[] hasVariant = new boolean[n];
        int variants = 0;
        for (int i = 0; i < n; i++) {
            if (isVariant(seed, share, i)) {
                hasVariant[originalOf(seed, share, i)] = true;
                variants++;
            }
        }
        SyntheticCorpus.Generator gen = new SyntheticCorpus.Generator(seed, MIN_WORDS, MAX_WORDS);
        JsonFactory json = new JsonFactory();
        long chars = 0;
        StringBuilder text = new StringBuilder(4096);
        try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(out), 1 << 16);
                OutputStream os = out.toString().endsWith(".gz") ? new GZIPOutputStream(file, 1 << 16) : file;
                JsonGenerator g = json.createGenerator(os)) {
            g.setRootValueSeparator(null);
            for (int i = 0; i < n; i++) {
                String group = null;
                if (isVariant(seed, share, i)) {
                    int o = originalOf(seed, share, i);
                    gen.original(o);
                    gen.variant(seed ^ 0x5EEDL, i);
                    group = "g" + o;
                } else {
                    gen.original(i);
                    group = hasVariant[i] ? "g" + i : null;
                }
                text.setLength(0);
                gen.text(text);
                chars += text.length();
                g.writeStartObject();
                g.writeStringField("id", "s" + i);
                if (group != null) {
                    g.writeStringField("group", group);
                }
                g.writeStringField("text", text.toString());
                g.writeEndObject();
                g.writeRaw('\n');
                if ((i + 1) % 200_000 == 0) {
                    System.err.printf(
                            Locale.ROOT, "  %,d of %,d documents (%.0f s)%n", i + 1, n, (System.nanoTime() - t0) / 1e9);
                }
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%s: %,d documents (%,d planted variants), %.1f MB of text, %.1f MB on disk, %.0f s%n",
                out,
                n,
                variants,
                chars / 1e6,
                Files.size(out) / 1e6,
                (System.nanoTime() - t0) / 1e9);
    }
}
