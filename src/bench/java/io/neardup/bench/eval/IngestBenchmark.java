/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.neardup.bench.common.Corpus;
import io.neardup.bench.common.Node;
import io.neardup.bench.common.Options;
import io.neardup.bench.common.Stats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Pipeline overhead on a real node: bulk-indexes a corpus into a fresh index once per variant (plain
 * bulk, the anchors, the {@code near_dup_fingerprint} variants), alternating the variants, and reports
 * docs/s and MB/s (UTF-8 bytes of the texts) of each run, the medians and each median as a ratio to
 * plain bulk's.
 *
 * <p>One client thread sends the bulk requests one after another (pre-serialized, so the client's
 * own JSON work is outside the timing); the index has 1 shard, 0 replicas and refresh disabled
 * during the load. One untimed warm-up run per variant comes first. Every bulk response is checked
 * for errors, and the final document count and one stored fingerprint are checked. The 1-minute load
 * average is printed before and after, since a run on a shared machine is only worth its load.
 *
 * <p>Command line (node started as described in docs/fingerprints.md):
 * <pre>
 * $JAVA_HOME/bin/java -cp $BUILD/classes:$BUILD/test-classes:$(cat $BUILD/bench-cp.txt) \
 *     io.neardup.bench.eval.IngestBenchmark http://127.0.0.1:9281 $DATA/manpages.jsonl.gz [batch=500] [runs=3] \
 *     [variants=plain,fingerprint]
 * </pre>
 * Variants, each a key of {@link #VARIANTS}:
 * <ul>
 * <li>{@code plain}: no pipeline, the corpus's own mapping.</li>
 * <li>Anchors: {@code os_fingerprint}, a pipeline with only OpenSearch's own {@code fingerprint}
 *     processor (SHA-256 of the text into a {@code keyword}: the cheapest useful ingest pipeline);
 *     {@code min_hash_filter}, no pipeline, the text also indexed into a sub-field analyzed by
 *     OpenSearch's {@code min_hash} token filter (standard tokenizer, lowercase, word 3-shingles,
 *     128 one-permutation buckets: the signature the processor computes, made by the analysis chain
 *     instead); {@code noop}, a pipeline with one {@code set} processor: the ingest framework alone.</li>
 * <li>The processor, target unindexed ({@code {"type": "object", "enabled": false}}): {@code fingerprint}
 *     (default options), {@code sketches} (outputs simhash and minhash), {@code hash} (content_hash), {@code idf}
 *     (an IDF setup: {@code english-idf.tsv}, single words, tf).</li>
 * <li>The processor, indexed into the plugin's field types: {@code mapped} (the default outputs and mapping:
 *     simhash, MinHash with shingle sets, content hash; 42 band terms), one output at a time to price each
 *     ({@code mapped_simhash}, {@code mapped_minhash}, {@code mapped_minhash_shingles},
 *     {@code mapped_content_hash}), {@code mapped_no_shingles} (no shingle sets), {@code mapped_before}
 *     (no shingle sets, the previous banding for threshold 0.8: 12 band terms), and {@code mapped_lookup}:
 *     {@code mapped} followed by {@code near_dup_lookup} on the minhash field at 0.8 (refresh is off during the
 *     load, so each lookup's search runs in full but finds nothing; copies are found among the recent
 *     fingerprints).</li>
 * <li>{@code mapped_simhash_content_hash}: {@code outputs: [content_hash, simhash]}, indexed.</li>
 * <li>{@code mapped_containment}: {@code mapped} with the {@code minhash} field mapped with {@code containment: true}
 *     (a sample of each shingle set indexed as terms).</li>
 * <li>Any variant with the suffix {@code _derived} ({@code plain_derived}, {@code mapped_derived}): the same in an
 *     index with derived source ({@code index.derived_source.enabled}: no {@code _source} stored, the fields
 *     rebuild it).</li>
 * <li>Any variant with the suffix {@code _format<N>} before it ({@code mapped_format1}, {@code mapped_format2_derived}):
 *     the same in an index of fingerprint format N ({@code index.neardup.fingerprint_format}); without it, the format a
 *     new index gets.</li>
 * </ul>
 * After each run the index is force-merged to one segment (untimed) and its store measured, in all and by
 * Lucene file extension ({@code include_segment_file_sizes}): the medians' table gives bytes a document.
 */
