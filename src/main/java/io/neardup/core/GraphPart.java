/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import io.neardup.core.PartitionedClusters.ClusterSize;
import io.neardup.core.PartitionedClusters.Decision;
import io.neardup.core.PartitionedClusters.Label;
import io.neardup.core.PartitionedClusters.Link;
import io.neardup.core.PartitionedClusters.NodeRef;
import io.neardup.core.PartitionedClusters.RankOf;
import io.neardup.core.PartitionedClusters.SizeCount;
import io.neardup.core.PartitionedClusters.SizeTotal;
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
 * The part of the near-duplicate graph one node (shard) holds, and its side of {@link PartitionedClusters}' protocol.
 * {@code I}: a document's id, unique over all parts; {@code K}: its rank key.
 *
 * <p>Memory: {@link PartitionedClusters#BYTES_PER_NODE} a node, {@link #bytesPerLocalEdge()} an edge inside the part,
 * {@link PartitionedClusters#BYTES_PER_CROSS_EDGE} an edge to another part, each besides the caller's id and key
 * objects (the clustering steps' own state is counted in them; the messages are the caller's). Not thread-safe.
 */
public final class GraphPart<I, K> {
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
    /** The edges to other parts recorded here that the next links step tells their other end. */
    private final List<Cross<I, K>> crossToLink = new ArrayList<>();
    /** How many of {@link #fixLinks} a links step went through. */
    private int fixLinksLinked;
    /** The members whose kept assignment in another part a links step told that part: fixed for good. */
    private final Set<Integer> fixLinked = new HashSet<>();
    /** Set when the clustering starts (the first label or rank step): the part is built then. */
    private boolean clustering;

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
    /** The clusters whose representative (or leader) is here, by its id, with their counted sizes. */
    private final Map<I, Long> ownedSizes = new LinkedHashMap<>();
    /** The other parts with members in an owned cluster (none for most: a cluster is mostly within one shard). */
    private final Map<I, List<Integer>> otherContributors = new HashMap<>();
    /** The sizes of the clusters owned elsewhere that have members here. */
    private final Map<NodeRef<I>, Long> otherSizes = new HashMap<>();

    /**
     * @param number this part's number, as other parts address it
     * @param order the rank order of the keys (lower = preferred as representative); keys must be distinct
     * @param keepEdges whether edges inside the part are stored (leader linkage needs them)
     */
    public GraphPart(int number, Comparator<? super K> order, boolean keepEdges) {
        this.number = number;
        this.order = Objects.requireNonNull(order, "order");
        this.keepEdges = keepEdges;
    }

    public int number() {
        return number;
    }

    public int bytesPerLocalEdge() {
        return keepEdges ? PartitionedClusters.BYTES_PER_LOCAL_EDGE : 0;
    }

    public int nodeCount() {
        return ids.size();
    }

    /** This part's nodes, in the order they were added (those a links step added, after those added before it). */
    public List<I> nodeIds() {
        return List.copyOf(ids);
    }

    /** The ids of nodes {@code from} to {@code to} - 1, in the order of {@link #nodeIds()}. */
    public List<I> nodeIds(int from, int to) {
        return List.copyOf(ids.subList(from, to));
    }

    /** Edges to other parts, each counted once however often it was added (from either side). */
    public int crossEdgeCount() {
        return cross.size();
    }

    /** The number in this part of the node of {@code id}, or -1 if the part has none. */
    public int nodeNumber(I id) {
        Integer known = index.get(id);
        return known == null ? -1 : known;
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

    /**
     * Two documents of this part are near-duplicates with this similarity (higher = closer). Self-edges are ignored.
     */
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
        addCross(addNode(local), new NodeRef<>(otherPart, otherId), similarity, true);
    }

    /**
     * Keeps {@code member} (of this part) in the cluster of {@code leader} (of part {@code leaderPart}), as an earlier
     * run assigned it: the member joins the leader's component, and in leader linkage keeps that leader, which
     * leads. As in {@link ClusterGraph#fix}, a later fix of the same member replaces its leader (both joins stay).
     */
    public void fix(I member, int leaderPart, I leader) {
        checkBuilding();
        int m = addNode(member);
        if (fixLinked.contains(m)) {
            // Its leader in another part was told it leads: a later fix could not take that back.
            throw new IllegalStateException(
                    "[" + member + "] of part " + number + " keeps the leader a links step sent: it is fixed once");
        }
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

    /**
     * Step 1 (links): every edge to another part, and every kept assignment to a leader there, to the other end. The
     * step can run again while the part is built in waves (edges and fixes added after a links step, as a run that
     * reads the members of earlier clusters finds them): each time it sends what was added here since the last, and
     * nothing once nothing was.
     */
    public Map<Integer, List<Link<I>>> linkMessages() {
        checkBuilding();
        Map<Integer, List<Link<I>>> out = new TreeMap<>();
        for (Cross<I, K> c : crossToLink) {
            c.toLink = false;
            send(out, c.other.part(), new Link<>(c.other.id(), ref(c.local), c.similarity, false, false));
        }
        crossToLink.clear();
        for (; fixLinksLinked < fixLinks.size(); fixLinksLinked++) {
            FixLink<I> f = fixLinks.get(fixLinksLinked);
            if (f.outgoing) {
                boolean current = f.other.equals(fixedLeader.get(f.local));
                send(out, f.other.part(), new Link<>(f.other.id(), ref(f.local), 0f, true, current));
                fixLinked.add(f.local);
            }
        }
        return out;
    }

    /**
     * Records the other end of each link: a node it did not know (a leader, or the end of an edge recorded only on the
     * other side) and an edge it did not have. Each message adds at most one node and one edge to another part, so a
     * caller charges {@code messages.size()} times their bytes before, and gives back what {@link #nodeCount} and
     * {@link #crossEdgeCount} did not grow by.
     */
    public void receiveLinks(List<Link<I>> messages) {
        checkBuilding();
        for (Link<I> m : messages) {
            int to = addNode(m.to());
            if (m.fix()) {
                fixLinks.add(new FixLink<>(to, m.from(), false));
                if (m.leads()) {
                    ledFromElsewhere.add(to);
                }
            } else {
                addCross(to, m.from(), m.similarity(), false);
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

    /**
     * Leader linkage's first step: each node's rank key, and whether it is decided already, across its edges to other
     * parts.
     */
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
                    new RankOf<>(c.other.id(), ref(c.local), keys.get(c.local), decided[c.local], fixedLeads[c.local]));
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

    /** Returns whether a neighbour's answer arrived (a node here waited on it). */
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
                    best = leaderOf.get(y); // y leads, so this is its own reference: one object, not one a member
                    bestSimilarity = s;
                    bestKey = keys.get(y);
                }
            }
        }
        for (int k = crossOffsets[x]; k < crossOffsets[x + 1]; k++) {
            Cross<I, K> c = crossOfNode.get(k);
            if (c.fixedLeader || (c.leads && order.compare(c.key, keys.get(x)) < 0)) {
                float s = c.similarity;
                if (best == null || s > bestSimilarity || (s == bestSimilarity && order.compare(c.key, bestKey) < 0)) {
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
        otherContributors.clear();
        otherSizes.clear();
        clusterOf = new ArrayList<>(n);
        Map<NodeRef<I>, Long> counts = new LinkedHashMap<>();
        for (int x = 0; x < n; x++) {
            NodeRef<I> cluster = byLeader ? leader(ids.get(x)) : representative(ids.get(x));
            clusterOf.add(cluster);
            long count = counted[x] ? 1L : 0L;
            if (cluster.part() == number) {
                ownedSizes.merge(cluster.id(), count, Long::sum);
            } else {
                counts.merge(cluster, count, Long::sum);
            }
        }
        Map<Integer, List<SizeCount<I>>> out = new TreeMap<>();
        counts.forEach((cluster, count) -> send(out, cluster.part(), new SizeCount<>(cluster, number, count)));
        return out;
    }

    public void receiveSizeCounts(List<SizeCount<I>> messages) {
        for (SizeCount<I> m : messages) {
            if (m.cluster().part() != number) {
                throw new IllegalArgumentException("part " + number + " got the count of " + m.cluster());
            }
            ownedSizes.merge(m.cluster().id(), m.count(), Long::sum);
            otherContributors
                    .computeIfAbsent(m.cluster().id(), c -> new ArrayList<>(1))
                    .add(m.fromPart());
        }
    }

    /** Sizes, second step: the total of each cluster owned here, to every part that has members in it. */
    public Map<Integer, List<SizeTotal<I>>> sizeTotals() {
        Map<Integer, List<SizeTotal<I>>> out = new TreeMap<>();
        otherContributors.forEach((id, parts) -> {
            NodeRef<I> cluster = new NodeRef<>(number, id);
            for (int part : parts) {
                send(out, part, new SizeTotal<>(cluster, ownedSizes.get(id)));
            }
        });
        return out;
    }

    public void receiveSizeTotals(List<SizeTotal<I>> messages) {
        for (SizeTotal<I> m : messages) {
            otherSizes.put(m.cluster(), m.total());
        }
    }

    /** After the size steps: the counted size of {@code id}'s cluster. */
    public long clusterSize(I id) {
        if (clusterOf == null) {
            throw new IllegalStateException("the size steps have not run");
        }
        NodeRef<I> cluster = clusterOf.get(node(id));
        return cluster.part() == number ? ownedSizes.get(cluster.id()) : otherSizes.get(cluster);
    }

    /** After the size steps: the cluster {@code id} was counted in (its representative or leader). */
    public NodeRef<I> clusterOf(I id) {
        if (clusterOf == null) {
            throw new IllegalStateException("the size steps have not run");
        }
        return clusterOf.get(node(id));
    }

    /**
     * The clusters whose representative (or leader) is here, with their counted sizes (those of one or none included).
     */
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

    /**
     * The edge to {@code other}, added or raised to {@code similarity}; where it was {@code recordedHere} (not learned
     * from the other end) and is new or higher than the other end was told, the next links step tells it.
     */
    private void addCross(int local, NodeRef<I> other, float similarity, boolean recordedHere) {
        CrossKey<I> key = new CrossKey<>(local, other);
        Cross<I, K> c = crossByEnds.get(key);
        boolean raised = c == null || similarity > c.similarity;
        if (c == null) {
            c = new Cross<>(local, other, similarity);
            crossByEnds.put(key, c);
            cross.add(c);
        } else {
            c.similarity = Math.max(c.similarity, similarity);
        }
        if (recordedHere && raised && c.toLink == false) {
            c.toLink = true;
            crossToLink.add(c);
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
        if (clustering) {
            throw new IllegalStateException("part " + number + " is clustering: no more edges, fixes or links");
        }
    }

    /** Before the clustering's first step: every node has its key, and the part is built for good. */
    private void checkRanked() {
        for (int x = 0; x < ids.size(); x++) {
            if (keys.get(x) == null) {
                throw new IllegalStateException("[" + ids.get(x) + "] of part " + number + " has no rank key");
            }
        }
        clustering = true;
    }

    private static <M> void send(Map<Integer, List<M>> out, int part, M message) {
        out.computeIfAbsent(part, p -> new ArrayList<>()).add(message);
    }

    private record CrossKey<I>(int local, NodeRef<I> other) {}

    /** An edge to another part, with what this part learns of the other end. */
    private static final class Cross<I, K> {
        final int local;
        final NodeRef<I> other;
        float similarity;
        /** Recorded here and not yet told to the other end (or told a lower similarity). */
        boolean toLink;

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
