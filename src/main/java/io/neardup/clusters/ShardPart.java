/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.GraphPart;
import io.neardup.core.PartitionedClusters;
import io.neardup.match.ShardMatchResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.function.IntUnaryOperator;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.index.seqno.SequenceNumbers;

/**
 * The part of a run's graph that one shard's documents make, kept on the node whose copy of the shard the run's steps
 * read (docs/clusters.md section 8): a {@link GraphPart} over the shard's documents that have a near-duplicate (by
 * {@code _id}), and the sequence number each was seen at, as {@link MatchGraph} keeps them on the coordinating node. A
 * pair with another shard's document is kept here as an edge to that shard's part, with the sequence number its other
 * end was seen at, which the links step will tell that part. Its memory is charged to the run's breaker on this node
 * before it grows, and given back by {@link #release}. Thread-safe: the steps of several shards can record into it.
 */
final class ShardPart {

    /** A cross edge's other end and its sequence number, beside what the {@link GraphPart} holds of the edge. */
    static final int BYTES_PER_OTHER_SEEN = 80;

    private final GraphPart<String, RankKey> graph;
    private final CircuitBreaker breaker;
    /** By node number: the sequence number each document was seen at (its own pairs', then other parts' links'). */
    private long[] seenSeqNo = unseen(16);
    /** By node number, for a run with writes: each document as its members read found it (else null). */
    private ClusterMembers.Member[] members;
    /** The sequence number each cross edge's other end was seen at. */
    private final Map<PartitionedClusters.NodeRef<String>, Long> otherSeen = new HashMap<>();

    private long charged;
    /** How many of the part's documents the members read has read, in the order of their node numbers. */
    private int membersRead;

    /**
     * @param number the run's number of the shard ({@link RunIndices}), which other parts address it by
     * @param order the run's representative order, known to the part's node once its members are read
     * @param keepEdges whether the edges inside the part are kept (leader linkage weighs them)
     */
    ShardPart(int number, Comparator<RankKey> order, boolean keepEdges, CircuitBreaker breaker) {
        this.graph = new GraphPart<>(number, order, keepEdges);
        this.breaker = breaker;
    }

    /**
     * The matches {@code which} (their numbers in {@code matches}) of documents of this part: match {@code i} pairs the
     * query {@code q = matches.query(i)}, the document {@code queryId(q)} seen at {@code querySeqNo(q)}, with the matched
     * document of part {@code otherPart(i)}.
     */
    void addMatches(
            ShardMatchResponse matches,
            int[] which,
            IntFunction<String> queryId,
            IntToLongFunction querySeqNo,
            IntUnaryOperator otherPart) {
        int n = which.length;
        String[] ids = new String[n];
        long[] seqNos = new long[n];
        int[] otherParts = new int[n];
        String[] otherIds = new String[n];
        long[] otherSeqNos = new long[n];
        float[] similarities = new float[n];
        for (int k = 0; k < n; k++) {
            int i = which[k];
            int query = matches.query(i);
            ids[k] = queryId.apply(query);
            seqNos[k] = querySeqNo.applyAsLong(query);
            otherParts[k] = otherPart.applyAsInt(i);
            otherIds[k] = matches.matchedId(i);
            otherSeqNos[k] = matches.matchedSeqNo(i);
            similarities[k] = matches.similarity(i);
        }
        addPairs(ids, seqNos, otherParts, otherIds, otherSeqNos, similarities);
    }

