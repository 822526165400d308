/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.bench.common.Corpus;
import io.neardup.core.ContentHash;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.FingerprintScratch;
import io.neardup.core.Fingerprinter;
import io.neardup.core.MemoryBudget;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.ShingleSetFirstLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Throughput of the ingest hot path over a fixed sample of a corpus (the first {@value #DOCS}
 * documents of {@code ${neardup.shared}/corpus/<corpus>.jsonl.gz}; {@code -p corpus=manpages} or
 * {@code debian-descriptions}, both by default), single thread:
 * <ul>
 *   <li>{@code analysis}: StandardAnalyzer tokenization only;</li>
 *   <li>{@code fingerprint}: the {@link Fingerprinter} only (default scheme: simhash with margins
 *       + 128-value MinHash), fed tokens pre-extracted into char arrays;</li>
 *   <li>{@code analysisAndFingerprint}: both, as the ingest processor runs them;</li>
 *   <li>{@code contentHash}: {@link ContentHash#of}, the {@code content_hash} output;</li>
 *   <li>{@code shingleSetPayload}: {@link ShingleSetCodec#payload} of each document's shingle set (Rice codes);
 *       {@code jaccardRice} and {@code jaccardFirstLayout}: {@link ShingleSetCodec#jaccard} of each document
 *       with the next, on payloads of the current layout and of the first one (varint gaps), which verification
 *       decodes in indices written before it.</li>
 * </ul>
 * One operation is one pass over the whole sample. The {@code bytes} secondary result is the UTF-8
 * size of the sample's texts per second (JMH aux counter): divide by 10^6 for MB/s per core.
 *
 * <p>Run (from the project root):
 * <pre>
 * mvn -B -o -Pbench -Dbuild.dir=$BUILD test-compile exec:exec -Dbench.args="FingerprintBenchmark -f 1 -wi 3 -i 5"
 * </pre>
 * The bench profile passes {@code -Dneardup.shared=<project>/../shared} to the JMH host JVM; JMH
 * forks with the host's JVM arguments, so the forked JVM sees it too (the setup fails loudly if
 * the corpus is not found).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Thread)
public class FingerprintBenchmark {
    static final int DOCS = 400;

    @Param({"manpages", "debian-descriptions"})
    public String corpus;

    private Analyzer analyzer;
    private String[] texts;
    private Corpus.Tokens[] tokens;
    private long sampleBytes;
    private Fingerprinter fingerprinter;
    /** The simhash side alone, as a processor with {@code outputs: [content_hash, simhash]} runs it. */
    private Fingerprinter simhashFingerprinter;

    private int[][] shingleSets;
    private byte[][] ricePayloads;
    private byte[][] firstLayoutPayloads;

    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Bytes {
        /** UTF-8 bytes of input text processed; reported as bytes/s. */
        public long bytes;

        @Setup(Level.Iteration)
        public void clean() {
            bytes = 0;
        }
    }

    @Setup
    public void setup() throws IOException {
        String shared = System.getProperty("neardup.shared", "../shared");
        Path corpus = Path.of(shared, "corpus", this.corpus + ".jsonl.gz");
        if (!Files.isReadable(corpus)) {
            throw new IllegalStateException("corpus not found: " + corpus + " (set -Dneardup.shared)");
        }
        setup(corpus);
    }

    /** The setup over the first {@value #DOCS} documents of a corpus file (the suite's run uses a tiny one). */
    public void setup(Path corpus) throws IOException {
        List<Corpus.Doc> docs = Corpus.read(corpus, DOCS);
        analyzer = Corpus.analyzer();
        texts = new String[docs.size()];
        tokens = new Corpus.Tokens[docs.size()];
        long tokenCount = 0;
        for (int i = 0; i < texts.length; i++) {
            texts[i] = docs.get(i).text();
            sampleBytes += docs.get(i).utf8Bytes();
            tokens[i] = Corpus.tokenize(analyzer, texts[i]);
            tokenCount += tokens[i].size();
        }
        fingerprinter = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        simhashFingerprinter = new Fingerprinter(
                FingerprintScheme.defaults("standard"), null, new FingerprintScratch(MemoryBudget.NONE), true, false);
        shingleSets = new int[texts.length][];
        ricePayloads = new byte[texts.length][];
        firstLayoutPayloads = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            fingerprinter.reset();
            for (int k = 0; k < tokens[i].size(); k++) {
                fingerprinter.token(tokens[i].chars(), tokens[i].start(k), tokens[i].length(k));
            }
            shingleSets[i] = fingerprinter.finish(true).shingleSet();
            ricePayloads[i] = ShingleSetCodec.payload(shingleSets[i]);
            firstLayoutPayloads[i] = ShingleSetFirstLayout.of(shingleSets[i]);
        }
        System.err.printf(
                Locale.ROOT,
                "%nsample: %s, %d docs, %d UTF-8 bytes, %d tokens, scheme %s%n",
                corpus,
                texts.length,
                sampleBytes,
                tokenCount,
                fingerprinter.scheme().describe());
    }

    @Benchmark
    public void analysis(Bytes counter, Blackhole bh) {
        for (String text : texts) {
            try (TokenStream ts = analyzer.tokenStream("text", text)) {
                CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
                ts.reset();
                int sum = 0;
                while (ts.incrementToken()) {
                    sum += term.length() + term.buffer()[0];
                }
                ts.end();
                bh.consume(sum);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        counter.bytes += sampleBytes;
    }

    @Benchmark
    public void contentHash(Bytes counter, Blackhole bh) {
        for (String text : texts) {
            bh.consume(ContentHash.of(text));
        }
        counter.bytes += sampleBytes;
    }

    @Benchmark
    public void shingleSetPayload(Blackhole bh) {
        for (int[] set : shingleSets) {
            bh.consume(ShingleSetCodec.payload(set));
        }
    }

    @Benchmark
    public double jaccardRice() {
        return jaccardOfNeighbours(ricePayloads);
    }

    @Benchmark
    public double jaccardFirstLayout() {
        return jaccardOfNeighbours(firstLayoutPayloads);
    }

    private static double jaccardOfNeighbours(byte[][] payloads) {
        double sum = 0;
        for (int i = 1; i < payloads.length; i++) {
            byte[] a = payloads[i - 1], b = payloads[i];
            sum += ShingleSetCodec.jaccard(a, 0, a.length, b, 0, b.length);
        }
        return sum;
    }

    @Benchmark
    public void fingerprint(Bytes counter, Blackhole bh) {
        fingerprintWith(fingerprinter, counter, bh);
    }

    @Benchmark
    public void fingerprintSimhashOnly(Bytes counter, Blackhole bh) {
        fingerprintWith(simhashFingerprinter, counter, bh);
    }

    private void fingerprintWith(Fingerprinter f, Bytes counter, Blackhole bh) {
        for (Corpus.Tokens t : tokens) {
            f.reset();
            char[] chars = t.chars();
            int n = t.size();
            for (int k = 0; k < n; k++) {
                f.token(chars, t.start(k), t.length(k));
            }
            bh.consume(f.finish());
        }
        counter.bytes += sampleBytes;
    }

    @Benchmark
    public void analysisAndFingerprint(Bytes counter, Blackhole bh) {
        Fingerprinter f = fingerprinter;
        for (String text : texts) {
            f.reset();
            try (TokenStream ts = analyzer.tokenStream("text", text)) {
                CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
                ts.reset();
                while (ts.incrementToken()) {
                    f.token(term.buffer(), 0, term.length());
                }
                ts.end();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            bh.consume(f.finish());
        }
        counter.bytes += sampleBytes;
    }
}
