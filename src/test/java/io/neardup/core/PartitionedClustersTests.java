/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import io.neardup.core.PartitionedClusters.ClusterSize;
import io.neardup.core.PartitionedClusters.Label;
import io.neardup.core.PartitionedClusters.NodeRef;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The partitioned clusterings against {@link ClusterGraph} on the whole graph, with the parts' messages carried by an
 * in-test router: every part runs a step before any receives, as the transport layer will do them.
 */
public class PartitionedClustersTests extends OpenSearchTestCase {

    /** Ids are global node numbers; a key is the node's rank then its number, as ClusterGraph breaks rank ties. */
    private static long key(int rank, int node) {
        return (long) rank * 1_000_000L + node;
    }

    /** A step's outcome: messages delivered, and whether a receiving part changed. */
    private record Delivery(int messages, boolean changed) {}

    /** Runs {@code step} on every part, then hands each part its messages (shuffled when {@code shuffle}). */
    private <M> Delivery deliver(
            List<GraphPart<Integer, Long>> parts,
            Function<GraphPart<Integer, Long>, Map<Integer, List<M>>> step,
            BiPredicate<GraphPart<Integer, Long>, List<M>> receive,
            boolean shuffle) {
        List<Map<Integer, List<M>>> sent = new ArrayList<>();
        for (GraphPart<Integer, Long> part : parts) {
            sent.add(step.apply(part));
        }
        int messages = 0;
        boolean changed = false;
        for (GraphPart<Integer, Long> part : parts) {
            List<M> inbox = new ArrayList<>();
            for (Map<Integer, List<M>> out : sent) {
                inbox.addAll(out.getOrDefault(part.number(), List.of()));
            }
            if (shuffle) {
                Collections.shuffle(inbox, random());
            }
            messages += inbox.size();
            changed |= receive.test(part, inbox);
        }
        return new Delivery(messages, changed);
    }

    /** {@link #deliver} for a step whose receiving says nothing. */
    private <M> void deliverAll(
            List<GraphPart<Integer, Long>> parts,
            Function<GraphPart<Integer, Long>, Map<Integer, List<M>>> step,
            BiConsumer<GraphPart<Integer, Long>, List<M>> receive,
            boolean shuffle) {
        deliver(
                parts,
                step,
                (p, m) -> {
                    receive.accept(p, m);
                    return true;
                },
                shuffle);
    }

    /** The whole graph twice: once in a ClusterGraph, once split into parts. */
    private static final class Split {
        final int n;
        final int[] partOf;
        final int[] rank;
        final boolean[] counted;
        final ClusterGraph whole = new ClusterGraph(true);
        final List<GraphPart<Integer, Long>> parts = new ArrayList<>();
        /** Every edge and kept assignment (member, leader) added, for the round counts. */
        final List<int[]> edges = new ArrayList<>();

        final Map<Integer, Integer> fixedLeader = new HashMap<>();
        final List<int[]> fixes = new ArrayList<>();
        /** The distinct edges between parts, as "low-high". */
        final java.util.Set<String> crossPairs = new java.util.HashSet<>();

        /** Whether the parts keep their inner edges (leader linkage needs them; single linkage runs without). */
        final boolean keepEdges;

        /**
         * Where the parts are built in waves, a links step after each (as a run with a query finds the members of
         * earlier clusters): what each wave adds to the parts. Empty: the parts are built at once.
         */
        final List<List<Runnable>> waves = new ArrayList<>();
        /** With waves: the wave of each fixed member's fixes, so that they keep their order (the last one wins). */
        final Map<Integer, Integer> waveOfFixes = new HashMap<>();

        Split(int n, int partCount, int[] partOf, int[] rank, boolean[] counted, boolean keepEdges) {
            this.keepEdges = keepEdges;
            this.n = n;
            this.partOf = partOf;
            this.rank = rank;
            this.counted = counted;
            for (int i = 0; i < n; i++) {
                whole.addNode();
            }
            for (int p = 0; p < partCount; p++) {
                parts.add(new GraphPart<>(p, Comparator.<Long>naturalOrder(), keepEdges));
            }
        }

        GraphPart<Integer, Long> partOf(int node) {
            return parts.get(partOf[node]);
        }

        /** Builds the parts in {@code count} waves from now on. */
        void inWaves(int count) {
            for (int w = 0; w < count; w++) {
                waves.add(new ArrayList<>());
            }
        }

