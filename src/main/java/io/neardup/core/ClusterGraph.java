/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * The near-duplicate graph of an index (documents as dense node numbers, the pairs found as
 * weighted edges) and the two ways of cutting it into clusters: single linkage (connected
 * components) and leader linkage (each document joins the most similar leader, no chaining).
 *
 * <p>Every clustering is given a rank per node (lower = preferred as representative); ties in
 * rank are broken by node number, so the result is a function of the graph and the ranks alone,
 * whatever order the edges arrived in. A node may be <em>fixed</em> to a leader: an assignment
 * made by an earlier run that this run keeps (it then also joins that leader's component).
 *
 * <p>Memory: 2 ints a node (4 more while clustering), and with {@code keepEdges} 3 ints an edge; {@link #BYTES_PER_NODE} and
 * {@link #bytesPerEdge()} let the caller charge a breaker before growing. Not thread-safe.
 */
public final class ClusterGraph {
    /** Heap a node takes in this graph's arrays (parent, fixed leader, rank, and the growth slack). */
    public static final int BYTES_PER_NODE = 4 * Integer.BYTES * 2;
    /** Heap an edge takes when edges are kept (two ends and the similarity, with growth slack). */
    public static final int BYTES_PER_EDGE = WeightedEdges.BYTES_PER_EDGE;

    public static final int UNFIXED = -1;

    private final boolean keepEdges;
    private int nodes;
    private final UnionFind components = new UnionFind();
    private int[] fixedLeader = new int[16];
    private final WeightedEdges edges = new WeightedEdges();
    private long edgesSeen;

    /** @param keepEdges whether edges are stored (leader linkage needs them; single linkage only unions) */
    public ClusterGraph(boolean keepEdges) {
        this.keepEdges = keepEdges;
    }

    public int bytesPerEdge() {
        return keepEdges ? BYTES_PER_EDGE : 0;
    }

    public int nodeCount() {
        return nodes;
    }

    /** Edges added, duplicates included. */
    public long edgesSeen() {
        return edgesSeen;
    }

    /** A new node, unconnected and unfixed; returns its number. */
    public int addNode() {
        if (nodes == fixedLeader.length) {
            fixedLeader = Arrays.copyOf(fixedLeader, nodes + (nodes >> 1));
        }
        fixedLeader[nodes] = UNFIXED;
        components.add();
        return nodes++;
    }

    /** {@code a} and {@code b} are near-duplicates with this similarity (higher = closer). Self-edges are ignored. */
    public void addEdge(int a, int b, float similarity) {
        checkNode(a);
        checkNode(b);
        if (a == b) {
            return;
        }
        edgesSeen++;
        components.union(a, b);
        if (keepEdges) {
            edges.add(a, b, similarity);
        }
    }

    /** Keeps {@code member} in {@code leader}'s cluster, as an earlier run assigned it. */
    public void fix(int member, int leader) {
        checkNode(member);
        checkNode(leader);
        fixedLeader[member] = leader;
        components.union(member, leader);
    }

    public boolean isFixed(int node) {
        return fixedLeader[node] != UNFIXED;
    }

    /**
     * Connected components (of the edges and the fixed assignments), each represented by its node
     * of lowest rank. Returns the representative of every node ({@code rep[i] == i} for a
     * representative and for a node with no edges).
     */
    public int[] singleLinkage(int[] rank) {
        checkRanks(rank);
        int[] best = new int[nodes];
        Arrays.fill(best, -1);
        for (int i = 0; i < nodes; i++) {
            int root = components.find(i);
            if (best[root] < 0 || precedes(i, best[root], rank)) {
                best[root] = i;
            }
        }
        int[] rep = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            rep[i] = best[components.find(i)];
        }
        return rep;
    }

    /**
     * Leader clustering: nodes in rank order; a fixed node keeps its leader (which thereby leads),
     * any other joins the leader among its neighbours with the highest similarity (ties: the
     * leader of lower rank), or leads itself when no neighbour leads. A member's own neighbours
     * never pull others in, so a cluster never chains beyond one threshold from its leader.
     * Requires {@code keepEdges}.
     */
    public int[] leaderLinkage(int[] rank) {
        if (keepEdges == false) {
            throw new IllegalStateException("leader linkage needs the edges: build the graph with keepEdges");
        }
        checkRanks(rank);
        WeightedEdges.Adjacency adjacency = edges.adjacency(nodes);
        int[] offsets = adjacency.offsets();
        int[] neighbours = adjacency.neighbours();
        float[] similarities = adjacency.similarities();
        int[] leaderOf = new int[nodes];
        Arrays.fill(leaderOf, -1);
        boolean[] leads = new boolean[nodes];
        for (int i = 0; i < nodes; i++) {
            if (fixedLeader[i] != UNFIXED) {
                leaderOf[i] = fixedLeader[i];
                leads[fixedLeader[i]] = true;
            }
        }
        for (int i = 0; i < nodes; i++) {
            if (leads[i]) {
                leaderOf[i] = i;
            }
        }
        for (int node : byRank(rank)) {
            if (leaderOf[node] >= 0) {
                continue;
            }
            int best = -1;
            float bestSimilarity = Float.NEGATIVE_INFINITY;
            for (int k = offsets[node]; k < offsets[node + 1]; k++) {
                int other = neighbours[k];
                if (leads[other] == false) {
                    continue;
                }
                if (best < 0
                        || similarities[k] > bestSimilarity
                        || (similarities[k] == bestSimilarity && precedes(other, best, rank))) {
                    best = other;
                    bestSimilarity = similarities[k];
                }
            }
            if (best < 0) {
                leads[node] = true;
                leaderOf[node] = node;
            } else {
                leaderOf[node] = best;
            }
        }
        return leaderOf;
    }

    /** Nodes in rank order (ties by node number). */
    private int[] byRank(int[] rank) {
        Integer[] order = new Integer[nodes];
        for (int i = 0; i < nodes; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> precedes(x, y, rank) ? -1 : (x.equals(y) ? 0 : 1));
        int[] result = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            result[i] = order[i];
        }
        return result;
    }

    private static boolean precedes(int a, int b, int[] rank) {
        return rank[a] < rank[b] || (rank[a] == rank[b] && a < b);
    }

    /**
     * Cluster sizes by power-of-two bucket: {@code counts[b]} clusters have a size in
     * {@code (2^b, 2^(b+1)]}, so bucket 0 is size 2, bucket 1 sizes 3–4, bucket 2 sizes 5–8.
     * Clusters are the groups of equal {@code clusterOf} among the nodes {@code counted}; groups
     * of one are left out.
     */
    public static long[] sizeHistogram(int[] clusterOf, boolean[] counted) {
        int[] sizes = new int[clusterOf.length];
        for (int i = 0; i < clusterOf.length; i++) {
            if (counted[i]) {
                sizes[clusterOf[i]]++;
            }
        }
        long[] counts = new long[32];
        int highest = -1;
        for (int size : sizes) {
            if (size >= 2) {
                int bucket = sizeBucket(size);
                counts[bucket]++;
                highest = Math.max(highest, bucket);
            }
        }
        return Arrays.copyOf(counts, highest + 1);
    }

    /** The histogram bucket of a cluster of {@code size} (at least 2) documents: 0 for 2, 1 for 3–4, 2 for 5–8, … */
    public static int sizeBucket(long size) {
        return 63 - Long.numberOfLeadingZeros(size - 1);
    }

    /** The label of histogram bucket {@code b}: "2", "3-4", "5-8", … */
    public static String bucketLabel(int b) {
        long low = (1L << b) + 1;
        long high = 1L << (b + 1);
        return low == high ? Long.toString(high) : low + "-" + high;
    }

    private void checkNode(int node) {
        if (node < 0 || node >= nodes) {
            throw new IllegalArgumentException("node " + node + " is not in this graph of " + nodes + " nodes");
        }
    }

    private void checkRanks(int[] rank) {
        if (rank.length < nodes) {
            throw new IllegalArgumentException("need a rank for each of " + nodes + " nodes, got " + rank.length);
        }
    }
}
