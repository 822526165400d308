/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.FingerprintFormat;
import io.neardup.index.IndexFingerprintFormat;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.routing.IndexRoutingTable;
import org.opensearch.cluster.routing.RoutingTable;
import org.opensearch.cluster.routing.ShardRouting;

/**
 * The indices one {@code _near_dup_clusters} run covers (a data stream's backing indices, an alias's, a pattern's),
 * oldest first, and their shards numbered as one sequence: the run's shard {@code s} is shard
 * {@link #shardInIndex(int)} of index {@link #indexOfShard(int)}. The phases schedule the run's shards by that number,
 * so that the joins pair every two shards of every index alike (within one index or across two), and a document is
 * known by its index's ordinal here and its {@code _id}: an {@code _id} is unique only inside one index.
 */
final class RunIndices {

    private final String[] names;
    private final FingerprintFormat[] formats;
    private final int[] firstShard;
    private final Map<String, Integer> ordinals = new HashMap<>();
    private final boolean spansIndices;
    /** For each of the run's shards, the nodes with an active copy of it when the run started. */
    private final String[][] copies;
    /** For each of the run's shards, the node of its active primary when the run started (else of a copy), or null. */
    private final String[] primaryNodes;

    /**
     * @param oldestFirst the concrete indices, in the order ties between them go (the older one first)
     * @param spansIndices whether the request's names can stand for more than one index
     */
    RunIndices(List<IndexMetadata> oldestFirst, boolean spansIndices) {
        this(oldestFirst, spansIndices, null);
    }

    /** @param routing where the shards' copies are, for {@link #nodesWithCopy} (null: not known) */
    RunIndices(List<IndexMetadata> oldestFirst, boolean spansIndices, RoutingTable routing) {
        this.spansIndices = spansIndices;
        names = new String[oldestFirst.size()];
        formats = new FingerprintFormat[oldestFirst.size()];
        firstShard = new int[oldestFirst.size() + 1];
        for (int i = 0; i < names.length; i++) {
            IndexMetadata index = oldestFirst.get(i);
            names[i] = index.getIndex().getName();
            formats[i] = IndexFingerprintFormat.of(index.getSettings());
            firstShard[i + 1] = firstShard[i] + index.getNumberOfShards();
            ordinals.put(names[i], i);
        }
        copies = new String[shards()][];
        primaryNodes = new String[shards()];
        for (int shard = 0; shard < copies.length; shard++) {
            IndexRoutingTable index = routing == null ? null : routing.index(indexOfShard(shard));
            copies[shard] = index == null
                    ? new String[0]
                    : index.shard(shardInIndex(shard)).activeShards().stream()
                            .map(ShardRouting::currentNodeId)
                            .toArray(String[]::new);
            ShardRouting primary =
                    index == null ? null : index.shard(shardInIndex(shard)).primaryShard();
            primaryNodes[shard] = primary != null && primary.active()
                    ? primary.currentNodeId()
                    : (copies[shard].length > 0 ? copies[shard][0] : null);
        }
    }

    /**
     * The node of the run's shard {@code shard}'s active primary when the run started, else of another active copy;
     * null if none was active (or not known).
     */
    String primaryNode(int shard) {
        return primaryNodes[shard];
    }

    /** The ids of the nodes that had an active copy of the run's shard {@code shard} when the run started. */
    String[] nodesWithCopy(int shard) {
        return copies[shard].clone();
    }

    /** The shards of every index together. */
    int shards() {
        return firstShard[names.length];
    }

    /**
     * Whether the run's names can stand for more than one index (a data stream, an alias, a pattern, a list), whatever
     * they stand for now: then a cluster names its representative's index too.
     */
    boolean spansIndices() {
        return spansIndices;
    }

    String name(int ordinal) {
        return names[ordinal];
    }

    /** Every index, oldest first. */
    String[] names() {
        return names.clone();
    }

    /** The ordinal of an index the run covers, or -1. */
    int ordinalOf(String index) {
        Integer ordinal = ordinals.get(index);
        return ordinal == null ? -1 : ordinal;
    }

    /** The ordinal of the index that holds the run's shard {@code shard}. */
    int ordinalOfShard(int shard) {
        // Every index has a shard, so the first shards strictly increase: an index's first is found exactly, another
        // shard falls after its index's first.
        int found = Arrays.binarySearch(firstShard, 0, names.length, shard);
        return found >= 0 ? found : -found - 2;
    }

    String indexOfShard(int shard) {
        return names[ordinalOfShard(shard)];
    }

    /** The number of the run's shard {@code shard} within its own index. */
    int shardInIndex(int shard) {
        return shard - firstShard[ordinalOfShard(shard)];
    }

    /** The number of shards of the index {@code ordinal}. */
    int shardsOf(int ordinal) {
        return firstShard[ordinal + 1] - firstShard[ordinal];
    }

    /** The fingerprint format of the index that holds the run's shard {@code shard}. */
    FingerprintFormat formatOfShard(int shard) {
        return formats[ordinalOfShard(shard)];
    }

    /** What a message calls the run's shard {@code shard}: {@code [2] of [logs-1]}. */
    String describeShard(int shard) {
        return "[" + shardInIndex(shard) + "] of [" + indexOfShard(shard) + "]";
    }
}
