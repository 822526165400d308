/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.ClusterGraph;
import io.neardup.match.RunBreaker;
import io.neardup.match.ShardMatchResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import org.opensearch.index.seqno.SequenceNumbers;

/**
 * The documents of a run that have a near-duplicate, as nodes of a {@link ClusterGraph}, each known by its index
 * (the ordinal {@link RunIndices} gives it) and {@code _id}, with the sequence number it was seen at; every node and edge charged to the {@code neardup} breaker
 * before it is taken, through the run's {@link RunBreaker} on this node (what the run reports as {@code coordinator_bytes}),
 * and given back by {@link #release}. Thread-safe: the shards' answers add to it as they come, and the most a data node
 * held for the run, which each answer reports, goes to the task.
 */
final class MatchGraph {

    /**
     * The map entry, the id list slot, the index ordinal, the seen sequence number and the graph's arrays, beside the
     * id's characters.
     */
    static final int BYTES_PER_NODE = 160;
    /** A node seen at two different sequence numbers: it changed between the scan and a shard's match. */
    static final long CHANGED = Long.MIN_VALUE;

    private final RunBreaker breaker;
    private final NearDupClustersTask task;
    private final ClusterGraph graph;
    /** By index ordinal: an {@code _id} is unique only inside one index. */
    private final List<Map<String, Integer>> nodeOf = new ArrayList<>();

    private final List<String> ids = new ArrayList<>();
    private int[] ordinalOf = new int[16];
    private long[] seenSeqNo = new long[16];
    private long charged;

    /** Whether the graph is in parts on the data nodes (docs/clusters.md section 8): here its matches are counted. */
    private final boolean inParts;

    MatchGraph(RunBreaker breaker, NearDupClustersTask task, boolean leaderLinkage) {
        this(breaker, task, leaderLinkage, false);
    }

    /** @param inParts whether the graph is in parts on the data nodes, whose steps answer with counts */
    MatchGraph(RunBreaker breaker, NearDupClustersTask task, boolean leaderLinkage, boolean inParts) {
        this.breaker = breaker;
        this.task = task;
        this.graph = new ClusterGraph(leaderLinkage);
        this.inParts = inParts;
    }

    /** Whether the graph is in parts on the data nodes, and only counted here: the join steps keep their pairs there. */
    boolean inParts() {
        return inParts;
    }

    /**
     * Adds what a join step found, and what it scanned to the task's counts: a query is a document of the index
     * {@code ordinals[joined.queryIn(q)]}, a match one of the index {@code ordinals[joined.matchedIn(i)]}.
     */
    void addJoined(ShardJoinResponse joined, int[] ordinals) {
        addMatches(
                q -> ordinals[joined.queryIn(q)],
                joined::queryId,
                joined::querySeqNo,
                joined.matches(),
                i -> ordinals[joined.matchedIn(i)]);
        task.matches.addAndGet(joined.pairsKept());
        task.noFingerprint.addAndGet(joined.noFingerprint());
        task.scanned.addAndGet(joined.scanned());
        task.dataNodeHeld(joined.nodeBytes());
    }

    /**
     * Adds a shard's matches: query {@code q} is the document {@code queryId(q)} of index {@code queryOrdinal(q)}, read
     * at {@code querySeqNo(q)}; match {@code i} is in index {@code matchedOrdinal(i)}.
     */
    synchronized void addMatches(
            IntUnaryOperator queryOrdinal,
            IntFunction<String> queryId,
            IntToLongFunction querySeqNo,
            ShardMatchResponse matches,
            IntUnaryOperator matchedOrdinal) {
        task.dataNodeHeld(matches.nodeBytes());
        if (inParts && matches.size() > 0) {
            // The steps keep their pairs in the parts and answer with how many (ShardJoinResponse#withoutPairs).
            throw new IllegalStateException("a step of a run whose graph is in parts answered with its pairs");
        }
        for (int i = 0; i < matches.size(); i++) {
            int query = matches.query(i);
            addMatch(
                    node(queryOrdinal.applyAsInt(query), queryId.apply(query), querySeqNo.applyAsLong(query)),
                    node(matchedOrdinal.applyAsInt(i), matches.matchedId(i), matches.matchedSeqNo(i)),
                    matches.similarity(i));
        }
    }

    private void addMatch(int a, int b, float similarity) {
        if (a != b) {
            charge(graph.bytesPerEdge());
            graph.addEdge(a, b, similarity);
            task.matches.incrementAndGet();
        }
    }

    /**
     * The node of a document, created (and charged) on first sight; {@code seqNo} is the version its fingerprint was
     * read at, or {@link SequenceNumbers#UNASSIGNED_SEQ_NO} for a document met only as a member of an earlier cluster.
     */
    synchronized int node(int ordinal, String id, long seqNo) {
        while (nodeOf.size() <= ordinal) {
            nodeOf.add(new HashMap<>());
        }
        Integer existing = nodeOf.get(ordinal).get(id);
        int n;
        if (existing == null) {
            charge(BYTES_PER_NODE + 2L * id.length());
            n = graph.addNode();
            nodeOf.get(ordinal).put(id, n);
            ids.add(id);
            if (n == seenSeqNo.length) {
                seenSeqNo = Arrays.copyOf(seenSeqNo, n * 2);
                ordinalOf = Arrays.copyOf(ordinalOf, n * 2);
            }
            seenSeqNo[n] = seqNo;
            ordinalOf[n] = ordinal;
        } else {
            n = existing;
            if (seenSeqNo[n] == SequenceNumbers.UNASSIGNED_SEQ_NO) {
                seenSeqNo[n] = seqNo;
            } else if (seqNo != SequenceNumbers.UNASSIGNED_SEQ_NO && seqNo != seenSeqNo[n]) {
                seenSeqNo[n] = CHANGED;
            }
        }
        return n;
    }

    /** The node of {@code id} in index {@code ordinal}, or null if the run has not met it. */
    synchronized Integer nodeOf(int ordinal, String id) {
        return ordinal < nodeOf.size() ? nodeOf.get(ordinal).get(id) : null;
    }

    /** The ordinal of the node's index. */
    synchronized int ordinal(int node) {
        return ordinalOf[node];
    }

    synchronized String id(int node) {
        return ids.get(node);
    }

    /** The ids of nodes {@code from} to {@code to} - 1. */
    synchronized String[] ids(int from, int to) {
        return ids.subList(from, to).toArray(String[]::new);
    }

    /** The index ordinals of nodes {@code from} to {@code to} - 1. */
    synchronized int[] ordinals(int from, int to) {
        return Arrays.copyOfRange(ordinalOf, from, to);
    }

    synchronized int nodeCount() {
        return graph.nodeCount();
    }

    /** The sequence number the node's fingerprint was read at, {@link #CHANGED}, or unassigned. */
    synchronized long seenSeqNo(int node) {
        return seenSeqNo[node];
    }

    /** With a {@code query}: a member the query does not match keeps its earlier cluster, joined through {@code leader}. */
    synchronized void fix(int node, int leader) {
        graph.fix(node, leader);
    }

    ClusterGraph graph() {
        return graph;
    }

    /** Charges {@code bytes} to the breaker (which throws beyond its limit) before they are taken; released by {@link #release}. */
    synchronized void charge(long bytes) {
        if (bytes > 0) {
            breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters");
            charged += bytes;
        }
    }

    synchronized void release() {
        breaker.addWithoutBreaking(-charged);
        charged = 0;
    }
}
