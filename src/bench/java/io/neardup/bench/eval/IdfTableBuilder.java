/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Options;
import io.neardup.core.IdfTable;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;

/**
 * Builds an IDF table file in the format of {@link IdfTable#load}: {@code #docs<TAB>N}, then
 * {@code term<TAB>df} lines, sorted by descending df then term (so the file is reproducible).
 * df counts documents (JSON lines) whose {@code text} contains the term, as Lucene's
 * StandardAnalyzer without stop words (OpenSearch's {@code standard} analyzer) emits it.
 *
 * <p>Command line (from the project root; {@code bench-cp.txt} as in docs/fingerprints.md):
 * <pre>
 * $JAVA_HOME/bin/java -cp $BUILD/test-classes:$BUILD/classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.IdfTableBuilder config/english-idf.tsv 3 \
 *     $DATA/wordnet.jsonl.gz $DATA/fortunes.jsonl.gz $DATA/manpages.jsonl.gz
 * </pre>
 * Arguments: output file, minimum df (terms below it are dropped; they get the table's default,
 * rare-term idf), then one or more {@code .jsonl.gz} corpora. The file is re-read with
 * {@link IdfTable#load} as a check, and its identity is printed.
 */
public final class IdfTableBuilder {
    public static void main(String[] args) throws Exception {
        Options.requirePositional(args, 3, "IdfTableBuilder <out.tsv> <minDf> <corpus.jsonl.gz>...");
        Path outFile = Path.of(args[0]);
        int minDf = Integer.parseInt(args[1]);
        Analyzer analyzer = Corpus.analyzer();
        Map<String, long[]> df = new HashMap<>();
        long docs = 0;
        for (int c = 2; c < args.length; c++) {
            List<Corpus.Doc> corpus = Corpus.read(Path.of(args[c]), Integer.MAX_VALUE);
            for (Corpus.Doc doc : corpus) {
                docs++;
                Corpus.Tokens t = Corpus.tokenize(analyzer, doc.text());
                Set<String> seen = new HashSet<>();
                for (int k = 0; k < t.size(); k++) {
                    String term = t.term(k);
                    if (seen.add(term)) {
                        df.computeIfAbsent(term, x -> new long[1])[0]++;
                    }
                }
            }
            System.err.printf(Locale.ROOT, "%s: %d docs%n", args[c], corpus.size());
        }
        List<Map.Entry<String, long[]>> kept = new ArrayList<>();
        for (Map.Entry<String, long[]> e : df.entrySet()) {
            if (e.getValue()[0] >= minDf
                    && e.getKey().indexOf('\t') < 0
                    && e.getKey().indexOf('\n') < 0
                    && e.getKey().indexOf('\r') < 0) {
                kept.add(e);
            }
        }
        kept.sort((a, b) -> a.getValue()[0] != b.getValue()[0]
                ? Long.compare(b.getValue()[0], a.getValue()[0])
                : a.getKey().compareTo(b.getKey()));
        Files.createDirectories(outFile.toAbsolutePath().getParent());
        try (BufferedWriter w = Files.newBufferedWriter(outFile, StandardCharsets.UTF_8)) {
            w.write("#docs\t" + docs + "\n");
            for (Map.Entry<String, long[]> e : kept) {
                w.write(e.getKey() + "\t" + e.getValue()[0] + "\n");
            }
        }
        byte[] bytes = Files.readAllBytes(outFile);
        IdfTable table = IdfTable.load("check", 0L, new ByteArrayInputStream(bytes));
        System.err.printf(
                Locale.ROOT,
                "%s: %d docs, %d distinct terms, %d kept (df >= %d), %d bytes, identity %s%n",
                outFile,
                docs,
                df.size(),
                kept.size(),
                minDf,
                bytes.length,
                table.identity());
    }
}