        /** Adds to the parts now, or in wave {@code wave} (taken modulo the waves). */
        void onParts(int wave, Runnable add) {
            if (waves.isEmpty()) {
                add.run();
            } else {
                waves.get(wave % waves.size()).add(add);
            }
        }

        /** Adds the edge to the whole graph and to the parts: a cross edge on one side, the other, or both. */
        void edge(int a, int b, float similarity, int sides) {
            whole.addEdge(a, b, similarity);
            edges.add(new int[] {a, b});
            if (partOf[a] == partOf[b]) {
                onParts(between(0, 3), () -> partOf(a).addEdge(a, b, similarity));
                return;
            }
            crossPairs.add(Math.min(a, b) + "-" + Math.max(a, b));
            if (sides != 1) {
                onParts(between(0, 3), () -> partOf(a).addCrossEdge(a, partOf[b], b, similarity));
            }
            if (sides != 0) {
                onParts(between(0, 3), () -> partOf(b).addCrossEdge(b, partOf[a], a, similarity));
            }
        }

        void fix(int member, int leader) {
            whole.fix(member, leader);
            fixedLeader.put(member, leader);
            fixes.add(new int[] {member, leader});
            onParts(
                    waveOfFixes.computeIfAbsent(member, m -> between(0, 3)),
                    () -> partOf(member).fix(member, partOf[leader], leader));
        }

        NodeRef<Integer> ref(int node) {
            return new NodeRef<>(partOf[node], node);
        }
    }

    /** What the protocol took, for the measurements in PartitionedClusters' javadoc. */
    private record Rounds(int singleLinkage, int leaderLinkage, int labelMessages) {}

    /**
     * Runs the whole protocol on the split (leader linkage where the parts keep their edges) and checks every result
     * against ClusterGraph.
     */
    private Rounds runAndCompare(Split s, boolean shuffle) {
        for (List<Runnable> wave : s.waves) {
            wave.forEach(Runnable::run);
            deliverAll(s.parts, GraphPart::linkMessages, GraphPart::receiveLinks, shuffle);
        }
        deliverAll(s.parts, GraphPart::linkMessages, GraphPart::receiveLinks, shuffle);
        assertEquals(
                "a links step after one that added nothing sends nothing",
                0,
                deliver(
                                s.parts,
                                GraphPart::linkMessages,
                                (p, m) -> {
                                    p.receiveLinks(m);
                                    return false;
                                },
                                shuffle)
                        .messages());
        int nodesInParts = 0;
        for (GraphPart<Integer, Long> part : s.parts) {
            for (int id : part.nodeIds()) {
                assertEquals("node " + id + " is in the wrong part", s.partOf[id], part.number());
                part.rank(id, key(s.rank[id], id), s.counted[id]);
            }
            nodesInParts += part.nodeCount();
        }
        assertEquals("every node of an edge or a fix, and every added node, is in its part", s.n, nodesInParts);
        int crossEnds = s.parts.stream().mapToInt(GraphPart::crossEdgeCount).sum();
        assertEquals("each edge between parts, once on each side", 2 * s.crossPairs.size(), crossEnds);

        // Single linkage; no label goes twice over an edge unchanged: per (sender's part, receiving node) the labels
        // fall.
        Map<String, Long> lastLabel = new HashMap<>();
        int labelMessages = 0;
        int singleRounds = 0;
        while (true) {
            Delivery d = deliver(
                    s.parts,
                    p -> {
                        Map<Integer, List<Label<Integer, Long>>> out = p.labelMessages();
                        out.forEach((to, labels) -> {
                            for (Label<Integer, Long> label : labels) {
                                Long before = lastLabel.put(p.number() + "->" + to + ":" + label.to(), label.key());
                                assertTrue(
                                        "part " + p.number() + " sent " + label + " after " + before,
                                        before == null || label.key() < before);
                            }
                        });
                        return out;
                    },
                    GraphPart::receiveLabels,
                    shuffle);
            if (d.messages() == 0) {
                assertFalse(d.changed());
                break;
            }
            labelMessages += d.messages();
            singleRounds++;
        }
        int[] rep = s.whole.singleLinkage(s.rank);
        int farthest = crossingsFromRepresentatives(s, rep);
        // Round r brings the lowest label to the nodes r edges between parts away; a last round may find nothing new.
        assertTrue(
                singleRounds + " single-linkage rounds for labels " + farthest + " crossings away",
                singleRounds == farthest || singleRounds == farthest + 1);
        for (int i = 0; i < s.n; i++) {
            assertEquals(
                    "representative of node " + i, s.ref(rep[i]), s.partOf(i).representative(i));
        }
        compareSizes(s, rep, false, shuffle);
        if (s.keepEdges == false) {
            return new Rounds(singleRounds, 0, labelMessages);
        }

        deliverAll(s.parts, GraphPart::rankMessages, GraphPart::receiveRanks, shuffle);
        int leaderRounds = 0;
        while (deliver(s.parts, GraphPart::decisionMessages, GraphPart::receiveDecisions, shuffle)
                        .messages()
                > 0) {
            leaderRounds++;
        }
        int[] leader = s.whole.leaderLinkage(s.rank);
        assertEquals("leader-linkage rounds", expectedLeaderRounds(s, leader), leaderRounds);
        for (GraphPart<Integer, Long> part : s.parts) {
            assertEquals("undecided nodes in part " + part.number(), 0, part.undecided());
        }
        for (int i = 0; i < s.n; i++) {
            assertEquals("leader of node " + i, s.ref(leader[i]), s.partOf(i).leader(i));
        }
        compareSizes(s, leader, true, shuffle);
        return new Rounds(singleRounds, leaderRounds, labelMessages);
    }

