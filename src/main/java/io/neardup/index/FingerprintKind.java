/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.util.function.Function;

/**
 * The two kinds of fingerprint field, {@code simhash} and {@code minhash}: the one place a mapping's {@code type}
 * becomes a kind ({@link #ofType}), and the owner of what each kind renders in {@code fields} and
 * {@code docvalue_fields} ({@link #requireRenderFormat}), so that the field types, the search checks before any
 * shard runs, the clusters run and the lookup decide the same way, never by a field's name. Which matching options
 * apply to each kind is {@link NearDupOption}'s table.
 */
public enum FingerprintKind {
    SIMHASH("simhash"),
    MINHASH("minhash");

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

    private static final String OBJECT_HINT = " ([fields] also take [" + OBJECT + "]: the stored object)";

    private final String typeName;

    FingerprintKind(String typeName) {
        this.typeName = typeName;
    }

    /** The field type's name in a mapping. */
    public String typeName() {
        return typeName;
    }

    /** The kind of field a mapping's {@code type} names, or null for a type that is no fingerprint field. */
    public static FingerprintKind ofType(Object type) {
        for (FingerprintKind kind : values()) {
            if (kind.typeName.equals(type)) {
                return kind;
            }
        }
        return null;
    }

    /**
     * Refuses a {@code format} this kind does not render its values in (null is the default): a {@code simhash}
     * field renders hex, a {@code minhash} field signature strings; {@link #OBJECT} is checked by the caller,
     * where {@code _source} holds the object.
     */
    public void requireRenderFormat(String field, String format) {
        if (format == null || USE_FIELD_MAPPING.equals(format) || (this == SIMHASH && HEX.equals(format))) {
            return;
        }
        throw new IllegalArgumentException("[format] [" + format + "] is not supported on [" + typeName + "] field ["
                + field + "]: "
                + (this == SIMHASH
                        ? "its values are 16 hex characters; leave [format] out or set it to [" + HEX + "]"
                        : "its values are signature strings; leave [format] out")
                + OBJECT_HINT);
    }

    /**
     * The {@code fields} value of a fingerprint field: the stored object as the processor wrote it for {@link #OBJECT},
     * else {@code rendered} of it.
     */
    public static Object fetched(Object stored, String format, Function<Object, Object> rendered) {
        return OBJECT.equals(format) || stored == null ? stored : rendered.apply(stored);
    }
}
