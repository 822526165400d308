/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.core.FeatureWeighting;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.IdfTable;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.apache.lucene.analysis.Analyzer;

/**
 * Measures which simhash feature scheme should be the default: for simhash_shingle_size 1/2/3 x
 * weighting binary/tf/log_tf x IDF none / a given table (18 schemes, everything else as
 * {@link FingerprintScheme#defaults}), on several corpora, how often near-duplicate pairs land within
 * 3 and 6 bits, by Jaccard bucket, and how often unrelated pairs do.
 *
 * <p>Truth: the exact Jaccard similarity of two documents' sets of word 3-shingles. Tokens are
 * those of {@link Corpus#analyzer()} (what the processor's {@code standard} analyzer emits); each
 * shingle is hashed with FNV-1a 64 over the UTF-16 units of its words joined by one space, a hash
 * independent of the fingerprinter's Murmur3, so that no error of the fingerprinter's own shingling
 * can leak into the truth. A text of 1 or 2 words has one shingle of all its words; texts with no
 * token are left out of the evaluation.
 *
 * <p>Pairs, per corpus: (a) every pair with Jaccard >= 0.5, found exactly by prefix filtering
 * (AllPairs, Bayardo et al. 2007: shingles ordered rarest first, documents by size; a pair that
 * reaches the threshold shares a shingle of their prefixes, and every candidate is verified with
 * the exact Jaccard), so no frequent shingle needs to be skipped; if there are more than
 * {@code --max-near-pairs}, a uniform reservoir sample of that many (seeded) is scored instead; (b)
 * {@code --random-pairs} uniformly random pairs of distinct documents (seeded), almost all
 * unrelated, of which those with Jaccard < 0.3 measure false closeness. Every scheme is scored on
 * the same pairs, with fingerprints from the real {@link Fingerprinter} fed the same tokens.
 *
 * <p>Objective (also written into the report): maximize the share of pairs with Jaccard >= 0.9
 * within 3 bits, averaged over the corpora that have at least {@value #MIN_HIGH_PAIRS} such pairs
 * (over all that have any if none has that many), subject to the share of unrelated pairs
 * (Jaccard < 0.3) within 3 bits staying under 0.1% on every corpus.
 *
 * <p>Command line (from the project root):
 * <pre>
 * export MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow
 * mvn -B -o -q -Dbuild.dir=$BUILD test-compile
 * mvn -B -o -q -Dbuild.dir=$BUILD dependency:build-classpath -Dmdep.outputFile=$BUILD/bench-cp.txt \
 *     -Dmdep.includeScope=test
 * $JAVA_HOME/bin/java -Xmx8g -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.SimhashSchemeEvaluation --out report.md \
 *     $DATA/manpages.jsonl.gz $DATA/debian-descriptions.jsonl.gz \
 *     $DATA/wordnet.jsonl.gz
 * </pre>
 * Options: {@code --out} (markdown report; default stdout), {@code --idf-table} (default
 * {@code config/english-idf.tsv}, loaded as the ingest factory loads it: name = file name without
 * extension, the scheme's seed), {@code --idf-built-from} (comma-separated corpus names the table
 * was counted on, to mark where its rows are not held-out; default
 * {@code wordnet,fortunes,manpages}, true of the shipped table), {@code --random-pairs} (200000),
 * {@code --max-near-pairs} (2000000), {@code --seed} (42), {@code --threads} (2; schemes are
 * fingerprinted in parallel). Deterministic for a given seed. Takes about a minute on 2 cores
 * for the three corpora above (0.9–2.4 GB resident, as the collector pleases).
 */
public final class SimhashSchemeEvaluation {
    private static final int TRUTH_SHINGLE_SIZE = 3;
    private static final double NEAR_THRESHOLD = 0.5;
    private static final double UNRELATED_BELOW = 0.3;
    private static final int CLOSE_BITS = 3;
    private static final int LOOSE_BITS = 6;
    /** Constraint: unrelated pairs within {@link #CLOSE_BITS} must stay under this share on every corpus. */
    private static final double MAX_FALSE_CLOSENESS = 0.001;
    /** A corpus with fewer pairs of Jaccard >= 0.9 than this says too little to enter the objective. */
    private static final int MIN_HIGH_PAIRS = 1000;

    /** Lower bounds of the Jaccard buckets of near pairs; the last is exactly 1.0. */
    private static final double[] BUCKET_FLOORS = {0.5, 0.7, 0.8, 0.9, 0.95, 1.0};

    private static final String[] BUCKET_NAMES = {
        "[0.5,0.7)", "[0.7,0.8)", "[0.8,0.9)", "[0.9,0.95)", "[0.95,1.0)", "1.0"
    };
    private static final int BUCKETS = BUCKET_FLOORS.length;
    /** The buckets from here on hold the pairs of Jaccard >= 0.9. */
    private static final int FIRST_HIGH_BUCKET = 3;

    private static final int EXACT_BUCKET = BUCKETS - 1;

    /** One candidate scheme: the three parameters under test. */
    private record Candidate(int shingleSize, FeatureWeighting weighting, boolean idf) {
        String name() {
            return "s" + shingleSize + " " + weighting.paramName() + (idf ? " +idf" : "");
        }

