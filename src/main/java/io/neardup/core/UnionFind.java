/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * Disjoint sets over dense node numbers, grown a node at a time: the components of {@link ClusterGraph} and of a part
 * of {@link PartitionedClusters}.
 */
final class UnionFind {
    private int[] parent = new int[16];
    private int size;

    /** A new singleton set; returns its node number. */
    int add() {
        if (size == parent.length) {
            parent = Arrays.copyOf(parent, size + (size >> 1));
        }
        parent[size] = size;
        return size++;
    }

    int size() {
        return size;
    }

    /** The root of {@code x}'s set, halving the path on the way. */
    int find(int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    void union(int a, int b) {
        int ra = find(a);
        int rb = find(b);
        if (ra != rb) {
            // Lower root number wins: any order of unions gives the same partition, and this keeps trees shallow enough
            // with halving.
            if (ra < rb) {
                parent[rb] = ra;
            } else {
                parent[ra] = rb;
            }
        }
    }
}
