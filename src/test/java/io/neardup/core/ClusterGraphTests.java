/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.opensearch.test.OpenSearchTestCase;

/** Both linkages against brute-force references on random graphs (adjacency matrices, not the union-find under test). */
public class ClusterGraphTests extends OpenSearchTestCase {

    /** A random graph: similarities in (0, 1] where an edge exists, 0 where none; some edges added twice. */
    private record Graph(ClusterGraph graph, float[][] similarity, int[] rank) {}

    private Graph randomGraph(boolean keepEdges) {
        int n = between(1, 60);
        double density = randomDoubleBetween(0.0, 0.15, true);
        ClusterGraph graph = new ClusterGraph(keepEdges);
        for (int i = 0; i < n; i++) {
            assertEquals(i, graph.addNode());
        }
        float[][] similarity = new float[n][n];
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                if (random().nextDouble() < density) {
                    // Few distinct similarities, so that ties between leaders are exercised.
                    float s = between(1, 4) / 4f;
                    similarity[a][b] = similarity[b][a] = s;
                    if (randomBoolean()) {
                        graph.addEdge(b, a, s);
                    } else {
                        graph.addEdge(a, b, s);
                    }
                    if (rarely()) {
                        graph.addEdge(a, b, s);
                    }
                }
            }
        }
        int[] rank = new int[n];
        for (int i = 0; i < n; i++) {
            rank[i] = between(0, n / 2);
        }
        return new Graph(graph, similarity, rank);
    }

    private static boolean precedes(int a, int b, int[] rank) {
        return rank[a] < rank[b] || (rank[a] == rank[b] && a < b);
    }

    public void testSingleLinkageIsConnectedComponentsRepresentedByTheirBestRankedNode() {
        for (int iteration = 0; iteration < atLeast(50); iteration++) {
            Graph g = randomGraph(randomBoolean());
            int n = g.rank.length;
            int[] rep = g.graph.singleLinkage(g.rank);
            int[] component = new int[n];
            Arrays.fill(component, -1);
            for (int start = 0; start < n; start++) {
                if (component[start] >= 0) {
                    continue;
                }
                ArrayDeque<Integer> queue = new ArrayDeque<>();
                queue.add(start);
                component[start] = start;
                int best = start;
                java.util.List<Integer> members = new java.util.ArrayList<>();
                while (queue.isEmpty() == false) {
                    int x = queue.poll();
                    members.add(x);
                    if (precedes(x, best, g.rank)) {
                        best = x;
                    }
                    for (int y = 0; y < n; y++) {
                        if (g.similarity[x][y] > 0 && component[y] < 0) {
                            component[y] = start;
                            queue.add(y);
                        }
                    }
                }
                for (int member : members) {
                    assertEquals("node " + member, best, rep[member]);
                }
            }
        }
    }

    public void testLeaderLinkageMatchesTheReference() {
        for (int iteration = 0; iteration < atLeast(50); iteration++) {
            Graph g = randomGraph(true);
            int n = g.rank.length;
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            Arrays.sort(
                    order,
                    (x, y) -> g.rank[x] != g.rank[y] ? Integer.compare(g.rank[x], g.rank[y]) : Integer.compare(x, y));
            int[] expected = new int[n];
            boolean[] leads = new boolean[n];
            for (int node : order) {
                int best = -1;
                for (int other : order) {
                    if (leads[other]
                            && g.similarity[node][other] > 0
                            && (best < 0 || g.similarity[node][other] > g.similarity[node][best])) {
                        best = other; // order is rank order, so the first of equal similarity is the better ranked
                    }
                }
                if (best < 0) {
                    leads[node] = true;
                    expected[node] = node;
                } else {
                    expected[node] = best;
                }
            }
            assertArrayEquals(expected, g.graph.leaderLinkage(g.rank));
        }
    }

    public void testLeaderLinkageDoesNotChain() {
        ClusterGraph graph = new ClusterGraph(true);
        for (int i = 0; i < 3; i++) {
            graph.addNode();
        }
        graph.addEdge(0, 1, 0.9f);
        graph.addEdge(1, 2, 0.9f);
        int[] rank = {0, 1, 2};
        assertArrayEquals(new int[] {0, 0, 2}, graph.leaderLinkage(rank));
        assertArrayEquals(new int[] {0, 0, 0}, graph.singleLinkage(rank));
    }

    public void testLeaderLinkageJoinsTheMostSimilarLeader() {
        ClusterGraph graph = new ClusterGraph(true);
        for (int i = 0; i < 3; i++) {
            graph.addNode();
        }
        graph.addEdge(2, 0, 0.8f);
        graph.addEdge(2, 1, 0.95f);
        assertArrayEquals(new int[] {0, 1, 1}, graph.leaderLinkage(new int[] {0, 1, 2}));
    }

    public void testFixedAssignmentsAreKeptAndTheirLeaderLeads() {
        ClusterGraph graph = new ClusterGraph(true);
        for (int i = 0; i < 4; i++) {
            graph.addNode();
        }
        // 3 was assigned to 1 by an earlier run; 0 (best ranked) is a neighbour of 2 only; 2 prefers leader 1.
        graph.fix(3, 1);
        graph.addEdge(2, 0, 0.8f);
        graph.addEdge(2, 1, 0.9f);
        int[] rank = {0, 1, 2, 3};
        assertArrayEquals(new int[] {0, 1, 1, 1}, graph.leaderLinkage(rank));
        assertTrue(graph.isFixed(3));
        assertFalse(graph.isFixed(2));
        // Single linkage: one component through 2, represented by the best-ranked node.
        assertArrayEquals(new int[] {0, 0, 0, 0}, graph.singleLinkage(rank));
    }

    public void testLeaderLinkageNeedsEdges() {
        ClusterGraph graph = new ClusterGraph(false);
        graph.addNode();
        expectThrows(IllegalStateException.class, () -> graph.leaderLinkage(new int[] {0}));
        expectThrows(IllegalArgumentException.class, () -> graph.addEdge(0, 1, 1f));
        expectThrows(IllegalArgumentException.class, () -> graph.singleLinkage(new int[0]));
    }

    public void testSizeHistogram() {
        // Clusters: {0,1} size 2, {2,3,4} size 3, {5} alone, {6..11} size 6 with one member not counted → 5.
        int[] clusterOf = {0, 0, 2, 2, 2, 5, 6, 6, 6, 6, 6, 6};
        boolean[] counted = new boolean[clusterOf.length];
        Arrays.fill(counted, true);
        counted[11] = false;
        long[] histogram = ClusterGraph.sizeHistogram(clusterOf, counted);
        assertArrayEquals(new long[] {1, 1, 1}, histogram);
        assertEquals("2", ClusterGraph.bucketLabel(0));
        assertEquals("3-4", ClusterGraph.bucketLabel(1));
        assertEquals("5-8", ClusterGraph.bucketLabel(2));
        assertEquals(0, ClusterGraph.sizeHistogram(new int[] {0, 1}, new boolean[] {true, true}).length);
    }
}
