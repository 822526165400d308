/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.MinhashDocuments;
import io.neardup.bench.common.Corpus;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.FingerprintScratch;
import io.neardup.core.Fingerprinter;
import io.neardup.core.LshBanding;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.MemoryBudget;
import io.neardup.core.MinHasher;
import io.neardup.core.PsmSearch;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.MinhashSimilarityQuery;
import io.neardup.index.SimhashNeighborQuery;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Accuracy of the {@code near_duplicate} query on a {@code minhash} field against the exact Jaccard
 * similarity of every pair of documents, at thresholds 0.5 to 0.95, from <em>one</em> index.
 *
 * <p>Truth (independent of the plugin's hashing and of the code under test): each document's set of
 * word 3-shingles, the words from Lucene's StandardAnalyzer (OpenSearch's {@code standard}), each
 * shingle hashed to 64 bits with FNV-1a over its characters (collisions: 2^-64 per pair of shingles);
 * every pair's Jaccard by an inverted index over those hashes.
 *
 * <p>System: the ingest processor's own {@link Fingerprinter} (default scheme) gives each document's
 * signature and shingle set; they are indexed in the Lucene layout of the {@code minhash} field
 * (signature doc values, band terms, {@code ._shingles} doc values, scheme), and every document is
 * queried with the real {@link MinhashSimilarityQuery} at every threshold, excluding itself.
 * Precision and recall are over ordered (query, result) pairs. Modes:
 * <ul>
 *   <li>{@code before}: what the previous version shipped: banding for threshold 0.8 (12 x 10), one
 *       band, verified by the estimate;</li>
 *   <li>{@code estimate}: the new default banding (floor 0.5: 42 x 3) with the automatic
 *       {@code min_band_matches}, verified by the estimate;</li>
 *   <li>{@code exact}: the same candidates, verified by the exact Jaccard of the stored sets (the new default).</li>
 * </ul>
 * Also reported: candidates read per query, in-process query latency, and storage (bytes per document
 * of the shingle sets, and the merged index size with and without them).
 *
 * <pre>
 * export MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow
 * mvn -B -o -Dbuild.dir=$BUILD test-compile
 * mvn -B -o -Dbuild.dir=$BUILD dependency:build-classpath -Dmdep.outputFile=$BUILD/bench-cp.txt -Dmdep.includeScope=test
 * $JAVA_HOME/bin/java -Xmx6g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.JaccardAccuracy $DATA/manpages.jsonl.gz [--out report.md] [--export DIR] [--format 1|2] \
 *     [--misses FILE]
 * </pre>
 * {@code --misses FILE} writes every ordered true pair the exact mode did not return ({@code tau query doc jaccard}),
 * to compare two runs pair by pair.
 * {@code --format} (default 1) is the fingerprint format of the index and the queries ({@link FingerprintFormat}):
 * in format 2 the signatures are the shingle sets' and the band keys 4 bytes; the report then also counts the
 * candidates the 4-byte keys add over 8-byte keys of the same signatures ({@link KeyTruncation}), and whether
 * verification keeps any.
 * {@code --export DIR} writes {@code shingles.tsv} (one line per document: its 3-shingles' 32-bit
 * values as the plugin stores them, space-separated) and {@code truth.tsv} ({@code i j jaccard} for
 * every unordered pair with Jaccard >= 0.5) for a side-by-side run of another library on the same sets.
 */
public final class JaccardAccuracy {
    static final double[] TAUS = {0.5, 0.6, 0.7, 0.8, 0.9, 0.95};
    private static final String[] MODES = {"before", "estimate", "exact"};
    private static final String OLD = "old.minhash";
    private static final String NEW = "new.minhash";
    private static final double TRUTH_FLOOR = 0.5;

