/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.util.function.Function;

/**
 * The formats a fingerprint field answers in {@code fields} and {@code docvalue_fields}: the field
 * types use them when asked for a value, and the search checks of the query layer before any shard
 * runs, so both refuse the same formats with the same message.
 */
public final class FingerprintFormats {

    /** The one format a {@code simhash} field renders: its default, 16 lowercase hex digits. */
    public static final String HEX = "hex";
    /**
     * The {@code fields} format that returns the stored object as {@code _source} has it (with margins or the
     * shingle set, and the scheme): what {@code near_dup_collapse} needs to verify by exact Jaccard when
     * {@code _source} is left out of the response. Not for {@code docvalue_fields}, whose doc values hold a part.
     */
    public static final String OBJECT = "object";
    /** What OpenSearch 7.x used to ask for the default format; the fetch phase still takes it. */
    private static final String USE_FIELD_MAPPING = "use_field_mapping";

    private FingerprintFormats() {}

    public static void requireHex(String type, String field, String format) {
        if (format != null && HEX.equals(format) == false && USE_FIELD_MAPPING.equals(format) == false) {
            throw new IllegalArgumentException("[format] [" + format + "] is not supported on [" + type + "] field ["
                    + field + "]: its values are 16 hex characters; leave [format] out or set it to [" + HEX + "]"
                    + OBJECT_HINT);
        }
    }

    public static void requireDefault(String type, String field, String format) {
        if (format != null && USE_FIELD_MAPPING.equals(format) == false) {
            throw new IllegalArgumentException("[format] [" + format + "] is not supported on [" + type + "] field ["
                    + field + "]: its values are signature strings; leave [format] out" + OBJECT_HINT);
        }
    }

    private static final String OBJECT_HINT = " ([fields] also take [" + OBJECT + "]: the stored object)";

    /**
     * The {@code fields} value of a fingerprint field: the stored object as the processor wrote it for {@link #OBJECT},
     * else {@code rendered} of it.
     */
    public static Object fetched(Object stored, String format, Function<Object, Object> rendered) {
        return OBJECT.equals(format) || stored == null ? stored : rendered.apply(stored);
    }
}