public final class IngestBenchmark {
    private static final String INDEX = "h3-ingest-bench";
    private static final String PIPELINE = "h3-neardup-bench";
    private static final String UNINDEXED = "{\"type\":\"object\",\"enabled\":false}";
    private static final String TEXT = "{\"type\":\"text\"}";
    private static final String SIMHASH_MAPPING = "\"simhash\":{\"type\":\"simhash\"}";
    private static final String MINHASH_MAPPING = "\"minhash\":{\"type\":\"minhash\"}";
    /** The minhash field with the containment sample indexed (issue 33): {@code mapped_containment}. */
    private static final String CONTAINMENT_MAPPING = "\"minhash\":{\"type\":\"minhash\",\"containment\":true}";

    private static final String CONTENT_HASH_MAPPING = "\"content_hash\":{\"type\":\"keyword\"}";
    private static final String ALL_MAPPED =
            "{\"properties\":{" + SIMHASH_MAPPING + "," + MINHASH_MAPPING + "," + CONTENT_HASH_MAPPING + "}}";

    /**
     * One way of indexing the corpus.
     *
     * @param processors    the pipeline's processors (JSON, comma-separated), or null for no pipeline
     * @param targetMapping the mapping of {@code text_fp}, or null to leave it out
     * @param textMapping   the mapping of {@code text}
     * @param analysis      the index's {@code analysis} settings, or null
     * @param checks        what a stored {@code text_fp} must contain, or an empty array
     */
    private record Variant(
            String processors, String targetMapping, String textMapping, String analysis, String... checks) {}

    private static Variant fingerprintVariant(String outputs, String targetMapping, String... checks) {
        String outputsParam = outputs == null ? "" : ",\"outputs\":[" + outputs + "]";
        return new Variant(
                "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\"" + outputsParam + "}}",
                targetMapping,
                TEXT,
                null,
                checks);
    }

    private static final java.util.Map<String, Variant> VARIANTS = java.util.Map.ofEntries(
            java.util.Map.entry("plain", new Variant(null, null, TEXT, null)),
            java.util.Map.entry(
                    "noop",
                    new Variant("{\"set\":{\"field\":\"text_fp\",\"value\":{\"x\":1}}}", UNINDEXED, TEXT, null)),
            java.util.Map.entry(
                    "os_fingerprint",
                    new Variant(
                            "{\"fingerprint\":{\"fields\":[\"text\"],\"target_field\":\"text_fp\",\"hash_method\":\"SHA-256@2.16.0\"}}",
                            "{\"type\":\"keyword\"}",
                            TEXT,
                            null,
                            "\"text_fp\":\"")),
            java.util.Map.entry(
                    "min_hash_filter",
                    new Variant(
                            null,
                            null,
                            "{\"type\":\"text\",\"fields\":{\"minhash\":{\"type\":\"text\",\"analyzer\":\"min_hash_3\"}}}",
                            "{\"filter\":{\"word_3_shingles\":{\"type\":\"shingle\",\"min_shingle_size\":3,"
                                    + "\"max_shingle_size\":3,\"output_unigrams\":false},"
                                    + "\"min_hash_128\":{\"type\":\"min_hash\",\"hash_count\":1,\"bucket_count\":128,"
                                    + "\"hash_set_size\":1,\"with_rotation\":true}},"
                                    + "\"analyzer\":{\"min_hash_3\":{\"tokenizer\":\"standard\","
                                    + "\"filter\":[\"lowercase\",\"word_3_shingles\",\"min_hash_128\"]}}}")),
            java.util.Map.entry("fingerprint", fingerprintVariant(null, UNINDEXED, "\"simhash\"", "\"minhash\"")),
            java.util.Map.entry(
                    "sketches", fingerprintVariant("\"simhash\",\"minhash\"", UNINDEXED, "\"simhash\"", "\"minhash\"")),
            java.util.Map.entry("hash", fingerprintVariant("\"content_hash\"", UNINDEXED, "\"content_hash\"")),
            java.util.Map.entry(
                    "idf",
                    new Variant(
                            "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\","
                                    + "\"idf_table\":\"english-idf.tsv\",\"simhash_shingle_size\":1,\"weighting\":\"tf\"}}",
                            UNINDEXED,
                            TEXT,
                            null,
                            "\"simhash\"",
                            "\"minhash\"")),
            java.util.Map.entry("mapped", fingerprintVariant(null, ALL_MAPPED, "\"simhash\"", "\"minhash\"")),
            java.util.Map.entry(
                    "mapped_containment",
                    fingerprintVariant(
                            null,
                            ALL_MAPPED.replace(MINHASH_MAPPING, CONTAINMENT_MAPPING),
                            "\"simhash\"",
                            "\"minhash\"")),
            java.util.Map.entry(
                    "mapped_simhash",
                    fingerprintVariant("\"simhash\"", "{\"properties\":{" + SIMHASH_MAPPING + "}}", "\"simhash\"")),
            java.util.Map.entry(
                    "mapped_minhash",
                    fingerprintVariant("\"minhash\"", "{\"properties\":{" + MINHASH_MAPPING + "}}", "\"minhash\"")),
            java.util.Map.entry(
                    "mapped_minhash_shingles",
                    fingerprintVariant(
                            "\"minhash\",\"shingles\"", "{\"properties\":{" + MINHASH_MAPPING + "}}", "\"shingles\"")),
            java.util.Map.entry(
                    "mapped_content_hash",
                    fingerprintVariant(
                            "\"content_hash\"", "{\"properties\":{" + CONTENT_HASH_MAPPING + "}}", "\"content_hash\"")),
            java.util.Map.entry(
                    "mapped_simhash_content_hash",
                    fingerprintVariant(
                            "\"content_hash\",\"simhash\"",
                            "{\"properties\":{" + SIMHASH_MAPPING + "," + CONTENT_HASH_MAPPING + "}}",
                            "\"simhash\"",
                            "\"content_hash\"")),
            java.util.Map.entry(
                    "mapped_no_shingles",
                    fingerprintVariant(
                            "\"simhash\",\"minhash\",\"content_hash\"", ALL_MAPPED, "\"simhash\"", "\"minhash\"")),
            java.util.Map.entry(
                    "mapped_before",
                    fingerprintVariant(
                            "\"simhash\",\"minhash\",\"content_hash\"",
                            "{\"properties\":{" + SIMHASH_MAPPING
                                    + ",\"minhash\":{\"type\":\"minhash\",\"threshold\":0.8}," + CONTENT_HASH_MAPPING
                                    + "}}",
                            "\"simhash\"",
                            "\"minhash\"")),
            java.util.Map.entry(
                    "mapped_lookup",
                    new Variant(
                            "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\"}},"
                                    + "{\"near_dup_lookup\":{\"field\":\"text_fp.minhash\",\"min_similarity\":0.8,"
                                    + "\"target_field\":\"text_dup\"}}",
                            ALL_MAPPED,
                            TEXT,
                            null,
                            "\"simhash\"",
                            "\"minhash\"")));

