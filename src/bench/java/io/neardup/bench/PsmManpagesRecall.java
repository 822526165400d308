/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.FlipModel;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.PsmSearch;
import io.neardup.core.SortedFingerprintTable;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.analysis.Analyzer;

/**
 * Recall of PSM against exact search on a real corpus: every document of the man pages is a query
 * against all the others, fingerprinted with the processor's default scheme, searched as the
 * {@code near_duplicate} query searches one segment (same table, same flip model).
 *
 * <pre>
 * mvn -B -o test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) io.neardup.bench.PsmManpagesRecall ../shared/corpus/manpages.jsonl.gz
 * </pre>
 */
public final class PsmManpagesRecall {

    private PsmManpagesRecall() {}

    public static void main(String[] args) throws Exception {
        List<Corpus.Doc> docs = Corpus.read(Path.of(args[0]), Integer.MAX_VALUE);
        Analyzer analyzer = Corpus.analyzer();
        Fingerprinter fingerprinter = new Fingerprinter(FingerprintScheme.defaults("standard"), null);
        int n = docs.size();
        long[] fingerprints = new long[n];
        Margins[] margins = new Margins[n];
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            Corpus.Tokens tokens = Corpus.tokenize(analyzer, docs.get(i).text());
            fingerprinter.reset();
            for (int t = 0; t < tokens.size(); t++) {
                fingerprinter.token(tokens.chars(), tokens.start(t), tokens.length(t));
            }
            Fingerprint fingerprint = fingerprinter.finish();
            fingerprints[i] = fingerprint.simhash();
            margins[i] = fingerprint.margins();
            ids[i] = i;
        }
        SortedFingerprintTable table = SortedFingerprintTable.build(fingerprints, ids);
        int p = table.indexBits();
        FlipModel model = FlipModel.gaussian(0.5);
        PsmSearch search = new PsmSearch();
        Matches found = new Matches();
        System.out.printf(
                Locale.ROOT,
                "%d documents, p = %d, default scheme %s, flip model %s%n%n",
                n,
                p,
                FingerprintScheme.defaults("standard").id(),
                model.name());
        System.out.println(
                "| h | neighbour pairs | queries with neighbours | k | PSM_A recall | PSM_F queries with a neighbour found |");
        System.out.println("|---|---|---|---|---|---|");
        for (int h : new int[] {3, 6}) {
            int[] exactCounts = new int[n];
            long pairs = 0;
            int queriesWithNeighbours = 0;
            for (int q = 0; q < n; q++) {
                found.clear();
                search.search(
                        table,
                        fingerprints[q],
                        margins[q],
                        model,
                        new PsmSearch.Params(PsmSearch.Mode.EXACT, h, 1, p),
                        found);
                exactCounts[q] = found.size() - 1; // the document itself
                pairs += exactCounts[q];
                queriesWithNeighbours += exactCounts[q] > 0 ? 1 : 0;
            }
            for (int k : new int[] {1, 8, 23, 64, 256}) {
                long foundPairs = 0;
                int firstFound = 0;
                for (int q = 0; q < n; q++) {
                    if (exactCounts[q] == 0) {
                        continue;
                    }
                    found.clear();
                    // the query's own document is excluded, as the near_duplicate query does for like._id
                    search.search(
                            table,
                            fingerprints[q],
                            margins[q],
                            model,
                            new PsmSearch.Params(PsmSearch.Mode.PSM_A, h, k, p),
                            q,
                            found);
                    foundPairs += found.size();
                    found.clear();
                    search.search(
                            table,
                            fingerprints[q],
                            margins[q],
                            model,
                            new PsmSearch.Params(PsmSearch.Mode.PSM_F, h, k, p),
                            q,
                            found);
                    firstFound += found.size() > 0 ? 1 : 0;
                }
                System.out.printf(
                        Locale.ROOT,
                        "| %d | %d | %d | %d | %.3f | %.3f |%n",
                        h,
                        pairs,
                        queriesWithNeighbours,
                        k,
                        (double) foundPairs / pairs,
                        (double) firstFound / queriesWithNeighbours);
            }
        }
    }
}
