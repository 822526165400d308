/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The one owner of the object {@code _near_dup_clusters} and {@code near_dup_lookup} write into a
 * document's {@code target_field}, and of its reading and mapping:
 * <pre>
 * {"cluster": "&lt;representative's _id&gt;", "size": n, "representative": true|false}               (_near_dup_clusters)
 * {"cluster": "&lt;…&gt;", "duplicate_of": "&lt;_id&gt;", "similarity": s, "representative": false}        (near_dup_lookup, a copy)
 * {"cluster": "&lt;…&gt;", "duplicate_of": "&lt;_id&gt;", "duplicate_of_index": "&lt;index&gt;", …}               (the same, looking up many indices)
 * {"cluster": "&lt;own _id&gt;", "representative": true}                                              (near_dup_lookup, none)
 * </pre>
 * and, by a {@code near_dup_lookup} with {@code min_containment}, beside whatever else the object holds (no cluster:
 * containment is not an equivalence):
 * <pre>
 * {"contained_in": "&lt;_id&gt;", "containment": c}   (contained: like, the new document lies inside that one)
 * {"contains": "&lt;_id&gt;", "containment": c}       (contained: document, that one lies inside the new document)
 * </pre>
 * A lookup whose {@code index} is an alias, a data stream, a list or a pattern also writes the index of the document
 * it names ({@code duplicate_of_index}, {@code contained_in_index}, {@code contains_index}): an {@code _id} is unique
 * only inside one index.
 */
public final class ClusterAssignment {
    public static final String CLUSTER = "cluster";
    public static final String SIZE = "size";
    public static final String REPRESENTATIVE = "representative";
    public static final String DUPLICATE_OF = "duplicate_of";
    public static final String SIMILARITY = "similarity";
    /** Added to {@link #DUPLICATE_OF}, {@link #CONTAINED_IN} and {@link #CONTAINS}: the field naming that document's index. */
    public static final String INDEX_SUFFIX = "_index";
    /** The existing document the new one lies inside (containment lookup, {@code contained: like}). */
    public static final String CONTAINED_IN = "contained_in";
    /** The existing document that lies inside the new one (containment lookup, {@code contained: document}). */
    public static final String CONTAINS = "contains";
    /** The exact containment of the contained side in the other, with {@link #CONTAINED_IN} or {@link #CONTAINS}. */
    public static final String CONTAINMENT = "containment";

    private ClusterAssignment() {}

    /** A member of a cluster, as {@code _near_dup_clusters} writes it. */
    public static Map<String, Object> member(String cluster, int size, boolean representative) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put(CLUSTER, cluster);
        value.put(SIZE, size);
        value.put(REPRESENTATIVE, representative);
        return value;
    }

    /**
     * A document found to copy {@code duplicateOf} (of index {@code duplicateOfIndex}, null where the lookup searched
     * one index), joining {@code cluster}.
     */
    public static Map<String, Object> duplicate(
            String cluster, String duplicateOf, String duplicateOfIndex, double similarity) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put(CLUSTER, cluster);
        value.put(DUPLICATE_OF, duplicateOf);
        if (duplicateOfIndex != null) {
            value.put(DUPLICATE_OF + INDEX_SUFFIX, duplicateOfIndex);
        }
        value.put(SIMILARITY, similarity);
        value.put(REPRESENTATIVE, false);
        return value;
    }

    /** A document that copies none: the cluster later copies join. */
    public static Map<String, Object> original(String id) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put(CLUSTER, id);
        value.put(REPRESENTATIVE, true);
        return value;
    }

    /** The cluster id in a stored object, or null. */
    public static String clusterOf(Map<?, ?> stored) {
        return stored == null ? null : Objects.toString(stored.get(CLUSTER), null);
    }

    /** A stored object in the form {@link #member} builds, to tell a no-op; null if it is not one. */
    public static Map<String, Object> readMember(Map<?, ?> stored) {
        if (stored == null
                || stored.get(CLUSTER) == null
                || stored.get(SIZE) instanceof Number == false
                || stored.get(REPRESENTATIVE) instanceof Boolean == false) {
            return null;
        }
        return member(stored.get(CLUSTER).toString(), ((Number) stored.get(SIZE)).intValue(), (Boolean)
                stored.get(REPRESENTATIVE));
    }

    /** The subfields {@code _near_dup_clusters} maps, with the types it accepts where they are mapped already. */
    public static final Map<String, Set<String>> ACCEPTED_TYPES =
            Map.of(CLUSTER, Set.of("keyword"), SIZE, Set.of("integer", "long"), REPRESENTATIVE, Set.of("boolean"));

    /** How {@code _near_dup_clusters} maps the object: {@code cluster} a keyword (for {@code collapse} and {@code terms}). */
    public static Map<String, Object> mapping() {
        return Map.of(
                "properties",
                Map.of(
                        CLUSTER,
                        Map.of("type", "keyword"),
                        SIZE,
                        Map.of("type", "integer"),
                        REPRESENTATIVE,
                        Map.of("type", "boolean")));
    }
}