        FingerprintScheme scheme(IdfTable table) {
            FingerprintScheme d = FingerprintScheme.defaults("standard");
            return new FingerprintScheme(
                    d.version(),
                    d.analyzer(),
                    shingleSize,
                    weighting,
                    idf ? table.identity() : FingerprintScheme.NO_IDF,
                    d.minhashShingleSize(),
                    d.numHashes(),
                    d.minhashMethod(),
                    d.seed());
        }

        boolean isCurrentDefault() {
            FingerprintScheme d = FingerprintScheme.defaults("standard");
            return !idf
                    && d.idf().equals(FingerprintScheme.NO_IDF)
                    && shingleSize == d.simhashShingleSize()
                    && weighting == d.weighting();
        }
    }

    /**
     * Pairs of document indices with a small label (a Jaccard bucket, or whether a random pair is
     * unrelated). Holds at most {@code capacity} pairs: past that, a uniform reservoir sample of all
     * offered pairs, so a huge set of near pairs can be scored on a fixed budget.
     */
    private static final class PairSample {
        private final int capacity;
        private final SplittableRandom random;
        private int[] first = new int[1024];
        private int[] second = new int[1024];
        private byte[] label = new byte[1024];
        private int size;
        private long offered;

        PairSample(int capacity, long seed) {
            this.capacity = capacity;
            this.random = new SplittableRandom(seed);
        }

        void offer(int a, int b, int pairLabel) {
            offered++;
            int slot;
            if (size < capacity) {
                if (size == first.length) {
                    int grown = (int) Math.min(capacity, 2L * size);
                    first = Arrays.copyOf(first, grown);
                    second = Arrays.copyOf(second, grown);
                    label = Arrays.copyOf(label, grown);
                }
                slot = size++;
            } else {
                long r = random.nextLong(offered);
                if (r >= capacity) {
                    return;
                }
                slot = (int) r;
            }
            first[slot] = a;
            second[slot] = b;
            label[slot] = (byte) pairLabel;
        }

        boolean capped() {
            return offered > size;
        }
    }

    /** Hamming-distance counts of one scheme on one corpus. */
    private static final class Tally {
        final long[] pairs = new long[BUCKETS];
        final long[] close = new long[BUCKETS];
        final long[] loose = new long[BUCKETS];
        long unrelated;
        long unrelatedClose;
        long unrelatedLoose;
        long unrelatedHammingSum;

        double highCloseShare(boolean withExact) {
            long n = 0, c = 0;
            for (int b = FIRST_HIGH_BUCKET; b < (withExact ? BUCKETS : EXACT_BUCKET); b++) {
                n += pairs[b];
                c += close[b];
            }
            return n == 0 ? Double.NaN : (double) c / n;
        }

        double falseCloseness() {
            return (double) unrelatedClose / unrelated;
        }

        double unrelatedMeanHamming() {
            return (double) unrelatedHammingSum / unrelated;
        }
    }