    /** The neighbours of every node over the edges and, with {@code fixes}, the kept assignments too. */
    private static List<List<Integer>> adjacency(Split s, boolean fixes) {
        List<List<Integer>> adjacent = new ArrayList<>();
        for (int i = 0; i < s.n; i++) {
            adjacent.add(new ArrayList<>());
        }
        List<int[]> links = new ArrayList<>(s.edges);
        if (fixes) {
            // Every fix joins the components, not only a member's last.
            links.addAll(s.fixes);
        }
        for (int[] e : links) {
            if (e[0] != e[1]) {
                adjacent.get(e[0]).add(e[1]);
                adjacent.get(e[1]).add(e[0]);
            }
        }
        return adjacent;
    }

    /**
     * The most edges between parts any node is from its representative, by the path with fewest (a 0-1 breadth-first
     * search: edges inside a part cost nothing, as the part's union-find labels them at once).
     */
    private static int crossingsFromRepresentatives(Split s, int[] rep) {
        List<List<Integer>> adjacent = adjacency(s, true);
        int[] distance = new int[s.n];
        java.util.Arrays.fill(distance, Integer.MAX_VALUE);
        java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>();
        for (int i = 0; i < s.n; i++) {
            if (rep[i] == i) {
                distance[i] = 0;
                queue.add(i);
            }
        }
        int farthest = 0;
        while (queue.isEmpty() == false) {
            int x = queue.pollFirst();
            farthest = Math.max(farthest, distance[x]);
            for (int y : adjacent.get(x)) {
                int cost = s.partOf[x] == s.partOf[y] ? 0 : 1;
                if (distance[x] + cost < distance[y]) {
                    distance[y] = distance[x] + cost;
                    if (cost == 0) {
                        queue.addFirst(y);
                    } else {
                        queue.addLast(y);
                    }
                }
            }
        }
        return farthest;
    }

    /**
     * The leader-linkage rounds the parts need, from the whole graph's result: the step in which each node is known to
     * lead or not (a node hears of a neighbour in its own part in the same step, of one in another part a step
     * later; what kept assignments decide is known from the first step). A node that does not lead knows it from the
     * first leading neighbour it hears of; one that leads, from the last better-ranked neighbour. The rounds are the
     * steps in which a node tells a worse-ranked neighbour in another part.
     */
    private static int expectedLeaderRounds(Split s, int[] leader) {
        List<List<Integer>> adjacent = adjacency(s, false);
        boolean[] decidedFromStart = new boolean[s.n];
        boolean[] fixedLeads = new boolean[s.n];
        s.fixedLeader.forEach((member, leaderOfMember) -> {
            decidedFromStart[member] = true;
            decidedFromStart[leaderOfMember] = true;
            fixedLeads[leaderOfMember] = true;
        });
        Integer[] order = new Integer[s.n];
        for (int i = 0; i < s.n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, Comparator.comparingLong(i -> key(s.rank[i], i)));
        int[] known = new int[s.n];
        int rounds = 0;
        for (int x : order) {
            if (decidedFromStart[x]) {
                continue;
            }
            int firstLeader = Integer.MAX_VALUE;
            int lastHeard = 1;
            for (int y : adjacent.get(x)) {
                if (fixedLeads[y]) {
                    firstLeader = 1;
                } else if (decidedFromStart[y] == false && key(s.rank[y], y) < key(s.rank[x], x)) {
                    int heard = known[y] + (s.partOf[x] == s.partOf[y] ? 0 : 1);
                    lastHeard = Math.max(lastHeard, heard);
                    if (leader[y] == y) {
                        firstLeader = Math.min(firstLeader, heard);
                    }
                }
            }
            known[x] = firstLeader != Integer.MAX_VALUE ? firstLeader : lastHeard;
        }
        for (int x = 0; x < s.n; x++) {
            for (int y : adjacent.get(x)) {
                if (decidedFromStart[x] == false
                        && decidedFromStart[y] == false
                        && s.partOf[x] != s.partOf[y]
                        && key(s.rank[x], x) < key(s.rank[y], y)) {
                    rounds = Math.max(rounds, known[x]);
                }
            }
        }
        return rounds;
    }

