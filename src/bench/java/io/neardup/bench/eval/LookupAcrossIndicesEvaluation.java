/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Json;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * How accurately {@code near_dup_lookup} flags copies whose originals sit in any of many indices (issue 41's
 * acceptance: "the lookup flags every planted copy (F1 >= 0.998 against exact truth computed without the plugin's code)
 * whichever generation holds the original; … the same with an alias over 5 daily indices and with a pattern").
 *
 * <p>The corpus's first {@code --max-docs} documents but the last {@code --fresh} are indexed through the fingerprint
 * pipeline, by layout: {@code stream}, the data stream of {@link ClustersEvaluation#indexStream} rolled over into
 * {@code --generations} backing indices (the core {@code _rollover} API, {@code _id} = line number); {@code alias} and
 * {@code pattern}, five daily indices {@code pages-2026.11.01} … {@code .05} (the corpus split evenly in order, each
 * index's {@code _id}s counting from 0, so the same {@code _id} is in all five) behind the alias {@code pages} whose
 * write index is the last, looked up by the alias and by {@code pages-*}. Then {@code --planted} documents, as many
 * from each generation or day (random originals), each an exact copy or a near-copy with a share of its words replaced
 * by new ones ({@link #EDIT_RATES} in turn: exact Jaccard from 1 down to about 0.3), and the {@code --fresh} documents
 * never indexed (some have near-duplicates indexed: other releases of a man page, other packages of a source), all in
 * a random order, are bulk-indexed into a fresh index whose default pipeline is {@code near_dup_fingerprint} +
 * {@code near_dup_lookup} (minhash, each of {@code --taus}, {@code recent_size: 0}, so that only the indexed corpus is
 * looked up) with {@code index} the stream, the alias or the pattern. Every index is of fingerprint format {@code
 * --format} (default 2, a new index's default; 1 as the other evaluations' indices).
 *
 * <p>Truth, computed without the plugin's code: a sent document is a copy when some indexed document's word 3-shingle
 * set ({@link Corpus#truthShingles}: StandardAnalyzer words, FNV-1a 64) has exact Jaccard >= τ with its own
 * ({@link Corpus#nearest}). Scored: precision, recall and F1 of "{@code duplicate_of} written", by the generation (day)
 * that holds the planted copy's original; and each answer resolved to the document it names by {@code
 * duplicate_of_index} and {@code duplicate_of} (the index matters: daily indices repeat {@code _id}s), whose exact
 * Jaccard with the sent document must reach τ.
 *
 * <p>With {@code --clusters true} (the default) each layout is also clustered: {@code _near_dup_clusters} over the
 * stream, the alias or the pattern at each τ, each document's assignment read from its own index and resolved by
 * {@code cluster_index} and {@code cluster}, against the connected components of the indexed documents' exact pairs
 * ({@link Corpus#exactPairs}). The usual entry point:
 *
 * <pre>
 * EVAL_CLASS=io.neardup.bench.eval.LookupAcrossIndicesEvaluation bash src/scripts/evaluate.sh $DATA/manpages.jsonl.gz \
 *     $REPORTS/lookup-across-indices [--layouts stream,alias,pattern] [--generations 5] [--planted 300] [--fresh 100]
 *     [--taus 0.8,0.5] [--batch 500] [--max-docs N] [--seed 42] [--clusters true] [--format 2]
 * </pre>
 */
public final class LookupAcrossIndicesEvaluation {
    static final String SINK = "neardup-planted";
    static final String ALIAS = "pages";
    static final String PATTERN = "pages-*";
    static final int DAYS = 5;
    private static final String PIPELINE = "neardup-lookup-planted";
    /** Word edit rates of the planted copies, in turn: two exact copies in ten, then J about 0.94 down to 0.34. */
    static final double[] EDIT_RATES = {0, 0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.08, 0.12, 0.2};

    private final Evaluate evaluate;
    private final ClustersEvaluation stream;
    private final Node node;
    private final StringBuilder report = new StringBuilder();
    private final StringBuilder summary = new StringBuilder("| what | result |\n|---|---|\n");
    /** The fingerprint format of every index made ({@code --format}, default 2, a new index's default). */
    private int format;

    LookupAcrossIndicesEvaluation(String url) {
        this.evaluate = new Evaluate(url);
        this.stream = new ClustersEvaluation(url);
        this.node = evaluate.node();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = Options.parse(
                args,
                2,
                "LookupAcrossIndicesEvaluation <corpus.jsonl[.gz]> <report-dir> --url http://127.0.0.1:9320 "
                        + "[--layouts stream,alias,pattern] [--generations 5] [--planted 300] [--fresh 100] …",
                List.of(),
                List.of(
                        "url",
                        "layouts",
                        "generations",
                        "planted",
                        "fresh",
                        "taus",
                        "batch",
                        "max-docs",
                        "seed",
                        "clusters",
                        "format",
                        "command"));
        new LookupAcrossIndicesEvaluation(opt.getOrDefault("url", "http://127.0.0.1:9320"))
                .run(Path.of(args[0]), Path.of(args[1]), opt);
    }

    /** A document sent through the lookup: its text, and the line of its original with the edit rate (-1: fresh). */
    record Sent(String text, int original, double editRate) {}

    /** Where the indexed documents are: the name looked up, the indices in order, and each index's first line. */
    record Layout(String name, String lookupIndex, List<String> indices, int[] firstLine) {
        /** The part (generation, day) that holds {@code line}. */
        int partOf(int line) {
            int part = 0;
            while (part + 1 < firstLine.length && firstLine[part + 1] <= line) {
                part++;
            }
            return part;
        }
    }

    void run(Path corpus, Path out, Map<String, String> opt) throws Exception {
        List<String> layouts =
                List.of(opt.getOrDefault("layouts", "stream,alias,pattern").split(","));
        int generations = Integer.parseInt(opt.getOrDefault("generations", "5"));
        int planted = Integer.parseInt(opt.getOrDefault("planted", "300"));
        int fresh = Integer.parseInt(opt.getOrDefault("fresh", "100"));
        int batch = Integer.parseInt(opt.getOrDefault("batch", "500"));
        long seed = Long.parseLong(opt.getOrDefault("seed", "42"));
        int maxDocs = Integer.parseInt(opt.getOrDefault("max-docs", String.valueOf(Integer.MAX_VALUE)));
        double[] taus = java.util.Arrays.stream(
                        opt.getOrDefault("taus", "0.8,0.5").split(","))
                .mapToDouble(Double::parseDouble)
                .toArray();
        if (generations < 4) {
            throw new IllegalArgumentException("--generations must be at least 4 (3 rollovers), got " + generations);
        }
        List<Corpus.Doc> docs = Corpus.read(corpus, maxDocs);
        List<Corpus.Doc> indexed = docs.subList(0, docs.size() - fresh);
        List<Corpus.Doc> notIndexed = docs.subList(docs.size() - fresh, docs.size());
        report.append("# near_dup_lookup across a data stream, an alias and a pattern, against exact truth\n\n");
        if (opt.containsKey("command")) {
            report.append("Command: `").append(opt.get("command")).append("`\n\n");
        }
        report.append(String.format(
                Locale.ROOT,
                "%s: %,d documents indexed, %,d more held out (sent, never indexed); %d planted copies a layout, as many "
                        + "from each generation or day, edit rates %s in turn; lookup: minhash, recent_size 0; "
                        + "fingerprint format %d. Load before: %s.%n",
                corpus.getFileName(),
                indexed.size(),
                fresh,
                planted,
                java.util.Arrays.toString(EDIT_RATES),
                Integer.parseInt(opt.getOrDefault("format", "2")),
                Stats.loadAverage(3, "?")));
        var analyzer = Corpus.analyzer();
        long[][] indexedSets = new long[indexed.size()][];
        for (int i = 0; i < indexedSets.length; i++) {
            indexedSets[i] = Corpus.truthShingles(
                    Corpus.tokenize(analyzer, indexed.get(i).text()), 3);
        }

        boolean clusters = Boolean.parseBoolean(opt.getOrDefault("clusters", "true"));
        format = Integer.parseInt(opt.getOrDefault("format", "2"));
        Map<Long, Double> pairs = null;
        Layout daily = null;
        for (String name : layouts) {
            Layout layout;
            if (name.equals("stream")) {
                stream.indexStream(indexed, batch, 1, null, generations, format);
                layout = streamLayout(indexed.size(), generations);
            } else if (name.equals("alias") || name.equals("pattern")) {
                daily = daily != null ? daily : indexDaily(indexed, batch);
                layout = new Layout(name, name.equals("alias") ? ALIAS : PATTERN, daily.indices(), daily.firstLine());
            } else {
                throw new IllegalArgumentException("--layouts: stream, alias or pattern, got " + name);
            }
            List<Sent> sent = plant(indexed, notIndexed, layout, planted, new Random(seed));
            long[][] sentSets = new long[sent.size()][];
            for (int k = 0; k < sentSets.length; k++) {
                sentSets[k] = Corpus.truthShingles(
                        Corpus.tokenize(analyzer, sent.get(k).text()), 3);
            }
            Corpus.Nearest truth = Corpus.nearest(indexedSets, sentSets);
            for (double tau : taus) {
                score(layout, sent, sentSets, indexedSets, truth, tau, batch);
            }
            if (clusters) {
                if (pairs == null) {
                    pairs = Corpus.exactPairs(
                            indexedSets, java.util.Arrays.stream(taus).min().getAsDouble());
                }
                for (double tau : taus) {
                    clusters(layout, indexedSets.length, pairs, tau);
                }
            }
            if (name.equals("stream")) {
                stream.deleteStream();
            }
        }
        System.out.print(report);
        System.out.print("\n" + summary);
        Files.createDirectories(out);
        Files.writeString(out.resolve("report.md"), report.toString());
        Files.writeString(out.resolve("summary.md"), summary.toString());
        node.call("DELETE", "/" + SINK, null);
        node.call("DELETE", "/" + PATTERN, null);
        node.call("DELETE", "/_ingest/pipeline/" + PIPELINE, null);
        evaluate.cleanup();
    }

    /** The stream's backing indices, oldest first, each with its first line (as {@link Evaluate#bulk} split them). */
    private Layout streamLayout(int n, int generations) {
        Object backing = Json.path(
                ((List<?>) Json.path(
                                Json.parse(node.ok("GET", "/_data_stream/" + ClustersEvaluation.STREAM, null)
                                        .body()),
                                "data_streams"))
                        .get(0),
                "indices");
        List<String> indices = new ArrayList<>();
        for (Object index : (List<?>) backing) {
            indices.add((String) ((Map<?, ?>) index).get("index_name"));
        }
        int[] firstLine = new int[generations];
        for (int g = 0; g < generations; g++) {
            firstLine[g] = (int) ((long) n * g / generations);
        }
        return new Layout("stream", ClustersEvaluation.STREAM, indices, firstLine);
    }

    /** The five daily indices behind {@link #ALIAS}, the last its write index; each index's {@code _id}s from 0. */
    private Layout indexDaily(List<Corpus.Doc> indexed, int batch) throws Exception {
        node.call("DELETE", "/" + PATTERN, null);
        evaluate.putPipeline();
        List<String> indices = new ArrayList<>();
        int[] firstLine = new int[DAYS];
        StringBuilder actions = new StringBuilder("{\"actions\": [");
        for (int d = 0; d < DAYS; d++) {
            String index = String.format(Locale.ROOT, "pages-2026.11.%02d", d + 1);
            indices.add(index);
            firstLine[d] = (int) ((long) indexed.size() * d / DAYS);
            int end = (int) ((long) indexed.size() * (d + 1) / DAYS);
            node.ok("PUT", "/" + index, Evaluate.indexDefinition(1, "", "", Evaluate.PIPELINE, format));
            evaluate.bulk(index, indexed.subList(firstLine[d], end), batch);
            actions.append(d == 0 ? "" : ", ")
                    .append("{\"add\": {\"index\": \"")
                    .append(index)
                    .append("\", \"alias\": \"" + ALIAS + "\", \"is_write_index\": ")
                    .append(d == DAYS - 1)
                    .append("}}");
        }
        node.ok("POST", "/_aliases", actions.append("]}").toString());
        return new Layout("daily", ALIAS, indices, firstLine);
    }

    /**
     * {@code planted} copies of documents of every part of {@code layout} (as many from each, distinct random originals,
     * edit rates in turn) and the documents never indexed, in a random order.
     */
    static List<Sent> plant(
            List<Corpus.Doc> indexed, List<Corpus.Doc> notIndexed, Layout layout, int planted, Random random) {
        List<Sent> sent = new ArrayList<>();
        int parts = layout.firstLine().length;
        int copy = 0;
        for (int part = 0; part < parts; part++) {
            int from = layout.firstLine()[part];
            int to = part + 1 < parts ? layout.firstLine()[part + 1] : indexed.size();
            Set<Integer> originals = new LinkedHashSet<>();
            while (originals.size() < Math.min(to - from, planted / parts + (part < planted % parts ? 1 : 0))) {
                originals.add(from + random.nextInt(to - from));
            }
            for (int line : originals) {
                double rate = EDIT_RATES[copy++ % EDIT_RATES.length];
                sent.add(new Sent(edited(indexed.get(line).text(), rate, random), line, rate));
            }
        }
        for (Corpus.Doc doc : notIndexed) {
            sent.add(new Sent(doc.text(), -1, 0));
        }
        java.util.Collections.shuffle(sent, random);
        return sent;
    }

    /** {@code text} with each whitespace-separated word replaced, at {@code rate}, by a word found in no document. */
    static String edited(String text, double rate, Random random) {
        if (rate == 0) {
            return text;
        }
        String[] words = text.split("\\s+");
        for (int i = 0; i < words.length; i++) {
            if (random.nextDouble() < rate) {
                words[i] = "zq" + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
            }
        }
        return String.join(" ", words);
    }

    /** The sent documents through the lookup into {@code layout} at {@code tau}, scored against the truth. */
    private void score(
            Layout layout,
            List<Sent> sent,
            long[][] sentSets,
            long[][] indexedSets,
            Corpus.Nearest truth,
            double tau,
            int batch)
            throws Exception {
        LookupCostEvaluation.putLookupPipeline(node, PIPELINE, layout.lookupIndex(), tau, ", \"recent_size\": 0");
        node.call("DELETE", "/" + SINK, null);
        node.ok("PUT", "/" + SINK, LookupCostEvaluation.sinkDefinition(PIPELINE, format));
        List<Corpus.Doc> docs = new ArrayList<>();
        for (Sent s : sent) {
            docs.add(new Corpus.Doc(null, null, s.text()));
        }
        String loadBefore = Stats.loadAverage(3, "?");
        double[] ingest = evaluate.bulk(SINK, docs, batch);
        String loadAfter = Stats.loadAverage(3, "?");
        if (ingest[2] > 0) {
            throw new IllegalStateException(ingest[2] + " documents failed in the lookup into " + layout.lookupIndex());
        }
        String[][] answers = answers(sent.size());

        int parts = layout.firstLine().length;
        // By part (the last row: the documents never indexed): sent, copies (truth), flagged copies, false flags,
        // copies less than 0.05 above τ, others less than 0.05 below: how hard the threshold was tested.
        long[][] counts = new long[parts + 1][6];
        long wrongAnswers = 0;
        List<String> examples = new ArrayList<>();
        for (int k = 0; k < sent.size(); k++) {
            int row = sent.get(k).original() < 0
                    ? parts
                    : layout.partOf(sent.get(k).original());
            boolean copy = truth.jaccard()[k] >= tau;
            boolean flagged = answers[k][0] != null;
            counts[row][0]++;
            counts[row][1] += copy ? 1 : 0;
            counts[row][2] += copy && flagged ? 1 : 0;
            counts[row][3] += flagged && copy == false ? 1 : 0;
            counts[row][4] += copy && truth.jaccard()[k] < tau + 0.05 ? 1 : 0;
            counts[row][5] += copy == false && truth.jaccard()[k] >= tau - 0.05 ? 1 : 0;
            if (flagged) {
                int line = lineOf(layout, answers[k][1], answers[k][0]);
                double similarity = line < 0 ? -1 : Corpus.jaccard(sentSets[k], indexedSets[line]);
                if (similarity < tau - 1e-9) {
                    wrongAnswers++;
                }
            }
            if (copy != flagged && examples.size() < 10) {
                examples.add(String.format(
                        Locale.ROOT,
                        "sent %d (original %d, edit rate %s): exact J %.4f with line %d; written %s in %s",
                        k,
                        sent.get(k).original(),
                        sent.get(k).editRate(),
                        truth.jaccard()[k],
                        truth.position()[k],
                        answers[k][0],
                        answers[k][1]));
            }
        }
        long copies = 0, found = 0, falseFlags = 0;
        for (long[] c : counts) {
            copies += c[1];
            found += c[2];
            falseFlags += c[3];
        }
        double precision = found + falseFlags == 0 ? 1 : (double) found / (found + falseFlags);
        double recall = copies == 0 ? 1 : (double) found / copies;
        double f1 = precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall);
        String title =
                String.format(Locale.ROOT, "%s (`index: \"%s\"`), τ %s", layout.name(), layout.lookupIndex(), tau);
        report.append("\n## ").append(title).append("\n\n");
        report.append(String.format(
                Locale.ROOT,
                "%,d documents sent in %.1f s; load before %s, after %s. **P %.4f, R %.4f, F1 %.4f**; answers naming a "
                        + "document below τ (exact J of the two, that document found by its index and _id): %d.%n%n",
                sent.size(),
                ingest[0],
                loadBefore,
                loadAfter,
                precision,
                recall,
                f1,
                wrongAnswers));
        report.append("| original in | sent | copies (J ≥ τ) | of them J < τ + 0.05 | others J ≥ τ - 0.05 | flagged "
                + "| missed | false flags |\n");
        report.append("|---|---|---|---|---|---|---|---|\n");
        for (int row = 0; row <= parts; row++) {
            long[] c = counts[row];
            report.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d | %d | %d |%n",
                    row < parts ? layout.indices().get(row) : "never indexed",
                    c[0],
                    c[1],
                    c[4],
                    c[5],
                    c[2],
                    c[1] - c[2],
                    c[3]));
        }
        for (String example : examples) {
            report.append("\n- ").append(example);
        }
        report.append('\n');
        summary.append(String.format(
                Locale.ROOT,
                "| %s | P %.4f, R %.4f, F1 %.4f (%d copies of %d sent; %d missed, %d false flags, %d answers below τ); "
                        + "load %s |%n",
                title,
                precision,
                recall,
                f1,
                copies,
                sent.size(),
                copies - found,
                falseFlags,
                wrongAnswers,
                loadAfter));
        System.err.printf(Locale.ROOT, "%s: P %.4f R %.4f F1 %.4f%n", title, precision, recall, f1);
    }

    /**
     * {@code _near_dup_clusters} over the stream, the alias or the pattern at {@code tau}, each document's assignment
     * read from the index that holds it and resolved by index and {@code _id}, against the connected components of the
     * exact pairs ({@link ClustersEvaluation#exactComponents}).
     */
    private void clusters(Layout layout, int n, Map<Long, Double> pairs, double tau) throws Exception {
        String target = "clusters_" + layout.name() + "_" + Math.round(tau * 100);
        String loadBefore = Stats.loadAverage(1, "?");
        Map<String, Object> response = Json.parse(node.ok(
                        "POST",
                        "/" + layout.lookupIndex() + "/_near_dup_clusters?refresh=true",
                        "{\"field\": \"fp.minhash\", \"min_similarity\": " + tau + ", \"target_field\": \"" + target
                                + "\"}")
                .body());
        String loadAfter = Stats.loadAverage(1, "?");
        int[] clusterOf = new int[n];
        for (int i = 0; i < n; i++) {
            clusterOf[i] = i;
        }
        String cluster = target + ".cluster";
        String clusterIndex = target + ".cluster_index";
        long[] unresolved = new long[1];
        evaluate.scroll(
                layout.lookupIndex(),
                "{\"size\": 10000, \"sort\": [\"_doc\"], \"_source\": false, \"query\": {\"exists\": {\"field\": \""
                        + cluster + "\"}}, \"docvalue_fields\": [\"" + cluster + "\", \"" + clusterIndex + "\"]}",
                h -> {
                    int line = lineOf(layout, (String) h.get("_index"), (String) h.get("_id"));
                    Object index = Json.path(h, "fields", clusterIndex);
                    int representative = index == null
                            ? -1
                            : lineOf(layout, (String) ((List<?>) index).get(0), (String)
                                    ((List<?>) Json.path(h, "fields", cluster)).get(0));
                    if (line < 0 || representative < 0) {
                        unresolved[0]++;
                    } else {
                        clusterOf[line] = representative;
                    }
                });
        int[] exact = ClustersEvaluation.exactComponents(pairs, n, tau);
        double[] q = ClustersEvaluation.quality(clusterOf, exact);
        int differ = ClustersEvaluation.differing(clusterOf, exact);
        long above = pairs.values().stream().filter(j -> j >= tau).count();
        StringBuilder split = new StringBuilder();
        long splitCount = 0;
        for (Map.Entry<Long, Double> pair : pairs.entrySet()) {
            int i = (int) (pair.getKey() >>> 32), j = (int) (long) pair.getKey();
            if (pair.getValue() >= tau && clusterOf[i] != clusterOf[j] && splitCount++ < 5) {
                split.append(String.format(Locale.ROOT, " lines %d–%d (J %.4f)", i, j, pair.getValue()));
            }
        }
        String title = String.format(
                Locale.ROOT, "`_near_dup_clusters` over %s (`%s`), τ %s", layout.name(), layout.lookupIndex(), tau);
        String result = String.format(
                Locale.ROOT,
                "P %.4f, R %.4f, F1 %.4f, ARI %.4f against the components of %,d exact pairs; %,d of %,d documents in "
                        + "another cluster; %d assignments not resolved by index and _id; %d pairs of J >= τ split%s; "
                        + "took %s ms; load %s–%s",
                q[1],
                q[2],
                q[3],
                q[0],
                above,
                differ,
                n,
                unresolved[0],
                splitCount,
                split,
                response.get("took"),
                loadBefore,
                loadAfter);
        report.append("\n## ").append(title).append("\n\n").append(result).append(".\n");
        summary.append("| ").append(title).append(" | ").append(result).append(" |\n");
        System.err.println(title + ": " + result);
    }

    /** The line of the indexed document that {@code id} names in {@code index}; -1 when no index of the layout. */
    private static int lineOf(Layout layout, String index, String id) {
        int part = layout.indices().indexOf(index);
        if (part < 0) {
            return -1;
        }
        // The stream's _ids are lines; a daily index's count from its first line.
        int line = Integer.parseInt(id) + (layout.name().equals("stream") ? 0 : layout.firstLine()[part]);
        int end = part + 1 < layout.firstLine().length ? layout.firstLine()[part + 1] : Integer.MAX_VALUE;
        return line >= layout.firstLine()[part] && line < end ? line : -1;
    }

    /** What the last run wrote into {@link #SINK}, by sent position: {duplicate_of, duplicate_of_index}. */
    private String[][] answers(int n) throws Exception {
        String[][] answers = new String[n][2];
        String of = LookupCostEvaluation.TARGET + ".duplicate_of";
        String in = of + "_index";
        evaluate.scroll(
                SINK,
                "{\"size\": 10000, \"sort\": [\"_doc\"], \"_source\": false, \"query\": {\"exists\": {\"field\": \""
                        + of + "\"}}, \"docvalue_fields\": [\"" + of + "\", \"" + in + "\"]}",
                h -> {
                    int k = Integer.parseInt((String) h.get("_id"));
                    answers[k][0] = (String) ((List<?>) Json.path(h, "fields", of)).get(0);
                    Object index = Json.path(h, "fields", in);
                    answers[k][1] = index == null ? null : (String) ((List<?>) index).get(0);
                });
        return answers;
    }
}
