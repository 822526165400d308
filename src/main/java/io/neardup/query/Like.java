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
 * fingerprinted by the index's own pipeline, or a fingerprint given as is. One record per kind;
 * each says what it holds, nothing is null for a kind that has no use for it.
 *
 * <p>On the wire every kind is written as it was when this was one class (a kind tag, then the ten
 * optional strings and the optional source map in a fixed order), so nodes of either build read each
 * other's queries; {@link ReadInEachIndex} adds its indices' answers after that, and a node of a build
 * without it refuses it as an unknown kind.
 */
public sealed interface Like extends Writeable, ToXContentObject {

    ParseField ID = new ParseField("_id");
    ParseField INDEX = new ParseField("_index");
    ParseField TEXT = new ParseField("text");
    ParseField PIPELINE = new ParseField("pipeline");
    ParseField SIMHASH = new ParseField("simhash");
    ParseField MARGINS = new ParseField("margins");
    ParseField MINHASH = new ParseField("minhash");
    ParseField SHINGLES = new ParseField("shingles");
    ParseField SCHEME = new ParseField("scheme");
    /** Texts beyond this are refused: the processor's own default cap. */
    int MAX_TEXT_CHARS = 1_000_000;

    /**
     * A document of the searched index, or of {@code index} when given, as the request names it: the query's rewrite
     * on the coordinating node reads it ({@link Fetched}, {@link ReadInEachIndex}) before any shard runs.
     */
    record ById(String id, String index) implements Like {
        public ById {
            requireText(id, ID);
            if (index != null) {
                // No index has an empty name: said here, naming the key, rather than by the GET's 404.
                requireText(index, INDEX);
            }
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(out, Wire.ID, id, index, null, null, null, null, null, null, null, null);
        }
    }

    /**
     * A document whose {@code source} (its {@code _source}, or the part the query needs) was read already:
     * by the query's rewrite on the coordinating node, where {@code _index} is known, so that no shard reads
     * it again; or given with the request by an ingest processor ({@code id} null: nothing to exclude).
     */
    record Fetched(String id, String index, Map<String, Object> source) implements Like {
        public Fetched {
            Objects.requireNonNull(source, "source");
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(out, Wire.FETCHED, id, index, null, null, null, null, null, null, null, source);
        }
    }

    /**
     * A document of the searched index ({@code like._id} without {@code _index}), read by the query's rewrite on the
     * coordinating node in each index the request reads, keyed by the index's UUID (an index of the same name in another
     * cluster is another index). Each shard takes its own index's answer: the document of the index being searched, as
     * when each shard read it itself.
     */
    record ReadInEachIndex(String id, Map<String, IndexRead> byIndexUuid) implements Like {
        public ReadInEachIndex {
            requireText(id, ID);
            byIndexUuid = Map.copyOf(byIndexUuid);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(out, Wire.READ_IN_EACH_INDEX, id, null, null, null, null, null, null, null, null, null);
            out.writeMap(byIndexUuid, StreamOutput::writeString, (o, read) -> read.writeTo(o));
        }
    }

    /**
     * One index's answer to the GET of a liked document: its {@code _source} (the part the query needs; empty if it has
     * none), or neither source nor failure when the index has no such document, or the GET's failure.
     */
    record IndexRead(Map<String, Object> source, Exception failure) implements Writeable {
        static final IndexRead NOT_FOUND = new IndexRead(null, null);

        IndexRead(StreamInput in) throws IOException {
            this(in.readBoolean() ? in.readMap() : null, in.readBoolean() ? in.readException() : null);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeBoolean(source != null);
            if (source != null) {
                out.writeMap(source);
            }
            out.writeBoolean(failure != null);
            if (failure != null) {
                out.writeException(failure);
            }
        }
    }

