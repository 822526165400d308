/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.core.Margins;
import io.neardup.core.SimhashCodec;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.opensearch.core.ParseField;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.ToXContentObject;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;

/**
 * What a {@code near_duplicate} query compares against: a document by {@code _id}, a text
 * fingerprinted by the index's own pipeline, or a fingerprint given as is.
 */
public final class Like implements Writeable, ToXContentObject {

    static final ParseField ID = new ParseField("_id");
    static final ParseField INDEX = new ParseField("_index");
    static final ParseField TEXT = new ParseField("text");
    static final ParseField PIPELINE = new ParseField("pipeline");
    static final ParseField SIMHASH = new ParseField("simhash");
    static final ParseField MARGINS = new ParseField("margins");
    static final ParseField MINHASH = new ParseField("minhash");
    static final ParseField SHINGLES = new ParseField("shingles");
    static final ParseField SCHEME = new ParseField("scheme");
    /** Texts beyond this are refused: the processor's own default cap. */
    static final int MAX_TEXT_CHARS = 1_000_000;

    /**
     * {@code FETCHED} is an {@code ID} whose document was read by the query's rewrite, on the
     * coordinating node where {@code _index} is known: it carries that document's fingerprint
     * object, so that no shard reads it again. Only the rewrite creates it; users write {@code _id}.
     */
    public enum Kind {
        ID,
        TEXT,
        SIMHASH,
        MINHASH,
        FETCHED
    }

    private final Kind kind;
    private final String id;
    private final String index;
    private final String text;
    private final String pipeline;
    private final String simhash;
    private final String margins;
    private final String minhash;
    private final String shingles;
    private final String scheme;
    /** FETCHED: the document's {@code _source}, reduced to the fingerprint object. */
    private final Map<String, Object> source;

    private Like(
            Kind kind,
            String id,
            String index,
            String text,
            String pipeline,
            String simhash,
            String margins,
            String minhash,
            String shingles,
            String scheme) {
        this(kind, id, index, text, pipeline, simhash, margins, minhash, shingles, scheme, null);
    }

    private Like(
            Kind kind,
            String id,
            String index,
            String text,
            String pipeline,
            String simhash,
            String margins,
            String minhash,
            String shingles,
            String scheme,
            Map<String, Object> source) {
        this.kind = kind;
        this.id = id;
        this.index = index;
        this.text = text;
        this.pipeline = pipeline;
        this.simhash = simhash;
        this.margins = margins;
        this.minhash = minhash;
        this.shingles = shingles;
        this.scheme = scheme;
        this.source = source;
    }

    public static Like id(String id, String index) {
        return new Like(Kind.ID, requireText(id, ID), index, null, null, null, null, null, null, null);
    }

    /** The document {@code id} of {@code index}, read: {@code source} is its {@code _source} (or the part the query needs). */
    public static Like fetched(String id, String index, Map<String, Object> source) {
        return new Like(
                Kind.FETCHED,
                requireText(id, ID),
                Objects.requireNonNull(index, "index"),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                Objects.requireNonNull(source, "source"));
    }

    /**
     * A document's fingerprint object given with the request, as an ingest processor has it:
     * {@code source} holds it under its path; {@code id}, when not null, is excluded from the matches.
     */
    public static Like source(String id, String index, Map<String, Object> source) {
        return new Like(
                Kind.FETCHED,
                id,
                index,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                Objects.requireNonNull(source, "source"));
    }

    public static Like text(String text, String pipeline) {
        Objects.requireNonNull(text, "text");
        if (text.length() > MAX_TEXT_CHARS) {
            throw new IllegalArgumentException(
                    "[like.text] has " + text.length() + " characters, more than " + MAX_TEXT_CHARS);
        }
        return new Like(Kind.TEXT, null, null, text, pipeline, null, null, null, null, null);
    }

    public static Like simhash(String hex, String margins, String scheme) {
        SimhashCodec.parseHex(requireText(hex, SIMHASH));
        if (margins != null) {
            Margins.decode(margins);
        }
        return new Like(Kind.SIMHASH, null, null, null, null, hex, margins, null, null, scheme);
    }

    /** @param shingles the shingle set as the processor writes it, or null: then candidates are verified by the estimate */
    public static Like minhash(String signature, String shingles, String scheme) {
        return new Like(
                Kind.MINHASH, null, null, null, null, null, null, requireText(signature, MINHASH), shingles, scheme);
    }

