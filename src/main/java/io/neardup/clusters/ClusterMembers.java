/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ClusterAssignment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.mapper.IndexFieldMapper;
import org.opensearch.index.query.BoolQueryBuilder;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.index.seqno.SequenceNumbers;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.sort.SortBuilder;

/**
 * The read-members phase of a run with its graph on the coordinating node (a rolling upgrade), and for every run the
 * members' search and the representatives' order: reads the documents of the graph again ({@code _seq_no}, the
 * representative's sort values, their current cluster), and with a {@code query}, the other members of the clusters
 * they touch, which keep their assignment (on the parts, {@link TransportPartStepAction} does the same).
 */
final class ClusterMembers {

    /** Documents read per search when re-reading members: well below {@code index.max_result_window} and the terms limit. */
    static final int MEMBER_CHUNK = 1_000;
    /** A member's sequence numbers, flags, current cluster and sort values (each ~32 bytes). */
    static final int BYTES_PER_MEMBER = 120;

    static final int BYTES_PER_SORT_VALUE = 32;

    private static final String SCANNED_QUERY_NAME = "_near_dup_clusters_scanned";

    /** A node's document as read in the members phase; {@code found} false if it is gone. */
    record Member(
            boolean found, boolean scanned, long seqNo, long primaryTerm, Object[] sortValues, Map<?, ?> existing) {
        static final Member MISSING =
                new Member(false, false, SequenceNumbers.UNASSIGNED_SEQ_NO, 0, new Object[0], null);

        String existingCluster() {
            return ClusterAssignment.clusterOf(existing);
        }

        /** The index of its earlier cluster's representative: the one written, else the document's own. */
        String existingClusterIndex(String ownIndex) {
            String written = ClusterAssignment.clusterIndexOf(existing);
            return written == null ? ownIndex : written;
        }

        /** Whether an earlier run made this document, {@code id} of {@code index}, a representative. */
        boolean wasRepresentativeOf(String index, String id) {
            return existing != null
                    && Boolean.TRUE.equals(existing.get(ClusterAssignment.REPRESENTATIVE))
                    && id.equals(existingCluster())
                    && index.equals(existingClusterIndex(index));
        }
    }

    private final RunContext context;
    private final NearDupClustersRequest request;
    private final MatchGraph graph;
    /** Clusters of earlier runs whose members must be read (with a {@code query}: the clusters the run touches). */
    private final Set<String> clustersToExpand = new HashSet<>();

    private final Set<String> expandedClusters = new HashSet<>();
    private Member[] members = new Member[0];
    private int read;

    ClusterMembers(RunContext context, MatchGraph graph) {
        this.context = context;
        this.request = context.request();
        this.graph = graph;
    }

    /** An earlier cluster that a scanned document belongs to: its members are read too (with a {@code query}). */
    synchronized void expand(String cluster) {
        clustersToExpand.add(cluster);
    }

    Member member(int node) {
        return members[node];
    }

    /**
     * Reads every node's document, and with a {@code query}, the members of every earlier cluster
     * those documents belong to: those not matching the query keep their cluster ({@code ClusterGraph.fix}).
     */
    void read(ActionListener<Void> done) {
        if (context.task().isCancelled()) {
            done.onResponse(null);
            return;
        }
        if (read < graph.nodeCount()) {
            int end = Math.min(graph.nodeCount(), read + MEMBER_CHUNK);
            readNodes(
                    read,
                    end,
                    ActionListener.wrap(
                            v -> {
                                read = end;
                                read(done);
                            },
                            done::onFailure));
            return;
        }
        if (request.query() == null) {
            done.onResponse(null);
            return;
        }
        List<String> expand = new ArrayList<>();
        for (String cluster : clustersToExpand) {
            if (expandedClusters.add(cluster)) {
                expand.add(cluster);
            }
        }
        if (expand.isEmpty()) {
            done.onResponse(null);
            return;
        }
        int chunks = (expand.size() + MEMBER_CHUNK - 1) / MEMBER_CHUNK;
        ClusterSteps.inTurn(
                context.threadPool(),
                chunks,
                () -> context.task().isCancelled(),
                (chunk, next) -> readClusters(
                        expand.subList(chunk * MEMBER_CHUNK, Math.min(expand.size(), (chunk + 1) * MEMBER_CHUNK)),
                        next),
                ActionListener.wrap(v -> read(done), done::onFailure));
    }

