/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.collapse.CollapseTestHits;
import io.neardup.collapse.NearDupCollapseResponseProcessor;
import io.neardup.collapse.NearDupWindowRequestProcessor;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.pipeline.PipelineProcessingContext;
import org.opensearch.search.pipeline.Processor;

/**
 * Latency the {@code near_dup_collapse} response processor adds to a search, per response of
 * {@code window} hits (JMH sample mode: read p0.50 as the median): reading every hit's fingerprint
 * from {@code _source}, the greedy collapse, the page cut and the response copy.
 *
 * <p>Hits: {@code _source} as the ingest processor writes it ({@code text_fp.simhash} object with
 * 86-char margins and scheme, or {@code text_fp.minhash} with a 128-value signature) plus a
 * 1,000-character {@code text} and a {@code group}, so that parsing {@code _source} costs what it
 * does on short documents. 30% of the hits are near copies (1–3 bits, or 5–15 of 128 MinHash
 * positions changed) of a random earlier hit, the rest random. Fresh hits for every invocation (the
 * parsed {@code _source} is cached in a hit), built outside the measurement.
 *
 * <pre>
 * mvn -B -o -Pbench -Dbuild.dir=$BUILD test-compile exec:exec -Dbench.args="CollapseBenchmark -f 1 -wi 2 -i 3"
 * </pre>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@State(Scope.Thread)
public class CollapseBenchmark {

    @Param({"100", "1000", "10000"})
    public int window;

    @Param({"simhash", "minhash"})
    public String kind;

    private BytesReference[] sources;
    private NearDupCollapseResponseProcessor processor;
    private NearDupWindowRequestProcessor windowProcessor;

    private SearchRequest request;
    private PipelineProcessingContext context;
    private SearchResponse response;

    @Setup(Level.Trial)
    public void corpus() throws IOException {
        Random random = new Random(42);
        sources = new BytesReference[window];
        long[] simhashes = new long[window];
        int[][] signatures = new int[window][];
        StringBuilder text = new StringBuilder();
        while (text.length() < 1000) {
            text.append("lorem ipsum dolor sit amet ");
        }
        String margins = "A".repeat(86);
        for (int i = 0; i < window; i++) {
            boolean copy = i > 0 && random.nextInt(10) < 3;
            Map<String, Object> fp = new HashMap<>();
            if (kind.equals("simhash")) {
                simhashes[i] = copy
                        ? CollapseTestHits.flip(simhashes[random.nextInt(i)], 1 + random.nextInt(3), random)
                        : random.nextLong();
                fp.put(
                        "simhash",
                        Map.of(
                                "value",
                                CollapseTestHits.hex(simhashes[i]),
                                "margins",
                                margins,
                                "scheme",
                                CollapseTestHits.SCHEME));
            } else {
                signatures[i] = copy
                        ? CollapseTestHits.perturb(signatures[random.nextInt(i)], 5 + random.nextInt(11), random)
                        : CollapseTestHits.randomSignature(128, random);
                fp.put(
                        "minhash",
                        Map.of(
                                "value",
                                SignatureCodec.encode(signatures[i], CollapseTestHits.SCHEME_HASH),
                                "scheme",
                                CollapseTestHits.SCHEME));
            }
            fp.put("content_hash", "0123456789abcdef0123456789abcdef");
            Map<String, Object> source = Map.of("group", "g" + i, "text", text.toString(), "text_fp", fp);
            sources[i] = BytesReference.bytes(XContentFactory.jsonBuilder().map(source));
        }
        Processor.PipelineContext pipeline = new Processor.PipelineContext(Processor.PipelineSource.UPDATE_PIPELINE);
        Map<String, Object> config = new HashMap<>();
        config.put("field", "text_fp." + kind);
        processor = new NearDupCollapseResponseProcessor.Factory().create(null, null, null, false, config, pipeline);
        windowProcessor = new NearDupWindowRequestProcessor.Factory()
                .create(null, null, null, false, new HashMap<>(Map.of("window", window)), pipeline);
    }

    @Setup(Level.Invocation)
    public void freshResponse() {
        request = new SearchRequest().source(new SearchSourceBuilder().from(10).size(10));
        context = new PipelineProcessingContext();
        windowProcessor.processRequest(request, context);
        SearchHit[] hits = new SearchHit[window];
        for (int i = 0; i < window; i++) {
            hits[i] = new SearchHit(i, "doc-" + i, new HashMap<>(), new HashMap<>());
            hits[i].sourceRef(sources[i]);
            hits[i].score(window - i);
        }
        response = CollapseTestHits.response(hits);
    }

    @Benchmark
    public SearchResponse collapse() {
        return processor.processResponse(request, response, context);
    }
}
