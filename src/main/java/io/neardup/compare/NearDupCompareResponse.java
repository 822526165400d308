/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.core.ShingleAlignment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.ToXContentObject;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * The measures of two texts' shingle sets and where they agree: {@code shared} passages as {@code {"a": [start, end],
 * "b": [start, end]}} character ranges holding the same words, {@code only_a} and {@code only_b} the ranges of tokens
 * in no shared shingle; {@code simhash_distance} where the pipeline writes a simhash.
 */
public final class NearDupCompareResponse extends ActionResponse implements ToXContentObject {
    private final String pipeline;
    private final String scheme;
    private final ShingleAlignment.Result result;
    /** -1 where there is no simhash to compare (the pipeline writes none, or a text has no tokens). */
    private final int simhashDistance;

    public NearDupCompareResponse(String pipeline, String scheme, ShingleAlignment.Result result, int simhashDistance) {
        this.pipeline = pipeline;
        this.scheme = scheme;
        this.result = result;
        this.simhashDistance = simhashDistance;
    }

    public NearDupCompareResponse(StreamInput in) throws IOException {
        super(in);
        pipeline = in.readString();
        scheme = in.readString();
        int shinglesA = in.readVInt(), shinglesB = in.readVInt(), shared = in.readVInt();
        double jaccard = in.readDouble(), aInB = in.readDouble(), bInA = in.readDouble();
        List<ShingleAlignment.Passage> passages =
                in.readList(input -> new ShingleAlignment.Passage(range(input), range(input)));
        List<ShingleAlignment.Range> onlyA = in.readList(NearDupCompareResponse::range);
        List<ShingleAlignment.Range> onlyB = in.readList(NearDupCompareResponse::range);
        boolean truncated = in.readBoolean();
        result = new ShingleAlignment.Result(
                shinglesA, shinglesB, shared, jaccard, aInB, bInA, passages, onlyA, onlyB, truncated);
        simhashDistance = in.readInt();
    }

    private static ShingleAlignment.Range range(StreamInput in) throws IOException {
        return new ShingleAlignment.Range(in.readVInt(), in.readVInt());
    }

    private static void write(StreamOutput out, ShingleAlignment.Range range) throws IOException {
        out.writeVInt(range.start());
        out.writeVInt(range.end());
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(pipeline);
        out.writeString(scheme);
        out.writeVInt(result.shinglesA());
        out.writeVInt(result.shinglesB());
        out.writeVInt(result.sharedShingles());
        out.writeDouble(result.jaccard());
        out.writeDouble(result.containmentAInB());
        out.writeDouble(result.containmentBInA());
        out.writeCollection(result.shared(), (output, passage) -> {
            write(output, passage.a());
            write(output, passage.b());
        });
        out.writeCollection(result.onlyA(), NearDupCompareResponse::write);
        out.writeCollection(result.onlyB(), NearDupCompareResponse::write);
        out.writeBoolean(result.truncated());
        out.writeInt(simhashDistance);
    }

    public ShingleAlignment.Result result() {
        return result;
    }

    public int simhashDistance() {
        return simhashDistance;
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        builder.field("pipeline", pipeline);
        builder.field("scheme", scheme);
        for (Map.Entry<String, Object> entry :
                explanation(result, simhashDistance).entrySet()) {
            builder.field(entry.getKey(), entry.getValue());
        }
        return builder.endObject();
    }

    /**
     * The measures and passages of an alignment as the answer shows them, also each hit's {@code near_dup_explain}:
     * ranges as {@code [start, end]} lists; {@code simhash_distance} only where it is known (not -1).
     */
    static Map<String, Object> explanation(ShingleAlignment.Result result, int simhashDistance) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("jaccard", result.jaccard());
        Map<String, Object> containment = new LinkedHashMap<>();
        containment.put("a_in_b", result.containmentAInB());
        containment.put("b_in_a", result.containmentBInA());
        out.put("containment", containment);
        if (simhashDistance >= 0) {
            out.put("simhash_distance", simhashDistance);
        }
        Map<String, Object> shingles = new LinkedHashMap<>();
        shingles.put("a", result.shinglesA());
        shingles.put("b", result.shinglesB());
        shingles.put("shared", result.sharedShingles());
        out.put("shingles", shingles);
        List<Object> shared = new ArrayList<>(result.shared().size());
        for (ShingleAlignment.Passage passage : result.shared()) {
            Map<String, Object> both = new LinkedHashMap<>();
            both.put("a", range(passage.a()));
            both.put("b", range(passage.b()));
            shared.add(both);
        }
        out.put("shared", shared);
        out.put(
                "only_a",
                result.onlyA().stream().map(NearDupCompareResponse::range).toList());
        out.put(
                "only_b",
                result.onlyB().stream().map(NearDupCompareResponse::range).toList());
        out.put("truncated", result.truncated());
        return out;
    }

    private static List<Integer> range(ShingleAlignment.Range range) {
        return List.of(range.start(), range.end());
    }
}