    /**
     * The pairs of one step's answer whose first document is of this part: {@code ids[i]} (seen at {@code seqNos[i]})
     * and {@code otherIds[i]} of part {@code otherParts[i]} (seen at {@code otherSeqNos[i]}). What they can take is
     * charged before they are added, and what they did not take given back.
     */
    private synchronized void addPairs(
            String[] ids,
            long[] seqNos,
            int[] otherParts,
            String[] otherIds,
            long[] otherSeqNos,
            float[] similarities) {
        long bound = 0;
        for (int i = 0; i < ids.length; i++) {
            bound += 2L * PartitionedClusters.BYTES_PER_NODE
                    + 2L * (ids[i].length() + otherIds[i].length())
                    + Math.max(
                            graph.bytesPerLocalEdge(), PartitionedClusters.BYTES_PER_CROSS_EDGE + BYTES_PER_OTHER_SEEN);
        }
        charge(bound);
        long used = 0;
        for (int i = 0; i < ids.length; i++) {
            used += seen(ids[i], seqNos[i]);
            if (otherParts[i] == graph.number()) {
                used += seen(otherIds[i], otherSeqNos[i]) + graph.bytesPerLocalEdge();
                graph.addEdge(ids[i], otherIds[i], similarities[i]);
            } else {
                int before = graph.crossEdgeCount();
                graph.addCrossEdge(ids[i], otherParts[i], otherIds[i], similarities[i]);
                PartitionedClusters.NodeRef<String> other =
                        new PartitionedClusters.NodeRef<>(otherParts[i], otherIds[i]);
                Long known = otherSeen.put(other, merged(otherSeen.get(other), otherSeqNos[i]));
                used += (graph.crossEdgeCount() - before) * (long) PartitionedClusters.BYTES_PER_CROSS_EDGE
                        + (known == null ? BYTES_PER_OTHER_SEEN + 2L * otherIds[i].length() : 0);
            }
        }
        charged -= bound - used;
        breaker.addWithoutBreaking(used - bound);
    }

    /**
     * A run with a {@code query}: the document {@code id}, a member of an earlier cluster the run touches that the query
     * does not match, is a document of the part (seen at no sequence number: it keeps its cluster unless it changed).
     * Returns whether it is new here.
     */
    synchronized boolean addMemberOfEarlierCluster(String id) {
        long bound = PartitionedClusters.BYTES_PER_NODE + 2L * id.length();
        charge(bound);
        long used = seen(id, SequenceNumbers.UNASSIGNED_SEQ_NO);
        giveBack(bound - used);
        return used > 0;
    }

    /**
     * A run with a {@code query}: the document {@code member}, which the query does not match, keeps its earlier cluster,
     * led by {@code leader} of part {@code leaderPart} ({@link GraphPart#fix}); a leader of this part not met yet becomes
     * a document of it.
     */
    synchronized void keep(String member, int leaderPart, String leader) {
        long bound =
                PartitionedClusters.BYTES_PER_NODE + 2L * leader.length() + PartitionedClusters.BYTES_PER_CROSS_EDGE;
        charge(bound);
        int nodes = graph.nodeCount();
        graph.fix(member, leaderPart, leader);
        long used = leaderPart == graph.number()
                ? (graph.nodeCount() - nodes) * (PartitionedClusters.BYTES_PER_NODE + 2L * leader.length())
                : PartitionedClusters.BYTES_PER_CROSS_EDGE;
        giveBack(bound - used);
    }

    /** Adds (or meets again) the node of {@code id}, seen at {@code seqNo}; returns the bytes it took. */
    private long seen(String id, long seqNo) {
        int before = graph.nodeCount();
        int n = graph.addNode(id);
        seenAt(n, seqNo);
        return n == before ? PartitionedClusters.BYTES_PER_NODE + 2L * id.length() : 0;
    }

    private void seenAt(int n, long seqNo) {
        if (n >= seenSeqNo.length) {
            long[] grown = unseen(Math.max(n + 1, seenSeqNo.length * 2));
            System.arraycopy(seenSeqNo, 0, grown, 0, seenSeqNo.length);
            seenSeqNo = grown;
        }
        seenSeqNo[n] = merged(seenSeqNo[n], seqNo);
    }

    private static long[] unseen(int length) {
        long[] seqNos = new long[length];
        Arrays.fill(seqNos, SequenceNumbers.UNASSIGNED_SEQ_NO);
        return seqNos;
    }