    public static void main(String[] args) throws Exception {
        Path corpus = Path.of(args[0]);
        PrintStream out = System.out;
        Path export = null;
        Path misses = null;
        FingerprintFormat format = FingerprintFormat.SIGNATURE;
        for (int a = 1; a < args.length; a += 2) {
            switch (args[a]) {
                case "--out" ->
                    out = new PrintStream(Files.newOutputStream(Path.of(args[a + 1])), true, StandardCharsets.UTF_8);
                case "--export" -> export = Path.of(args[a + 1]);
                case "--misses" -> misses = Path.of(args[a + 1]);
                case "--format" -> format = FingerprintFormat.of(Integer.parseInt(args[a + 1]));
                default -> throw new IllegalArgumentException("unknown option " + args[a]);
            }
        }
        long started = System.nanoTime();
        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        int n = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        Fingerprinter fingerprinter =
                new Fingerprinter(scheme, null, new FingerprintScratch(MemoryBudget.NONE), true, true, format);
        long[][] truthSets = new long[n][];
        int[][] signatures = new int[n][];
        int[][] shingleSets = new int[n][];
        long[] simhashes = new long[n];
        Margins[] margins = new Margins[n];
        long shingleBytes = 0, shingles = 0;
        for (int i = 0; i < n; i++) {
            Corpus.Tokens tokens = Corpus.tokenize(analyzer, docs.get(i).text());
            truthSets[i] = Corpus.truthShingles(tokens, 3);
            fingerprinter.reset();
            for (int k = 0; k < tokens.size(); k++) {
                fingerprinter.token(tokens.chars(), tokens.start(k), tokens.length(k));
            }
            Fingerprint fingerprint = fingerprinter.finish(true);
            signatures[i] = fingerprint.minhash();
            simhashes[i] = fingerprint.simhash();
            margins[i] = fingerprint.margins();
            shingleSets[i] = fingerprint.shingleSet();
            shingleBytes += ShingleSetCodec.payload(shingleSets[i]).length;
            shingles += shingleSets[i].length;
        }
        System.err.printf(Locale.ROOT, "fingerprinted %d documents in %.1f s%n", n, seconds(started));

        long truthStarted = System.nanoTime();
        Map<Long, Double> truth = Corpus.exactPairs(truthSets, TRUTH_FLOOR);
        long[] truthPositives = new long[TAUS.length];
        for (double j : truth.values()) {
            for (int t = 0; t < TAUS.length; t++) {
                truthPositives[t] += j >= TAUS[t] ? 2 : 0; // ordered pairs
            }
        }
        System.err.printf(
                Locale.ROOT,
                "truth: %d unordered pairs with J >= %.1f in %.1f s%n",
                truth.size(),
                TRUTH_FLOOR,
                seconds(truthStarted));
        if (export != null) {
            export(export, shingleSets, truth, n);
        }

        LshBanding before = LshBanding.optimal(
                MinhashFieldMapper.DEFAULT_THRESHOLD,
                128,
                MinhashFieldMapper.DEFAULT_FALSE_POSITIVE_WEIGHT,
                MinhashFieldMapper.DEFAULT_FALSE_NEGATIVE_WEIGHT);
        LshBanding floor = LshBanding.forFloor(MinhashFieldMapper.DEFAULT_MIN_SIMILARITY_FLOOR, 128);
        MinhashFieldMapper.MinhashFieldType oldType = MinhashDocuments.fieldType(OLD, before, format, 128);
        MinhashFieldMapper.MinhashFieldType newType = MinhashDocuments.fieldType(NEW, floor, format, 128);
        Path dir = Files.createTempDirectory("jaccard-accuracy");
        long sizeWithSets = indexSize(dir.resolve("sizes-with"), signatures, shingleSets, newType, true);
        long sizeWithoutSets = indexSize(dir.resolve("sizes-without"), signatures, shingleSets, newType, false);

        long[][] found = new long[MODES.length][TAUS.length];
        long[][] correct = new long[MODES.length][TAUS.length];
        long[][] candidates = new long[MODES.length][TAUS.length];
        long[][][] nanos = new long[MODES.length][TAUS.length][n];
        String truncation;
        long[] truthKeys =
                truth.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
        BitSet[] exactFound = new BitSet[TAUS.length];
        Arrays.setAll(exactFound, t -> new BitSet());
        try (Directory directory = FSDirectory.open(dir.resolve("index"))) {
            try (IndexWriter writer = new IndexWriter(
                    directory,
                    new IndexWriterConfig()
                            .setMergePolicy(new LogDocMergePolicy())
                            .setRAMBufferSizeMB(256))) {
                for (int i = 0; i < n; i++) {
                    Document doc = new Document();
                    addMinhash(doc, oldType, signatures[i], null, scheme);
                    addMinhash(doc, newType, signatures[i], shingleSets[i], scheme);
                    writer.addDocument(doc);
                }
                writer.forceMerge(1);
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                searcher.setQueryCache(null);
                for (int i = 0; i < n; i++) {
                    byte[] set = ShingleSetCodec.payload(shingleSets[i]);
                    for (int t = 0; t < TAUS.length; t++) {
                        double tau = TAUS[t];
                        for (int mode = 0; mode < MODES.length; mode++) {
                            MinhashSimilarityQuery query = switch (mode) {
                                case 0 ->
                                    new MinhashSimilarityQuery(
                                            oldType, signatures[i], null, scheme.schemeHash(), scheme.id(), 1, tau);
                                case 1 ->
                                    new MinhashSimilarityQuery(
                                            newType,
                                            signatures[i],
                                            null,
                                            scheme.schemeHash(),
                                            scheme.id(),
                                            floor.minBandMatchesFor(tau),
                                            tau);
                                default ->
                                    new MinhashSimilarityQuery(
                                            newType,
                                            signatures[i],
                                            set,
                                            scheme.schemeHash(),
                                            scheme.id(),
                                            floor.minBandMatchesFor(tau),
                                            tau);
                            };
                            long t0 = System.nanoTime();
                            int[] hits = searcher.search(query, new DocIds());
                            nanos[mode][t][i] = System.nanoTime() - t0;
                            for (int doc : hits) {
                                if (doc == i) {
                                    continue;
                                }
                                found[mode][t]++;
                                Double j = truth.get(key(i, doc));
                                if (j != null && j >= tau) {
                                    correct[mode][t]++;
                                    if (mode == MODES.length - 1) {
                                        exactFound[t].set(
                                                2 * Arrays.binarySearch(truthKeys, key(i, doc)) + (i < doc ? 0 : 1));
                                    }
                                }
                            }
                            if (i % 10 == 0) {
                                candidates[mode][t] += searcher.count(query.bandQuery());
                            }
                        }
                    }
                    if (i % 5000 == 0) {
                        System.err.printf(Locale.ROOT, "queried %d / %d%n", i, n);
                    }
                }
                truncation = format.bandKeyBytes() < Long.BYTES
                        ? keyTruncation(searcher, signatures, shingleSets, scheme, oldType, newType)
                        : "";
            }
        }
        IOUtils.deleteRecursively(dir);
        if (misses != null) {
            writeMisses(misses, truthKeys, truth, exactFound);
        }

        out.printf(Locale.ROOT, "## %s: %,d documents, %s%n%n", corpus.getFileName(), n, format.describe());
        out.printf(
                Locale.ROOT,
                "Truth: %,d unordered pairs with exact 3-shingle Jaccard >= 0.5. Every document queried at every "
                        + "threshold (%,d queries per mode); precision and recall over ordered (query, result) pairs.%n%n",
                truth.size(),
                (long) n * TAUS.length);
        out.println("| τ | true pairs | before (12×10, estimate) P / R / F1 | estimate (42×3, auto m) P / R / F1 "
                + "| exact (42×3, auto m) P / R / F1 | m at τ |");
        out.println("|---|---|---|---|---|---|");
        for (int t = 0; t < TAUS.length; t++) {
            StringBuilder row =
                    new StringBuilder(String.format(Locale.ROOT, "| %.2f | %,d |", TAUS[t], truthPositives[t]));
            for (int mode = 0; mode < MODES.length; mode++) {
                double p = found[mode][t] == 0 ? 1 : (double) correct[mode][t] / found[mode][t];
                double r = truthPositives[t] == 0 ? 1 : (double) correct[mode][t] / truthPositives[t];
                double f1 = p + r == 0 ? 0 : 2 * p * r / (p + r);
                row.append(String.format(Locale.ROOT, " %.3f / %.3f / **%.3f** |", p, r, f1));
            }
            row.append(' ').append(floor.minBandMatchesFor(TAUS[t])).append(" |");
            out.println(row);
        }
        out.println();
        StringBuilder missed = new StringBuilder(), wrong = new StringBuilder();
        for (int t = 0; t < TAUS.length; t++) {
            int exact = MODES.length - 1;
            missed.append(t == 0 ? "" : " / ").append(truthPositives[t] - correct[exact][t]);
            wrong.append(t == 0 ? "" : " / ").append(found[exact][t] - correct[exact][t]);
        }
        out.printf(
                Locale.ROOT,
                "Exact verification, ordered pairs at τ = 0.5 … 0.95: true pairs not returned %s; returned below τ %s.%n%n",
                missed,
                wrong);
        out.println(
                "| τ | candidates read per query (before / estimate / exact) | median latency µs (before / estimate / exact) "
                        + "| p99 µs |");
        out.println("|---|---|---|---|");
        for (int t = 0; t < TAUS.length; t++) {
            long sampled = (n + 9) / 10;
            out.printf(
                    Locale.ROOT,
                    "| %.2f | %.1f / %.1f / %.1f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f |%n",
                    TAUS[t],
                    (double) candidates[0][t] / sampled,
                    (double) candidates[1][t] / sampled,
                    (double) candidates[2][t] / sampled,
                    percentile(nanos[0][t], 0.5),
                    percentile(nanos[1][t], 0.5),
                    percentile(nanos[2][t], 0.5),
                    percentile(nanos[0][t], 0.99),
                    percentile(nanos[1][t], 0.99),
                    percentile(nanos[2][t], 0.99));
        }
        out.println();
        out.printf(
                Locale.ROOT,
                "Storage: shingle sets average %.0f bytes a document (%.0f shingles, %.2f bytes a shingle) in doc "
                        + "values, and %.0f characters of base64 in `_source`; the signature is 512 bytes%s. Merged Lucene index of the minhash field "
                        + "(signature, 42 band terms of %d bytes, scheme): %,d bytes without the sets, %,d with them (%.0f vs %.0f bytes a document).%n%n",
                (double) shingleBytes / n,
                (double) shingles / n,
                (double) shingleBytes / Math.max(1, shingles),
                Math.ceil((shingleBytes + 5.0 * n) * 4 / 3) / n,
                format.derivesSignatureFromSet() ? ", stored only by a document without a set" : "",
                newType.bandTermBytes(),
                sizeWithoutSets,
                sizeWithSets,
                (double) sizeWithoutSets / n,
                (double) sizeWithSets / n);
        out.print(truncation);
        simhashRecall(out, truth, simhashes, margins);
        out.printf(Locale.ROOT, "Whole run: %.0f s.%n", seconds(started));
    }