    private static String requireText(String value, ParseField field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("[like." + field.getPreferredName() + "] must not be empty");
        }
        return value;
    }

    public Kind kind() {
        return kind;
    }

    public String id() {
        return id;
    }

    public String index() {
        return index;
    }

    public String text() {
        return text;
    }

    public String pipeline() {
        return pipeline;
    }

    public String simhash() {
        return simhash;
    }

    public String margins() {
        return margins;
    }

    public String minhash() {
        return minhash;
    }

    public String shingles() {
        return shingles;
    }

    public String scheme() {
        return scheme;
    }

    public Map<String, Object> source() {
        return source;
    }

    public Like(StreamInput in) throws IOException {
        this.kind = in.readEnum(Kind.class);
        this.id = in.readOptionalString();
        this.index = in.readOptionalString();
        this.text = in.readOptionalString();
        this.pipeline = in.readOptionalString();
        this.simhash = in.readOptionalString();
        this.margins = in.readOptionalString();
        this.minhash = in.readOptionalString();
        this.shingles = in.readOptionalString();
        this.scheme = in.readOptionalString();
        this.source = in.readBoolean() ? in.readMap() : null;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeEnum(kind);
        out.writeOptionalString(id);
        out.writeOptionalString(index);
        out.writeOptionalString(text);
        out.writeOptionalString(pipeline);
        out.writeOptionalString(simhash);
        out.writeOptionalString(margins);
        out.writeOptionalString(minhash);
        out.writeOptionalString(shingles);
        out.writeOptionalString(scheme);
        out.writeBoolean(source != null);
        if (source != null) {
            out.writeMap(source);
        }
    }

    /** A fetched document prints as the {@code _id} and {@code _index} it was asked for. */
    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        field(builder, ID, id);
        field(builder, INDEX, index);
        field(builder, TEXT, text);
        field(builder, PIPELINE, pipeline);
        field(builder, SIMHASH, simhash);
        field(builder, MARGINS, margins);
        field(builder, MINHASH, minhash);
        field(builder, SHINGLES, shingles);
        field(builder, SCHEME, scheme);
        return builder.endObject();
    }

    private static void field(XContentBuilder builder, ParseField name, String value) throws IOException {
        if (value != null) {
            builder.field(name.getPreferredName(), value);
        }
    }

    static Like fromXContent(XContentParser parser) throws IOException {
        if (parser.currentToken() != XContentParser.Token.START_OBJECT) {
            throw new ParsingException(
                    parser.getTokenLocation(),
                    "[like] must be an object with one of [_id], [text], [simhash], " + "[minhash], got ["
                            + parser.currentToken() + "]");
        }
        String id = null,
                index = null,
                text = null,
                pipeline = null,
                simhash = null,
                margins = null,
                minhash = null,
                shingles = null;
        String scheme = null;
        String name = null;
        XContentParser.Token token;
        while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
            if (token == XContentParser.Token.FIELD_NAME) {
                name = parser.currentName();
            } else if (token == XContentParser.Token.VALUE_STRING) {
                switch (name) {
                    case "_id" -> id = parser.text();
                    case "_index" -> index = parser.text();
                    case "text" -> text = parser.text();
                    case "pipeline" -> pipeline = parser.text();
                    case "simhash" -> simhash = parser.text();
                    case "margins" -> margins = parser.text();
                    case "minhash" -> minhash = parser.text();
                    case "shingles" -> shingles = parser.text();
                    case "scheme" -> scheme = parser.text();
                    default ->
                        throw new ParsingException(parser.getTokenLocation(), "[like] does not support [" + name + "]");
                }
            } else {
                throw new ParsingException(
                        parser.getTokenLocation(), "[like." + name + "] must be a string, got [" + token + "]");
            }
        }
        int given =
                (id != null ? 1 : 0) + (text != null ? 1 : 0) + (simhash != null ? 1 : 0) + (minhash != null ? 1 : 0);
        if (given != 1) {
            throw new ParsingException(
                    parser.getTokenLocation(),
                    "[like] needs exactly one of [_id], [text], [simhash], [minhash], got " + given);
        }
        try {
            if (id != null) {
                rejectOthers(parser, "_id", pipeline, margins, shingles, scheme);
                return id(id, index);
            }
            if (text != null) {
                rejectOthers(parser, "text", index, margins, shingles, scheme);
                return text(text, pipeline);
            }
            rejectOthers(parser, simhash != null ? "simhash" : "minhash", index, pipeline);
            if (simhash != null) {
                rejectOthers(parser, "simhash", shingles);
                return simhash(simhash, margins, scheme);
            }
            rejectOthers(parser, "minhash", margins);
            return minhash(minhash, shingles, scheme);
        } catch (IllegalArgumentException e) {
            throw new ParsingException(parser.getTokenLocation(), e.getMessage(), e);
        }
    }

    private static void rejectOthers(XContentParser parser, String kind, String... others) {
        for (String other : others) {
            if (other != null) {
                throw new ParsingException(
                        parser.getTokenLocation(),
                        "[like] with [" + kind + "] takes none of the other keys it was "
                                + "given (only _id+_index, text+pipeline, simhash+margins+scheme, minhash+shingles+scheme go together)");
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (o instanceof Like == false) {
            return false;
        }
        Like other = (Like) o;
        return kind == other.kind
                && Objects.equals(id, other.id)
                && Objects.equals(index, other.index)
                && Objects.equals(text, other.text)
                && Objects.equals(pipeline, other.pipeline)
                && Objects.equals(simhash, other.simhash)
                && Objects.equals(margins, other.margins)
                && Objects.equals(minhash, other.minhash)
                && Objects.equals(shingles, other.shingles)
                && Objects.equals(scheme, other.scheme)
                && Objects.equals(source, other.source);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, id, index, text, pipeline, simhash, margins, minhash, shingles, scheme, source);
    }
}