    /**
     * For a run with writes, after the links: to each other part, the sequence number its documents were seen at by
     * this part's pairs with them, so that each part knows every sequence number its documents were seen at.
     */
    synchronized Map<Integer, List<PartMessages.Seen>> seenMessages() {
        Map<Integer, List<PartMessages.Seen>> out = new TreeMap<>();
        otherSeen.forEach((other, seqNo) -> out.computeIfAbsent(other.part(), p -> new ArrayList<>())
                .add(new PartMessages.Seen(other.id(), seqNo)));
        return out;
    }

    /** The sequence numbers other parts saw this part's documents at ({@link #seenMessages}). */
    synchronized void receiveSeen(List<PartMessages.Seen> messages) {
        for (PartMessages.Seen seen : messages) {
            int n = graph.nodeNumber(seen.to());
            if (n < 0) {
                throw new IllegalArgumentException("part " + graph.number() + " has no [" + seen.to() + "]");
            }
            seenAt(n, seen.seqNo());
        }
    }

    /** Keeps what a run with writes needs of a document, as its members read found it. */
    synchronized void member(String id, ClusterMembers.Member member) {
        int n = graph.nodeNumber(id);
        if (members == null) {
            members = new ClusterMembers.Member[Math.max(n + 1, graph.nodeCount())];
        } else if (n >= members.length) {
            members = Arrays.copyOf(members, Math.max(n + 1, graph.nodeCount()));
        }
        members[n] = member;
    }

    /** A document as the members read found it ({@link ClusterMembers.Member#MISSING} if it did not). */
    synchronized ClusterMembers.Member member(String id) {
        int n = graph.nodeNumber(id);
        ClusterMembers.Member member = members == null || n < 0 || n >= members.length ? null : members[n];
        return member == null ? ClusterMembers.Member.MISSING : member;
    }

    /**
     * The sequence number a document was seen at, after it is seen at {@code seqNo} again: as {@link MatchGraph#node},
     * unassigned takes the other, and two different ones are {@link MatchGraph#CHANGED}.
     */
    private static long merged(Long known, long seqNo) {
        if (known == null || known == SequenceNumbers.UNASSIGNED_SEQ_NO) {
            return seqNo;
        }
        return seqNo == SequenceNumbers.UNASSIGNED_SEQ_NO || seqNo == known ? known : MatchGraph.CHANGED;
    }

    /** The graph of the part, for the clustering steps (not thread-safe: those run one at a time). */
    GraphPart<String, RankKey> graph() {
        return graph;
    }

    /**
     * The sequence number the document {@code id} of this part was seen at (by its own pairs, and after the links by
     * other parts' too: {@link MatchGraph#CHANGED} if two differ); null if it is not in the part.
     */
    synchronized Long seenSeqNo(String id) {
        int n = graph.nodeNumber(id);
        return n < 0 ? null : n < seenSeqNo.length ? seenSeqNo[n] : SequenceNumbers.UNASSIGNED_SEQ_NO;
    }

    /**
     * The next at most {@code most} documents of the part the members read has not read (in the order of their node
     * numbers: those added since, by the links or a run with a {@code query}, come after).
     */
    synchronized List<String> membersToRead(int most) {
        return graph.nodeIds(membersRead, Math.min(graph.nodeCount(), membersRead + most));
    }

    /** The members read read the next {@code count} documents. */
    synchronized void membersRead(int count) {
        membersRead += count;
    }

    /** Whether the members read has documents of the part left to read. */
    synchronized boolean membersLeft() {
        return membersRead < graph.nodeCount();
    }

    synchronized long charged() {
        return charged;
    }

    /** Charges {@code bytes} the part is about to take (it throws past the breaker's limit). */
    synchronized void charge(long bytes) {
        breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters");
        charged += bytes;
    }

    /** Gives back {@code bytes} of what {@link #charge} took. */
    synchronized void giveBack(long bytes) {
        breaker.addWithoutBreaking(-bytes);
        charged -= bytes;
    }

    synchronized void release() {
        breaker.addWithoutBreaking(-charged);
        charged = 0;
    }
}