    private static final double[] SIMHASH_TAUS = {0.8, 0.9};
    private static final int[] DISTANCES = {3, 4, 5, 6, 7, 8};
    private static final int[] FLIPS = {64, 256, 1024, 4096};

    /**
     * A {@code simhash} query with {@code min_similarity}: candidates within h bits, verified exactly
     * (precision 1), so its recall is the share of pairs at or above tau that the candidate search
     * reaches: by {@code mode: exact}, every pair within h; by PSM, those its k flip sets find (the
     * core search the query runs per segment, here over one table of the whole corpus).
     */
    private static void simhashRecall(PrintStream out, Map<Long, Double> truth, long[] simhashes, Margins[] margins) {
        int n = simhashes.length;
        int[] docs = new int[n];
        for (int i = 0; i < n; i++) {
            docs[i] = i;
        }
        SortedFingerprintTable table = SortedFingerprintTable.build(simhashes.clone(), docs);
        int prefixBits = SortedFingerprintTable.defaultIndexBits(n);
        long[] positives = new long[SIMHASH_TAUS.length];
        long[][] withinExact = new long[SIMHASH_TAUS.length][DISTANCES.length];
        truth.forEach((key, jaccard) -> {
            int d = Long.bitCount(simhashes[(int) (key >>> 32)] ^ simhashes[(int) (key & 0xFFFFFFFFL)]);
            for (int t = 0; t < SIMHASH_TAUS.length; t++) {
                if (jaccard >= SIMHASH_TAUS[t]) {
                    positives[t] += 2;
                    for (int h = 0; h < DISTANCES.length; h++) {
                        withinExact[t][h] += d <= DISTANCES[h] ? 2 : 0;
                    }
                }
            }
        });
        long[][][] withinPsm = new long[SIMHASH_TAUS.length][DISTANCES.length][FLIPS.length];
        PsmSearch search = new PsmSearch();
        Matches matches = new Matches();
        for (int h = 0; h < DISTANCES.length; h++) {
            for (int k = 0; k < FLIPS.length; k++) {
                PsmSearch.Params params =
                        new PsmSearch.Params(PsmSearch.Mode.PSM_A, DISTANCES[h], FLIPS[k], prefixBits);
                for (int i = 0; i < n; i++) {
                    matches.clear();
                    search.search(table, simhashes[i], margins[i], SimhashNeighborQuery.FLIP_MODEL, params, i, matches);
                    for (int m = 0; m < matches.size(); m++) {
                        Double jaccard = truth.get(key(i, matches.doc(m)));
                        for (int t = 0; t < SIMHASH_TAUS.length; t++) {
                            withinPsm[t][h][k] += jaccard != null && jaccard >= SIMHASH_TAUS[t] ? 1 : 0;
                        }
                    }
                }
            }
        }
        out.println(
                "Simhash with `min_similarity` (candidates within h bits, verified on the exact Jaccard, so precision is 1): recall "
                        + "against every pair at or above τ, by `max_distance` h; `exact` mode, then PSM with `max_flips` k = "
                        + Arrays.toString(FLIPS) + " (p = " + prefixBits + ").");
        out.println();
        out.println("| τ | pairs | h | recall, exact mode | recall, PSM k = " + Arrays.toString(FLIPS) + " |");
        out.println("|---|---|---|---|---|");
        for (int t = 0; t < SIMHASH_TAUS.length; t++) {
            for (int h = 0; h < DISTANCES.length; h++) {
                StringBuilder psm = new StringBuilder();
                for (int k = 0; k < FLIPS.length; k++) {
                    psm.append(k == 0 ? "" : " / ")
                            .append(String.format(Locale.ROOT, "%.3f", ratio(withinPsm[t][h][k], positives[t])));
                }
                out.printf(
                        Locale.ROOT,
                        "| %.2f | %,d | %d | %.3f | %s |%n",
                        SIMHASH_TAUS[t],
                        positives[t],
                        DISTANCES[h],
                        ratio(withinExact[t][h], positives[t]),
                        psm);
            }
        }
        out.println();
    }

