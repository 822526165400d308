/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.FingerprintScratch;
import io.neardup.core.Fingerprinter;
import io.neardup.core.MemoryBudget;
import io.neardup.core.SimhashBlockIndex;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.analysis.Analyzer;

/**
 * What a {@code simhash} run's exact join costs a document as a shard grows: the first n documents of a corpus,
 * fingerprinted as the {@code near_dup_fingerprint} processor does with its default options, indexed in
 * {@link SimhashBlockIndex}'s tables for a distance, and every document looked up in them, as the window join looks
 * each document of a shard up in its shard's tables. Per size: the candidates a look-up reads (the documents that
 * agree with it on a block, counted from each block's value histogram, independently of the tables: the sum over
 * blocks of the squared counts over n), what they would be were the fingerprints uniform (blocks × n / 2^width), the
 * matches found, the build time and the look-ups' time a document, on one thread.
 *
 * <p>The candidates of a look-up grow with the shard where the fingerprints are skewed (frequent words pull many
 * simhashes towards one pattern), so the join's work grows with the square of the shard's documents.
 *
 * <pre>
 * $JAVA_HOME/bin/java -Xmx16g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.BlockTableCandidates $DATA/synthetic-10m.jsonl.gz 500000,1500000,5000000 [--distance 3]
 * </pre>
 */
public final class BlockTableCandidates {

    private BlockTableCandidates() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 4) {
            System.err.println("usage: BlockTableCandidates <corpus.jsonl[.gz]> <n,n,...> [--distance h]");
            System.exit(2);
        }
        int[] sizes =
                Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int distance = args.length == 4 ? Integer.parseInt(args[3]) : 3;
        long[] fingerprints =
                fingerprints(Path.of(args[0]), Arrays.stream(sizes).max().orElse(0));
        report(fingerprints, sizes, distance, System.out);
    }

    /** The simhash of each of the first {@code n} documents, with the processor's default options. */
    static long[] fingerprints(Path corpus, int n) throws Exception {
        List<Corpus.Doc> docs = Corpus.read(corpus, n);
        long[] fingerprints = new long[docs.size()];
        Analyzer analyzer = Corpus.analyzer();
        Fingerprinter fingerprinter = new Fingerprinter(
                FingerprintScheme.defaults("standard"), null, new FingerprintScratch(MemoryBudget.NONE), true, false);
        for (int i = 0; i < fingerprints.length; i++) {
            Corpus.Tokens tokens = Corpus.tokenize(analyzer, docs.get(i).text());
            fingerprinter.reset();
            for (int k = 0; k < tokens.size(); k++) {
                fingerprinter.token(tokens.chars(), tokens.start(k), tokens.length(k));
            }
            fingerprints[i] = fingerprinter.finish().simhash();
            docs.set(i, null);
        }
        return fingerprints;
    }

    static void report(long[] fingerprints, int[] sizes, int distance, PrintStream out) {
        int blocks = distance + 1;
        out.printf(
                Locale.ROOT,
                "| documents | candidates a look-up | if uniform | matches a look-up | build | look-up a document |%n"
                        + "|---|---|---|---|---|---|%n");
        for (int size : sizes) {
            int n = Math.min(size, fingerprints.length);
            double candidates = candidatesPerLookUp(fingerprints, n, blocks);
            double uniform = 0;
            for (int b = 0; b < blocks; b++) {
                uniform += n / Math.pow(2, width(b, blocks));
            }
            int[] docs = new int[n];
            Arrays.setAll(docs, i -> i);
            long start = System.nanoTime();
            SimhashBlockIndex index = SimhashBlockIndex.build(fingerprints, docs, n, distance);
            long built = System.nanoTime();
            long[] matches = new long[1];
            for (int i = 0; i < n; i++) {
                index.within(fingerprints[i], distance, (doc, d) -> matches[0]++);
            }
            long looked = System.nanoTime();
            out.printf(
                    Locale.ROOT,
                    "| %,d | %,.1f | %,.1f | %.2f | %.2f s | %.2f µs |%n",
                    n,
                    candidates,
                    uniform,
                    (double) matches[0] / n,
                    (built - start) / 1e9,
                    (looked - built) / 1e3 / n);
        }
    }

    /** The width of block {@code b} of {@code blocks}: the 64 bits cut as evenly as they go, the wider first. */
    private static int width(int b, int blocks) {
        return 64 / blocks + (b < 64 % blocks ? 1 : 0);
    }

    /** The documents agreeing with a look-up on some block, on average over the first {@code n} as look-ups. */
    static double candidatesPerLookUp(long[] fingerprints, int n, int blocks) {
        long sumOfSquares = 0;
        int shift = 0;
        long[] values = new long[n];
        for (int b = 0; b < blocks; b++) {
            int width = width(b, blocks);
            long mask = width == 64 ? -1L : (1L << width) - 1;
            for (int i = 0; i < n; i++) {
                values[i] = (fingerprints[i] >>> shift) & mask;
            }
            Arrays.sort(values);
            int run = 1;
            for (int i = 1; i <= n; i++) {
                if (i < n && values[i] == values[i - 1]) {
                    run++;
                } else {
                    sumOfSquares += (long) run * run;
                    run = 1;
                }
            }
            shift += width;
        }
        return n == 0 ? 0 : (double) sumOfSquares / n;
    }
}
