/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.core.ShingleAlignment;
import java.io.IOException;
import java.util.List;
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
        builder.field("jaccard", result.jaccard());
        builder.startObject("containment")
                .field("a_in_b", result.containmentAInB())
                .field("b_in_a", result.containmentBInA())
                .endObject();
        if (simhashDistance >= 0) {
            builder.field("simhash_distance", simhashDistance);
        }
        builder.startObject("shingles")
                .field("a", result.shinglesA())
                .field("b", result.shinglesB())
                .field("shared", result.sharedShingles())
                .endObject();
        builder.startArray("shared");
        for (ShingleAlignment.Passage passage : result.shared()) {
            builder.startObject();
            range(builder.field("a"), passage.a());
            range(builder.field("b"), passage.b());
            builder.endObject();
        }
        builder.endArray();
        ranges(builder, "only_a", result.onlyA());
        ranges(builder, "only_b", result.onlyB());
        builder.field("truncated", result.truncated());
        return builder.endObject();
    }

    private static void ranges(XContentBuilder builder, String name, List<ShingleAlignment.Range> ranges)
            throws IOException {
        builder.startArray(name);
        for (ShingleAlignment.Range range : ranges) {
            range(builder, range);
        }
        builder.endArray();
    }

    private static void range(XContentBuilder builder, ShingleAlignment.Range range) throws IOException {
        builder.startArray().value(range.start()).value(range.end()).endArray();
    }
}