    private void readNodes(int from, int to, ActionListener<Void> done) {
        String[] chunk = graph.ids(from, to);
        int[] ordinals = graph.ordinals(from, to);
        RunIndices indices = context.indices();
        SearchSourceBuilder source =
                memberSearch(idsIn(indices, chunk, ordinals)).size(chunk.length);
        context.search(
                new SearchRequest(indices.names()).source(source),
                "reading members",
                ActionListener.wrap(
                        response -> {
                            ensureMembers(to);
                            for (int n = from; n < to; n++) {
                                members[n] = Member.MISSING;
                            }
                            for (SearchHit hit : response.getHits().getHits()) {
                                Integer n = graph.nodeOf(indices.ordinalOf(hit.getIndex()), hit.getId());
                                if (n != null) {
                                    members[n] = member(hit);
                                    afterRead(n);
                                }
                            }
                            done.onResponse(null);
                        },
                        done::onFailure));
    }

    /** The documents {@code ids[i]} of the indices {@code ordinals[i]}: by {@code _id} alone where the run has one index. */
    private static QueryBuilder idsIn(RunIndices indices, String[] ids, int[] ordinals) {
        if (indices.spansIndices() == false) {
            return QueryBuilders.idsQuery().addIds(ids);
        }
        Map<Integer, List<String>> byIndex = new TreeMap<>();
        for (int i = 0; i < ids.length; i++) {
            byIndex.computeIfAbsent(ordinals[i], o -> new ArrayList<>()).add(ids[i]);
        }
        BoolQueryBuilder any = QueryBuilders.boolQuery().minimumShouldMatch(1);
        byIndex.forEach((ordinal, inIndex) -> any.should(QueryBuilders.boolQuery()
                .filter(QueryBuilders.termQuery(IndexFieldMapper.NAME, indices.name(ordinal)))
                .filter(QueryBuilders.idsQuery().addIds(inIndex.toArray(String[]::new)))));
        return any;
    }

    /** Adds the other members of earlier clusters: documents holding one of {@code clusters} that the query does not match. */
    private void readClusters(List<String> clusters, ActionListener<Void> done) {
        BoolQueryBuilder others = QueryBuilders.boolQuery()
                .filter(QueryBuilders.termsQuery(request.targetField() + "." + ClusterAssignment.CLUSTER, clusters))
                .mustNot(request.query());
        ClusterSteps.inTurn(
                context.threadPool(),
                context.shards(),
                () -> context.task().isCancelled(),
                // Only their ids: the members are read (and kept in their clusters) with the other nodes.
                (shard, next) -> context.forEachPage(
                        shard,
                        others,
                        new String[0],
                        () -> true,
                        (hits, page) -> {
                            for (SearchHit hit : hits) {
                                graph.node(
                                        context.indices().ordinalOf(hit.getIndex()),
                                        hit.getId(),
                                        SequenceNumbers.UNASSIGNED_SEQ_NO);
                            }
                            page.onResponse(null);
                        },
                        next),
                done);
    }