    private static double ratio(long part, long whole) {
        return whole == 0 ? 1 : (double) part / whole;
    }

    /**
     * The band candidates the fields' 4-byte keys (format 2) add over 8-byte keys of the same signatures
     * ({@link KeyTruncation}), and whether verification keeps any: each such pair is queried both ways, as the main
     * loop queries, at every threshold where it is an extra candidate.
     */
    private static String keyTruncation(
            IndexSearcher searcher,
            int[][] signatures,
            int[][] shingleSets,
            FingerprintScheme scheme,
            MinhashFieldMapper.MinhashFieldType oldType,
            MinhashFieldMapper.MinhashFieldType newType)
            throws IOException {
        List<KeyTruncation.Pair> oldPairs = KeyTruncation.pairs(signatures, oldType);
        List<KeyTruncation.Pair> newPairs = KeyTruncation.pairs(signatures, newType);
        int n = signatures.length;
        int keyBytes = newType.format().bandKeyBytes();
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "Band keys of %d bytes against 8-byte keys of the same signatures, over all %,d pairs of documents: "
                        + "%d (pair, band) collisions in %d pairs on the 42 × 3 field (expected pairs × bands / 2^%d = %.2f), "
                        + "%d in %d pairs on the 12 × 10 field (expected %.2f).%n%n",
                keyBytes,
                n * (n - 1L) / 2,
                KeyTruncation.collisions(newPairs),
                newPairs.size(),
                8 * keyBytes,
                KeyTruncation.expected(n, newType.banding(), keyBytes),
                KeyTruncation.collisions(oldPairs),
                oldPairs.size(),
                KeyTruncation.expected(n, oldType.banding(), keyBytes)));
        text.append("| τ | extra candidates, 42 × 3 at m (ordered pairs): counted / returned by the band query "
                + "| of them kept: estimate / exact | extra candidates, 12 × 10 at m = 1: counted / returned "
                + "| of them kept: estimate |\n|---|---|---|---|---|\n");
        for (double tau : TAUS) {
            int m = newType.banding().minBandMatchesFor(tau);
            long[] extra = new long[2];
            long[] band = new long[2];
            long[] kept = new long[3];
            for (KeyTruncation.Pair pair : newPairs) {
                if (pair.extraAt(m)) {
                    extra[0] += 2;
                    band[0] += found(searcher, newType, signatures, null, scheme, m, tau, pair, true);
                    kept[0] += found(searcher, newType, signatures, null, scheme, m, tau, pair, false);
                    kept[1] += found(searcher, newType, signatures, shingleSets, scheme, m, tau, pair, false);
                }
            }
            for (KeyTruncation.Pair pair : oldPairs) {
                if (pair.extraAt(1)) {
                    extra[1] += 2;
                    band[1] += found(searcher, oldType, signatures, null, scheme, 1, tau, pair, true);
                    kept[2] += found(searcher, oldType, signatures, null, scheme, 1, tau, pair, false);
                }
            }
            text.append(String.format(
                    Locale.ROOT,
                    "| %.2f | %d / %d (m = %d) | %d / %d | %d / %d | %d |%n",
                    tau,
                    extra[0],
                    band[0],
                    m,
                    kept[0],
                    kept[1],
                    extra[1],
                    band[1],
                    kept[2]));
        }
        text.append('\n');
        listPairs(text, "42 × 3", newPairs, signatures, shingleSets);
        listPairs(text, "12 × 10", oldPairs, signatures, shingleSets);
        return text.append(newPairs.isEmpty() && oldPairs.isEmpty() ? "" : "\n").toString();
    }

    /** One line per pair (the first 30): its bands that agree at either key width, its Jaccard and estimate. */
    private static void listPairs(
            StringBuilder text, String field, List<KeyTruncation.Pair> pairs, int[][] signatures, int[][] sets) {
        for (KeyTruncation.Pair pair : pairs.subList(0, Math.min(pairs.size(), 30))) {
            text.append(String.format(
                    Locale.ROOT,
                    "- %s field, documents %d and %d: %d bands agree with 8-byte keys, %d with the field's; "
                            + "Jaccard of the sets %.3f, estimate %.3f%n",
                    field,
                    pair.a(),
                    pair.b(),
                    pair.wideBands(),
                    pair.narrowBands(),
                    setJaccard(sets[pair.a()], sets[pair.b()]),
                    MinHasher.jaccard(signatures[pair.a()], signatures[pair.b()])));
        }
    }

    /** How many of the pair's two queries (from each side) return the other document; {@code bands}: their band queries. */
    private static int found(
            IndexSearcher searcher,
            MinhashFieldMapper.MinhashFieldType type,
            int[][] signatures,
            int[][] shingleSets,
            FingerprintScheme scheme,
            int m,
            double tau,
            KeyTruncation.Pair pair,
            boolean bands)
            throws IOException {
        int found = 0;
        for (int[] ends : new int[][] {{pair.a(), pair.b()}, {pair.b(), pair.a()}}) {
            byte[] set = shingleSets == null ? null : ShingleSetCodec.payload(shingleSets[ends[0]]);
            MinhashSimilarityQuery query = new MinhashSimilarityQuery(
                    type, signatures[ends[0]], set, scheme.schemeHash(), scheme.id(), m, tau);
            int[] hits = searcher.search(bands ? query.bandQuery() : query, new DocIds());
            found += Arrays.stream(hits).anyMatch(d -> d == ends[1]) ? 1 : 0;
        }
        return found;
    }

    private static double setJaccard(int[] a, int[] b) {
        byte[] left = ShingleSetCodec.payload(a);
        byte[] right = ShingleSetCodec.payload(b);
        return ShingleSetCodec.jaccard(left, 0, left.length, right, 0, right.length);
    }

    private static void addMinhash(
            Document doc,
            MinhashFieldMapper.MinhashFieldType type,
            int[] signature,
            int[] shingleSet,
            FingerprintScheme scheme) {
        MinhashDocuments.add(
                doc, type, signature, shingleSet == null ? null : ShingleSetCodec.payload(shingleSet), scheme.id());
    }

    private static long indexSize(
            Path path,
            int[][] signatures,
            int[][] shingleSets,
            MinhashFieldMapper.MinhashFieldType type,
            boolean withSets)
            throws IOException {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        try (Directory directory = FSDirectory.open(path)) {
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
                for (int i = 0; i < signatures.length; i++) {
                    Document doc = new Document();
                    addMinhash(doc, type, signatures[i], withSets ? shingleSets[i] : null, scheme);
                    writer.addDocument(doc);
                }
                writer.forceMerge(1);
            }
            long size = 0;
            for (String file : directory.listAll()) {
                size += directory.fileLength(file);
            }
            return size;
        }
    }

    /** Every ordered true pair ({@code tau query doc jaccard}) that the exact mode did not return. */
    private static void writeMisses(Path file, long[] truthKeys, Map<Long, Double> truth, BitSet[] found)
            throws IOException {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8)) {
            for (int t = 0; t < TAUS.length; t++) {
                for (int p = 0; p < truthKeys.length; p++) {
                    double j = truth.get(truthKeys[p]);
                    int a = (int) (truthKeys[p] >>> 32), b = (int) truthKeys[p];
                    for (int side = 0; side < 2 && j >= TAUS[t]; side++) {
                        if (found[t].get(2 * p + side) == false) {
                            out.printf(
                                    Locale.ROOT,
                                    "%.2f\t%d\t%d\t%.6f%n",
                                    TAUS[t],
                                    side == 0 ? a : b,
                                    side == 0 ? b : a,
                                    j);
                        }
                    }
                }
            }
        }
    }

    private static long key(int a, int b) {
        return a < b ? (long) a << 32 | b : (long) b << 32 | a;
    }

    private static void export(Path dir, int[][] shingleSets, Map<Long, Double> truth, int n) throws IOException {
        Files.createDirectories(dir);
        try (PrintStream out =
                new PrintStream(Files.newOutputStream(dir.resolve("shingles.tsv")), false, StandardCharsets.UTF_8)) {
            for (int[] set : shingleSets) {
                StringBuilder line = new StringBuilder();
                for (int v : set) {
                    line.append(line.isEmpty() ? "" : " ").append(Integer.toUnsignedString(v));
                }
                out.println(line);
            }
        }
        try (PrintStream out =
                new PrintStream(Files.newOutputStream(dir.resolve("truth.tsv")), false, StandardCharsets.UTF_8)) {
            truth.forEach((k, j) -> out.printf(Locale.ROOT, "%d\t%d\t%.6f%n", k >>> 32, k & 0xFFFFFFFFL, j));
        }
        System.err.println("exported " + n + " shingle sets and " + truth.size() + " truth pairs to " + dir);
    }

    private static double percentile(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) (q * sorted.length))] / 1e3;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /** Collects the matching doc ids of one (single-segment) search. */
    private static final class DocIds implements CollectorManager<DocIds.IdCollector, int[]> {
        @Override
        public IdCollector newCollector() {
            return new IdCollector();
        }

        @Override
        public int[] reduce(Collection<IdCollector> collectors) {
            List<Integer> all = new ArrayList<>();
            for (IdCollector c : collectors) {
                for (int i = 0; i < c.size; i++) {
                    all.add(c.ids[i]);
                }
            }
            return all.stream().mapToInt(Integer::intValue).toArray();
        }

        static final class IdCollector implements Collector {
            int[] ids = new int[16];
            int size;

            @Override
            public LeafCollector getLeafCollector(LeafReaderContext context) {
                int base = context.docBase;
                return new LeafCollector() {
                    @Override
                    public void setScorer(Scorable scorer) {}

                    @Override
                    public void collect(int doc) {
                        if (size == ids.length) {
                            ids = Arrays.copyOf(ids, size * 2);
                        }
                        ids[size++] = base + doc;
                    }
                };
            }

            @Override
            public ScoreMode scoreMode() {
                return ScoreMode.COMPLETE_NO_SCORES;
            }
        }
    }

    private static final class IOUtils {
        static void deleteRecursively(Path dir) throws IOException {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder())
                        .forEach(p -> p.toFile().delete());
            }
        }
    }
}