    private void compareSizes(Split s, int[] clusterOf, boolean byLeader, boolean shuffle) {
        deliverAll(s.parts, p -> p.sizeCounts(byLeader), GraphPart::receiveSizeCounts, shuffle);
        deliverAll(s.parts, GraphPart::sizeTotals, GraphPart::receiveSizeTotals, shuffle);
        long[] size = new long[s.n];
        for (int i = 0; i < s.n; i++) {
            if (s.counted[i]) {
                size[clusterOf[i]]++;
            }
        }
        for (int i = 0; i < s.n; i++) {
            assertEquals(
                    "size of node " + i + "'s cluster",
                    size[clusterOf[i]],
                    s.partOf(i).clusterSize(i));
            assertEquals(s.ref(clusterOf[i]), s.partOf(i).clusterOf(i));
        }
        List<long[]> histograms = new ArrayList<>();
        List<ClusterSize<Integer>> largest = new ArrayList<>();
        Comparator<ClusterSize<Integer>> bySize = Comparator.comparingLong((ClusterSize<Integer> c) -> c.size())
                .reversed()
                .thenComparing(ClusterSize::id);
        for (GraphPart<Integer, Long> part : s.parts) {
            histograms.add(part.sizeHistogram());
            largest.addAll(part.largest(10, Comparator.naturalOrder()));
        }
        assertArrayEquals(
                ClusterGraph.sizeHistogram(clusterOf, s.counted), PartitionedClusters.addHistograms(histograms));
        largest.sort(bySize);
        List<ClusterSize<Integer>> expected = new ArrayList<>();
        for (int i = 0; i < s.n; i++) {
            if (clusterOf[i] == i && size[i] >= 2) {
                expected.add(new ClusterSize<>(i, size[i]));
            }
        }
        expected.sort(bySize);
        assertEquals(
                expected.subList(0, Math.min(10, expected.size())), largest.subList(0, Math.min(10, largest.size())));
    }