    /**
     * A text, fingerprinted by {@code pipeline} (or the index's default pipeline) as the documents were.
     *
     * @param pipelineChecked a rewrite read the named {@code pipeline} as the caller ({@code NearDuplicateQueryBuilder}
     *     asks for it asynchronously, so that a user who may not read pipelines cannot learn of one): set only by that
     *     rewrite, carried to the shards between nodes, never parsed from a request
     */
    record Text(String text, String pipeline, boolean pipelineChecked) implements Like {
        public Text {
            Objects.requireNonNull(text, "text");
            if (text.length() > MAX_TEXT_CHARS) {
                throw new IllegalArgumentException(
                        "[like.text] has " + text.length() + " characters, more than " + MAX_TEXT_CHARS);
            }
        }

        Text(String text, String pipeline) {
            this(text, pipeline, false);
        }

        /** This text, its named pipeline read as the caller. */
        Text pipelineCheckedText() {
            return new Text(text, pipeline, true);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(
                    out,
                    pipelineChecked ? Wire.TEXT_PIPELINE_CHECKED : Wire.TEXT,
                    null,
                    null,
                    text,
                    pipeline,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }
    }

    /** A simhash as 16 hex digits, with its margins (for PSM) and scheme where known. */
    record Simhash(String hex, String margins, String scheme) implements Like {
        public Simhash {
            SimhashCodec.parseHex(requireText(hex, SIMHASH));
            if (margins != null) {
                Margins.decode(margins);
            }
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(out, Wire.SIMHASH, null, null, null, null, hex, margins, null, null, scheme, null);
        }
    }

    /**
     * A MinHash fingerprint as the processor writes it: its signature, shingle set (null: verified by the estimate)
     * and scheme; a compact one (fingerprint format 2) has the set and no signature.
     */
    record Minhash(String signature, String shingles, String scheme) implements Like {
        public Minhash {
            requireText(
                    signature == null ? shingles : signature,
                    signature == null && shingles != null ? SHINGLES : MINHASH);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            Wire.write(out, Wire.MINHASH, null, null, null, null, null, null, signature, shingles, scheme, null);
        }
    }

    static Like id(String id, String index) {
        return new ById(id, index);
    }

    /** The document {@code id} of {@code index}, read: {@code source} is its {@code _source} (or the part the query needs). */
    static Like fetched(String id, String index, Map<String, Object> source) {
        requireText(id, ID);
        return new Fetched(id, Objects.requireNonNull(index, "index"), source);
    }

    /**
     * A document's fingerprint object given with the request, as an ingest processor has it:
     * {@code source} holds it under its path; {@code id}, when not null, is excluded from the matches.
     */
    static Like source(String id, String index, Map<String, Object> source) {
        return new Fetched(id, index, source);
    }

    static Like text(String text, String pipeline) {
        return new Text(text, pipeline);
    }

    static Like simhash(String hex, String margins, String scheme) {
        return new Simhash(hex, margins, scheme);
    }

    /** @param shingles the shingle set as the processor writes it, or null: then candidates are verified by the estimate */
    static Like minhash(String signature, String shingles, String scheme) {
        return new Minhash(signature, shingles, scheme);
    }

    private static String requireText(String value, ParseField field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("[like." + field.getPreferredName() + "] must not be empty");
        }
        return value;
    }

    static Like readFrom(StreamInput in) throws IOException {
        return Wire.read(in);
    }

    /**
     * What a chain of {@code instanceof} over the kinds of {@code like} throws after the last one. The sources are
     * Java 17, which the OpenSearch 2.19 build targets (docs/install.md) and whose switch cannot match the kinds of a
     * sealed interface: the interface still says there is no other kind, the compiler no longer checks the chains.
     */
    static IllegalStateException unknown(Like like) {
        return new IllegalStateException(
                "no such kind of [like]: " + like.getClass().getName());
    }

