/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * Undirected edges with a similarity between dense node numbers, kept for leader linkage, and their adjacency lists
 * (each edge listed at both ends, duplicates kept).
 */
final class WeightedEdges {
    /** Heap an edge takes (two ends and the similarity, with growth slack). */
    static final int BYTES_PER_EDGE = 3 * Integer.BYTES * 2;

    private int edges;
    private int[] edgeA = new int[0];
    private int[] edgeB = new int[0];
    private float[] edgeSimilarity = new float[0];

    void add(int a, int b, float similarity) {
        if (edges == edgeA.length) {
            int grown = Math.max(16, edges + (edges >> 1));
            edgeA = Arrays.copyOf(edgeA, grown);
            edgeB = Arrays.copyOf(edgeB, grown);
            edgeSimilarity = Arrays.copyOf(edgeSimilarity, grown);
        }
        edgeA[edges] = a;
        edgeB[edges] = b;
        edgeSimilarity[edges] = similarity;
        edges++;
    }

    /**
     * The neighbours of node {@code x} are {@code neighbours[offsets[x]..offsets[x + 1])}, each with its similarity.
     */
    record Adjacency(int[] offsets, int[] neighbours, float[] similarities) {}

    /** The adjacency lists of nodes {@code 0..nodes-1}. */
    Adjacency adjacency(int nodes) {
        int[] offsets = new int[nodes + 1];
        for (int e = 0; e < edges; e++) {
            offsets[edgeA[e] + 1]++;
            offsets[edgeB[e] + 1]++;
        }
        for (int i = 0; i < nodes; i++) {
            offsets[i + 1] += offsets[i];
        }
        int[] neighbours = new int[offsets[nodes]];
        float[] similarities = new float[offsets[nodes]];
        int[] fill = Arrays.copyOf(offsets, nodes);
        for (int e = 0; e < edges; e++) {
            neighbours[fill[edgeA[e]]] = edgeB[e];
            similarities[fill[edgeA[e]]++] = edgeSimilarity[e];
            neighbours[fill[edgeB[e]]] = edgeA[e];
            similarities[fill[edgeB[e]]++] = edgeSimilarity[e];
        }
        return new Adjacency(offsets, neighbours, similarities);
    }
}
