package io.neardup.mapper;

import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.util.BytesRef;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.mapper.ParseContext;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * What the {@code simhash} and {@code minhash} mappers share: the hidden Lucene field names next to
 * a fingerprint field, and the parsing of the value contract written by the ingest processor:
 * <pre>
 * "simhash": {"value": "&lt;16 hex&gt;", "margins": "&lt;base64url&gt;", "scheme": "&lt;scheme&gt;"}   or "&lt;16 hex&gt;"
 * "minhash": {"value": "&lt;base64url&gt;", "shingles": "&lt;base64url&gt;", "scheme": "&lt;scheme&gt;"}   or "&lt;base64url&gt;"
 * </pre>
 * Errors are {@link IllegalArgumentException}s that name the field and the reason; the mapper
 * framework wraps them in a {@code MapperParsingException} (HTTP 400).
 */
public final class FingerprintFields {
    /** Suffix of the SortedDocValues field holding the scheme string of each document. */
    public static final String SCHEME_SUFFIX = "._scheme";
    /** Suffix of the stored field holding a simhash's 64 quantized margins (MSB first). */
    public static final String MARGINS_SUFFIX = "._margins";
    /** Suffix of the BinaryDocValues field holding a {@code minhash} field's shingle set ({@code ShingleSetCodec} payload). */
    public static final String SHINGLES_SUFFIX = "._shingles";
    /** Longest accepted scheme string, in characters. */
    public static final int MAX_SCHEME_LENGTH = 512;

    private FingerprintFields() {}

    public static String schemeField(String field) {
        return field + SCHEME_SUFFIX;
    }

    public static String shinglesField(String field) {
        return field + SHINGLES_SUFFIX;
    }

    public static String marginsField(String field) {
        return field + MARGINS_SUFFIX;
    }

    /** A parsed value: the mandatory {@code value} string and the optional keys (null when absent). */
    record RawValue(String value, String margins, String scheme, String shingles) {}

    /**
     * Reads the current value: null (returns null), a bare string, or an object with the allowed
     * keys. An object is read whole before it is checked, so a failure leaves the parser at its end.
     */
    static RawValue read(ParseContext context, String field, String type, Set<String> keys) throws IOException {
        XContentParser parser = context.parser();
        XContentParser.Token token = parser.currentToken();
        switch (token) {
            case VALUE_NULL:
                return null;
            case VALUE_STRING:
                return new RawValue(parser.text(), null, null, null);
            case START_ARRAY:
                throw new IllegalArgumentException(prefix(type, field) + "takes one fingerprint per document, got an array");
            case START_OBJECT:
                return fromMap(parser.mapOrdered(), field, type, keys);
            default:
                throw new IllegalArgumentException(
                    prefix(type, field) + "expects a string or an object with [" + String.join(", ", keys) + "], got " + token);
        }
    }

    static RawValue fromMap(Map<String, Object> map, String field, String type, Set<String> keys) {
        for (Map.Entry<String, Object> e : map.entrySet()) {
            if (keys.contains(e.getKey()) == false) {
                throw new IllegalArgumentException(
                    prefix(type, field) + "has unknown key [" + e.getKey() + "], expected one of [" + String.join(", ", keys) + "]");
            }
            if (e.getValue() != null && e.getValue() instanceof String == false) {
                throw new IllegalArgumentException(prefix(type, field) + "key [" + e.getKey() + "] must be a string, got "
                    + describe(e.getValue()));
            }
        }
        String value = (String) map.get("value");
        if (value == null) {
            throw new IllegalArgumentException(prefix(type, field) + "object has no [value]");
        }
        String scheme = (String) map.get("scheme");
        if (scheme != null && (scheme.isEmpty() || scheme.length() > MAX_SCHEME_LENGTH)) {
            throw new IllegalArgumentException(prefix(type, field) + "[scheme] must have 1 to " + MAX_SCHEME_LENGTH
                + " characters, got " + scheme.length());
        }
        return new RawValue(value, (String) map.get("margins"), scheme, (String) map.get("shingles"));
    }

    /** Adds the scheme doc value when the value carried a scheme (a bare string carries none). */
    static void addScheme(ParseContext context, String field, String scheme) {
        if (scheme != null) {
            context.doc().add(new SortedDocValuesField(schemeField(field), new BytesRef(scheme)));
        }
    }

    static String prefix(String type, String field) {
        return "[" + type + "] field [" + field + "]: ";
    }

    private static String describe(Object o) {
        if (o instanceof Map) {
            return "an object";
        }
        if (o instanceof Iterable) {
            return "an array";
        }
        return o.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT) + " [" + o + "]";
    }
}
