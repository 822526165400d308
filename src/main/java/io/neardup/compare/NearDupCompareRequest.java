/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.IndicesRequest;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;

/**
 * The two sides of a comparison, each a text or a stored document's text field, and how to fingerprint them: the
 * {@code pipeline} (else the default pipeline of a compared document's index, as {@code like.text} defaults to the
 * searched index's) and, where it has several {@code near_dup_fingerprint} processors, the {@code fingerprint} field of
 * the one to use. The indices it names are those of its documents, so that the Security plugin checks a read there
 * (replaceable, else the Security plugin checks it against every index); a request of two texts names none and is sent
 * as {@link NearDupCompareTextsAction} instead, a cluster action.
 */
public final class NearDupCompareRequest extends ActionRequest implements IndicesRequest.Replaceable {
    /** Characters of each text explained by default: a long man page whole. */
    public static final int DEFAULT_MAX_EXPLAINED_CHARS = 100_000;
    /** At most: the longest text the fingerprint processor takes. */
    public static final int MAX_EXPLAINED_CHARS = 10_000_000;

    static final Set<String> KEYS = Set.of("a", "b", "pipeline", "fingerprint", "max_explained_chars");
    static final Set<String> SIDE_KEYS = Set.of("text", "_index", "_id", "field");

    /** One side: a {@code text}, or the {@code field} of document {@code _id} in {@code _index}. */
    public record Side(String name, String text, String index, String id, String field) implements Writeable {
        static Side read(StreamInput in) throws IOException {
            return new Side(
                    in.readString(),
                    in.readOptionalString(),
                    in.readOptionalString(),
                    in.readOptionalString(),
                    in.readOptionalString());
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeString(name);
            out.writeOptionalString(text);
            out.writeOptionalString(index);
            out.writeOptionalString(id);
            out.writeOptionalString(field);
        }

        public boolean isDocument() {
            return text == null;
        }

        /** Reads {@code a} or {@code b} of a request body, naming each bad key or value. */
        static Side parse(String name, Object value) {
            if (!(value instanceof Map<?, ?> map)) {
                throw new IllegalArgumentException("[" + name + "] must be an object with [text], or with [_index], "
                        + "[_id] and [field], got " + describe(value));
            }
            for (Object key : map.keySet()) {
                if (SIDE_KEYS.contains(key) == false) {
                    throw new IllegalArgumentException("[" + name + "] has unknown key [" + key + "], expected [text], "
                            + "or [_index], [_id] and [field]");
                }
            }
            if (map.containsKey("text")) {
                if (map.size() > 1) {
                    throw new IllegalArgumentException(
                            "[" + name + "] takes [text] or [_index], [_id] and [field], " + "not both");
                }
                return new Side(name, string(name + ".text", map.get("text")), null, null, null);
            }
            for (String key : List.of("_index", "_id", "field")) {
                if (map.containsKey(key) == false) {
                    throw new IllegalArgumentException("[" + name + "] needs [text], or [_index], [_id] and [field]: "
                            + "[" + name + "." + key + "] is missing");
                }
            }
            String index = nonEmpty(name + "._index", map.get("_index"));
            String id = nonEmpty(name + "._id", map.get("_id"));
            String field = nonEmpty(name + ".field", map.get("field"));
            return new Side(name, null, index, id, field);
        }
    }

    private final Side a;
    private final Side b;
    private final String pipeline;
    private final String fingerprint;
    private final int maxExplainedChars;

    public NearDupCompareRequest(Side a, Side b, String pipeline, String fingerprint, int maxExplainedChars) {
        this.a = a;
        this.b = b;
        this.pipeline = pipeline;
        this.fingerprint = fingerprint;
        this.maxExplainedChars = maxExplainedChars;
    }

    public NearDupCompareRequest(StreamInput in) throws IOException {
        super(in);
        a = Side.read(in);
        b = Side.read(in);
        pipeline = in.readOptionalString();
        fingerprint = in.readOptionalString();
        maxExplainedChars = in.readVInt();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        a.writeTo(out);
        b.writeTo(out);
        out.writeOptionalString(pipeline);
        out.writeOptionalString(fingerprint);
        out.writeVInt(maxExplainedChars);
    }

    /** The request of a body, every bad key or value a 400 naming it. */
    public static NearDupCompareRequest parse(Map<String, Object> body) {
        for (String key : body.keySet()) {
            if (KEYS.contains(key) == false) {
                throw new IllegalArgumentException(
                        "[_near_dup/_compare] has unknown key [" + key + "], expected any of " + sorted(KEYS));
            }
        }
        for (String side : List.of("a", "b")) {
            if (body.containsKey(side) == false) {
                throw new IllegalArgumentException("[_near_dup/_compare] needs [a] and [b]: [" + side + "] is missing");
            }
        }
        String pipeline = body.containsKey("pipeline") ? nonEmpty("pipeline", body.get("pipeline")) : null;
        String fingerprint = body.containsKey("fingerprint") ? nonEmpty("fingerprint", body.get("fingerprint")) : null;
        int cap = cap(body, "max_explained_chars", "max_explained_chars", DEFAULT_MAX_EXPLAINED_CHARS);
        return new NearDupCompareRequest(
                Side.parse("a", body.get("a")), Side.parse("b", body.get("b")), pipeline, fingerprint, cap);
    }

    /** A cap of characters from {@code body}'s {@code key}, named {@code name} in a refusal, else {@code defaultValue}. */
    static int cap(Map<String, Object> body, String key, String name, int defaultValue) {
        if (body.containsKey(key) == false) {
            return defaultValue;
        }
        Object value = body.get(key);
        if (!(value instanceof Integer number) || number < 0 || number > MAX_EXPLAINED_CHARS) {
            throw new IllegalArgumentException(
                    "[" + name + "] must be an integer in [0, " + MAX_EXPLAINED_CHARS + "], got " + describe(value));
        }
        return number;
    }

    private static List<String> sorted(Set<String> keys) {
        List<String> list = new ArrayList<>(keys);
        list.sort(null);
        return list;
    }

    private static String string(String name, Object value) {
        if (value instanceof String string) {
            return string;
        }
        throw new IllegalArgumentException("[" + name + "] must be a string, got " + describe(value));
    }

    static String nonEmpty(String name, Object value) {
        String string = string(name, value);
        if (string.isEmpty()) {
            throw new IllegalArgumentException("[" + name + "] must not be empty");
        }
        return string;
    }

    private static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String string) {
            return "[" + string + "]";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        return "[" + value + "]";
    }

    public Side a() {
        return a;
    }

    public Side b() {
        return b;
    }

    public String pipeline() {
        return pipeline;
    }

    public String fingerprint() {
        return fingerprint;
    }

    public int maxExplainedChars() {
        return maxExplainedChars;
    }

    @Override
    public String[] indices() {
        return List.of(a, b).stream()
                .filter(Side::isDocument)
                .map(Side::index)
                .distinct()
                .toArray(String[]::new);
    }

    /**
     * Left as named: the Security plugin hands back the names it checked, and each document is read by a GET of the
     * name it was given, which the Security plugin checks again.
     */
    @Override
    public NearDupCompareRequest indices(String... indices) {
        return this;
    }

    public boolean comparesDocuments() {
        return a.isDocument() || b.isDocument();
    }

    @Override
    public IndicesOptions indicesOptions() {
        return IndicesOptions.strictSingleIndexNoExpandForbidClosed();
    }

    @Override
    public ActionRequestValidationException validate() {
        return null;
    }
}