    /**
     * With a {@code query}: a member the query does not match keeps its earlier cluster (joined
     * through that cluster's representative), and a member it matches opens its earlier cluster
     * for reading, so that sizes and ids stay right for the members that are not rewritten.
     */
    private void afterRead(int n) {
        String cluster = members[n].existingCluster();
        if (request.query() == null || cluster == null) {
            return;
        }
        expand(cluster);
        RunIndices indices = context.indices();
        String index = indices.name(graph.ordinal(n));
        int leaderOrdinal = indices.ordinalOf(members[n].existingClusterIndex(index));
        if (leaderOrdinal < 0) {
            // A representative in an index the run does not cover is met as a missing one: the members the run
            // reads make the cluster again.
            leaderOrdinal = graph.ordinal(n);
        }
        if (members[n].scanned() == false
                && (cluster.equals(graph.id(n)) && leaderOrdinal == graph.ordinal(n)) == false) {
            int leader = graph.node(leaderOrdinal, cluster, SequenceNumbers.UNASSIGNED_SEQ_NO);
            graph.fix(n, leader);
        }
    }

    private SearchSourceBuilder memberSearch(QueryBuilder documents) {
        return memberSearch(request, documents);
    }

    /**
     * The search that reads the members {@code documents} of a run: their {@code _seq_no} and primary term, their
     * current assignment, and their {@code representative.sort} values.
     */
    static SearchSourceBuilder memberSearch(NearDupClustersRequest request, QueryBuilder documents) {
        QueryBuilder query = documents;
        if (request.query() != null) {
            // Tells apart, per hit, the documents this run (re)assigns from those that keep their cluster.
            query = QueryBuilders.boolQuery()
                    .filter(documents)
                    .should(QueryBuilders.boolQuery().filter(request.query()).queryName(SCANNED_QUERY_NAME));
        }
        SearchSourceBuilder source = RunContext.fetchSource(
                new SearchSourceBuilder().query(query).seqNoAndPrimaryTerm(true).trackTotalHits(false),
                request.targetField());
        for (SortBuilder<?> sort : request.representativeSort()) {
            if (RepresentativeOrder.isIdSort(sort) == false) {
                source.sort(sort);
            }
        }
        if (source.sorts() == null || source.sorts().isEmpty()) {
            source.sort("_doc");
        }
        return source;
    }

    private Member member(SearchHit hit) {
        graph.charge(bytesPerMember(request));
        return member(request, hit);
    }

    /** What a member read takes: its sequence numbers, flags, current cluster and sort values. */
    static long bytesPerMember(NearDupClustersRequest request) {
        return BYTES_PER_MEMBER
                + (long) BYTES_PER_SORT_VALUE * request.representativeSort().size();
    }

    /** A member as {@link #memberSearch} read it. */
    static Member member(NearDupClustersRequest request, SearchHit hit) {
        boolean scanned = request.query() == null
                || Arrays.asList(hit.getMatchedQueries()).contains(SCANNED_QUERY_NAME);
        return new Member(
                true,
                scanned,
                hit.getSeqNo(),
                hit.getPrimaryTerm(),
                hit.getRawSortValues(),
                Assignments.stored(request, hit));
    }

    private void ensureMembers(int size) {
        if (members.length < size) {
            Member[] grown = Arrays.copyOf(members, Math.max(size, members.length * 2));
            Arrays.fill(grown, members.length, grown.length, Member.MISSING);
            members = grown;
        }
    }

    /**
     * The rank of every node as a representative ({@link RepresentativeOrder}): 0 the preferred.
     */
    int[] ranks() {
        int n = graph.nodeCount();
        ensureMembers(n);
        String[] ids = graph.ids(0, n);
        int[] ordinals = graph.ordinals(0, n);
        RankKey[] keys = new RankKey[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            keys[i] = rankKey(i, ids[i], ordinals[i]);
            order[i] = i;
        }
        RepresentativeOrder representatives = new RepresentativeOrder(request);
        Arrays.sort(order, (a, b) -> representatives.compare(keys[a], keys[b]));
        int[] rank = new int[n];
        for (int position = 0; position < n; position++) {
            rank[order[position]] = position;
        }
        return rank;
    }

    private RankKey rankKey(int node, String id, int ordinal) {
        Member member = members[node];
        return new RankKey(
                member.found(),
                member.wasRepresentativeOf(context.indices().name(ordinal), id),
                member.sortValues(),
                id,
                ordinal);
    }
}
