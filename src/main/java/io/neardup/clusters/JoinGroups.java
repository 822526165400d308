/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.FingerprintFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which shards of a {@code minhash} run's band join are joined together, as one reader on one node
 * ({@link ShardGroupJoinRequest}), and which one by one. Joined shard by shard, each pair of shards costs a key filter
 * built on one and every document of the other tested against it, so the work grows with (shards - 1) times the
 * documents: at 30 backing indices of one shard each it was 1.3–2× the same documents in one index (docs/clusters.md
 * section 7). Shards with a copy on the same node and of the same fingerprint format are joined together instead,
 * up to {@link #MAX_DOCUMENTS} documents a group, so that no group's step takes longer than the self-join of one
 * shard of that many documents; pairs across groups (across nodes, or past the bound) are still looked up shard by
 * shard.
 */
final class JoinGroups {

    /**
     * The most documents a group joins in one step: about a minute's work at the measured rate of a shard's band
     * self-join (docs/clusters.md section 4), well within {@link StepTimeouts#STEP_TIMEOUT}.
     */
    static final long MAX_DOCUMENTS = 5_000_000;

    private final int[] groupOf;
    private final List<int[]> members;
    private final List<String> nodes;

    private JoinGroups(int[] groupOf, List<int[]> members, List<String> nodes) {
        this.groupOf = groupOf;
        this.members = members;
        this.nodes = nodes;
    }

    /** Every shard a group of its own: the join shard by shard (where the documents a shard holds are not known). */
    static JoinGroups oneByOne(int shards) {
        int[] groupOf = new int[shards];
        List<int[]> members = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            groupOf[shard] = shard;
            members.add(new int[] {shard});
            nodes.add(null);
        }
        return new JoinGroups(groupOf, members, nodes);
    }

    /**
     * Groups the run's shards: repeatedly the node holding copies of the most shards not grouped yet takes them, by
     * format, in the run's order, a group closed when the next shard would take it past {@link #MAX_DOCUMENTS}.
     *
     * @param copies for each of the run's shards, the ids of the nodes with a started copy of it
     * @param documents for each of the run's shards, about how many documents it holds
     */
    static JoinGroups plan(String[][] copies, FingerprintFormat[] formats, long[] documents) {
        int shards = copies.length;
        int[] groupOf = new int[shards];
        Arrays.fill(groupOf, -1);
        List<int[]> members = new ArrayList<>();
        List<String> nodes = new ArrayList<>();
        int grouped = 0;
        while (grouped < shards) {
            // TreeMap: ties go to the smallest node id, so the same cluster state plans the same groups.
            Map<String, Integer> ungroupedOn = new TreeMap<>();
            for (int shard = 0; shard < shards; shard++) {
                if (groupOf[shard] < 0) {
                    for (String node : copies[shard]) {
                        ungroupedOn.merge(node, 1, Integer::sum);
                    }
                }
            }
            String node = null;
            int most = 0;
            for (Map.Entry<String, Integer> entry : ungroupedOn.entrySet()) {
                if (entry.getValue() > most) {
                    node = entry.getKey();
                    most = entry.getValue();
                }
            }
            if (node == null) {
                // No started copy of any shard left (unassigned ones): each alone, as the join shard by shard goes.
                for (int shard = 0; shard < shards; shard++) {
                    if (groupOf[shard] < 0) {
                        add(List.of(shard), null, groupOf, members, nodes);
                        grouped++;
                    }
                }
                break;
            }
            Map<FingerprintFormat, List<Integer>> byFormat = new LinkedHashMap<>();
            for (int shard = 0; shard < shards; shard++) {
                if (groupOf[shard] < 0 && Arrays.asList(copies[shard]).contains(node)) {
                    byFormat.computeIfAbsent(formats[shard], f -> new ArrayList<>())
                            .add(shard);
                }
            }
            for (List<Integer> sameFormat : byFormat.values()) {
                List<Integer> group = new ArrayList<>();
                long groupDocuments = 0;
                for (int shard : sameFormat) {
                    if (group.isEmpty() == false && groupDocuments + documents[shard] > MAX_DOCUMENTS) {
                        add(group, node, groupOf, members, nodes);
                        group.clear();
                        groupDocuments = 0;
                    }
                    group.add(shard);
                    groupDocuments += documents[shard];
                    grouped++;
                }
                add(group, node, groupOf, members, nodes);
            }
        }
        return new JoinGroups(groupOf, members, nodes);
    }

    private static void add(List<Integer> group, String node, int[] groupOf, List<int[]> members, List<String> nodes) {
        int[] shards = group.stream().mapToInt(Integer::intValue).toArray();
        for (int shard : shards) {
            groupOf[shard] = members.size();
        }
        members.add(shards);
        // A group of one shard is joined where any copy of it is, as the join shard by shard does.
        nodes.add(shards.length > 1 ? node : null);
    }

    int count() {
        return members.size();
    }

    /** The run's shards of group {@code group}, in the run's order. */
    int[] members(int group) {
        return members.get(group).clone();
    }

    int groupOf(int shard) {
        return groupOf[shard];
    }

    /** The node whose copies group {@code group} joins together; null for a group of one shard. */
    String node(int group) {
        return nodes.get(group);
    }
}