    private static final String DERIVED_SUFFIX = "_derived";
    private static final java.util.regex.Pattern FORMAT_SUFFIX = java.util.regex.Pattern.compile("_format([0-9]+)$");

    /** HTTP/1.1 or h2c, as the JDK client chooses (this program's measurements were taken so). */
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private static Node node;
    private static long lastStoreBytes;
    private static String lastFileSizes;

    public static void main(String[] args) throws Exception {
        Options.requirePositional(args, 2, "IngestBenchmark <http://host:port> <corpus.jsonl.gz> [batch] [runs]");
        String url = args[0];
        Path corpus = Path.of(args[1]);
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        String[] variants = (args.length > 4 ? args[4] : "plain,fingerprint").split(",");

        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        System.out.printf(Locale.ROOT, "corpus %s%n", corpus);
        long[] storePerDoc = new long[variants.length];
        double[] medians = measure(url, docs, batch, runs, true, variants, storePerDoc);
        long textBytes = textBytes(docs);
        int plainIndex = Arrays.asList(variants).indexOf("plain");
        double plain = plainIndex < 0 ? Double.NaN : medians[plainIndex];
        System.out.println();
        long plainStore = plainIndex < 0 ? -1 : storePerDoc[plainIndex];
        System.out.println(
                "| variant | median time (s) | docs/s | MB/s | ratio to plain | store a doc (merged) | store ratio |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int v = 0; v < variants.length; v++) {
            double m = medians[v];
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.2f | %.0f | %.2f | %.2f | %,d | %.2f |%n",
                    variants[v],
                    m,
                    docs.size() / m,
                    textBytes / 1e6 / m,
                    m / plain,
                    storePerDoc[v],
                    (double) storePerDoc[v] / plainStore);
        }
    }

    static long textBytes(List<Corpus.Doc> docs) {
        long textBytes = 0;
        for (Corpus.Doc d : docs) {
            textBytes += d.utf8Bytes();
        }
        return textBytes;
    }

    /**
     * Bulk-indexes {@code docs} once per variant and run (after one untimed warm-up run per variant when
     * {@code warmup}), printing each run, and returns the median seconds per variant (in the order given).
     * Creates and deletes its own index and pipelines. Also used by {@link Evaluate}.
     */
    static double[] measure(String url, List<Corpus.Doc> docs, int batch, int runs, boolean warmup, String[] variants)
            throws Exception {
        return measure(url, docs, batch, runs, warmup, variants, new long[variants.length]);
    }

    /** As {@link #measure}, also filling {@code storePerDoc} with each variant's last store (merged), bytes a doc. */
    static double[] measure(
            String url,
            List<Corpus.Doc> docs,
            int batch,
            int runs,
            boolean warmup,
            String[] variants,
            long[] storePerDoc)
            throws Exception {
        node = new Node(url, Duration.ofMinutes(2), HTTP);
        long textBytes = textBytes(docs);
        List<byte[]> bodies = bulkBodies(docs, batch);
        System.out.printf(
                Locale.ROOT,
                "ingest benchmark: %d docs, %.1f MB of text, %d bulk requests of <= %d docs%n",
                docs.size(),
                textBytes / 1e6,
                bodies.size(),
                batch);

        for (String v : variants) {
            Variant variant = variant(v);
            if (variant == null) {
                throw new IllegalArgumentException("unknown variant " + v + ", expected one of " + VARIANTS.keySet());
            }
            if (variant.processors() != null) {
                node.ok(
                        "PUT",
                        "/_ingest/pipeline/" + PIPELINE + "-" + v,
                        "{\"description\":\"ingest bench\",\"processors\":[" + variant.processors() + "]}");
            }
        }
        System.out.printf(Locale.ROOT, "load average before: %s%n", Stats.loadAverage(1, "n/a"));

        double[][] seconds = new double[variants.length][runs];
        for (int r = warmup ? -1 : 0; r < runs; r++) {
            for (int v = 0; v < variants.length; v++) {
                Variant variant = variant(variants[v]);
                double s = run(bodies, docs.size(), variants[v], variant, variants[v].endsWith(DERIVED_SUFFIX));
                storePerDoc[v] = lastStoreBytes / docs.size();
                System.out.printf(
                        Locale.ROOT,
                        "%s %-23s %6.2f s  %7.0f docs/s  %6.2f MB/s  store %,d bytes/doc (one segment) %s%n",
                        r < 0 ? "warm-up" : "run " + (r + 1),
                        variants[v],
                        s,
                        docs.size() / s,
                        textBytes / 1e6 / s,
                        storePerDoc[v],
                        lastFileSizes);
                if (r >= 0) {
                    seconds[v][r] = s;
                }
            }
        }
        System.out.printf(Locale.ROOT, "load average after: %s%n", Stats.loadAverage(1, "n/a"));
        node.okOr404("DELETE", "/" + INDEX);
        for (String v : variants) {
            if (variant(v).processors() != null) {
                node.ok("DELETE", "/_ingest/pipeline/" + PIPELINE + "-" + v, null);
            }
        }
        double[] medians = new double[variants.length];
        for (int v = 0; v < variants.length; v++) {
            double[] sorted = seconds[v].clone();
            Arrays.sort(sorted);
            medians[v] = Stats.median(sorted); // NaN for runs = 0: a warm-up only, e.g. before a profiler is attached
        }
        return medians;
    }

    /**
     * A variant by name: {@code <name>[_format<N>][_derived]} is {@code <name>} in an index of fingerprint format N
     * (else the node's default for a new index) with derived source.
     */
    private static Variant variant(String name) {
        return VARIANTS.get(FORMAT_SUFFIX.matcher(withoutDerived(name)).replaceFirst(""));
    }

    private static String withoutDerived(String name) {
        return name.endsWith(DERIVED_SUFFIX) ? name.substring(0, name.length() - DERIVED_SUFFIX.length()) : name;
    }

    /** The {@code index.neardup.fingerprint_format} setting a variant's name asks for, or "" for the default. */
    private static String formatSetting(String name) {
        java.util.regex.Matcher format = FORMAT_SUFFIX.matcher(withoutDerived(name));
        return format.find() ? ",\"index.neardup.fingerprint_format\":" + format.group(1) : "";
    }

    private static double run(List<byte[]> bodies, int expected, String name, Variant variant, boolean derived)
            throws Exception {
        node.okOr404("DELETE", "/" + INDEX);
        String pipeline = variant.processors() == null ? null : PIPELINE + "-" + name;
        String target = variant.targetMapping() == null ? "" : ",\"text_fp\":" + variant.targetMapping();
        String analysis = variant.analysis() == null ? "" : ",\"analysis\":" + variant.analysis();
        node.ok(
                "PUT",
                "/" + INDEX,
                "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"" + analysis
                        + (derived ? ",\"index.derived_source.enabled\":true" : "") + formatSetting(name)
                        + "},\"mappings\":{\"properties\":{\"id\":{\"type\":\"keyword\"},\"group\":{\"type\":\"keyword\"},"
                        + "\"text\":" + variant.textMapping() + target + "}}}");
        String path = "/" + INDEX + "/_bulk" + (pipeline != null ? "?pipeline=" + pipeline : "");
        long t0 = System.nanoTime();
        for (byte[] body : bodies) {
            Node.Response resp = node.callRaw("POST", path, body, Duration.ofMinutes(5));
            if (resp.status() != 200
                    || !resp.body().startsWith("{\"took\"")
                    || !resp.body().contains("\"errors\":false")) {
                throw new IllegalStateException("bulk failed: " + resp.status() + " "
                        + resp.body().substring(0, Math.min(1000, resp.body().length())));
            }
        }
        double s = (System.nanoTime() - t0) / 1e9;
        node.ok("POST", "/" + INDEX + "/_refresh", null);
        node.ok("POST", "/" + INDEX + "/_forcemerge?max_num_segments=1", null);
        node.ok("POST", "/" + INDEX + "/_refresh", null); // lets the merged-away segments' files go
        lastStoreBytes =
                storeBytes(node.ok("GET", "/" + INDEX + "/_stats/store", null).body());
        lastFileSizes = fileSizesPerDoc(
                node.ok("GET", "/" + INDEX + "/_stats/segments?include_segment_file_sizes=true", null)
                        .body(),
                expected);
        String count = node.ok("GET", "/" + INDEX + "/_count", null).body();
        if (!count.contains("\"count\":" + expected + ",")) {
            throw new IllegalStateException("expected " + expected + " docs, got " + count);
        }
        if (variant.checks().length > 0) {
            String hit = node.ok("GET", "/" + INDEX + "/_search?size=1&_source_includes=text_fp", null)
                    .body();
            for (String check : variant.checks()) {
                if (hit.contains(check) == false) {
                    throw new IllegalStateException("no " + check + " stored: " + hit);
                }
            }
        }
        return s;
    }

    private static List<byte[]> bulkBodies(List<Corpus.Doc> docs, int batch) throws IOException {
        JsonFactory json = new JsonFactory();
        List<byte[]> bodies = new ArrayList<>();
        for (int from = 0; from < docs.size(); from += batch) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (int i = from; i < Math.min(docs.size(), from + batch); i++) {
                Corpus.Doc d = docs.get(i);
                out.write(("{\"index\":{\"_id\":\"" + i + "\"}}\n").getBytes(StandardCharsets.UTF_8));
                try (JsonGenerator g = json.createGenerator(out)) {
                    g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
                    g.writeStartObject();
                    g.writeStringField("id", d.id());
                    g.writeStringField("group", d.group());
                    g.writeStringField("text", d.text());
                    g.writeEndObject();
                }
                out.write('\n');
            }
            bodies.add(out.toByteArray());
        }
        return bodies;
    }

    private static long storeBytes(String stats) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\"size_in_bytes\":(\\d+)").matcher(stats);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Bytes a document by Lucene file extension, largest first: {@code dvd 1,234 fdt 567 ...}. */
    private static String fileSizesPerDoc(String stats, int docs) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                        "\"(\\w+)\":\\{\"size_in_bytes\":(\\d+),\"description\"")
                .matcher(stats);
        java.util.Map<String, Long> sizes = new java.util.TreeMap<>();
        while (m.find()) {
            sizes.merge(m.group(1), Long.parseLong(m.group(2)), Math::max);
        }
        StringBuilder out = new StringBuilder();
        sizes.entrySet().stream()
                .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
                .filter(e -> e.getValue() / docs > 0)
                .forEach(e -> out.append(e.getKey())
                        .append(' ')
                        .append(String.format(Locale.ROOT, "%,d ", e.getValue() / docs)));
        return out.toString().trim();
    }
}
