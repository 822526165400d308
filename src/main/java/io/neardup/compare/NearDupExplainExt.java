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
 * default pipeline. Per hit, passages for the first {@code max_explained_chars} characters of each text; per request, at
 * most {@code max_total_chars} characters of hits: {@link NearDupExplainCoordinator} gives each shard searched an even
 * share of it, and once a shard has explained its share, its remaining hits get the measures only ({@code truncated}).
 *
 * <p>{@code like} may also name a document, {@code {"_id": …, "_index": …, "field": …}} ({@code _index} defaults to the
 * one index searched, {@code field} to {@code field}): {@link NearDupExplainCoordinator} reads it on the coordinating
 * node, as the caller, and puts its text in its place before any shard runs.
 */
public final class NearDupExplainExt extends SearchExtBuilder {
    public static final String NAME = "near_dup_explain";
    public static final int DEFAULT_MAX_TOTAL_CHARS = 1_000_000;

    private static final Set<String> KEYS =
            Set.of("like", "field", "fingerprint", "max_explained_chars", "max_total_chars");
    private static final Set<String> LIKE_KEYS = Set.of("text", "_id", "_index", "field");

    /** A liked document not read yet: its {@code index} null where the search's one index is meant. */
    public record LikeDocument(String index, String id, String field) {}

    /** Null while {@link #likeDocument} is still to be read. */
    private final String likeText;

    private final LikeDocument likeDocument;
    private final String field;
    private final String fingerprint;
    private final int maxExplainedChars;
    private final int maxTotalChars;
    /** This shard's share of {@link #maxTotalChars}, set on the coordinating node; -1 until then. */
    private final int maxShardChars;

    public NearDupExplainExt(
            String likeText, String field, String fingerprint, int maxExplainedChars, int maxTotalChars) {
        this(likeText, null, field, fingerprint, maxExplainedChars, maxTotalChars, -1);
    }

    private NearDupExplainExt(
            String likeText,
            LikeDocument likeDocument,
            String field,
            String fingerprint,
            int maxExplainedChars,
            int maxTotalChars,
            int maxShardChars) {
        assert (likeText == null) != (likeDocument == null);
        this.likeText = likeText;
        this.likeDocument = likeDocument;
        this.field = field;
        this.fingerprint = fingerprint;
        this.maxExplainedChars = maxExplainedChars;
        this.maxTotalChars = maxTotalChars;
        this.maxShardChars = maxShardChars;
    }

    public NearDupExplainExt(StreamInput in) throws IOException {
        likeText = in.readOptionalString();
        likeDocument = in.readBoolean()
                ? new LikeDocument(in.readOptionalString(), in.readString(), in.readOptionalString())
                : null;
        field = in.readString();
        fingerprint = in.readOptionalString();
        maxExplainedChars = in.readVInt();
        maxTotalChars = in.readVInt();
        maxShardChars = in.readInt();
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
        Object like = body.get("like");
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
        if (!(like instanceof Map<?, ?> likeMap)) {
            throw new IllegalArgumentException("[" + NAME + ".like] must be an object with [text], or with [_id] "
                    + "(and [_index], [field]), got " + (like == null ? "null" : "[" + like + "]"));
        }
        for (Object key : likeMap.keySet()) {
            if (LIKE_KEYS.contains(key) == false) {
                throw new IllegalArgumentException("[" + NAME + ".like] has unknown key [" + key
                        + "], expected [text], " + "or [_id] with [_index] and [field]");
            }
        }
        if (likeMap.containsKey("text")) {
            if (likeMap.size() > 1) {
                throw new IllegalArgumentException(
                        "[" + NAME + ".like] takes [text] or [_id] with [_index] and [field], not both");
            }
            if (!(likeMap.get("text") instanceof String text)) {
                throw new IllegalArgumentException("[" + NAME + ".like.text] must be a string");
            }
            return new NearDupExplainExt(text, null, field, fingerprint, perHit, total, -1);
        }
        if (likeMap.containsKey("_id") == false) {
            throw new IllegalArgumentException("[" + NAME + ".like] needs [text] or [_id]");
        }
        LikeDocument document = new LikeDocument(
                likeMap.containsKey("_index")
                        ? NearDupCompareRequest.nonEmpty(NAME + ".like._index", likeMap.get("_index"))
                        : null,
                NearDupCompareRequest.nonEmpty(NAME + ".like._id", likeMap.get("_id")),
                likeMap.containsKey("field")
                        ? NearDupCompareRequest.nonEmpty(NAME + ".like.field", likeMap.get("field"))
                        : null);
        return new NearDupExplainExt(null, document, field, fingerprint, perHit, total, -1);
    }

    /** This ext with the liked document's text in place of the document. */
    NearDupExplainExt withLikeText(String text) {
        return new NearDupExplainExt(text, null, field, fingerprint, maxExplainedChars, maxTotalChars, maxShardChars);
    }

    /** This ext with each shard's share of {@link #maxTotalChars}. */
    NearDupExplainExt withMaxShardChars(int share) {
        return new NearDupExplainExt(
                likeText, likeDocument, field, fingerprint, maxExplainedChars, maxTotalChars, share);
    }

    /**
     * The characters of hits a shard explains at most: its share of the request's cap, or the whole cap where no
     * coordinating node split it (an ext made in a test).
     */
    public int maxShardChars() {
        return maxShardChars >= 0 ? maxShardChars : maxTotalChars;
    }

    /** Null once read (or where {@code like} was a text). */
    public LikeDocument likeDocument() {
        return likeDocument;
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
        out.writeOptionalString(likeText);
        out.writeBoolean(likeDocument != null);
        if (likeDocument != null) {
            out.writeOptionalString(likeDocument.index());
            out.writeString(likeDocument.id());
            out.writeOptionalString(likeDocument.field());
        }
        out.writeString(field);
        out.writeOptionalString(fingerprint);
        out.writeVInt(maxExplainedChars);
        out.writeVInt(maxTotalChars);
        out.writeInt(maxShardChars);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject(NAME);
        builder.startObject("like");
        if (likeDocument == null) {
            builder.field("text", likeText);
        } else {
            if (likeDocument.index() != null) {
                builder.field("_index", likeDocument.index());
            }
            builder.field("_id", likeDocument.id());
            if (likeDocument.field() != null) {
                builder.field("field", likeDocument.field());
            }
        }
        builder.endObject();
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
        return Objects.hash(
                likeText, likeDocument, field, fingerprint, maxExplainedChars, maxTotalChars, maxShardChars);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof NearDupExplainExt other
                && Objects.equals(likeText, other.likeText)
                && Objects.equals(likeDocument, other.likeDocument)
                && field.equals(other.field)
                && Objects.equals(fingerprint, other.fingerprint)
                && maxExplainedChars == other.maxExplainedChars
                && maxTotalChars == other.maxTotalChars
                && maxShardChars == other.maxShardChars;
    }
}
