/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@link ClusterGraph}'s clusterings, with the graph split into parts (one a shard) that only exchange messages along
 * the edges between them, so that no node holds the whole graph. Each {@link Part} keeps its own documents, the edges
 * between them, and the edges that leave it (the other end named by its part and id); a driver (the transport layer,
 * or a test's router) runs the steps below on every part, hands each part the messages addressed to it, and only
 * counts rounds and whether anything changed.
 *
 * <p>The results are exactly {@link ClusterGraph#singleLinkage} and {@link ClusterGraph#leaderLinkage} of the whole
 * graph, with the rank order given by the caller's keys (globally unique, totally ordered by the comparator, as
 * {@code ClusterMembers.ranks()} orders members: found first, kept representatives, sort values, then index and id).
 *
 * <p>The protocol, each step a method on every part returning its messages by destination part, then a method
 * delivering each part the messages addressed to it:
 *
 * <ol>
 *   <li><b>Links</b> ({@link Part#linkMessages}, {@link Part#receiveLinks}), one step: each part tells the other end of
 *       every edge that leaves it, and the leader of every assignment it keeps ({@link Part#fix}) in another part.
 *       Afterwards an edge is known to both of its parts (even if the caller recorded it on one side) and a part holds
 *       every node it will be asked about; the caller then gives each node its rank key ({@link Part#rank}).
 *   <li><b>Single linkage</b> ({@link Part#labelMessages}, {@link Part#receiveLabels}), in rounds: min-label
 *       propagation. A component's label is its lowest rank key; inside a part the union-find has it at once, and
 *       each round a part sends a component's label along its edges to other parts when it is lower than what the
 *       other end is known to have (sent by it or to it before), so no label goes twice over an edge. Done when a
 *       round has no messages; {@link Part#representative} is then the component's lowest-ranked node.
 *   <li><b>Sizes</b> ({@link Part#sizeCounts}, {@link Part#receiveSizeCounts}, {@link Part#sizeTotals},
 *       {@link Part#receiveSizeTotals}), two steps, for either clustering: each part counts its counted nodes by
 *       cluster and sends the counts to the part of the cluster's representative (or leader), which sums them and
 *       replies with the total. The owner part then reports its clusters ({@link Part#sizeHistogram},
 *       {@link Part#largest}); the coordinator adds the parts' histograms ({@link #addHistograms}) and merges their
 *       largest.
 *   <li><b>Leader linkage</b> ({@link Part#rankMessages}, {@link Part#receiveRanks}, then {@link
 *       Part#decisionMessages}, {@link Part#receiveDecisions} in rounds). Sequentially, in rank order, a node joins
 *       the most similar neighbour that leads (kept assignments' leaders, and better-ranked neighbours that chose to
 *       lead), ties to the better rank, or leads itself; kept assignments decide their members from the start. A node
 *       only looks at its better-ranked neighbours and fixed leaders, so deciding in any order that respects those
 *       dependencies gives the sequential result. Better: its worse-ranked neighbours only need to know <em>whether</em>
 *       it leads, and that is known early: not as soon as one neighbour it could join leads, yes once every
 *       better-ranked neighbour is known not to. Whom it joins waits for all of them, but nothing waits on that. The
 *       first step sends the rank keys (and what kept assignments decide) across the edges between parts; each later
 *       round, a part settles every node it can and tells worse-ranked neighbours in other parts whether they lead.
 *       Done when a round has no messages.
 * </ol>
 *
 * <p>Rounds. Single linkage: round {@code r} brings a component's lowest label to the nodes {@code r} edges between
 * parts away from its owner (by the path with fewest), so it takes that distance's maximum, plus at most one round
 * that finds nothing new; a chain of {@code n} nodes alternating between two parts, ranked along it, takes {@code n -
 * 1}. Leader linkage: the key step, then one round for each link of the longest chain of "whether it leads" that wait on each other across
 * parts (a node hears of a neighbour in its own part in the same round, of one elsewhere a round later): {@code n - 1}
 * on that chain again, where every other node leads, but 2 on a clique however large, since every member hears of the
 * first leader at once. PartitionedClustersTests checks both counts exactly against the whole graph. On its random
 * graphs (up to 2,000 nodes in 1 to 12 parts; mean/most over ~300 runs): sparse random pairs (mean degree up to 4,
 * which includes the long paths of a component near the critical size) single linkage 5-7/28, leader linkage 3/7;
 * dense groups of up to 120 nodes 2.5/6 and 4/8; cliques of 2 to 12 nodes 2/2 and 2/2; isolated pairs 1/1 and 1/1;
 * chains of up to 60 nodes laid at random over the parts 20-29/49 and 4/6. Kept assignments to random nodes, which
 * join far parts of the graph, lengthened single linkage's paths to 142 rounds on the chains.
 *
 * <p>Why label propagation. Near-duplicate components are mostly dense (a document and its copies match each other),
 * so their diameter, and the rounds, are small, and each round only sends labels that fell. The large-star /
 * small-star alternation ("Connected Components in MapReduce and Beyond", Kiveris et al., SoCC 2014) bounds the rounds
 * by O(log² n) whatever the diameter, but rewires the graph every round (edges move between parts, so each part's
 * union-find and its edges would not stay where they were found) and sends every edge each round; it only pays on
 * long chains, which single linkage rarely builds from near-duplicates and which leader linkage does not wait on.
 *
 * <p>Memory: {@link #BYTES_PER_NODE} a node, {@link Part#bytesPerLocalEdge()} an edge inside a part, and
 * {@link #BYTES_PER_CROSS_EDGE} an edge between parts (counted on each side), each besides the caller's id and key
 * objects, so a caller can charge a breaker before growing. Not thread-safe.
 */
public final class PartitionedClusters {
    /**
     * Heap a node takes in its part (besides the caller's id and key): the id index entry, the union-find, the label,
     * the leader linkage's state and the cluster, with growth slack.
     */
    public static final int BYTES_PER_NODE = 192;
    /** Heap an edge inside a part takes when edges are kept: its two ends and similarity, and its two adjacency entries. */
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
     * later {@link Part#fix} replaces an earlier one, whose leader then no longer leads on its account).
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

    /** Leader linkage's rounds: {@code from} has decided, and whether it leads. */
    public record Decision<I>(I to, NodeRef<I> from, boolean leads) {}

    /** A cluster an owner part reports: its representative (or leader) and how many counted nodes it has. */
    public record ClusterSize<I>(I id, long size) {}

    /** The coordinator's sum of the parts' {@link Part#sizeHistogram}s. */
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

    private static <M> void send(Map<Integer, List<M>> out, int part, M message) {
        out.computeIfAbsent(part, p -> new ArrayList<>()).add(message);
    }

    /** The part of the graph one node (shard) holds. {@code I}: a document's id; {@code K}: its rank key. */
    public static final class Part<I, K> {
        private final int number;
        private final Comparator<? super K> order;
        private final boolean keepEdges;

        private final Map<I, Integer> index = new HashMap<>();
        private final List<I> ids = new ArrayList<>();
        private final List<K> keys = new ArrayList<>();
        private boolean[] counted = new boolean[16];
        private final UnionFind components = new UnionFind();
        /** A kept assignment's leader (here or elsewhere), or null; the last {@link #fix} of a node wins. */
        private final List<NodeRef<I>> fixedLeader = new ArrayList<>();
        /** Led by a kept assignment made in another part (known from the links step). */
        private final Set<Integer> ledFromElsewhere = new HashSet<>();

        private final WeightedEdges edges = new WeightedEdges();

        /** The edges to other parts, one per (local node, other end), and the kept assignments across parts. */
        private final Map<CrossKey<I>, Cross<I, K>> crossByEnds = new HashMap<>();

        private final List<Cross<I, K>> cross = new ArrayList<>();
        private final List<FixLink<I>> fixLinks = new ArrayList<>();
        private boolean linked;

        // Single linkage, by component root: the label (lowest key and its owner), and whether it changed since sent.
        private Object[] labelKey;
        private List<NodeRef<I>> labelOwner;
        private boolean[] labelChanged;
        /** The lowest label each other-part node's component is known to have (sent to it, or received from it). */
        private final Map<NodeRef<I>, K> knownLabel = new HashMap<>();

        // Leader linkage.
        private boolean[] decided;
        private boolean[] leads;
        /** Whether a node is known to lead or not (before it knows whom it joins). */
        private boolean[] resolved;
        /** Whether a neighbour the node could join is known to lead: then it does not. */
        private boolean[] leaderSeen;

        private boolean[] fixedLeads;
        private List<NodeRef<I>> leaderOf;
        private int[] pending;
        private int[] adjacencyOffsets;
        private int[] neighbours;
        private float[] neighbourSimilarity;
        private int[] crossOffsets;
        private List<Cross<I, K>> crossOfNode;
        private final ArrayDeque<Integer> ready = new ArrayDeque<>();
        private int undecided;

        // Sizes.
        private List<NodeRef<I>> clusterOf;
        private final Map<I, Long> ownedSizes = new LinkedHashMap<>();
        private final Map<I, Set<Integer>> contributors = new HashMap<>();
        private final Map<NodeRef<I>, Long> sizeOf = new HashMap<>();

        /**
         * @param number this part's number, as other parts address it
         * @param order the rank order of the keys (lower = preferred as representative); keys must be distinct
         * @param keepEdges whether edges inside the part are stored (leader linkage needs them)
         */
        public Part(int number, Comparator<? super K> order, boolean keepEdges) {
            this.number = number;
            this.order = Objects.requireNonNull(order, "order");
            this.keepEdges = keepEdges;
        }

        public int number() {
            return number;
        }

        public int bytesPerLocalEdge() {
            return keepEdges ? BYTES_PER_LOCAL_EDGE : 0;
        }

        public int nodeCount() {
            return ids.size();
        }

        /** This part's nodes, in the order they were added (those the links step added last). */
        public List<I> nodeIds() {
            return List.copyOf(ids);
        }

        /** Edges to other parts, each counted once however often it was added (from either side). */
        public int crossEdgeCount() {
            return cross.size();
        }

        /** The node of {@code id}, added unconnected and unfixed if new; returns its number in this part. */
        public int addNode(I id) {
            Integer known = index.get(Objects.requireNonNull(id, "id"));
            if (known != null) {
                return known;
            }
            int n = components.add();
            if (n == counted.length) {
                counted = Arrays.copyOf(counted, n + (n >> 1));
            }
            ids.add(id);
            keys.add(null);
            fixedLeader.add(null);
            index.put(id, n);
            return n;
        }

        /** Two documents of this part are near-duplicates with this similarity (higher = closer). Self-edges are ignored. */
        public void addEdge(I a, I b, float similarity) {
            checkBuilding();
            int x = addNode(a);
            int y = addNode(b);
            if (x == y) {
                return;
            }
            components.union(x, y);
            if (keepEdges) {
                edges.add(x, y, similarity);
            }
        }

        /**
         * A document of this part and one of part {@code otherPart} are near-duplicates. Recording it on one side is
         * enough (the links step tells the other); on both is harmless. An edge added twice keeps its highest
         * similarity, as {@link ClusterGraph#leaderLinkage} does.
         */
        public void addCrossEdge(I local, int otherPart, I otherId, float similarity) {
            if (otherPart == number) {
                addEdge(local, otherId, similarity);
                return;
            }
            checkBuilding();
            addCross(addNode(local), new NodeRef<>(otherPart, otherId), similarity);
        }

        /**
         * Keeps {@code member} (of this part) in the cluster of {@code leader} (of part {@code leaderPart}), as an earlier
         * run assigned it: the member joins the leader's component, and in leader linkage keeps that leader, which
         * leads. As in {@link ClusterGraph#fix}, a later fix of the same member replaces its leader (both joins stay).
         */
        public void fix(I member, int leaderPart, I leader) {
            checkBuilding();
            int m = addNode(member);
            NodeRef<I> leaderRef = new NodeRef<>(leaderPart, leader);
            fixedLeader.set(m, leaderRef);
            if (leaderPart == number) {
                components.union(m, addNode(leader));
            } else {
                fixLinks.add(new FixLink<>(m, leaderRef, true));
            }
        }

        public boolean isFixed(I member) {
            return fixedLeader.get(node(member)) != null;
        }

        /** Step 1 (links): every edge to another part, and every kept assignment to a leader there, to the other end. */
        public Map<Integer, List<Link<I>>> linkMessages() {
            checkBuilding();
            linked = true;
            Map<Integer, List<Link<I>>> out = new TreeMap<>();
            for (Cross<I, K> c : cross) {
                send(out, c.other.part(), new Link<>(c.other.id(), ref(c.local), c.similarity, false, false));
            }
            for (FixLink<I> f : fixLinks) {
                if (f.outgoing) {
                    boolean current = f.other.equals(fixedLeader.get(f.local));
                    send(out, f.other.part(), new Link<>(f.other.id(), ref(f.local), 0f, true, current));
                }
            }
            return out;
        }

        public void receiveLinks(List<Link<I>> messages) {
            linked = true;
            for (Link<I> m : messages) {
                int to = addNode(m.to());
                if (m.fix()) {
                    fixLinks.add(new FixLink<>(to, m.from(), false));
                    if (m.leads()) {
                        ledFromElsewhere.add(to);
                    }
                } else {
                    addCross(to, m.from(), m.similarity());
                }
            }
        }

        /**
         * The rank key of a node of this part (after the links step, so that every node is known), and whether it
         * counts in the cluster sizes (a document the run found; a representative kept from an earlier run whose
         * document is gone does not).
         */
        public void rank(I id, K key, boolean countsInSize) {
            int n = node(id);
            keys.set(n, Objects.requireNonNull(key, "key"));
            counted[n] = countsInSize;
        }

        // ---- Single linkage ----

        /**
         * A single-linkage round: each component's label to the nodes in other parts it has edges (or kept assignments)
         * to, where the label is lower than what that node is known to have. The first call labels each component
         * with its lowest key here.
         */
        public Map<Integer, List<Label<I, K>>> labelMessages() {
            if (labelKey == null) {
                startLabels();
            }
            Map<Integer, List<Label<I, K>>> out = new TreeMap<>();
            for (Cross<I, K> c : cross) {
                sendLabel(out, c.local, c.other);
            }
            for (FixLink<I> f : fixLinks) {
                sendLabel(out, f.local, f.other);
            }
            Arrays.fill(labelChanged, false);
            return out;
        }

        private void sendLabel(Map<Integer, List<Label<I, K>>> out, int local, NodeRef<I> other) {
            int root = components.find(local);
            if (labelChanged[root] == false) {
                return;
            }
            K key = labelKey(root);
            K known = knownLabel.get(other);
            if (known != null && order.compare(known, key) <= 0) {
                return;
            }
            knownLabel.put(other, key);
            send(out, other.part(), new Label<>(other.id(), ref(local), key, labelOwner.get(root)));
        }

        /** Returns whether a component here took a lower label. */
        public boolean receiveLabels(List<Label<I, K>> messages) {
            if (labelKey == null) {
                startLabels();
            }
            boolean changed = false;
            for (Label<I, K> m : messages) {
                knownLabel.merge(m.from(), m.key(), (a, b) -> order.compare(a, b) <= 0 ? a : b);
                int root = components.find(node(m.to()));
                if (order.compare(m.key(), labelKey(root)) < 0) {
                    labelKey[root] = m.key();
                    labelOwner.set(root, m.owner());
                    labelChanged[root] = true;
                    changed = true;
                }
            }
            return changed;
        }

        /** After the single-linkage rounds: the lowest-ranked node of {@code id}'s component. */
        public NodeRef<I> representative(I id) {
            if (labelKey == null) {
                throw new IllegalStateException("single linkage has not run");
            }
            return labelOwner.get(components.find(node(id)));
        }

        private void startLabels() {
            checkRanked();
            int n = ids.size();
            labelKey = new Object[n];
            labelOwner = new ArrayList<>(Collections.nCopies(n, null));
            labelChanged = new boolean[n];
            for (int x = 0; x < n; x++) {
                int root = components.find(x);
                if (labelKey[root] == null || order.compare(keys.get(x), labelKey(root)) < 0) {
                    labelKey[root] = keys.get(x);
                    labelOwner.set(root, ref(x));
                }
                labelChanged[root] = true;
            }
        }

        @SuppressWarnings("unchecked")
        private K labelKey(int root) {
            return (K) labelKey[root];
        }

        // ---- Leader linkage ----

        /** Leader linkage's first step: each node's rank key, and whether it is decided already, across its edges to other parts. */
        public Map<Integer, List<RankOf<I, K>>> rankMessages() {
            if (keepEdges == false) {
                throw new IllegalStateException("leader linkage needs the edges: build the part with keepEdges");
            }
            checkRanked();
            startLeaders();
            Map<Integer, List<RankOf<I, K>>> out = new TreeMap<>();
            for (Cross<I, K> c : cross) {
                send(
                        out,
                        c.other.part(),
                        new RankOf<>(
                                c.other.id(), ref(c.local), keys.get(c.local), decided[c.local], fixedLeads[c.local]));
            }
            return out;
        }

        public void receiveRanks(List<RankOf<I, K>> messages) {
            for (RankOf<I, K> m : messages) {
                Cross<I, K> c = crossOf(m.to(), m.from());
                c.key = m.key();
                c.decidedFromStart = m.decided();
                c.fixedLeader = m.fixedLeader();
            }
        }

        /**
         * A leader-linkage round: settles every node it can (whether it leads, then whom it joins), and sends whether
         * a node leads to its worse-ranked neighbours in other parts, which wait on that.
         */
        public Map<Integer, List<Decision<I>>> decisionMessages() {
            if (pending == null) {
                startDecisions();
            }
            Map<Integer, List<Decision<I>>> out = new TreeMap<>();
            while (ready.isEmpty() == false) {
                settle(ready.poll(), out);
            }
            return out;
        }

        /** Returns whether a decision arrived (a node here waited on it). */
        public boolean receiveDecisions(List<Decision<I>> messages) {
            for (Decision<I> m : messages) {
                Cross<I, K> c = crossOf(m.to(), m.from());
                c.leads = m.leads();
                int x = node(m.to());
                pending[x]--;
                leaderSeen[x] |= m.leads();
                ready.add(x);
            }
            return messages.isEmpty() == false;
        }

        /** Nodes still waiting on a neighbour's decision (0 once the rounds are done). */
        public int undecided() {
            return undecided;
        }

        /** After the leader-linkage rounds: the leader {@code id} joined (itself when it leads). */
        public NodeRef<I> leader(I id) {
            if (leaderOf == null) {
                throw new IllegalStateException("leader linkage has not run");
            }
            NodeRef<I> leader = leaderOf.get(node(id));
            if (leader == null) {
                throw new IllegalStateException("[" + id + "] has not decided yet");
            }
            return leader;
        }

        private void startLeaders() {
            int n = ids.size();
            decided = new boolean[n];
            leads = new boolean[n];
            fixedLeads = new boolean[n];
            leaderOf = new ArrayList<>(Collections.nCopies(n, null));
            // As ClusterGraph.leaderLinkage: a kept assignment decides its member, and its leader leads (even where
            // that leader was itself assigned to another).
            for (int x = 0; x < n; x++) {
                NodeRef<I> leader = fixedLeader.get(x);
                if (leader != null) {
                    decided[x] = true;
                    leaderOf.set(x, leader);
                    if (leader.part() == number) {
                        fixedLeads[node(leader.id())] = true;
                    }
                }
            }
            for (int x : ledFromElsewhere) {
                fixedLeads[x] = true;
            }
            for (int x = 0; x < n; x++) {
                if (fixedLeads[x]) {
                    decided[x] = true;
                    leads[x] = true;
                    leaderOf.set(x, ref(x));
                }
            }
        }

        private void startDecisions() {
            if (decided == null) {
                throw new IllegalStateException("the rank step has not run");
            }
            int n = ids.size();
            WeightedEdges.Adjacency adjacency = edges.adjacency(n);
            adjacencyOffsets = adjacency.offsets();
            neighbours = adjacency.neighbours();
            neighbourSimilarity = adjacency.similarities();
            crossOffsets = new int[n + 1];
            for (Cross<I, K> c : cross) {
                crossOffsets[c.local + 1]++;
            }
            for (int x = 0; x < n; x++) {
                crossOffsets[x + 1] += crossOffsets[x];
            }
            crossOfNode = new ArrayList<>(Collections.nCopies(cross.size(), null));
            int[] crossFill = Arrays.copyOf(crossOffsets, n);
            for (Cross<I, K> c : cross) {
                crossOfNode.set(crossFill[c.local]++, c);
            }

            // A node waits on each better-ranked neighbour that is not decided from the start; a fixed leader among its
            // neighbours (whatever its rank) means it will join one, so it does not lead.
            pending = new int[n];
            resolved = new boolean[n];
            leaderSeen = new boolean[n];
            for (int x = 0; x < n; x++) {
                if (decided[x]) {
                    resolved[x] = true;
                    continue;
                }
                undecided++;
                for (int k = adjacencyOffsets[x]; k < adjacencyOffsets[x + 1]; k++) {
                    int y = neighbours[k];
                    leaderSeen[x] |= fixedLeads[y];
                    if (decided[y] == false && precedes(y, x)) {
                        pending[x]++;
                    }
                }
                for (int k = crossOffsets[x]; k < crossOffsets[x + 1]; k++) {
                    Cross<I, K> c = crossOfNode.get(k);
                    if (c.key == null) {
                        throw new IllegalStateException(
                                "no rank received for " + c.other + ", neighbour of [" + ids.get(x) + "]");
                    }
                    leaderSeen[x] |= c.fixedLeader;
                    if (c.decidedFromStart == false && order.compare(c.key, keys.get(x)) < 0) {
                        pending[x]++;
                    }
                }
                ready.add(x);
            }
        }

        /**
         * Settles what {@code x} can settle now. Whether it leads is known early: it does not once any neighbour it
         * could join leads, and it does once every better-ranked neighbour is known not to. Its worse-ranked
         * neighbours wait only on that, not on whom it joins, so in a near-clique every node hears the first leader
         * and settles in a few rounds, not one round a node. Whom it joins needs every better-ranked neighbour known.
         */
        private void settle(int x, Map<Integer, List<Decision<I>>> out) {
            if (decided[x]) {
                return;
            }
            if (resolved[x] == false && leaderSeen[x]) {
                resolve(x, false, out);
            }
            if (pending[x] == 0) {
                if (resolved[x] == false) {
                    resolve(x, true, out);
                }
                join(x);
            }
        }

        /** {@code x} is known to lead or not: its worse-ranked neighbours hear it. */
        private void resolve(int x, boolean leading, Map<Integer, List<Decision<I>>> out) {
            resolved[x] = true;
            leads[x] = leading;
            for (int k = adjacencyOffsets[x]; k < adjacencyOffsets[x + 1]; k++) {
                int y = neighbours[k];
                if (decided[y] == false && precedes(x, y)) {
                    pending[y]--;
                    leaderSeen[y] |= leading;
                    ready.add(y);
                }
            }
            for (int k = crossOffsets[x]; k < crossOffsets[x + 1]; k++) {
                Cross<I, K> c = crossOfNode.get(k);
                if (c.decidedFromStart == false && order.compare(keys.get(x), c.key) < 0) {
                    send(out, c.other.part(), new Decision<>(c.other.id(), ref(x), leading));
                }
            }
        }

        /** Every better-ranked neighbour of {@code x} is known: {@code x} joins the best leading one, or itself. */
        private void join(int x) {
            NodeRef<I> best = null;
            float bestSimilarity = Float.NEGATIVE_INFINITY;
            K bestKey = null;
            for (int k = adjacencyOffsets[x]; k < adjacencyOffsets[x + 1]; k++) {
                int y = neighbours[k];
                // Leading now: a fixed leader (whatever its rank), or a better-ranked node that leads.
                if (fixedLeads[y] || (leads[y] && precedes(y, x))) {
                    float s = neighbourSimilarity[k];
                    if (best == null
                            || s > bestSimilarity
                            || (s == bestSimilarity && order.compare(keys.get(y), bestKey) < 0)) {
                        best = ref(y);
                        bestSimilarity = s;
                        bestKey = keys.get(y);
                    }
                }
            }
            for (int k = crossOffsets[x]; k < crossOffsets[x + 1]; k++) {
                Cross<I, K> c = crossOfNode.get(k);
                if (c.fixedLeader || (c.leads && order.compare(c.key, keys.get(x)) < 0)) {
                    float s = c.similarity;
                    if (best == null
                            || s > bestSimilarity
                            || (s == bestSimilarity && order.compare(c.key, bestKey) < 0)) {
                        best = c.other;
                        bestSimilarity = s;
                        bestKey = c.key;
                    }
                }
            }
            assert (best == null) == leads[x]
                    : "[" + ids.get(x) + "] leads " + leads[x] + " but its best leader is " + best;
            decided[x] = true;
            undecided--;
            leaderOf.set(x, best == null ? ref(x) : best);
        }

        private boolean precedes(int x, int y) {
            return order.compare(keys.get(x), keys.get(y)) < 0;
        }

        // ---- Sizes ----

        /**
         * Sizes, first step: this part's counted nodes by cluster (by representative, or with {@code byLeader} by
         * leader), to each cluster's owner part. Run after the clustering's rounds.
         */
        public Map<Integer, List<SizeCount<I>>> sizeCounts(boolean byLeader) {
            int n = ids.size();
            ownedSizes.clear();
            contributors.clear();
            sizeOf.clear();
            clusterOf = new ArrayList<>(n);
            Map<NodeRef<I>, Long> counts = new LinkedHashMap<>();
            for (int x = 0; x < n; x++) {
                NodeRef<I> cluster = byLeader ? leader(ids.get(x)) : representative(ids.get(x));
                clusterOf.add(cluster);
                counts.merge(cluster, counted[x] ? 1L : 0L, Long::sum);
            }
            Map<Integer, List<SizeCount<I>>> out = new TreeMap<>();
            for (Map.Entry<NodeRef<I>, Long> e : counts.entrySet()) {
                NodeRef<I> cluster = e.getKey();
                if (cluster.part() == number) {
                    addCount(cluster.id(), number, e.getValue());
                } else {
                    send(out, cluster.part(), new SizeCount<>(cluster, number, e.getValue()));
                }
            }
            return out;
        }

        public void receiveSizeCounts(List<SizeCount<I>> messages) {
            for (SizeCount<I> m : messages) {
                if (m.cluster().part() != number) {
                    throw new IllegalArgumentException("part " + number + " got the count of " + m.cluster());
                }
                addCount(m.cluster().id(), m.fromPart(), m.count());
            }
        }

        private void addCount(I cluster, int fromPart, long count) {
            ownedSizes.merge(cluster, count, Long::sum);
            contributors.computeIfAbsent(cluster, c -> new HashSet<>()).add(fromPart);
        }

        /** Sizes, second step: the total of each cluster owned here, to every part that has members in it. */
        public Map<Integer, List<SizeTotal<I>>> sizeTotals() {
            Map<Integer, List<SizeTotal<I>>> out = new TreeMap<>();
            for (Map.Entry<I, Long> e : ownedSizes.entrySet()) {
                NodeRef<I> cluster = new NodeRef<>(number, e.getKey());
                for (int part : contributors.get(e.getKey())) {
                    if (part == number) {
                        sizeOf.put(cluster, e.getValue());
                    } else {
                        send(out, part, new SizeTotal<>(cluster, e.getValue()));
                    }
                }
            }
            return out;
        }

        public void receiveSizeTotals(List<SizeTotal<I>> messages) {
            for (SizeTotal<I> m : messages) {
                sizeOf.put(m.cluster(), m.total());
            }
        }

        /** After the size steps: the counted size of {@code id}'s cluster. */
        public long clusterSize(I id) {
            if (clusterOf == null) {
                throw new IllegalStateException("the size steps have not run");
            }
            return sizeOf.get(clusterOf.get(node(id)));
        }

        /** After the size steps: the cluster {@code id} was counted in (its representative or leader). */
        public NodeRef<I> clusterOf(I id) {
            if (clusterOf == null) {
                throw new IllegalStateException("the size steps have not run");
            }
            return clusterOf.get(node(id));
        }

        /** The clusters whose representative (or leader) is here, with their counted sizes (those of one or none included). */
        public Map<I, Long> ownedClusterSizes() {
            return Collections.unmodifiableMap(ownedSizes);
        }

        /** This part's share of the size histogram ({@link ClusterGraph#sizeHistogram}'s buckets): the clusters it owns. */
        public long[] sizeHistogram() {
            long[] counts = new long[32];
            int highest = -1;
            for (long size : ownedSizes.values()) {
                if (size >= 2) {
                    int bucket = ClusterGraph.sizeBucket(size);
                    counts[bucket]++;
                    highest = Math.max(highest, bucket);
                }
            }
            return Arrays.copyOf(counts, highest + 1);
        }

        /** This part's {@code n} largest clusters of two or more, larger first, equal sizes in {@code idOrder}. */
        public List<ClusterSize<I>> largest(int n, Comparator<? super I> idOrder) {
            List<ClusterSize<I>> clusters = new ArrayList<>();
            for (Map.Entry<I, Long> e : ownedSizes.entrySet()) {
                if (e.getValue() >= 2) {
                    clusters.add(new ClusterSize<>(e.getKey(), e.getValue()));
                }
            }
            clusters.sort(Comparator.comparingLong((ClusterSize<I> c) -> c.size())
                    .reversed()
                    .thenComparing(ClusterSize::id, idOrder));
            return clusters.subList(0, Math.min(n, clusters.size()));
        }

        // ---- The graph ----

        private void addCross(int local, NodeRef<I> other, float similarity) {
            Cross<I, K> c = crossByEnds.get(new CrossKey<>(local, other));
            if (c == null) {
                c = new Cross<>(local, other, similarity);
                crossByEnds.put(new CrossKey<>(local, other), c);
                cross.add(c);
            } else {
                c.similarity = Math.max(c.similarity, similarity);
            }
        }

        private Cross<I, K> crossOf(I to, NodeRef<I> from) {
            Cross<I, K> c = crossByEnds.get(new CrossKey<>(node(to), from));
            if (c == null) {
                throw new IllegalArgumentException("part " + number + " has no edge [" + to + "]–" + from);
            }
            return c;
        }

        private NodeRef<I> ref(int x) {
            return new NodeRef<>(number, ids.get(x));
        }

        private int node(I id) {
            Integer n = index.get(id);
            if (n == null) {
                throw new IllegalArgumentException("[" + id + "] is not a node of part " + number);
            }
            return n;
        }

        private void checkBuilding() {
            if (linked) {
                throw new IllegalStateException("part " + number + " is past the links step: no more edges or fixes");
            }
        }

        private void checkRanked() {
            for (int x = 0; x < ids.size(); x++) {
                if (keys.get(x) == null) {
                    throw new IllegalStateException("[" + ids.get(x) + "] of part " + number + " has no rank key");
                }
            }
        }
    }

    private record CrossKey<I>(int local, NodeRef<I> other) {}

    /** An edge to another part, with what this part learns of the other end. */
    private static final class Cross<I, K> {
        final int local;
        final NodeRef<I> other;
        float similarity;
        K key;
        /** The other end is decided by a kept assignment: nothing waits on it. */
        boolean decidedFromStart;

        boolean fixedLeader;
        /** The other end leads (once it said so; worse-ranked ends never say). */
        boolean leads;

        Cross(int local, NodeRef<I> other, float similarity) {
            this.local = local;
            this.other = other;
            this.similarity = similarity;
        }
    }

    /** A kept assignment across parts: {@code outgoing} on the member's side, the reverse on the leader's. */
    private record FixLink<I>(int local, NodeRef<I> other, boolean outgoing) {}
}
