/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.search.SearchExtBuilder;

/**
 * {@code "ext": {"near_dup_explain": {"like": {"text": …}, "field": …, "fingerprint": …, "max_explained_chars": …,
 * "max_total_chars": …}}}: each hit gets the comparison of the {@code like} text (side a) with its {@code field} (side
 * b), as {@code _near_dup/_compare} answers it, in its {@code fields}. The texts are analyzed by the searched index's
 * default pipeline. Per hit, passages for the first {@code max_explained_chars} characters of each text; per shard, once
 * {@code max_total_chars} characters of hits were explained, the remaining hits get the measures only ({@code
 * truncated}).
 */
public final class NearDupExplainExt extends SearchExtBuilder {
    public static final String NAME = "near_dup_explain";
    public static final int DEFAULT_MAX_TOTAL_CHARS = 1_000_000;

    private static final Set<String> KEYS =
            Set.of("like", "field", "fingerprint", "max_explained_chars", "max_total_chars");

    private final String likeText;
    private final String field;
    private final String fingerprint;
    private final int maxExplainedChars;
    private final int maxTotalChars;

    public NearDupExplainExt(
            String likeText, String field, String fingerprint, int maxExplainedChars, int maxTotalChars) {
        this.likeText = likeText;
        this.field = field;
        this.fingerprint = fingerprint;
        this.maxExplainedChars = maxExplainedChars;
        this.maxTotalChars = maxTotalChars;
    }

    public NearDupExplainExt(StreamInput in) throws IOException {
        likeText = in.readString();
        field = in.readString();
        fingerprint = in.readOptionalString();
        maxExplainedChars = in.readVInt();
        maxTotalChars = in.readVInt();
    }

    /** Every bad key or value a 400 naming it, with the words of {@code _near_dup/_compare}. */
    public static NearDupExplainExt parse(XContentParser parser) throws IOException {
        Map<String, Object> body = parser.map();
        for (String key : body.keySet()) {
            if (KEYS.contains(key) == false) {
                throw new IllegalArgumentException("[" + NAME + "] has unknown key [" + key + "], expected any of "
                        + KEYS.stream().sorted().toList());
            }
        }
        if (body.containsKey("like") == false || body.containsKey("field") == false) {
            throw new IllegalArgumentException("[" + NAME + "] needs [like] and [field]");
        }
        NearDupCompareRequest.Side like = NearDupCompareRequest.Side.parse(NAME + ".like", body.get("like"));
        if (like.isDocument()) {
            throw new IllegalArgumentException(
                    "[" + NAME + ".like] takes [text]; compare two documents with " + "[_near_dup/_compare]");
        }
        String field = NearDupCompareRequest.nonEmpty(NAME + ".field", body.get("field"));
        String fingerprint = body.containsKey("fingerprint")
                ? NearDupCompareRequest.nonEmpty(NAME + ".fingerprint", body.get("fingerprint"))
                : null;
        int perHit = NearDupCompareRequest.cap(
                body,
                "max_explained_chars",
                NAME + ".max_explained_chars",
                NearDupCompareRequest.DEFAULT_MAX_EXPLAINED_CHARS);
        int total =
                NearDupCompareRequest.cap(body, "max_total_chars", NAME + ".max_total_chars", DEFAULT_MAX_TOTAL_CHARS);
        return new NearDupExplainExt(like.text(), field, fingerprint, perHit, total);
    }

    public String likeText() {
        return likeText;
    }

    public String field() {
        return field;
    }

    public String fingerprint() {
        return fingerprint;
    }

    public int maxExplainedChars() {
        return maxExplainedChars;
    }

    public int maxTotalChars() {
        return maxTotalChars;
    }

    @Override
    public String getWriteableName() {
        return NAME;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(likeText);
        out.writeString(field);
        out.writeOptionalString(fingerprint);
        out.writeVInt(maxExplainedChars);
        out.writeVInt(maxTotalChars);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject(NAME);
        builder.startObject("like").field("text", likeText).endObject();
        builder.field("field", field);
        if (fingerprint != null) {
            builder.field("fingerprint", fingerprint);
        }
        builder.field("max_explained_chars", maxExplainedChars);
        builder.field("max_total_chars", maxTotalChars);
        return builder.endObject();
    }

    @Override
    public int hashCode() {
        return Objects.hash(likeText, field, fingerprint, maxExplainedChars, maxTotalChars);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof NearDupExplainExt other
                && likeText.equals(other.likeText)
                && field.equals(other.field)
                && Objects.equals(fingerprint, other.fingerprint)
                && maxExplainedChars == other.maxExplainedChars
                && maxTotalChars == other.maxTotalChars;
    }
}
