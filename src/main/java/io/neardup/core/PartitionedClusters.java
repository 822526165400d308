/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * {@link ClusterGraph}'s clusterings, with the graph split into parts (one a shard) that only exchange messages along
 * the edges between them, so that no node holds the whole graph. Each {@link GraphPart} keeps its own documents, the
 * edges between them, and the edges that leave it (the other end named by its part and id); a driver (the transport
 * layer, or a test's router) runs the steps below on every part, hands each part the messages addressed to it, and only
 * counts rounds and whether anything changed.
 *
 * <p>The results are exactly {@link ClusterGraph#singleLinkage} and {@link ClusterGraph#leaderLinkage} of the whole
 * graph, with the rank order given by the caller's keys (globally unique, totally ordered by the comparator, as {@code
 * ClusterMembers.ranks()} orders members: found first, kept representatives, sort values, then index and id).
 *
 * <p>The protocol, each step a method on every part returning its messages by destination part, then a method
 * delivering each part the messages addressed to it:
 *
 * <ol>
 *   <li><b>Links</b> ({@link GraphPart#linkMessages}, {@link GraphPart#receiveLinks}), one step: each part tells the
 *       other end of every edge that leaves it, and the leader of every assignment it keeps ({@link GraphPart#fix}) in
 *       another part. Afterwards an edge is known to both of its parts (even if the caller recorded it on one side) and
 *       a part holds every node it will be asked about; the caller then gives each node its rank key ({@link
 *       GraphPart#rank}). A part may be built in waves, a links step after each (a run with a {@code query} finds
 *       the members of earlier clusters as it reads members); each sends only what its wave added, and the waves
 *       end when a links step sends nothing.
 *   <li><b>Single linkage</b> ({@link GraphPart#labelMessages}, {@link GraphPart#receiveLabels}), in rounds: min-label
 *       propagation. A component's label is its lowest rank key; inside a part the union-find has it at once, and each
 *       round a part sends a component's label along its edges to other parts when it is lower than what the other end
 *       is known to have (sent by it or to it before), so no label goes twice over an edge. Done when a round has no
 *       messages; {@link GraphPart#representative} is then the component's lowest-ranked node.
 *   <li><b>Sizes</b> ({@link GraphPart#sizeCounts}, {@link GraphPart#receiveSizeCounts}, {@link GraphPart#sizeTotals},
 *       {@link GraphPart#receiveSizeTotals}), two steps, for either clustering: each part counts its counted nodes by
 *       cluster and sends the counts to the part of the cluster's representative (or leader), which sums them and
 *       replies with the total. The owner part then reports its clusters ({@link GraphPart#sizeHistogram}, {@link
 *       GraphPart#largest}); the coordinator adds the parts' histograms ({@link #addHistograms}) and merges their
 *       largest.
 *   <li><b>Leader linkage</b> ({@link GraphPart#rankMessages}, {@link GraphPart#receiveRanks}, then {@link
 *       GraphPart#decisionMessages}, {@link GraphPart#receiveDecisions} in rounds). Sequentially, in rank order, a node
 *       joins the most similar neighbour that leads (kept assignments' leaders, and better-ranked neighbours that chose
 *       to lead), ties to the better rank, or leads itself; kept assignments decide their members from the start. A
 *       node only looks at its better-ranked neighbours and fixed leaders, so deciding in any order that respects those
 *       dependencies gives the sequential result. Better: its worse-ranked neighbours only need to know
 *       <em>whether</em> it leads, and that is known early: not as soon as one neighbour it could join leads, yes once
 *       every better-ranked neighbour is known not to. Whom it joins waits for all of them, but nothing waits on that.
 *       The first step sends the rank keys (and what kept assignments decide) across the edges between parts; each
 *       later round, a part settles every node it can and tells worse-ranked neighbours in other parts whether they
 *       lead. Done when a round has no messages.
 * </ol>
 *
 * <p>A driver, each line a step on every part before any part receives its messages:
 *
 * <pre>{@code
 * linkMessages -> receiveLinks; then rank(id, key, found) for every id of nodeIds()
 * repeat labelMessages -> receiveLabels until no part sends               (single linkage)
 * rankMessages -> receiveRanks; repeat decisionMessages -> receiveDecisions until no part sends   (leader linkage)
 * sizeCounts(byLeader) -> receiveSizeCounts; sizeTotals -> receiveSizeTotals
 * then each part: representative(id) or leader(id), clusterSize(id), sizeHistogram(), largest(n, idOrder)
 * }</pre>
 *
 * <p>Rounds. Single linkage: round {@code r} brings a component's lowest label to the nodes {@code r} edges between
 * parts away from its owner (by the path with fewest), so it takes that distance's maximum, plus at most one round that
 * finds nothing new; a chain of {@code n} nodes alternating between two parts, ranked along it, takes {@code n - 1}.
 * Leader linkage: the key step, then one round for each link of the longest chain of "whether it leads" that wait on
 * each other across parts (a node hears of a neighbour in its own part in the same round, of one elsewhere a round
 * later): {@code n - 1} on that chain again, where every other node leads, but 2 on a clique however large, since every
 * member hears of the first leader at once. PartitionedClustersTests checks both counts exactly against the whole
 * graph. On its random graphs (up to 2,000 nodes in 1 to 12 parts; mean/most over ~300 runs): sparse random pairs (mean
 * degree up to 4, which includes the long paths of a component near the critical size) single linkage 5-7/28, leader
 * linkage 3/7; dense groups of up to 120 nodes 2.5/6 and 4/8; cliques of 2 to 12 nodes 2/2 and 2/2; isolated pairs 1/1
 * and 1/1; chains of up to 60 nodes laid at random over the parts 20-29/49 and 4/6. Kept assignments to random nodes,
 * which join far parts of the graph, lengthened single linkage's paths to 142 rounds on the chains.
 *
 * <p>Why label propagation. Near-duplicate components are mostly dense (a document and its copies match each other), so
 * their diameter, and the rounds, are small, and each round only sends labels that fell. The large-star / small-star
 * alternation ("Connected Components in MapReduce and Beyond", Kiveris et al., SoCC 2014) bounds the rounds by O(log²
 * n) whatever the diameter, but rewires the graph every round (edges move between parts, so each part's union-find and
 * its edges would not stay where they were found) and sends every edge each round; it only pays on long chains, which
 * single linkage rarely builds from near-duplicates and which leader linkage does not wait on.
 *
 * <p>Memory: {@link #BYTES_PER_NODE} a node, {@link GraphPart#bytesPerLocalEdge()} an edge inside a part, and {@link
 * #BYTES_PER_CROSS_EDGE} an edge between parts (counted on each side), each besides the caller's id and key objects, so
 * a caller can charge a breaker before growing. Measured on two parts of 200,000 nodes (Integer ids, Long keys, each
 * node with one edge: all inside the parts, 30% or all between them), what the parts still held after every step of
 * both linkages and both size rounds was 0.60, 0.69 and 0.90 of these constants' sum. Not thread-safe.
 */
public final class PartitionedClusters {
    /**
     * Heap a node takes in its part (besides the caller's id and key): the id index entry, the union-find, the label,
     * the leader linkage's state and the cluster, with growth slack.
     */
    public static final int BYTES_PER_NODE = 256;
    /**
     * Heap an edge inside a part takes when edges are kept: its two ends and similarity, and its two adjacency entries.
     */
    public static final int BYTES_PER_LOCAL_EDGE = WeightedEdges.BYTES_PER_EDGE + 2 * (Integer.BYTES + Float.BYTES);
    /**
     * Heap an edge between parts takes on each side (besides the other end's id): the edge and its index entry, the
     * other end's rank and decision, and what label the other end is known to have.
     */
    public static final int BYTES_PER_CROSS_EDGE = 200;

    private PartitionedClusters() {}

    /** A node anywhere: its part and the caller's id, unique over all parts. */
    public record NodeRef<I>(int part, I id) {
        public NodeRef {
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * Step 1: the edge {@code from}–{@code to} with this similarity, or, with {@code fix}, the kept assignment of
     * {@code from} to its leader {@code to}; {@code leads} says whether it is {@code from}'s current assignment (a
     * later {@link GraphPart#fix} replaces an earlier one, whose leader then no longer leads on its account).
     */
    public record Link<I>(I to, NodeRef<I> from, float similarity, boolean fix, boolean leads) {}

    /** Single linkage: {@code from}'s component has the label {@code key}, the rank key of {@code owner}. */
    public record Label<I, K>(I to, NodeRef<I> from, K key, NodeRef<I> owner) {}

    /** Sizes, to the cluster's owner: {@code fromPart} has {@code count} counted nodes in {@code cluster}. */
    public record SizeCount<I>(NodeRef<I> cluster, int fromPart, long count) {}

    /** Sizes, from the cluster's owner: {@code cluster} has {@code total} counted nodes. */
    public record SizeTotal<I>(NodeRef<I> cluster, long total) {}

    /**
     * Leader linkage's first step: {@code from}'s rank key; {@code decided} when a kept assignment decides it from
     * the start, {@code fixedLeader} when it leads from the start (a kept assignment's leader).
     */
    public record RankOf<I, K>(I to, NodeRef<I> from, K key, boolean decided, boolean fixedLeader) {}

    /** Leader linkage's rounds: whether {@code from} leads, as soon as that is known (whom it joins may not be yet). */
    public record Decision<I>(I to, NodeRef<I> from, boolean leads) {}

    /** A cluster an owner part reports: its representative (or leader) and how many counted nodes it has. */
    public record ClusterSize<I>(I id, long size) {}

    /** The coordinator's sum of the parts' {@link GraphPart#sizeHistogram}s. */
    public static long[] addHistograms(List<long[]> histograms) {
        long[] sum = new long[0];
        for (long[] histogram : histograms) {
            if (histogram.length > sum.length) {
                sum = Arrays.copyOf(sum, histogram.length);
            }
            for (int b = 0; b < histogram.length; b++) {
                sum[b] += histogram[b];
            }
        }
        return sum;
    }
}