    /** A fetched document prints as the {@code _id} and {@code _index} it was asked for (a document read in each index: its {@code _id}). */
    @Override
    default XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        if (this instanceof ById like) {
            Wire.field(builder, ID, like.id());
            Wire.field(builder, INDEX, like.index());
        } else if (this instanceof Fetched like) {
            Wire.field(builder, ID, like.id());
            Wire.field(builder, INDEX, like.index());
        } else if (this instanceof ReadInEachIndex like) {
            Wire.field(builder, ID, like.id());
        } else if (this instanceof Text like) {
            Wire.field(builder, TEXT, like.text());
            Wire.field(builder, PIPELINE, like.pipeline());
        } else if (this instanceof Simhash like) {
            Wire.field(builder, SIMHASH, like.hex());
            Wire.field(builder, MARGINS, like.margins());
            Wire.field(builder, SCHEME, like.scheme());
        } else if (this instanceof Minhash like) {
            Wire.field(builder, MINHASH, like.signature());
            Wire.field(builder, SHINGLES, like.shingles());
            Wire.field(builder, SCHEME, like.scheme());
        } else {
            throw unknown(this);
        }
        return builder.endObject();
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
        // A compact MinHash fingerprint (fingerprint format 2) has [shingles] and no signature.
        boolean minhashKind = minhash != null || (shingles != null && id == null && text == null && simhash == null);
        int given = (id != null ? 1 : 0) + (text != null ? 1 : 0) + (simhash != null ? 1 : 0) + (minhashKind ? 1 : 0);
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

    /** The wire form: the kind's tag (the ordinal of the one class's kind enum), ten optional strings, an optional map. */
    final class Wire {
        static final int ID = 0;
        static final int TEXT = 1;
        static final int SIMHASH = 2;
        static final int MINHASH = 3;
        static final int FETCHED = 4;
        /** Written as {@link #ID} is, then the answer of each index. */
        static final int READ_IN_EACH_INDEX = 5;
        /**
         * Written as {@link #TEXT} is, for a text whose named pipeline a rewrite read as the caller: a kind of its own
         * rather than a flag, so that what an older build wrote (a percolator's stored query) reads as it did.
         */
        static final int TEXT_PIPELINE_CHECKED = 6;

        private Wire() {}

        static void write(
                StreamOutput out,
                int kind,
                String id,
                String index,
                String text,
                String pipeline,
                String simhash,
                String margins,
                String minhash,
                String shingles,
                String scheme,
                Map<String, Object> source)
                throws IOException {
            out.writeVInt(kind);
            for (String value : new String[] {id, index, text, pipeline, simhash, margins, minhash, shingles, scheme}) {
                out.writeOptionalString(value);
            }
            out.writeBoolean(source != null);
            if (source != null) {
                out.writeMap(source);
            }
        }

        static Like read(StreamInput in) throws IOException {
            int kind = in.readVInt();
            String id = in.readOptionalString();
            String index = in.readOptionalString();
            String text = in.readOptionalString();
            String pipeline = in.readOptionalString();
            String simhash = in.readOptionalString();
            String margins = in.readOptionalString();
            String minhash = in.readOptionalString();
            String shingles = in.readOptionalString();
            String scheme = in.readOptionalString();
            Map<String, Object> source = in.readBoolean() ? in.readMap() : null;
            return switch (kind) {
                case ID -> new ById(id, index);
                case TEXT -> new Text(text, pipeline);
                case TEXT_PIPELINE_CHECKED -> new Text(text, pipeline, true);
                case SIMHASH -> new Simhash(simhash, margins, scheme);
                case MINHASH -> new Minhash(minhash, shingles, scheme);
                case FETCHED -> new Fetched(id, index, source);
                case READ_IN_EACH_INDEX -> new ReadInEachIndex(id, in.readMap(StreamInput::readString, IndexRead::new));
                default -> throw new IOException("unknown [like] kind " + kind);
            };
        }

        static void field(XContentBuilder builder, ParseField name, String value) throws IOException {
            if (value != null) {
                builder.field(name.getPreferredName(), value);
            }
        }
    }
}