    /** A random graph of one of several shapes, split at random, with random ranks, fixes and edge orders. */
    private Split randomSplit(int shape, boolean withFixes) {
        int n = randomBoolean() ? between(1, 60) : between(1, 2000);
        int partCount = between(1, 12);
        int[] partOf = new int[n];
        int[] rank = new int[n];
        boolean[] counted = new boolean[n];
        for (int i = 0; i < n; i++) {
            partOf[i] = between(0, partCount - 1);
            rank[i] = between(0, n / 2);
            counted[i] = rarely() == false;
        }
        List<int[]> pairs = new ArrayList<>();
        switch (shape) {
            case 0 -> { // sparse: random pairs, self-pairs included
                for (int e = between(0, 2 * n); e > 0; e--) {
                    pairs.add(new int[] {between(0, n - 1), between(0, n - 1)});
                }
            }
            case 1 -> { // dense among the first nodes
                int k = Math.min(n, 120);
                double density = randomDoubleBetween(0.05, 0.4, true);
                for (int a = 0; a < k; a++) {
                    for (int b = a + 1; b < k; b++) {
                        if (random().nextDouble() < density) {
                            pairs.add(new int[] {a, b});
                        }
                    }
                }
            }
            case 2 -> { // cliques of 2 to 12 over a random order
                List<Integer> order = shuffled(n);
                for (int start = 0; start < n; ) {
                    int end = Math.min(n, start + between(2, 12));
                    for (int a = start; a < end; a++) {
                        for (int b = a + 1; b < end; b++) {
                            pairs.add(new int[] {order.get(a), order.get(b)});
                        }
                    }
                    start = end;
                }
            }
            case 3 -> { // many isolated pairs
                List<Integer> order = shuffled(n);
                for (int a = 0; a + 1 < n; a += 2) {
                    if (rarely() == false) {
                        pairs.add(new int[] {order.get(a), order.get(a + 1)});
                    }
                }
            }
            default -> { // chains over random nodes (so across parts), with a few chords
                List<Integer> order = shuffled(n);
                for (int start = 0; start < n; ) {
                    int end = Math.min(n, start + between(2, 60));
                    for (int a = start; a + 1 < end; a++) {
                        pairs.add(new int[] {order.get(a), order.get(a + 1)});
                    }
                    if (end - start > 3 && randomBoolean()) {
                        pairs.add(new int[] {order.get(start), order.get(between(start + 2, end - 1))});
                    }
                    start = end;
                }
            }
        }
        Collections.shuffle(pairs, random());
        Split s = new Split(n, partCount, partOf, rank, counted, rarely() == false);
        if (randomBoolean()) {
            s.inWaves(between(2, 4));
        }
        boolean[] touched = new boolean[n];
        for (int[] pair : pairs) {
            // Few distinct similarities, so that ties between leaders are exercised.
            float similarity = between(1, 4) / 4f;
            s.edge(pair[0], pair[1], similarity, between(0, 2));
            if (rarely()) {
                s.edge(pair[1], pair[0], between(1, 4) / 4f, between(0, 2));
            }
            touched[pair[0]] = touched[pair[1]] = true;
        }
        if (withFixes) {
            // Random pairs, so they also join far parts of the graph (a kept assignment joins its earlier cluster).
            for (int f = between(0, Math.max(1, n / 20)); f > 0; f--) {
                int member = between(0, n - 1);
                int leader = between(0, n - 1);
                s.fix(member, leader);
                touched[member] = touched[leader] = true;
            }
        }
        for (int i = 0; i < n; i++) {
            // A node met only as another part's edge end or a fix's leader is added by the links step.
            if (touched[i] == false || randomBoolean()) {
                int node = i;
                s.onParts(between(0, 3), () -> s.partOf(node).addNode(node));
            }
        }
        return s;
    }

