/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Field paths ({@code a.b.c}): read in a mapping's source, where each object level nests its fields
 * under {@code properties}, and written into a document's {@code _source}.
 */
public final class MappingPaths {

    private MappingPaths() {}

    /** The mapping of {@code path}, or null if it is not mapped. */
    public static Map<?, ?> find(Map<String, Object> mapping, String path) {
        Map<?, ?> current = mapping;
        for (String part : path.split("\\.")) {
            if (current.get("properties") instanceof Map<?, ?> properties
                    && properties.get(part) instanceof Map<?, ?> next) {
                current = next;
            } else {
                return null;
            }
        }
        return current;
    }

    /**
     * Checks that an object with the subfields {@code subfieldTypes} (name → accepted types) can be
     * written at {@code path}: every mapped level is an object, and every mapped subfield has an
     * accepted type. Throws an {@link IllegalArgumentException} naming the collision otherwise.
     */
    public static void checkAssignable(
            Map<String, Object> mapping, String path, Map<String, Set<String>> subfieldTypes) {
        Map<?, ?> current = mapping;
        StringBuilder walked = new StringBuilder();
        for (String part : path.split("\\.")) {
            walked.append(walked.length() == 0 ? "" : ".").append(part);
            if (current.get("properties") instanceof Map<?, ?> properties
                    && properties.get(part) instanceof Map<?, ?> next) {
                Object type = next.get("type");
                if (type != null && "object".equals(type) == false) {
                    throw new IllegalArgumentException("[target_field] [" + path + "] cannot be written: [" + walked
                            + "] is mapped as [" + type + "], not as an object");
                }
                current = next;
            } else {
                return;
            }
        }
        for (Map.Entry<String, Set<String>> subfield : subfieldTypes.entrySet()) {
            Map<?, ?> mapped = find(castMapping(current), subfield.getKey());
            if (mapped != null && subfield.getValue().contains(mapped.get("type")) == false) {
                throw new IllegalArgumentException(
                        "[target_field] [" + path + "] cannot be written: [" + path + "." + subfield.getKey()
                                + "] is mapped as [" + (mapped.get("type") == null ? "object" : mapped.get("type"))
                                + "], expected one of "
                                + subfield.getValue());
            }
        }
    }

    /** {@code value} under {@code path} in new maps: {@code a.b} → {@code {"a": {"b": value}}}. */
    public static Map<String, Object> nest(String path, Object value) {
        String[] parts = path.split("\\.");
        Object nested = value;
        for (int i = parts.length - 1; i > 0; i--) {
            Map<String, Object> level = new HashMap<>();
            level.put(parts[i], nested);
            nested = level;
        }
        Map<String, Object> root = new HashMap<>();
        root.put(parts[0], nested);
        return root;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMapping(Map<?, ?> mapping) {
        return (Map<String, Object>) mapping;
    }
}
