/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ClusterAssignment;
import io.neardup.match.MappingPaths;
import java.util.Map;
import java.util.Objects;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.update.UpdateRequest;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.index.seqno.SequenceNumbers;
import org.opensearch.search.SearchHit;

/**
 * What a run writes of each document, wherever the writes are sent from (the coordinating node's
 * {@link ClusterWriter}, or the node that keeps a shard's part, {@link PartWriter}): the assignment a document of a
 * cluster gets, or one in no cluster; whether it holds it already; whether it changed since its pairs were found; and
 * the conditional partial update that writes it.
 */
final class Assignments {

    private Assignments() {}

    /** What to do with one document. */
    enum Kind {
        /** Nothing, and nothing to count: a document in no cluster that holds no assignment. */
        NONE,
        /** It holds the assignment already. */
        NOOP,
        /** It changed after its near-duplicates were found: reported, not written. */
        CONFLICT,
        /** Write {@link Plan#assignment} (null: clear the one it holds). */
        WRITE
    }

    record Plan(Kind kind, Map<String, Object> assignment) {
        boolean clears() {
            return assignment == null;
        }
    }

    /**
     * A document of the graph: {@code id} of {@code index}, in the cluster of {@code representativeId} of
     * {@code representativeIndex} that counts {@code size} documents. A document left alone (its near-duplicates gone,
     * or joined to other leaders) is written as one in no cluster: here, because a run with a query would not meet it
     * again among the documents it matches. {@code existing} is its stored assignment as read, {@code seen} the sequence
     * number its pairs were found at and {@code read} the one its members read found.
     */
    static Plan ofMember(
            NearDupClustersRequest request,
            boolean spansIndices,
            String id,
            String index,
            String representativeId,
            String representativeIndex,
            long size,
            Map<?, ?> existing,
            long seen,
            long read) {
        boolean alone = size < 2;
        Map<String, Object> desired = alone
                ? (request.singletons() ? ClusterAssignment.member(id, spansIndices ? index : null, 1, true) : null)
                : ClusterAssignment.member(
                        representativeId,
                        spansIndices ? representativeIndex : null,
                        Math.toIntExact(size),
                        representativeId.equals(id) && representativeIndex.equals(index));
        if (Objects.equals(desired, ClusterAssignment.readMember(existing))) {
            return new Plan(alone == false || existing != null ? Kind.NOOP : Kind.NONE, desired);
        }
        if (seen == MatchGraph.CHANGED || (seen != SequenceNumbers.UNASSIGNED_SEQ_NO && seen != read)) {
            return new Plan(Kind.CONFLICT, desired);
        }
        return new Plan(Kind.WRITE, desired);
    }

    static String changedSinceFound(String id) {
        return "document [" + id
                + "] changed after its near-duplicates were found; run again to cluster its new version";
    }

    /**
     * Whether documents in no cluster get a write: with {@code singletons}, a cluster of one; without, in place, an
     * earlier run's assignment to clear (a new {@code dest} holds none).
     */
    static boolean writesOthers(NearDupClustersRequest request) {
        return request.singletons() || request.dest() == null;
    }

    /**
     * The documents of the run in no cluster that a write may concern, in one shard up to its newest operation
     * {@code newest} when the pass over them began (the documents the pass writes come back at new sequence numbers,
     * beyond it): with {@code singletons}, every one with a fingerprint; else those holding an assignment (to clear).
     */
    static QueryBuilder others(NearDupClustersRequest request, long newest) {
        return QueryBuilders.boolQuery()
                .filter(request.query() == null ? QueryBuilders.matchAllQuery() : request.query())
                .filter(QueryBuilders.existsQuery(
                        request.singletons()
                                ? request.spec().field()
                                : request.targetField() + "." + ClusterAssignment.CLUSTER))
                .filter(QueryBuilders.rangeQuery(SeqNoFieldMapper.NAME).lte(newest));
    }

    /**
     * The object a hit holds at {@code target_field} (its source read with it), or null: none, or a run with
     * {@code dest}, whose documents hold no assignment of its.
     */
    static Map<?, ?> stored(NearDupClustersRequest request, SearchHit hit) {
        Map<String, Object> source = request.targetField() == null ? null : hit.getSourceAsMap();
        return source != null && XContentMapValues.extractValue(request.targetField(), source) instanceof Map<?, ?> map
                ? map
                : null;
    }

    /** A document outside the graph, as {@link #others} pages it: a cluster of one with {@code singletons}, else none. */
    static Plan ofOther(NearDupClustersRequest request, boolean spansIndices, SearchHit hit) {
        Map<?, ?> existing = stored(request, hit);
        Map<String, Object> desired = request.singletons()
                ? ClusterAssignment.member(hit.getId(), spansIndices ? hit.getIndex() : null, 1, true)
                : null;
        if (Objects.equals(desired, ClusterAssignment.readMember(existing))) {
            return new Plan(Kind.NOOP, desired);
        }
        return new Plan(Kind.WRITE, desired);
    }

    /**
     * The write of {@code assignment} of document {@code id} of {@code index} (null clears it), as read at
     * {@code seqNo} and {@code primaryTerm}: into {@code dest} as a record, else a partial update of the document if it
     * is still as read.
     */
    static DocWriteRequest<?> write(
            NearDupClustersRequest request,
            boolean spansIndices,
            String index,
            String id,
            Map<String, Object> assignment,
            long seqNo,
            long primaryTerm) {
        if (request.dest() != null) {
            return AssignmentRecords.record(request.dest(), spansIndices, index, id, assignment, seqNo, primaryTerm);
        }
        return new UpdateRequest(index, id)
                .doc(MappingPaths.nest(request.targetField(), assignment))
                .setIfSeqNo(seqNo)
                .setIfPrimaryTerm(primaryTerm);
    }
}