    private List<Integer> shuffled(int n) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        Collections.shuffle(order, random());
        return order;
    }

    public void testSameClustersAsTheWholeGraph() {
        String[] shapes = {"sparse", "dense", "cliques", "pairs", "chains"};
        // By shape and with or without kept assignments: runs, and the sum and most of each linkage's rounds.
        int[][][] stats = new int[shapes.length][2][5];
        for (int iteration = 0; iteration < atLeast(100); iteration++) {
            int shape = between(0, shapes.length - 1);
            boolean fixes = randomBoolean();
            Rounds rounds = runAndCompare(randomSplit(shape, fixes), randomBoolean());
            int[] stat = stats[shape][fixes ? 1 : 0];
            stat[0]++;
            stat[1] += rounds.singleLinkage();
            stat[2] = Math.max(stat[2], rounds.singleLinkage());
            stat[3] += rounds.leaderLinkage();
            stat[4] = Math.max(stat[4], rounds.leaderLinkage());
        }
        StringBuilder table = new StringBuilder("rounds (runs: single linkage mean/most, leader linkage mean/most):");
        for (int shape = 0; shape < shapes.length; shape++) {
            for (int fixes = 0; fixes < 2; fixes++) {
                int[] stat = stats[shape][fixes];
                if (stat[0] > 0) {
                    table.append(String.format(
                            java.util.Locale.ROOT,
                            "%n  %s%s (%d): %.1f/%d, %.1f/%d",
                            shapes[shape],
                            fixes == 1 ? " with fixes" : "",
                            stat[0],
                            (double) stat[1] / stat[0],
                            stat[2],
                            (double) stat[3] / stat[0],
                            stat[4]));
                }
            }
        }
        logger.info(table);
    }

    /** A split of {@code n} nodes into the given parts, ranked by node number, all counted. */
    private static Split orderedSplit(int... partOf) {
        int n = partOf.length;
        int[] rank = new int[n];
        boolean[] counted = new boolean[n];
        for (int i = 0; i < n; i++) {
            rank[i] = i;
            counted[i] = true;
        }
        return new Split(n, java.util.Arrays.stream(partOf).max().orElse(0) + 1, partOf, rank, counted, true);
    }

    public void testOnePartNeedsNoMessages() {
        Split s = orderedSplit(0, 0, 0, 0, 0);
        s.edge(0, 1, 0.9f, 2);
        s.edge(1, 2, 0.8f, 2);
        s.fix(4, 3);
        s.partOf(0).addNode(3);
        assertEquals(new Rounds(0, 0, 0), runAndCompare(s, false));
        assertEquals(new NodeRef<>(0, 0), s.partOf(2).representative(2));
        assertEquals(new NodeRef<>(0, 2), s.partOf(2).leader(2));
        assertEquals(new NodeRef<>(0, 3), s.partOf(4).leader(4));
    }

    public void testNodeWithEdgesOnlyToOtherParts() {
        // Node 0 (part 0) is the only link between 1 (part 1, ranked first) and 2 (part 2).
        Split s = orderedSplit(0, 1, 2);
        s.rank[0] = 1;
        s.rank[1] = 0;
        s.edge(0, 1, 0.9f, 0);
        s.edge(0, 2, 0.8f, 1);
        Rounds rounds = runAndCompare(s, false);
        for (int i = 0; i < 3; i++) {
            assertEquals(new NodeRef<>(1, 1), s.partOf(i).representative(i));
        }
        // 0 joins 1; 2 waited on 0, which does not lead, so 2 leads: 1 -> 0 -> 2 is a chain of two decisions.
        assertEquals(new NodeRef<>(1, 1), s.partOf(0).leader(0));
        assertEquals(new NodeRef<>(2, 2), s.partOf(2).leader(2));
        assertEquals(2, rounds.leaderLinkage());
        assertEquals(2, rounds.singleLinkage());
        assertEquals(List.of(0), s.parts.get(0).nodeIds());
        assertEquals(2, s.parts.get(0).crossEdgeCount());
    }

    public void testChainAlternatingBetweenTwoParts() {
        int n = between(2, 60);
        int[] partOf = new int[n];
        for (int i = 0; i < n; i++) {
            partOf[i] = i % 2;
        }
        Split s = orderedSplit(partOf);
        for (int i = 0; i + 1 < n; i++) {
            s.edge(i, i + 1, 0.9f, between(0, 2));
        }
        Rounds rounds = runAndCompare(s, randomBoolean());
        // Node 0's label moves one edge a round; node n - 1 learns it in round n - 1 and has no one left to tell.
        assertEquals(n - 1, rounds.singleLinkage());
        // Node j must hear j labels from its left (j - 1, then each lower one a round): n(n-1)/2 messages in all.
        // Besides those, only round 1's labels to the left, which nobody needs, and fewer of them where a part has
        // already sent that node a lower one: a label whose receiver is known to have it is not sent again.
        int needed = n * (n - 1) / 2;
        assertThat(rounds.labelMessages(), both(greaterThanOrEqualTo(needed)).and(lessThanOrEqualTo(needed + n - 1)));
        // Each node waits on the one before it: n - 1 decisions in a row, each across the parts.
        assertEquals(n - 1, rounds.leaderLinkage());
        for (int i = 0; i < n; i++) {
            assertEquals(new NodeRef<>(0, 0), s.partOf(i).representative(i));
            int leader = i % 2 == 0 ? i : i - 1;
            assertEquals(
                    "leader of " + i,
                    new NodeRef<>(leader % 2, leader),
                    s.partOf(i).leader(i));
        }
    }

    public void testLargeCliqueSettlesInTwoRounds() {
        // A document and its many copies over all the shards: every member hears the first leader at once.
        int n = between(50, 400);
        int parts = between(2, 12);
        int[] partOf = new int[n];
        for (int i = 0; i < n; i++) {
            partOf[i] = i % parts;
        }
        Split s = orderedSplit(partOf);
        List<Integer> ranks = shuffled(n);
        for (int i = 0; i < n; i++) {
            s.rank[i] = ranks.get(i);
            for (int j = i + 1; j < n; j++) {
                s.edge(i, j, between(3, 4) / 4f, between(0, 2));
            }
        }
        Rounds rounds = runAndCompare(s, randomBoolean());
        assertThat(rounds.singleLinkage(), lessThanOrEqualTo(2));
        assertEquals(2, rounds.leaderLinkage());
    }

    public void testSelfEdgesAreIgnored() {
        Split s = orderedSplit(0, 1);
        s.edge(0, 0, 1f, 2);
        s.parts.get(1).addCrossEdge(1, 1, 1, 1f);
        s.parts.get(1).addEdge(1, 1, 1f);
        Rounds rounds = runAndCompare(s, false);
        assertEquals(new Rounds(0, 0, 0), rounds);
        for (GraphPart<Integer, Long> part : s.parts) {
            assertEquals(1, part.nodeCount());
            assertEquals(0, part.crossEdgeCount());
        }
        assertEquals(new NodeRef<>(1, 1), s.partOf(1).representative(1));
        assertEquals(new NodeRef<>(1, 1), s.partOf(1).leader(1));
        assertEquals(0, s.partOf(1).sizeHistogram().length);
    }

    public void testFixedLeaderInAnotherPart() {
        // 0 (part 0) was assigned to 1 (part 1) by an earlier run; part 1 hears of 1 only through that assignment and
        // the edge 2-1 recorded on part 0's side. 2 prefers the fixed leader 1 (0.95) to 3, which is ranked first.
        Split s = orderedSplit(0, 1, 0, 0);
        s.rank[3] = -1;
        s.fix(0, 1);
        s.edge(2, 1, 0.95f, 0);
        s.edge(2, 3, 0.9f, 2);
        runAndCompare(s, false);
        assertEquals(List.of(1), s.parts.get(1).nodeIds());
        assertTrue(s.parts.get(0).isFixed(0));
        for (int i = 0; i < 4; i++) {
            assertEquals(new NodeRef<>(0, 3), s.partOf(i).representative(i));
        }
        assertEquals(new NodeRef<>(1, 1), s.partOf(0).leader(0));
        assertEquals(new NodeRef<>(1, 1), s.partOf(1).leader(1));
        assertEquals(new NodeRef<>(1, 1), s.partOf(2).leader(2));
        assertEquals(new NodeRef<>(0, 3), s.partOf(3).leader(3));
        assertEquals(3, s.partOf(2).clusterSize(2));
        assertEquals(java.util.Map.of(1, 3L), s.parts.get(1).ownedClusterSizes());
    }

    public void testStepsOutOfOrderAreRefused() {
        GraphPart<Integer, Long> part = new GraphPart<>(0, Comparator.naturalOrder(), false);
        part.addEdge(1, 2, 0.5f);
        part.linkMessages();
        // A wave after a links step: built until the clustering starts.
        part.addEdge(2, 3, 0.5f);
        IllegalStateException unranked = expectThrows(IllegalStateException.class, part::labelMessages);
        assertEquals("[1] of part 0 has no rank key", unranked.getMessage());
        part.rank(1, 1L, true);
        part.rank(2, 2L, true);
        part.rank(3, 3L, true);
        IllegalStateException noEdges = expectThrows(IllegalStateException.class, part::rankMessages);
        assertEquals("leader linkage needs the edges: build the part with keepEdges", noEdges.getMessage());
        IllegalArgumentException unknown = expectThrows(IllegalArgumentException.class, () -> part.rank(9, 9L, true));
        assertEquals("[9] is not a node of part 0", unknown.getMessage());
        part.labelMessages();
        IllegalStateException built = expectThrows(IllegalStateException.class, () -> part.addEdge(3, 4, 0.5f));
        assertEquals("part 0 is clustering: no more edges, fixes or links", built.getMessage());
        expectThrows(IllegalStateException.class, () -> part.receiveLinks(List.of()));
    }

    /** A kept assignment whose leader in another part was told it leads cannot be replaced: that cannot be taken back. */
    public void testAFixSentToAnotherPartStays() {
        GraphPart<Integer, Long> part = new GraphPart<>(0, Comparator.naturalOrder(), true);
        part.fix(1, 1, 9);
        part.fix(1, 1, 8);
        assertEquals(
                1,
                part.linkMessages().get(1).stream().filter(link -> link.leads()).count());
        IllegalStateException again = expectThrows(IllegalStateException.class, () -> part.fix(1, 0, 2));
        assertEquals("[1] of part 0 keeps the leader a links step sent: it is fixed once", again.getMessage());
        part.fix(3, 1, 9);
        assertEquals(1, part.linkMessages().get(1).size());
        assertTrue(part.linkMessages().isEmpty());
    }
}
