/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Pipeline overhead on a real node: bulk-indexes a corpus into a fresh index without a pipeline
 * (plain mapping) and through a {@code near_dup_fingerprint} pipeline with default options (the
 * target field mapped as {@code {"type": "object", "enabled": false}}), alternating the variants,
 * and reports docs/s and MB/s (UTF-8 bytes of the texts) of each run, the medians and the overhead.
 *
 * <p>One client thread sends the bulk requests one after another (pre-serialized, so the client's
 * own JSON work is outside the timing); the index has 1 shard, 0 replicas and refresh disabled
 * during the load. One untimed warm-up run per variant comes first. Every bulk response is checked
 * for errors, and the final document count and one stored fingerprint are checked.
 *
 * <p>Command line (node started as described in docs/fingerprints.md):
 * <pre>
 * $JAVA_HOME/bin/java -cp /tmp/h3-target/test-classes:/tmp/h3-target/classes:$(cat /tmp/h3-target/cp.txt) \
 *     io.neardup.bench.IngestBenchmark http://127.0.0.1:9260 ../shared/corpus/manpages.jsonl.gz [batch=500] [runs=3] \
 *     [variants=plain,fingerprint]
 * </pre>
 * Variants: {@code plain} (no pipeline), {@code fingerprint} (the processor, default options),
 * and for a breakdown {@code noop} (a pipeline with one {@code set} processor: the ingest
 * framework's own cost), {@code sketches} (outputs simhash and minhash only) and {@code hash}
 * (outputs content_hash only), and {@code idf}: an IDF setup ({@code english-idf.tsv},
 * single words, tf). The {@code mapped} variants index the fingerprints into the plugin's field types
 * instead of leaving them unindexed: {@code mapped} (the default outputs and mapping: shingle sets,
 * 42 band terms), {@code mapped_no_shingles} (no shingle sets), {@code mapped_before} (no shingle sets,
 * the previous banding for threshold 0.8: 12 band terms), and {@code mapped_lookup}: {@code mapped} followed by
 * {@code near_dup_lookup} on the minhash field at 0.8 (refresh is off during the load, so each lookup's search runs
 * in full but finds nothing; copies are found among the recent fingerprints). The overhead is reported against
 * {@code plain}.
 */
public final class IngestBenchmark {
    private static final String INDEX = "h3-ingest-bench";
    private static final String PIPELINE = "h3-neardup-bench";
    private static final java.util.Map<String, String> PROCESSORS = java.util.Map.of(
            "noop", "{\"set\":{\"field\":\"text_fp\",\"value\":{\"x\":1}}}",
            "fingerprint", "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\"}}",
            "sketches",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\",\"outputs\":[\"simhash\",\"minhash\"]}}",
            "hash",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\",\"outputs\":[\"content_hash\"]}}",
            "idf",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\",\"idf_table\":\"english-idf.tsv\","
                            + "\"simhash_shingle_size\":1,\"weighting\":\"tf\"}}",
            "mapped", "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\"}}",
            "mapped_no_shingles",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\","
                            + "\"outputs\":[\"simhash\",\"minhash\",\"content_hash\"]}}",
            "mapped_before",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\","
                            + "\"outputs\":[\"simhash\",\"minhash\",\"content_hash\"]}}",
            "mapped_lookup",
                    "{\"near_dup_fingerprint\":{\"field\":\"text\",\"target_field\":\"text_fp\"}},"
                            + "{\"near_dup_lookup\":{\"field\":\"text_fp.minhash\",\"min_similarity\":0.8,\"target_field\":\"text_dup\"}}");
    /** The {@code mapped*} variants index the fingerprints into the plugin's field types; the others leave them unindexed. */
    private static final java.util.Map<String, String> TARGET_MAPPINGS = java.util.Map.of(
            "mapped",
                    "{\"properties\":{\"simhash\":{\"type\":\"simhash\"},\"minhash\":{\"type\":\"minhash\"},"
                            + "\"content_hash\":{\"type\":\"keyword\"}}}",
            "mapped_no_shingles",
                    "{\"properties\":{\"simhash\":{\"type\":\"simhash\"},\"minhash\":{\"type\":\"minhash\"},"
                            + "\"content_hash\":{\"type\":\"keyword\"}}}",
            "mapped_before",
                    "{\"properties\":{\"simhash\":{\"type\":\"simhash\"},\"minhash\":{\"type\":\"minhash\","
                            + "\"threshold\":0.8},\"content_hash\":{\"type\":\"keyword\"}}}",
            "mapped_lookup",
                    "{\"properties\":{\"simhash\":{\"type\":\"simhash\"},\"minhash\":{\"type\":\"minhash\"},"
                            + "\"content_hash\":{\"type\":\"keyword\"}}}");

    private static HttpClient http;
    private static String base;

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: IngestBenchmark <http://host:port> <corpus.jsonl.gz> [batch] [runs]");
            System.exit(2);
        }
        base = args[0].replaceAll("/$", "");
        Path corpus = Path.of(args[1]);
        int batch = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        String[] variants = (args.length > 4 ? args[4] : "plain,fingerprint").split(",");

        List<Corpus.Doc> docs = Corpus.read(corpus, Integer.MAX_VALUE);
        System.out.printf(Locale.ROOT, "corpus %s%n", corpus);
        double[] medians = measure(base, docs, batch, runs, true, variants);
        long textBytes = textBytes(docs);
        int plainIndex = Arrays.asList(variants).indexOf("plain");
        double plain = plainIndex < 0 ? Double.NaN : medians[plainIndex];
        System.out.println();
        System.out.println("| variant | median time (s) | docs/s | MB/s | overhead vs plain |");
        System.out.println("|---|---|---|---|---|");
        for (int v = 0; v < variants.length; v++) {
            double m = medians[v];
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.2f | %.0f | %.2f | %+.1f%% |%n",
                    variants[v],
                    m,
                    docs.size() / m,
                    textBytes / 1e6 / m,
                    100 * (m / plain - 1));
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
        base = url.replaceAll("/$", "");
        if (http == null) {
            http = HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(10))
                    .build();
        }
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
            if (!v.equals("plain")) {
                if (!PROCESSORS.containsKey(v)) {
                    throw new IllegalArgumentException("unknown variant " + v);
                }
                send(
                        "PUT",
                        "/_ingest/pipeline/" + PIPELINE + "-" + v,
                        "{\"description\":\"h3 bench\",\"processors\":[" + PROCESSORS.get(v) + "]}");
            }
        }

        double[][] seconds = new double[variants.length][runs];
        for (int r = warmup ? -1 : 0; r < runs; r++) {
            for (int v = 0; v < variants.length; v++) {
                String pipeline = variants[v].equals("plain") ? null : PIPELINE + "-" + variants[v];
                double s = run(
                        bodies,
                        docs.size(),
                        pipeline,
                        TARGET_MAPPINGS.getOrDefault(variants[v], "{\"type\":\"object\",\"enabled\":false}"),
                        !variants[v].equals("plain") && !variants[v].equals("noop") && !variants[v].equals("hash"));
                System.out.printf(
                        Locale.ROOT,
                        "%s %-11s %6.2f s  %7.0f docs/s  %6.2f MB/s%n",
                        r < 0 ? "warm-up" : "run " + (r + 1),
                        variants[v],
                        s,
                        docs.size() / s,
                        textBytes / 1e6 / s);
                if (r >= 0) {
                    seconds[v][r] = s;
                }
            }
        }
        sendAllowing404("DELETE", "/" + INDEX);
        for (String v : variants) {
            if (!v.equals("plain")) {
                send("DELETE", "/_ingest/pipeline/" + PIPELINE + "-" + v, null);
            }
        }
        double[] medians = new double[variants.length];
        for (int v = 0; v < variants.length; v++) {
            medians[v] = median(seconds[v]);
        }
        return medians;
    }

    private static double run(
            List<byte[]> bodies, int expected, String pipeline, String targetMapping, boolean checkSketches)
            throws Exception {
        sendAllowing404("DELETE", "/" + INDEX);
        String fp = pipeline != null ? ",\"text_fp\":" + targetMapping : "";
        send(
                "PUT",
                "/" + INDEX,
                "{\"settings\":{\"number_of_shards\":1,\"number_of_replicas\":0,\"refresh_interval\":\"-1\"},"
                        + "\"mappings\":{\"properties\":{\"id\":{\"type\":\"keyword\"},\"group\":{\"type\":\"keyword\"},"
                        + "\"text\":{\"type\":\"text\"}" + fp + "}}}");
        String path = "/" + INDEX + "/_bulk" + (pipeline != null ? "?pipeline=" + pipeline : "");
        long t0 = System.nanoTime();
        for (byte[] body : bodies) {
            HttpResponse<String> resp = http.send(
                    HttpRequest.newBuilder(URI.create(base + path))
                            .header("Content-Type", "application/x-ndjson")
                            .timeout(Duration.ofMinutes(5))
                            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (resp.statusCode() != 200
                    || !resp.body().startsWith("{\"took\"")
                    || !resp.body().contains("\"errors\":false")) {
                throw new IllegalStateException("bulk failed: " + resp.statusCode() + " "
                        + resp.body().substring(0, Math.min(1000, resp.body().length())));
            }
        }
        double s = (System.nanoTime() - t0) / 1e9;
        send("POST", "/" + INDEX + "/_refresh", null);
        String count = send("GET", "/" + INDEX + "/_count", null);
        if (!count.contains("\"count\":" + expected + ",")) {
            throw new IllegalStateException("expected " + expected + " docs, got " + count);
        }
        if (checkSketches) {
            String hit = send("GET", "/" + INDEX + "/_search?size=1&_source_includes=text_fp", null);
            if (!hit.contains("\"simhash\"") || !hit.contains("\"minhash\"")) {
                throw new IllegalStateException("no fingerprint stored: " + hit);
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

    private static String send(String method, String path, String body) throws Exception {
        HttpResponse<String> resp = request(method, path, body);
        if (resp.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + path + ": " + resp.statusCode() + " " + resp.body());
        }
        return resp.body();
    }

    private static void sendAllowing404(String method, String path) throws Exception {
        HttpResponse<String> resp = request(method, path, null);
        if (resp.statusCode() / 100 != 2 && resp.statusCode() != 404) {
            throw new IllegalStateException(method + " " + path + ": " + resp.statusCode() + " " + resp.body());
        }
    }

    private static HttpResponse<String> request(String method, String path, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofMinutes(2))
                .header("Content-Type", "application/json");
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