    /** What one corpus contributed: its size, its pairs and one tally per candidate. */
    private record CorpusResult(
            String name,
            Path path,
            int docsRead,
            int docsUsed,
            long tokens,
            long distinctShingles,
            long nearPairsFound,
            int nearPairsScored,
            long[] nearPairsByBucket,
            int randomPairs,
            long randomUnrelated,
            long randomNear,
            double joinSeconds,
            double fingerprintSeconds,
            Tally[] tallies) {
        long highPairs() {
            long n = 0;
            for (int b = FIRST_HIGH_BUCKET; b < BUCKETS; b++) {
                n += nearPairsByBucket[b];
            }
            return n;
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = null;
        Path idfPath = Path.of("config/english-idf.tsv");
        List<String> idfBuiltFrom = List.of("wordnet", "fortunes", "manpages");
        int randomPairs = 200_000;
        int maxNearPairs = 2_000_000;
        long seed = 42L;
        int threads = 2;
        List<Path> corpora = new ArrayList<>();
        for (int a = 0; a < args.length; a++) {
            String arg = args[a];
            if (arg.startsWith("--") && a + 1 >= args.length) {
                usage("missing value for " + arg);
            }
            switch (arg) {
                case "--out" -> out = Path.of(args[++a]);
                case "--idf-table" -> idfPath = Path.of(args[++a]);
                case "--idf-built-from" -> idfBuiltFrom = List.of(args[++a].split(","));
                case "--random-pairs" -> randomPairs = Integer.parseInt(args[++a]);
                case "--max-near-pairs" -> maxNearPairs = Integer.parseInt(args[++a]);
                case "--seed" -> seed = Long.parseLong(args[++a]);
                case "--threads" -> threads = Integer.parseInt(args[++a]);
                default -> {
                    if (arg.startsWith("--")) {
                        usage("unknown option " + arg);
                    }
                    corpora.add(Path.of(arg));
                }
            }
        }
        if (corpora.isEmpty()) {
            usage("no corpus given");
        }
        long t0 = System.nanoTime();

        IdfTable idfTable =
                loadIdfTable(idfPath, FingerprintScheme.defaults("standard").seed());
        List<Candidate> candidates = new ArrayList<>();
        for (boolean idf : new boolean[] {false, true}) {
            for (int shingleSize = 1; shingleSize <= 3; shingleSize++) {
                for (FeatureWeighting weighting : FeatureWeighting.values()) {
                    candidates.add(new Candidate(shingleSize, weighting, idf));
                }
            }
        }

        List<CorpusResult> results = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (Path corpus : corpora) {
                results.add(evaluate(corpus, candidates, idfTable, randomPairs, maxNearPairs, seed, pool));
            }
        } finally {
            pool.shutdown();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;

        try (PrintStream report =
                out == null ? System.out : new PrintStream(Files.newOutputStream(out), false, StandardCharsets.UTF_8)) {
            writeReport(
                    report,
                    candidates,
                    results,
                    new RunInfo(idfPath, idfTable, idfBuiltFrom, randomPairs, maxNearPairs, seed, threads, seconds));
        }
        System.err.printf(Locale.ROOT, "done in %.1f s%n", seconds);
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println("usage: SimhashSchemeEvaluation [--out report.md] [--idf-table config/english-idf.tsv] "
                + "[--idf-built-from wordnet,fortunes,manpages] [--random-pairs 200000] [--max-near-pairs 2000000] "
                + "[--seed 42] [--threads 2] <corpus.jsonl.gz>...");
        System.exit(2);
    }

    /** As NearDupFingerprintProcessorFactory.loadIdfTable: the file name without extension names the table. */
    private static IdfTable loadIdfTable(Path path, long seed) throws Exception {
        String fileName = path.getFileName().toString();
        int dot = fileName.lastIndexOf('.');
        String name = dot > 0 ? fileName.substring(0, dot) : fileName;
        try (InputStream in = Files.newInputStream(path)) {
            return IdfTable.load(name, seed, in);
        }
    }

    private static CorpusResult evaluate(
            Path path,
            List<Candidate> candidates,
            IdfTable idfTable,
            int randomPairCount,
            int maxNearPairs,
            long seed,
            ExecutorService pool)
            throws Exception {
        String name = corpusName(path);
        long t0 = System.nanoTime();
        List<Corpus.Doc> docs = Corpus.read(path, Integer.MAX_VALUE);
        int docsRead = docs.size();
        Analyzer analyzer = Corpus.analyzer();
        List<Corpus.Tokens> kept = new ArrayList<>(docsRead);
        long tokenCount = 0;
        for (Corpus.Doc doc : docs) {
            Corpus.Tokens t = Corpus.tokenize(analyzer, doc.text());
            if (t.size() > 0) { // a text without tokens has neither truth nor fingerprint features
                kept.add(t);
                tokenCount += t.size();
            }
        }
        docs = null; // the texts are no longer needed; only tokens are
        Corpus.Tokens[] tokens = kept.toArray(new Corpus.Tokens[0]);
        int n = tokens.length;
        long[][] shingleSets = new long[n][];
        long shingleCount = 0;
        for (int i = 0; i < n; i++) {
            shingleSets[i] = Corpus.truthShingles(tokens[i], TRUTH_SHINGLE_SIZE);
            shingleCount += shingleSets[i].length;
        }
        System.err.printf(
                Locale.ROOT,
                "%s: %d docs (%d with tokens), %d tokens, read in %.1f s%n",
                name,
                docsRead,
                n,
                tokenCount,
                (System.nanoTime() - t0) / 1e9);

        long tJoin = System.nanoTime();
        PairSample near = new PairSample(maxNearPairs, seed);
        long distinctShingles = findNearPairs(shingleSets, near);
        long[] nearByBucket = new long[BUCKETS];
        for (int p = 0; p < near.size; p++) {
            nearByBucket[near.label[p]]++;
        }
        double joinSeconds = (System.nanoTime() - tJoin) / 1e9;
        System.err.printf(
                Locale.ROOT,
                "%s: %d pairs with Jaccard >= %.1f (%d scored), join in %.1f s%n",
                name,
                near.offered,
                NEAR_THRESHOLD,
                near.size,
                joinSeconds);

        // Random pairs; label 1 = unrelated (Jaccard < 0.3), 2 = near (>= 0.5), 0 = in between.
        PairSample random = new PairSample(randomPairCount, seed);
        SplittableRandom rng = new SplittableRandom(seed);
        long randomUnrelated = 0, randomNear = 0;
        while (random.size < randomPairCount) {
            int a = rng.nextInt(n), b = rng.nextInt(n);
            if (a == b) {
                continue;
            }
            double j = Corpus.jaccard(shingleSets[a], shingleSets[b]);
            int label = j < UNRELATED_BELOW ? 1 : j >= NEAR_THRESHOLD ? 2 : 0;
            randomUnrelated += label == 1 ? 1 : 0;
            randomNear += label == 2 ? 1 : 0;
            random.offer(a, b, label);
        }
        shingleSets = null;

        long tFp = System.nanoTime();
        List<Future<Tally>> futures = new ArrayList<>();
        for (Candidate c : candidates) {
            futures.add(pool.submit(() -> tally(c, idfTable, tokens, near, random)));
        }
        Tally[] tallies = new Tally[candidates.size()];
        for (int c = 0; c < tallies.length; c++) {
            tallies[c] = futures.get(c).get();
        }
        double fingerprintSeconds = (System.nanoTime() - tFp) / 1e9;
        System.err.printf(
                Locale.ROOT,
                "%s: %d schemes fingerprinted and scored in %.1f s%n",
                name,
                tallies.length,
                fingerprintSeconds);
        return new CorpusResult(
                name,
                path,
                docsRead,
                n,
                tokenCount,
                distinctShingles,
                near.offered,
                near.size,
                nearByBucket,
                random.size,
                randomUnrelated,
                randomNear,
                joinSeconds,
                fingerprintSeconds,
                tallies);
    }

    private static String corpusName(Path path) {
        String name = path.getFileName().toString();
        for (String suffix : new String[] {".gz", ".jsonl", ".json"}) {
            if (name.endsWith(suffix)) {
                name = name.substring(0, name.length() - suffix.length());
            }
        }
        return name;
    }

    /**
     * Offers every pair of sets with Jaccard >= {@link #NEAR_THRESHOLD} to {@code out}, labelled
     * with its bucket, and returns the number of distinct shingles. Exact: AllPairs prefix
     * filtering. With shingles ranked rarest first, two sets of overlap {@code o} share their rarest
     * common shingle within the first {@code |x| - o + 1} shingles of each. A pair at the threshold
     * t has {@code o >= t |x|} for the larger set x (the probe prefix) and
     * {@code o >= 2t/(1+t) |y|} for the smaller y (the shorter index prefix; sets are indexed in
     * increasing size), and needs {@code |y| >= t |x|} (the length filter). Candidates are verified
     * with the exact Jaccard.
     */
    private static long findNearPairs(long[][] sets, PairSample out) {
        int n = sets.length;
        // Document frequency of every distinct shingle.
        long total = 0;
        for (long[] s : sets) {
            total += s.length;
        }
        long[] all = new long[Math.toIntExact(total)];
        int fill = 0;
        for (long[] s : sets) {
            System.arraycopy(s, 0, all, fill, s.length);
            fill += s.length;
        }
        Arrays.sort(all);
        int distinct = 0;
        int[] df = new int[all.length];
        for (int i = 0; i < all.length; i++) {
            if (distinct > 0 && all[i] == all[distinct - 1]) {
                df[distinct - 1]++;
            } else {
                all[distinct] = all[i];
                df[distinct++] = 1;
            }
        }
        long[] shingles = Arrays.copyOf(all, distinct);
        all = null;
        // Rank by (df, hash): a stable counting sort on df of the hash-sorted shingles.
        int maxDf = 0;
        for (int i = 0; i < distinct; i++) {
            maxDf = Math.max(maxDf, df[i]);
        }
        int[] firstRankOfDf = new int[maxDf + 2];
        for (int i = 0; i < distinct; i++) {
            firstRankOfDf[df[i] + 1]++;
        }
        for (int d = 1; d <= maxDf + 1; d++) {
            firstRankOfDf[d] += firstRankOfDf[d - 1];
        }
        int[] rank = new int[distinct];
        for (int i = 0; i < distinct; i++) {
            rank[i] = firstRankOfDf[df[i]]++;
        }
        df = null;
        // Each set's probe prefix, as ranks, rarest first.
        int[][] prefix = new int[n][];
        for (int x = 0; x < n; x++) {
            long[] s = sets[x];
            int[] ranks = new int[s.length];
            for (int k = 0; k < s.length; k++) {
                ranks[k] = rank[Arrays.binarySearch(shingles, s[k])];
            }
            Arrays.sort(ranks);
            prefix[x] = Arrays.copyOf(ranks, probePrefixLength(s.length));
        }
        rank = null;
        shingles = null;
        // Sets in increasing size (ties by index).
        long[] bySize = new long[n];
        for (int x = 0; x < n; x++) {
            bySize[x] = ((long) sets[x].length << 32) | x;
        }
        Arrays.sort(bySize);
        // Posting lists of the index prefixes, laid out flat; filled as sets are indexed.
        int[] postingEnd = new int[distinct + 1];
        for (int x = 0; x < n; x++) {
            for (int k = 0, len = indexPrefixLength(sets[x].length); k < len; k++) {
                postingEnd[prefix[x][k] + 1]++;
            }
        }
        for (int r = 0; r < distinct; r++) {
            postingEnd[r + 1] += postingEnd[r];
        }
        int[] postings = new int[postingEnd[distinct]];
        int[] postingFill = Arrays.copyOf(postingEnd, distinct); // next free slot per shingle
        int[] postingFirstLive = Arrays.copyOf(postingEnd, distinct); // entries before it fail the length filter
        int[] lastProbedBy = new int[n];
        Arrays.fill(lastProbedBy, -1);
        for (long packed : bySize) {
            int x = (int) packed;
            int size = sets[x].length;
            int minSize = ceil(NEAR_THRESHOLD * size);
            int[] p = prefix[x];
            for (int r : p) {
                int from = postingFirstLive[r];
                int to = postingFill[r];
                while (from < to && sets[postings[from]].length < minSize) {
                    from++; // sizes only grow, so a set too small for x is too small for every later x
                }
                postingFirstLive[r] = from;
                for (int q = from; q < to; q++) {
                    int y = postings[q];
                    if (lastProbedBy[y] == x) {
                        continue;
                    }
                    lastProbedBy[y] = x;
                    double j = Corpus.jaccard(sets[x], sets[y]);
                    if (j >= NEAR_THRESHOLD) {
                        out.offer(Math.min(x, y), Math.max(x, y), bucket(j));
                    }
                }
            }
            for (int k = 0, len = indexPrefixLength(size); k < len; k++) {
                postings[postingFill[p[k]]++] = x;
            }
        }
        return distinct;
    }

    private static int probePrefixLength(int size) {
        return size - ceil(NEAR_THRESHOLD * size) + 1;
    }

    private static int indexPrefixLength(int size) {
        return size - ceil(2 * NEAR_THRESHOLD / (1 + NEAR_THRESHOLD) * size) + 1;
    }

    /** Rounds up, erring low by a hair so that floating-point noise can only lengthen a prefix. */
    private static int ceil(double v) {
        return (int) Math.ceil(v - 1e-9);
    }

    private static int bucket(double jaccard) {
        for (int b = BUCKETS - 1; b > 0; b--) {
            if (jaccard >= BUCKET_FLOORS[b]) {
                return b;
            }
        }
        return 0;
    }

    /** Fingerprints every document with the candidate's scheme and counts Hamming distances over both pair sets. */
    private static Tally tally(
            Candidate candidate, IdfTable idfTable, Corpus.Tokens[] tokens, PairSample near, PairSample random) {
        Fingerprinter fingerprinter = new Fingerprinter(candidate.scheme(idfTable), candidate.idf() ? idfTable : null);
        long[] simhash = new long[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            Corpus.Tokens t = tokens[i];
            fingerprinter.reset();
            for (int k = 0; k < t.size(); k++) {
                fingerprinter.token(t.chars(), t.start(k), t.length(k));
            }
            simhash[i] = fingerprinter.finish().simhash();
        }
        Tally tally = new Tally();
        for (int p = 0; p < near.size; p++) {
            int h = Long.bitCount(simhash[near.first[p]] ^ simhash[near.second[p]]);
            int b = near.label[p];
            tally.pairs[b]++;
            tally.close[b] += h <= CLOSE_BITS ? 1 : 0;
            tally.loose[b] += h <= LOOSE_BITS ? 1 : 0;
        }
        for (int p = 0; p < random.size; p++) {
            if (random.label[p] != 1) {
                continue;
            }
            int h = Long.bitCount(simhash[random.first[p]] ^ simhash[random.second[p]]);
            tally.unrelated++;
            tally.unrelatedClose += h <= CLOSE_BITS ? 1 : 0;
            tally.unrelatedLoose += h <= LOOSE_BITS ? 1 : 0;
            tally.unrelatedHammingSum += h;
        }
        return tally;
    }

    // ---------------------------------------------------------------- report

    /** What the report needs to know about the IDF table and the run's settings. */
    private record RunInfo(
            Path idfPath,
            IdfTable idfTable,
            List<String> idfBuiltFrom,
            int randomPairs,
            int maxNearPairs,
            long seed,
            int threads,
            double seconds) {}

    /**
     * The objective per candidate, over {@code objectiveCorpora}; {@code order} lists candidates
     * feasible first, then by falling objective.
     */
    private record Ranking(
            List<CorpusResult> objectiveCorpora,
            double[] objective,
            double[] objectiveExclExact,
            boolean[] feasible,
            int[] order) {
        static Ranking of(List<Candidate> candidates, List<CorpusResult> results) {
            List<CorpusResult> enough = results.stream()
                    .filter(r -> r.highPairs() >= MIN_HIGH_PAIRS)
                    .toList();
            // With no corpus large enough, a thin average still beats none.
            List<CorpusResult> objectiveCorpora = enough.isEmpty()
                    ? results.stream().filter(r -> r.highPairs() > 0).toList()
                    : enough;
            int k = candidates.size();
            double[] objective = new double[k];
            double[] exclExact = new double[k];
            boolean[] feasible = new boolean[k];
            for (int c = 0; c < k; c++) {
                final int candidate = c;
                objective[c] = meanHighCloseShare(objectiveCorpora, c);
                exclExact[c] = objectiveCorpora.stream()
                        .mapToDouble(r -> r.tallies()[candidate].highCloseShare(false))
                        .average()
                        .orElse(Double.NaN);
                feasible[c] =
                        results.stream().allMatch(r -> r.tallies()[candidate].falseCloseness() < MAX_FALSE_CLOSENESS);
            }
            int[] order = IntStream.range(0, k)
                    .boxed()
                    .sorted(Comparator.<Integer, Boolean>comparing(c -> !feasible[c])
                            .thenComparing(c -> -objective[c]))
                    .mapToInt(Integer::intValue)
                    .toArray();
            return new Ranking(objectiveCorpora, objective, exclExact, feasible, order);
        }

        /** The best feasible candidate by the objective restricted to {@code corpora}, or -1. */
        int best(List<CorpusResult> corpora, int candidates) {
            int best = -1;
            for (int c = 0; c < candidates; c++) {
                if (feasible[c] && (best < 0 || meanHighCloseShare(corpora, c) > meanHighCloseShare(corpora, best))) {
                    best = c;
                }
            }
            return best;
        }
    }

    private static void writeReport(
            PrintStream out, List<Candidate> candidates, List<CorpusResult> results, RunInfo run) {
        List<String> idfSeen = results.stream()
                .map(CorpusResult::name)
                .filter(name -> run.idfBuiltFrom().stream().anyMatch(name::startsWith))
                .toList();
        Ranking ranking = Ranking.of(candidates, results);
        writeIntroduction(out, results, run, idfSeen);
        writeCorpora(out, results, idfSeen);
        writeRanking(out, candidates, results, ranking);
        writeRecommendation(out, candidates, results, ranking, idfSeen);
        for (CorpusResult r : results) {
            writeDetails(out, candidates, r, idfSeen.contains(r.name()));
        }
        out.printf(Locale.ROOT, "Total run time %.1f s (%d threads).%n", run.seconds(), run.threads());
    }

    private static void writeIntroduction(
            PrintStream out, List<CorpusResult> results, RunInfo run, List<String> idfSeen) {
        List<String> idfHeldOut = results.stream()
                .map(CorpusResult::name)
                .filter(name -> !idfSeen.contains(name))
                .toList();
        out.println("# Simhash feature scheme evaluation");
        out.println();
        out.println(
                "Candidates: simhash_shingle_size 1/2/3 x weighting binary/tf/log_tf x IDF none / `+idf`; everything "
                        + "else as `FingerprintScheme.defaults(\"standard\")` (3-word MinHash shingles, 128 one_permutation values, "
                        + "seed 0). Simhash by the plugin's `Fingerprinter` over Lucene `StandardAnalyzer` tokens (no stop words). "
                        + "**Current default: s2 tf (no IDF)**, marked ◀ below.");
        out.println();
        out.printf(
                Locale.ROOT,
                "`+idf` = `%s`, loaded with `IdfTable.load(\"%s\", 0, ...)` as the ingest factory does "
                        + "(identity `%s`; %,d docs, %,d terms). It was counted on %s, so **its rows are not held-out for %s** "
                        + "(optimistic there) and **held-out for %s**.%n%n",
                run.idfPath(),
                run.idfTable().name(),
                run.idfTable().identity(),
                run.idfTable().docCount(),
                run.idfTable().size(),
                String.join(" + ", run.idfBuiltFrom()),
                idfSeen.isEmpty() ? "(none of these corpora)" : String.join(", ", idfSeen),
                idfHeldOut.isEmpty() ? "none" : String.join(", ", idfHeldOut));
        out.println("Truth: exact Jaccard of each document's set of word 3-shingles (same tokens; shingles hashed "
                + "independently of the plugin, FNV-1a 64 over the words joined by a space; a 1–2 word text has one "
                + "shingle of all its words; texts without tokens are left out).");
        out.printf(
                Locale.ROOT,
                "Pairs per corpus: **every** pair with Jaccard >= 0.5, found exactly by prefix filtering "
                        + "(no shingle skipped; capped by a uniform sample of %,d, seed %d, if there are more), plus %,d random "
                        + "pairs of distinct documents (seed %d); *unrelated* = random pairs with Jaccard < 0.3.%n%n",
                run.maxNearPairs(),
                run.seed(),
                run.randomPairs(),
                run.seed());
    }

    private static void writeCorpora(PrintStream out, List<CorpusResult> results, List<String> idfSeen) {
        out.println("## Corpora");
        out.println();
        out.println("| corpus | docs (with tokens) | tokens | distinct 3-shingles | pairs J >= 0.5 found | scored "
                + "| [0.5,0.7) | [0.7,0.8) | [0.8,0.9) | [0.9,0.95) | [0.95,1.0) | 1.0 | random pairs: unrelated / J >= 0.5 "
                + "| +idf held-out? |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (CorpusResult r : results) {
            StringBuilder buckets = new StringBuilder();
            for (int b = 0; b < BUCKETS; b++) {
                buckets.append(String.format(Locale.ROOT, " %,d |", r.nearPairsByBucket()[b]));
            }
            out.printf(
                    Locale.ROOT,
                    "| %s | %,d (%,d) | %,d | %,d | %,d | %s |%s %,d / %,d | %s |%n",
                    r.name(),
                    r.docsRead(),
                    r.docsUsed(),
                    r.tokens(),
                    r.distinctShingles(),
                    r.nearPairsFound(),
                    r.nearPairsFound() > r.nearPairsScored()
                            ? String.format(Locale.ROOT, "%,d (uniform sample)", r.nearPairsScored())
                            : "all",
                    buckets,
                    r.randomUnrelated(),
                    r.randomNear(),
                    idfSeen.contains(r.name()) ? "no" : "yes");
        }
        out.println();
    }

    private static void writeRanking(
            PrintStream out, List<Candidate> candidates, List<CorpusResult> results, Ranking ranking) {
        List<String> left = results.stream()
                .filter(r -> !ranking.objectiveCorpora().contains(r))
                .map(r -> String.format(Locale.ROOT, "%s (%,d pairs with J >= 0.9)", r.name(), r.highPairs()))
                .toList();
        out.println("## Ranking");
        out.println();
        out.printf(
                Locale.ROOT,
                "**Objective:** maximize the share of pairs with Jaccard >= 0.9 that are within %d bits, "
                        + "averaged (unweighted) over %s, subject to unrelated pairs (J < 0.3) within %d bits staying under "
                        + "%.1f%% on **every** corpus. Corpora with fewer than %,d pairs of J >= 0.9 are left out of the "
                        + "average unless none has that many%s.%n%n",
                CLOSE_BITS,
                names(ranking.objectiveCorpora(), " + "),
                CLOSE_BITS,
                100 * MAX_FALSE_CLOSENESS,
                MIN_HIGH_PAIRS,
                left.isEmpty() ? " (none was)" : ": " + String.join(", ", left));
        out.println("`J>=0.9 ≤3`: share of pairs with J >= 0.9 (including exact 1.0) within 3 bits; `excl. 1.0`: the "
                + "same over [0.9, 1.0) only, i.e. without documents whose shingle sets are identical; `worst corpus`: the "
                + "lowest `J>=0.9 ≤3` of the objective's corpora. `unrel ≤3`: share of unrelated pairs within 3 bits; "
                + "`unrel h`: their mean Hamming distance (ideal 32).");
        out.println();
        StringBuilder header =
                new StringBuilder("| rank | scheme | objective | objective excl. 1.0 | worst corpus | constraint |");
        StringBuilder rule = new StringBuilder("|---|---|---|---|---|---|");
        for (CorpusResult r : results) {
            header.append(String.format(Locale.ROOT, " %s J>=0.9 ≤3 | excl. 1.0 | unrel ≤3 | unrel h |", r.name()));
            rule.append("---|---|---|---|");
        }
        out.println(header);
        out.println(rule);
        for (int rank = 0; rank < ranking.order().length; rank++) {
            int c = ranking.order()[rank];
            Candidate candidate = candidates.get(c);
            boolean current = candidate.isCurrentDefault();
            StringBuilder row = new StringBuilder(String.format(
                    Locale.ROOT,
                    "| %d | %s | %s | %s | %s | %s |",
                    rank + 1,
                    current ? "**" + candidate.name() + "** ◀ current default" : candidate.name(),
                    bold(current, percent(ranking.objective()[c])),
                    bold(current, percent(ranking.objectiveExclExact()[c])),
                    percent(worstCorpusShare(ranking.objectiveCorpora(), c)),
                    ranking.feasible()[c] ? "ok" : "**violated**"));
            for (CorpusResult r : results) {
                Tally t = r.tallies()[c];
                row.append(String.format(
                        Locale.ROOT,
                        " %s | %s | %s | %.1f |",
                        percent(t.highCloseShare(true)),
                        percent(t.highCloseShare(false)),
                        falsePercent(t),
                        t.unrelatedMeanHamming()));
            }
            out.println(row);
        }
        out.println();
    }

    private static void writeRecommendation(
            PrintStream out,
            List<Candidate> candidates,
            List<CorpusResult> results,
            Ranking ranking,
            List<String> idfSeen) {
        out.println("## Recommendation (computed)");
        out.println();
        int best = ranking.order()[0];
        if (!ranking.feasible()[best]) {
            out.println("No scheme meets the constraint on every corpus.");
            out.println();
            return;
        }
        int bestWithoutIdf = -1;
        for (int c : ranking.order()) {
            if (ranking.feasible()[c] && !candidates.get(c).idf()) {
                bestWithoutIdf = c;
                break;
            }
        }
        int currentDefault = -1;
        for (int c = 0; c < candidates.size(); c++) {
            currentDefault = candidates.get(c).isCurrentDefault() ? c : currentDefault;
        }
        out.printf(
                Locale.ROOT,
                "* Best scheme overall: **%s**, objective %s (excl. 1.0: %s).%n",
                candidates.get(best).name(),
                percent(ranking.objective()[best]),
                percent(ranking.objectiveExclExact()[best]));
        if (bestWithoutIdf >= 0) {
            out.printf(
                    Locale.ROOT,
                    "* Best scheme without an IDF table: **%s**, objective %s (excl. 1.0: %s).%n",
                    candidates.get(bestWithoutIdf).name(),
                    percent(ranking.objective()[bestWithoutIdf]),
                    percent(ranking.objectiveExclExact()[bestWithoutIdf]));
        }
        if (currentDefault >= 0) {
            out.printf(
                    Locale.ROOT,
                    "* Current default **%s**: objective %s (excl. 1.0: %s), constraint %s.%n",
                    candidates.get(currentDefault).name(),
                    percent(ranking.objective()[currentDefault]),
                    percent(ranking.objectiveExclExact()[currentDefault]),
                    ranking.feasible()[currentDefault] ? "met" : "violated");
        }
        // How much the choice rests on any single corpus.
        List<CorpusResult> objectiveCorpora = ranking.objectiveCorpora();
        for (CorpusResult dropped : objectiveCorpora.size() > 1 ? objectiveCorpora : List.<CorpusResult>of()) {
            List<CorpusResult> rest =
                    objectiveCorpora.stream().filter(r -> r != dropped).toList();
            int bestOfRest = ranking.best(rest, candidates.size());
            out.printf(
                    Locale.ROOT,
                    "* Without %s, the objective would pick **%s** (%s; %s there: %s; current default: " + "%s).%n",
                    dropped.name(),
                    candidates.get(bestOfRest).name(),
                    percent(meanHighCloseShare(rest, bestOfRest)),
                    candidates.get(best).name(),
                    percent(meanHighCloseShare(rest, best)),
                    currentDefault < 0 ? "–" : percent(meanHighCloseShare(rest, currentDefault)));
        }
        List<CorpusResult> heldOut =
                results.stream().filter(r -> !idfSeen.contains(r.name())).toList();
        if (!idfSeen.isEmpty()) {
            out.printf(
                    Locale.ROOT,
                    "* `+idf` rows are optimistic on %s (the table saw them); compare `+idf` against "
                            + "no-IDF on %s alone for an honest view.%n",
                    String.join(", ", idfSeen),
                    heldOut.isEmpty() ? "a held-out corpus" : names(heldOut, ", "));
        }
        for (CorpusResult r : heldOut) {
            int wins = 0, compared = 0;
            for (int c = 0; c < candidates.size(); c++) {
                Candidate candidate = candidates.get(c);
                if (candidate.idf()) {
                    int withoutIdf =
                            candidates.indexOf(new Candidate(candidate.shingleSize(), candidate.weighting(), false));
                    compared++;
                    wins += r.tallies()[c].highCloseShare(true) > r.tallies()[withoutIdf].highCloseShare(true) ? 1 : 0;
                }
            }
            out.printf(
                    Locale.ROOT,
                    "* On %s (held-out for the table), `+idf` puts more J >= 0.9 pairs within %d bits "
                            + "than the same scheme without IDF in %d of %d cases.%n",
                    r.name(),
                    CLOSE_BITS,
                    wins,
                    compared);
        }
        out.println();
    }

    private static void writeDetails(PrintStream out, List<Candidate> candidates, CorpusResult r, boolean idfSeen) {
        out.printf(
                Locale.ROOT,
                "## %s: share within %d / %d bits by Jaccard bucket%n%n",
                r.name(),
                CLOSE_BITS,
                LOOSE_BITS);
        out.printf(
                Locale.ROOT,
                "%s: %,d docs with tokens; %,d near pairs scored%s, %,d unrelated random pairs.%s%n%n",
                r.path(),
                r.docsUsed(),
                r.nearPairsScored(),
                r.nearPairsFound() > r.nearPairsScored()
                        ? String.format(Locale.ROOT, " (a uniform sample of the %,d found)", r.nearPairsFound())
                        : " (all)",
                r.randomUnrelated(),
                idfSeen ? " `+idf` is **not held-out** here." : "");
        StringBuilder header = new StringBuilder("| scheme |");
        StringBuilder rule = new StringBuilder("|---|");
        StringBuilder counts = new StringBuilder("| *pairs* |");
        for (int b = 0; b < BUCKETS; b++) {
            header.append(String.format(Locale.ROOT, " %s ≤%d / ≤%d |", BUCKET_NAMES[b], CLOSE_BITS, LOOSE_BITS));
            rule.append("---|");
            counts.append(String.format(Locale.ROOT, " %,d |", r.nearPairsByBucket()[b]));
        }
        header.append(" J>=0.9 ≤3 | unrelated ≤3 | unrelated ≤6 | unrelated mean h |");
        rule.append("---|---|---|---|");
        counts.append(String.format(Locale.ROOT, " %,d | %,d | | |", r.highPairs(), r.randomUnrelated()));
        out.println(header);
        out.println(rule);
        out.println(counts);
        for (int c = 0; c < candidates.size(); c++) {
            Candidate candidate = candidates.get(c);
            Tally t = r.tallies()[c];
            StringBuilder row = new StringBuilder(
                    "| " + (candidate.isCurrentDefault() ? "**" + candidate.name() + "** ◀" : candidate.name()) + " |");
            for (int b = 0; b < BUCKETS; b++) {
                row.append(
                        t.pairs[b] == 0
                                ? " – |"
                                : String.format(
                                        Locale.ROOT,
                                        " %s / %s |",
                                        percent((double) t.close[b] / t.pairs[b]),
                                        percent((double) t.loose[b] / t.pairs[b])));
            }
            row.append(String.format(
                    Locale.ROOT,
                    " %s | %s | %.3f%% | %.2f |",
                    percent(t.highCloseShare(true)),
                    falsePercent(t),
                    100.0 * t.unrelatedLoose / t.unrelated,
                    t.unrelatedMeanHamming()));
            out.println(row);
        }
        out.printf(
                Locale.ROOT,
                "%nJoin %.1f s, fingerprinting + scoring of %d schemes %.1f s.%n%n",
                r.joinSeconds(),
                candidates.size(),
                r.fingerprintSeconds());
    }

    private static String names(List<CorpusResult> corpora, String separator) {
        return String.join(separator, corpora.stream().map(CorpusResult::name).toList());
    }

    private static double meanHighCloseShare(List<CorpusResult> corpora, int candidate) {
        return corpora.stream()
                .mapToDouble(r -> r.tallies()[candidate].highCloseShare(true))
                .average()
                .orElse(Double.NaN);
    }

    private static double worstCorpusShare(List<CorpusResult> corpora, int candidate) {
        return corpora.stream()
                .mapToDouble(r -> r.tallies()[candidate].highCloseShare(true))
                .min()
                .orElse(Double.NaN);
    }

    private static String percent(double share) {
        return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f%%", 100 * share);
    }

    private static String falsePercent(Tally t) {
        return String.format(Locale.ROOT, "%.3f%% (%d)", 100 * t.falseCloseness(), t.unrelatedClose);
    }

    private static String bold(boolean on, String text) {
        return on ? "**" + text + "**" : text;
    }
}
