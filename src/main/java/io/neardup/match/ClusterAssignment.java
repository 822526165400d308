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
 * {"cluster": "&lt;…&gt;", "cluster_index": "&lt;representative's index&gt;", "size": n, …}                 (the same, over many indices)
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
    /** Beside {@link #CLUSTER}, where a {@code _near_dup_clusters} run covers many indices: the representative's index. */
    public static final String CLUSTER_INDEX = CLUSTER + "_index";

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

    /**
     * A member of a cluster, as {@code _near_dup_clusters} writes it; {@code clusterIndex} the representative's index
     * where the run covers many indices, else null.
     */
    public static Map<String, Object> member(String cluster, String clusterIndex, int size, boolean representative) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put(CLUSTER, cluster);
        if (clusterIndex != null) {
            value.put(CLUSTER_INDEX, clusterIndex);
        }
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

    /** The index of the cluster's representative in a stored object, or null (a run over one index writes none). */
    public static String clusterIndexOf(Map<?, ?> stored) {
        return stored == null ? null : Objects.toString(stored.get(CLUSTER_INDEX), null);
    }

    /** A stored object in the form {@link #member} builds, to tell a no-op; null if it is not one. */
    public static Map<String, Object> readMember(Map<?, ?> stored) {
        if (stored == null
                || stored.get(CLUSTER) == null
                || stored.get(SIZE) instanceof Number == false
                || stored.get(REPRESENTATIVE) instanceof Boolean == false) {
            return null;
        }
        return member(
                stored.get(CLUSTER).toString(),
                clusterIndexOf(stored),
                ((Number) stored.get(SIZE)).intValue(),
                (Boolean) stored.get(REPRESENTATIVE));
    }

    /**
     * The subfields {@code _near_dup_clusters} maps, with the types it accepts where they are mapped already
     * ({@code cluster_index} only where the run covers many indices, and so writes it).
     */
    public static Map<String, Set<String>> acceptedTypes(boolean manyIndices) {
        Map<String, Set<String>> types = new LinkedHashMap<>();
        types.put(CLUSTER, Set.of("keyword"));
        if (manyIndices) {
            types.put(CLUSTER_INDEX, Set.of("keyword"));
        }
        types.put(SIZE, Set.of("integer", "long"));
        types.put(REPRESENTATIVE, Set.of("boolean"));
        return types;
    }

    /**
     * How {@code _near_dup_clusters} maps the object: {@code cluster} a keyword (for {@code collapse} and
     * {@code terms}), and {@code cluster_index} where the run covers many indices.
     */
    public static Map<String, Object> mapping(boolean manyIndices) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(CLUSTER, Map.of("type", "keyword"));
        if (manyIndices) {
            properties.put(CLUSTER_INDEX, Map.of("type", "keyword"));
        }
        properties.put(SIZE, Map.of("type", "integer"));
        properties.put(REPRESENTATIVE, Map.of("type", "boolean"));
        return Map.of("properties", properties);
    }
}
