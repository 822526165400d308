/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.ClusterGraph;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.update.UpdateRequest;
import org.opensearch.common.action.ActionFuture;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.BoolQueryBuilder;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.index.seqno.SequenceNumbers;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.sort.FieldSortBuilder;
import org.opensearch.search.sort.SortBuilder;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/**
 * One {@code _near_dup_clusters} run, on the node that received it:
 * <ol>
 * <li><b>scan</b>: find every pair of near-duplicates, shard by shard ({@code slices} shards at a
 * time). A full run on a {@code simhash} field without {@code min_similarity} is a self-join on the
 * data nodes: each shard, window by window of sequence numbers, joins its documents with its own
 * block tables and those of the shards after it ({@link TransportShardJoinAction}); only pairs come
 * back. Otherwise the documents to (re)assign are paged through here and each page is sent to every
 * shard, where {@link TransportShardMatchAction} runs their queries in its own structures. The
 * matches become edges of a {@link ClusterGraph} over the documents that have any (documents
 * without a near-duplicate take no memory here);</li>
 * <li><b>read members</b>: read the documents of the graph again ({@code _seq_no}, the
 * representative's sort values, their current cluster), and with a {@code query}, the other
 * members of the clusters they touch, which keep their assignment;</li>
 * <li><b>cluster</b>: single or leader linkage, representatives by rank;</li>
 * <li><b>write</b>: partial updates by cluster, each conditional on the sequence number read (a
 * document changed meanwhile is reported as a version conflict, never overwritten), then one
 * pass that clears (or, with {@code singletons}, sets) the documents that are in no cluster.</li>
 * </ol>
 * Nothing is written before every match is in, so a failure or cancellation before the write phase
 * leaves the index untouched; each document's update is atomic, so after a cancellation during the
 * writes every document holds either its old value or its complete new one.
 *
 * <p>Memory on this node: about {@link #BYTES_PER_NODE} + 2 bytes a character of {@code _id} for
 * every document that has a near-duplicate (and, for leader linkage, {@link ClusterGraph#BYTES_PER_EDGE}
 * a match), charged to the {@code neardup} breaker before it is taken, plus one page per slice.
 */
final class ClusterJob {

    /** No step waits longer than this for a search, a shard's matches or a bulk: a lost node fails the run instead of hanging it. */
    static final TimeValue STEP_TIMEOUT = TimeValue.timeValueMinutes(5);
    /** Documents read per search when re-reading members: well below {@code index.max_result_window} and the terms limit. */
    static final int MEMBER_CHUNK = 1_000;

    static final int MAX_FAILURES_REPORTED = 100;
    static final int LARGEST_REPORTED = 10;
    /** The map entry, the id list slot, the seen sequence number and the graph's arrays, beside the id's characters. */
    static final int BYTES_PER_NODE = 160;
    /** A member's sequence numbers, flags, current cluster and sort values (each ~32 bytes). */
    static final int BYTES_PER_MEMBER = 120;

    static final int BYTES_PER_SORT_VALUE = 32;
    /** A node seen at two different sequence numbers: it changed between the scan and a shard's match. */
    private static final long CHANGED = Long.MIN_VALUE;

    private static final String SCANNED_QUERY_NAME = "_near_dup_clusters_scanned";

    private final Client client;
    private final ThreadPool threadPool;
    private final CircuitBreaker breaker;
    private final NearDupClustersRequest request;
    private final NearDupClustersTask task;
    private final String index;
    private final int shards;
    private final boolean simhashField;
    private final long startNanos = System.nanoTime();

    private final Map<String, Integer> nodeOf = new HashMap<>();
    private final List<String> ids = new ArrayList<>();
    private long[] seenSeqNo = new long[16];
    private final ClusterGraph graph;
    /** Clusters of earlier runs whose members must be read (with a {@code query}: the clusters the run touches). */
    private final Set<String> clustersToExpand = new HashSet<>();

    private final Set<String> expandedClusters = new HashSet<>();
    private Member[] members = new Member[0];
    private long charged;
    private final List<NearDupClustersResponse.Failure> failures = new ArrayList<>();
    private long cleared;
    /** Set by a write failure (or a version conflict with {@code conflicts=abort}): no further writes, as {@code _update_by_query} does. */
    private volatile boolean writesStopped;
    /** Set when one slice fails, so that the others stop at their next page. */
    private volatile boolean sliceFailed;

    /** A node's document as read in the members phase; {@code found} false if it is gone. */
    private record Member(
            boolean found, boolean scanned, long seqNo, long primaryTerm, Object[] sortValues, Map<?, ?> existing) {
        static final Member MISSING =
                new Member(false, false, SequenceNumbers.UNASSIGNED_SEQ_NO, 0, new Object[0], null);

        String existingCluster() {
            return ClusterAssignment.clusterOf(existing);
        }

        boolean wasRepresentativeOf(String id) {
            return existing != null
                    && Boolean.TRUE.equals(existing.get(ClusterAssignment.REPRESENTATIVE))
                    && id.equals(existingCluster());
        }
    }

    ClusterJob(
            Client client,
            ThreadPool threadPool,
            CircuitBreaker breaker,
            NearDupClustersRequest request,
            NearDupClustersTask task,
            String index,
            int shards,
            boolean simhashField) {
        this.client = client;
        this.threadPool = threadPool;
        this.breaker = breaker;
        this.request = request;
        this.task = task;
        this.index = index;
        this.shards = shards;
        this.simhashField = simhashField;
        this.graph = new ClusterGraph(request.linkage() == NearDupClustersRequest.Linkage.LEADER);
    }

    NearDupClustersResponse run() throws Exception {
        try {
            try {
                task.total.set(documentsToScan());
                scan();
            } catch (Exception e) {
                // Cancelling the run cancels its requests to the shards, which then fail: cancelled, not failed.
                if (task.isCancelled() == false) {
                    throw e;
                }
            }
            if (task.isCancelled()) {
                return response(null, new long[0], List.of());
            }
            task.phase(NearDupClustersTask.Phase.READING_MEMBERS);
            readMembers();
            if (task.isCancelled()) {
                return response(null, new long[0], List.of());
            }
            task.phase(NearDupClustersTask.Phase.CLUSTERING);
            int[] rep = request.linkage() == NearDupClustersRequest.Linkage.LEADER
                    ? graph.leaderLinkage(ranks())
                    : graph.singleLinkage(ranks());
            int[] size = new int[rep.length];
            boolean[] found = new boolean[rep.length];
            for (int n = 0; n < rep.length; n++) {
                found[n] = members[n].found();
                if (found[n]) {
                    size[rep[n]]++;
                }
            }
            long clusteredDocuments = 0;
            List<NearDupClustersResponse.Cluster> largest = new ArrayList<>();
            for (int n = 0; n < rep.length; n++) {
                if (rep[n] == n && size[n] >= 2) {
                    task.clusters.incrementAndGet();
                    clusteredDocuments += size[n];
                    largest.add(new NearDupClustersResponse.Cluster(ids.get(n), size[n]));
                }
            }
            largest.sort(Comparator.comparingInt(NearDupClustersResponse.Cluster::size)
                    .reversed()
                    .thenComparing(NearDupClustersResponse.Cluster::id));
            largest = largest.subList(0, Math.min(LARGEST_REPORTED, largest.size()));
            if (request.dryRun() == false) {
                task.total.set(clusteredDocuments);
                task.phase(NearDupClustersTask.Phase.WRITING);
                writeClusters(rep, size);
                if (task.isCancelled() == false && writesStopped == false) {
                    writeOthers(rep, size);
                }
                if (request.refresh()) {
                    client.admin().indices().prepareRefresh(index).get(STEP_TIMEOUT);
                }
            }
            task.phase(NearDupClustersTask.Phase.DONE);
            return response(clusteredDocuments, ClusterGraph.sizeHistogram(rep, found), largest);
        } finally {
            breaker.addWithoutBreaking(-charged);
        }
    }

    private NearDupClustersResponse response(
            Long clusteredDocuments, long[] histogram, List<NearDupClustersResponse.Cluster> largest) {
        long tookMillis = (System.nanoTime() - startNanos) / 1_000_000;
        return new NearDupClustersResponse(
                tookMillis,
                request.dryRun(),
                task.getStatus(),
                clusteredDocuments == null ? 0 : clusteredDocuments,
                cleared,
                histogram,
                largest,
                failures,
                task.isCancelled() ? task.getReasonCancelled() : null);
    }

    // ---- scan ----------------------------------------------------------------------------------

    /**
     * Whether matching goes through the shards' self-join: a full run on a {@code simhash} field (with
     * {@code min_similarity}, its neighbours verified on the sibling {@code minhash} field there).
     */
    private boolean selfJoin() {
        return simhashField && request.query() == null;
    }

    /**
     * Whether a {@code minhash} run goes through the shards' band self-join: a full run (with leader
     * linkage the join reports every verified pair). A {@code query} run matches only some documents:
     * it stays on the pages.
     */
    private boolean bandJoin() {
        return simhashField == false && request.query() == null;
    }

    /**
     * The documents the run reads: the index's, or those its {@code query} matches; a count, shown as the
     * task's {@code total}. A progress figure, not part of the result: where the count cannot run (a role
     * with the run's permissions but not {@code indices:data/read/search}) the total stays unknown (-1).
     */
    private long documentsToScan() {
        QueryBuilder documents = request.query() == null ? QueryBuilders.matchAllQuery() : request.query();
        SearchSourceBuilder count =
                new SearchSourceBuilder().size(0).trackTotalHits(true).query(documents);
        try {
            return client.search(new SearchRequest(index).source(count))
                    .actionGet(STEP_TIMEOUT)
                    .getHits()
                    .getTotalHits()
                    .value();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private void scan() throws Exception {
        if (selfJoin()) {
            forEachShard(this::joinShard);
            return;
        }
        if (bandJoin()) {
            forEachShard(this::bandJoinShard);
            return;
        }
        // The pages, one near_duplicate query a document on every shard, stay only where no join serves: a query run
        // (only some documents are matched).
        String[] includes = {request.spec().sourceToMatch(), request.targetField()};
        QueryBuilder documents = request.query() == null ? QueryBuilders.matchAllQuery() : request.query();
        forEachShard(shard -> forEachPage(shard, documents, includes, this::scanPage));
    }

    /**
     * A {@code minhash} shard's pairs, found on its node ({@link TransportShardJoinAction}): those
     * within the shard by its band self-join, those with the shards {@link #shardsProbedBy} it by
     * looking its documents' bands up there, so that each pair of documents is found once. Each is a
     * step of its own, one other shard at a time, so that none outlasts {@link #STEP_TIMEOUT} on a
     * large shard (at 5M documents a shard, ~1 min a step: docs/clusters.md section 4) and the run's
     * progress and memory move step by step.
     */
    private void bandJoinShard(int shard) {
        boolean allPairs = request.linkage() == NearDupClustersRequest.Linkage.LEADER;
        addJoined(client.execute(
                        ShardJoinAction.INSTANCE, ShardJoinRequest.bandsWithin(index, shard, request.spec(), allPairs))
                .actionGet(STEP_TIMEOUT));
        for (int other : shardsProbedBy(shard, shards)) {
            if (task.isCancelled() || sliceFailed) {
                return;
            }
            addJoined(client.execute(
                            ShardJoinAction.INSTANCE, ShardJoinRequest.bandsAcross(index, shard, request.spec(), other))
                    .actionGet(STEP_TIMEOUT));
        }
    }

    /** Shards scanned at once, and bulks written at once. */
    private int slices() {
        return Math.min(shards, request.slices() == NearDupClustersRequest.AUTO_SLICES ? shards : request.slices());
    }

    private interface ShardWork {
        void run(int shard) throws Exception;
    }

    /** Runs {@code work} for every shard, {@code slices} shards at a time; the first failure stops the others at their next step. */
    private void forEachShard(ShardWork work) throws Exception {
        int slices = slices();
        if (slices == 1) {
            for (int shard = 0; shard < shards && task.isCancelled() == false; shard++) {
                work.run(shard);
            }
            return;
        }
        AtomicInteger nextShard = new AtomicInteger();
        ThreadContext threadContext = threadPool.getThreadContext();
        List<Future<Void>> running = new ArrayList<>();
        for (int slice = 0; slice < slices; slice++) {
            FutureTask<Void> future = new FutureTask<>(() -> {
                for (int shard = nextShard.getAndIncrement();
                        shard < shards && sliceFailed == false;
                        shard = nextShard.getAndIncrement()) {
                    work.run(shard);
                }
                return null;
            });
            running.add(future);
            threadPool.generic().execute(threadContext.preserveContext(future));
        }
        Exception failure = null;
        for (Future<Void> future : running) {
            try {
                future.get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof Exception cause ? cause : e;
                    sliceFailed = true;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * The shards whose tables shard {@code shard} of {@code shards} looks its windows up in, so that
     * every pair of shards is joined once and each shard answers about as many look-ups as the
     * others: the next {@code (shards - 1) / 2} shards round the ring, and with an even count the
     * opposite shard from the first half (the round-robin schedule of a tournament).
     */
    static int[] shardsProbedBy(int shard, int shards) {
        int half = shards / 2;
        boolean opposite = shards % 2 == 0 && shards > 0 && shard < half;
        int[] probed = new int[(shards - 1) / 2 + (opposite ? 1 : 0)];
        for (int i = 0; i < (shards - 1) / 2; i++) {
            probed[i] = (shard + 1 + i) % shards;
        }
        if (opposite) {
            probed[probed.length - 1] = shard + half;
        }
        return probed;
    }

    /**
     * Joins one shard's documents, window by window of {@code scroll_size} sequence numbers (so at
     * most that many documents) up to the shard's newest now, with the whole index
     * ({@link TransportShardJoinAction}): the windows of a shard look up the shard itself and the
     * shards {@link #shardsProbedBy} it, so each pair of documents is found once. A document
     * written during the run has a later sequence number and is met as a neighbour only.
     */
    private void joinShard(int shard) {
        long newest = maxSeqNo(shard);
        int[] otherShards = shardsProbedBy(shard, shards);
        for (long from = 0;
                from <= newest && task.isCancelled() == false && sliceFailed == false;
                from += request.scrollSize()) {
            long to = Math.min(newest + 1, from + request.scrollSize());
            addJoined(client.execute(
                            ShardJoinAction.INSTANCE,
                            new ShardJoinRequest(index, shard, request.spec(), from, to, otherShards))
                    .actionGet(STEP_TIMEOUT));
        }
    }

    /** Adds what a shard's join found to the graph, and what it scanned to the task's counts. */
    private void addJoined(ShardJoinResponse joined) {
        ShardMatchResponse matches = joined.matches();
        synchronized (this) {
            for (int i = 0; i < matches.size(); i++) {
                int query = matches.query(i);
                addMatch(
                        node(joined.queryId(query), joined.querySeqNo(query)),
                        node(matches.target(i), matches.targetSeqNo(i)),
                        matches.similarity(i));
            }
        }
        task.noFingerprint.addAndGet(joined.noFingerprint());
        task.scanned.addAndGet(joined.scanned());
    }

    /**
     * Pages through the documents of one shard matching {@code documents}, in {@code _seq_no}
     * order (unique within a shard), each page a search of its own: no search context is held
     * between pages, so nothing on the data nodes outlives a page, and a document updated meanwhile
     * is simply met again at its new sequence number.
     */
    private void forEachPage(int shard, QueryBuilder documents, String[] includes, Consumer<SearchHit[]> consumer) {
        Object[] after = null;
        while (task.isCancelled() == false && sliceFailed == false && writesStopped == false) {
            SearchSourceBuilder source = new SearchSourceBuilder()
                    .query(documents)
                    .size(request.scrollSize())
                    .sort(SeqNoFieldMapper.NAME, SortOrder.ASC)
                    .seqNoAndPrimaryTerm(true)
                    .fetchSource(includes, null)
                    .trackTotalHits(false);
            if (after != null) {
                source.searchAfter(after);
            }
            SearchResponse page = client.search(new SearchRequest(index)
                            .preference("_shards:" + shard)
                            .source(source))
                    .actionGet(STEP_TIMEOUT);
            SearchHit[] hits = page.getHits().getHits();
            if (hits.length == 0) {
                return;
            }
            consumer.accept(hits);
            after = hits[hits.length - 1].getSortValues();
        }
    }

    private void scanPage(SearchHit[] hits) {
        List<String> batchIds = new ArrayList<>(hits.length);
        List<Map<String, Object>> batchSources = new ArrayList<>(hits.length);
        long[] batchSeqNos = new long[hits.length];
        for (SearchHit hit : hits) {
            Map<String, Object> hitSource = hit.getSourceAsMap();
            if (hitSource == null
                    || XContentMapValues.extractValue(request.spec().field(), hitSource) == null) {
                task.noFingerprint.incrementAndGet();
            } else {
                batchSeqNos[batchIds.size()] = hit.getSeqNo();
                batchIds.add(hit.getId());
                batchSources.add(hitSource);
            }
            if (request.query() != null
                    && hitSource != null
                    && XContentMapValues.extractValue(request.targetField(), hitSource) instanceof Map<?, ?> existing
                    && ClusterAssignment.clusterOf(existing) != null) {
                synchronized (this) {
                    clustersToExpand.add(ClusterAssignment.clusterOf(existing));
                }
            }
        }
        match(batchIds, batchSources, batchSeqNos);
        task.scanned.addAndGet(hits.length);
    }

    /** Sends a page to every shard, then adds what they found to the graph. */
    private void match(List<String> batchIds, List<Map<String, Object>> batchSources, long[] batchSeqNos) {
        if (batchIds.isEmpty()) {
            return;
        }
        List<ActionFuture<ShardMatchResponse>> responses = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            responses.add(client.execute(
                    ShardMatchAction.INSTANCE,
                    new ShardMatchRequest(
                            index,
                            shard,
                            request.spec(),
                            batchIds,
                            batchSources,
                            TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT,
                            null)));
        }
        for (ActionFuture<ShardMatchResponse> future : responses) {
            ShardMatchResponse matches = future.actionGet(STEP_TIMEOUT);
            synchronized (this) {
                for (int i = 0; i < matches.size(); i++) {
                    int query = matches.query(i);
                    addMatch(
                            node(batchIds.get(query), batchSeqNos[query]),
                            node(matches.target(i), matches.targetSeqNo(i)),
                            matches.similarity(i));
                }
            }
        }
    }

    private void addMatch(int a, int b, float similarity) {
        if (a != b) {
            charge(graph.bytesPerEdge());
            graph.addEdge(a, b, similarity);
            task.matches.incrementAndGet();
        }
    }

    /** The node of a document, created (and charged) on first sight; {@code seqNo} is the version its fingerprint was read at. */
    private int node(String id, long seqNo) {
        Integer existing = nodeOf.get(id);
        int n;
        if (existing == null) {
            charge(BYTES_PER_NODE + 2L * id.length());
            n = graph.addNode();
            nodeOf.put(id, n);
            ids.add(id);
            if (n == seenSeqNo.length) {
                seenSeqNo = Arrays.copyOf(seenSeqNo, n * 2);
            }
            seenSeqNo[n] = seqNo;
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

    private void charge(long bytes) {
        if (bytes > 0) {
            breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters");
            charged += bytes;
        }
    }

    // ---- read members --------------------------------------------------------------------------

    /**
     * Reads every node's document, and with a {@code query}, the members of every earlier cluster
     * those documents belong to: those not matching the query keep their cluster ({@link ClusterGraph#fix}).
     */
    private void readMembers() {
        int read = 0;
        while (task.isCancelled() == false) {
            if (read < graph.nodeCount()) {
                int end = Math.min(graph.nodeCount(), read + MEMBER_CHUNK);
                readNodes(read, end);
                read = end;
                continue;
            }
            if (request.query() == null) {
                return;
            }
            List<String> expand = new ArrayList<>();
            for (String cluster : clustersToExpand) {
                if (expandedClusters.add(cluster)) {
                    expand.add(cluster);
                }
            }
            if (expand.isEmpty()) {
                return;
            }
            for (int from = 0; from < expand.size() && task.isCancelled() == false; from += MEMBER_CHUNK) {
                readClusters(expand.subList(from, Math.min(expand.size(), from + MEMBER_CHUNK)));
            }
        }
    }

    private void readNodes(int from, int to) {
        String[] chunk = ids.subList(from, to).toArray(String[]::new);
        SearchSourceBuilder source =
                memberSearch(QueryBuilders.idsQuery().addIds(chunk)).size(chunk.length);
        SearchResponse response =
                client.search(new SearchRequest(index).source(source)).actionGet(STEP_TIMEOUT);
        ensureMembers(to);
        for (int n = from; n < to; n++) {
            members[n] = Member.MISSING;
        }
        for (SearchHit hit : response.getHits().getHits()) {
            Integer n = nodeOf.get(hit.getId());
            if (n != null) {
                members[n] = member(hit);
                afterRead(n);
            }
        }
    }

    /** Adds the other members of earlier clusters: documents holding one of {@code clusters} that the query does not match. */
    private void readClusters(List<String> clusters) {
        BoolQueryBuilder others = QueryBuilders.boolQuery()
                .filter(QueryBuilders.termsQuery(request.targetField() + "." + ClusterAssignment.CLUSTER, clusters))
                .mustNot(request.query());
        for (int shard = 0; shard < shards && task.isCancelled() == false; shard++) {
            // Only their ids: the members are read (and kept in their clusters) with the other nodes.
            forEachPage(shard, others, new String[0], hits -> {
                for (SearchHit hit : hits) {
                    node(hit.getId(), SequenceNumbers.UNASSIGNED_SEQ_NO);
                }
            });
        }
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
        clustersToExpand.add(cluster);
        if (members[n].scanned() == false && cluster.equals(ids.get(n)) == false) {
            int leader = node(cluster, SequenceNumbers.UNASSIGNED_SEQ_NO);
            graph.fix(n, leader);
        }
    }

    private SearchSourceBuilder memberSearch(QueryBuilder documents) {
        QueryBuilder query = documents;
        if (request.query() != null) {
            // Tells apart, per hit, the documents this run (re)assigns from those that keep their cluster.
            query = QueryBuilders.boolQuery()
                    .filter(documents)
                    .should(QueryBuilders.boolQuery().filter(request.query()).queryName(SCANNED_QUERY_NAME));
        }
        SearchSourceBuilder source = new SearchSourceBuilder()
                .query(query)
                .seqNoAndPrimaryTerm(true)
                .fetchSource(new String[] {request.targetField()}, null)
                .trackTotalHits(false);
        for (SortBuilder<?> sort : request.representativeSort()) {
            if (isIdSort(sort) == false) {
                source.sort(sort);
            }
        }
        if (source.sorts() == null || source.sorts().isEmpty()) {
            source.sort("_doc");
        }
        return source;
    }

    private Member member(SearchHit hit) {
        int sortValues = request.representativeSort().size();
        charge(BYTES_PER_MEMBER + (long) BYTES_PER_SORT_VALUE * sortValues);
        Map<String, Object> source = hit.getSourceAsMap();
        Object existing = source == null ? null : XContentMapValues.extractValue(request.targetField(), source);
        boolean scanned = request.query() == null
                || Arrays.asList(hit.getMatchedQueries()).contains(SCANNED_QUERY_NAME);
        return new Member(
                true,
                scanned,
                hit.getSeqNo(),
                hit.getPrimaryTerm(),
                hit.getRawSortValues(),
                existing instanceof Map<?, ?> map ? map : null);
    }

    private void ensureMembers(int size) {
        if (members.length < size) {
            Member[] grown = Arrays.copyOf(members, Math.max(size, members.length * 2));
            Arrays.fill(grown, members.length, grown.length, Member.MISSING);
            members = grown;
        }
    }

    static boolean isIdSort(SortBuilder<?> sort) {
        return sort instanceof FieldSortBuilder field && "_id".equals(field.getFieldName());
    }

    // ---- cluster -------------------------------------------------------------------------------

    /**
     * Representative preference: documents that exist; with {@code keep_existing}, the
     * representatives of earlier runs (so that cluster ids stay stable while they survive); then
     * {@code representative.sort}; then {@code _id}.
     */
    private int[] ranks() {
        int n = graph.nodeCount();
        ensureMembers(n);
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, this::compareAsRepresentatives);
        int[] rank = new int[n];
        for (int position = 0; position < n; position++) {
            rank[order[position]] = position;
        }
        return rank;
    }

    private int compareAsRepresentatives(int a, int b) {
        Member ma = members[a];
        Member mb = members[b];
        int c = Boolean.compare(mb.found(), ma.found());
        if (c != 0) {
            return c;
        }
        if (request.keepRepresentatives()) {
            c = Boolean.compare(mb.wasRepresentativeOf(ids.get(b)), ma.wasRepresentativeOf(ids.get(a)));
            if (c != 0) {
                return c;
            }
        }
        int value = 0;
        for (SortBuilder<?> sort : request.representativeSort()) {
            if (isIdSort(sort)) {
                c = ids.get(a).compareTo(ids.get(b));
            } else {
                c = compareSortValues(
                        value < ma.sortValues().length ? ma.sortValues()[value] : null,
                        value < mb.sortValues().length ? mb.sortValues()[value] : null);
                value++;
            }
            if (c != 0) {
                return sort.order() == SortOrder.DESC ? -c : c;
            }
        }
        return ids.get(a).compareTo(ids.get(b));
    }

    /** Raw sort values of one field compare by their natural order; a missing value sorts last. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareSortValues(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : 1) : -1;
        }
        if (a.getClass() == b.getClass() && a instanceof Comparable comparable) {
            return comparable.compareTo(b);
        }
        if (a instanceof Number x && b instanceof Number y) {
            return Double.compare(x.doubleValue(), y.doubleValue());
        }
        return a.toString().compareTo(b.toString());
    }

    // ---- write ---------------------------------------------------------------------------------

    /** Every document of the graph, cluster by cluster, each write conditional on the sequence number read. */
    private void writeClusters(int[] rep, int[] size) throws Exception {
        Integer[] order = new Integer[rep.length];
        for (int i = 0; i < rep.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt((Integer n) -> rep[n]).thenComparingInt(n -> n));
        Writer writer = new Writer();
        for (int n : order) {
            if (task.isCancelled() || writesStopped) {
                break;
            }
            Member member = members[n];
            if (member.found() == false) {
                continue;
            }
            // A document of the graph left alone (its near-duplicates gone, or joined to other leaders) is written as
            // one in no
            // cluster: here, because a run with a query would not meet it again among the documents it matches.
            boolean alone = size[rep[n]] < 2;
            Map<String, Object> desired = alone
                    ? (request.singletons() ? ClusterAssignment.member(ids.get(n), 1, true) : null)
                    : ClusterAssignment.member(ids.get(rep[n]), size[rep[n]], rep[n] == n);
            if (Objects.equals(desired, ClusterAssignment.readMember(member.existing()))) {
                if (alone == false || member.existing() != null) {
                    task.noops.incrementAndGet();
                }
                continue;
            }
            if (seenSeqNo[n] == CHANGED
                    || (seenSeqNo[n] != SequenceNumbers.UNASSIGNED_SEQ_NO && seenSeqNo[n] != member.seqNo())) {
                conflict(
                        ids.get(n),
                        "document [" + ids.get(n)
                                + "] changed after its near-duplicates were found; run again to cluster "
                                + "its new version");
                continue;
            }
            writer.add(ids.get(n), desired, member.seqNo(), member.primaryTerm(), desired == null);
        }
        writer.finish();
    }

    /**
     * The documents outside the graph (no near-duplicate found): with {@code singletons}, each
     * becomes a cluster of one; otherwise an assignment left by an earlier run is cleared.
     */
    private void writeOthers(int[] rep, int[] size) throws Exception {
        QueryBuilder documents = QueryBuilders.boolQuery()
                .filter(request.query() == null ? QueryBuilders.matchAllQuery() : request.query())
                .filter(QueryBuilders.existsQuery(
                        request.singletons()
                                ? request.spec().field()
                                : request.targetField() + "." + ClusterAssignment.CLUSTER));
        Writer writer = new Writer();
        for (int shard = 0; shard < shards && task.isCancelled() == false && writesStopped == false; shard++) {
            // Up to the shard's newest operation now: the documents this pass writes come back at new sequence numbers,
            // beyond it.
            QueryBuilder upToNow = QueryBuilders.boolQuery()
                    .filter(documents)
                    .filter(QueryBuilders.rangeQuery(SeqNoFieldMapper.NAME).lte(maxSeqNo(shard)));
            forEachPage(shard, upToNow, new String[] {request.targetField()}, hits -> {
                for (SearchHit hit : hits) {
                    Integer n = nodeOf.get(hit.getId());
                    if (n != null && members[n].found()) {
                        continue;
                    }
                    Map<String, Object> hitSource = hit.getSourceAsMap();
                    Object existing =
                            hitSource == null ? null : XContentMapValues.extractValue(request.targetField(), hitSource);
                    Map<String, Object> desired =
                            request.singletons() ? ClusterAssignment.member(hit.getId(), 1, true) : null;
                    if (Objects.equals(
                            desired, existing instanceof Map<?, ?> map ? ClusterAssignment.readMember(map) : null)) {
                        task.noops.incrementAndGet();
                        continue;
                    }
                    writer.add(hit.getId(), desired, hit.getSeqNo(), hit.getPrimaryTerm(), desired == null);
                }
                writer.flush();
            });
        }
        writer.finish();
    }

    private long maxSeqNo(int shard) {
        SearchSourceBuilder newest = new SearchSourceBuilder()
                .size(1)
                .sort(SeqNoFieldMapper.NAME, SortOrder.DESC)
                .seqNoAndPrimaryTerm(true)
                .fetchSource(false)
                .trackTotalHits(false);
        SearchHit[] hits = client.search(
                        new SearchRequest(index).preference("_shards:" + shard).source(newest))
                .actionGet(STEP_TIMEOUT)
                .getHits()
                .getHits();
        return hits.length == 0 ? -1 : hits[0].getSeqNo();
    }

    private synchronized void conflict(String id, String reason) {
        task.versionConflicts.incrementAndGet();
        failure(id, RestStatus.CONFLICT.getStatus(), reason);
        if (request.abortOnVersionConflict()) {
            writesStopped = true;
        }
    }

    private synchronized void failure(String id, int status, String reason) {
        if (failures.size() < MAX_FAILURES_REPORTED) {
            failures.add(new NearDupClustersResponse.Failure(id, status, reason));
        }
    }

    /**
     * Bulk partial updates, {@code scroll_size} at a time, up to {@code slices} bulks in flight (so
     * that as many write threads index as shards are scanned at once), throttled to
     * {@code requests_per_second}. {@link #finish} waits for every bulk sent.
     */
    private final class Writer {
        private BulkRequest bulk = new BulkRequest();
        private List<Boolean> clearing = new ArrayList<>();
        private long nextAllowedNanos = System.nanoTime();
        private final int maxInFlight = slices();
        private final Semaphore inFlight = new Semaphore(maxInFlight);
        private volatile Exception bulkFailure;

        void add(String id, Map<String, Object> assignment, long seqNo, long primaryTerm, boolean clears) {
            bulk.add(new UpdateRequest(index, id)
                    .doc(MappingPaths.nest(request.targetField(), assignment))
                    .setIfSeqNo(seqNo)
                    .setIfPrimaryTerm(primaryTerm));
            clearing.add(clears);
            if (bulk.numberOfActions() >= request.scrollSize()) {
                flush();
            }
        }

        void flush() {
            if (bulk.numberOfActions() == 0 || writesStopped) {
                return;
            }
            throttle(bulk.numberOfActions());
            if (task.isCancelled()) {
                return;
            }
            acquire(1);
            List<Boolean> clears = clearing;
            client.bulk(
                    bulk.timeout(request.bulkTimeout()),
                    ActionListener.runAfter(
                            ActionListener.wrap(response -> record(response.getItems(), clears), e -> {
                                bulkFailure = e;
                                writesStopped = true;
                            }),
                            () -> inFlight.release()));
            bulk = new BulkRequest();
            clearing = new ArrayList<>();
        }

        /** Sends what is left and waits for every bulk; rethrows the failure of a whole bulk. */
        void finish() throws Exception {
            flush();
            acquire(maxInFlight);
            inFlight.release(maxInFlight);
            if (bulkFailure != null) {
                throw bulkFailure;
            }
        }

        private void acquire(int permits) {
            try {
                if (inFlight.tryAcquire(permits, STEP_TIMEOUT.millis(), TimeUnit.MILLISECONDS) == false) {
                    throw new OpenSearchTimeoutException(
                            "a bulk of cluster assignments did not complete within " + STEP_TIMEOUT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing", e);
            }
        }

        private void record(BulkItemResponse[] items, List<Boolean> clears) {
            synchronized (ClusterJob.this) {
                for (int i = 0; i < items.length; i++) {
                    BulkItemResponse item = items[i];
                    if (item.isFailed() == false) {
                        if (clears.get(i)) {
                            cleared++;
                        } else {
                            task.updated.incrementAndGet();
                        }
                    } else if (item.getFailure().getStatus() == RestStatus.CONFLICT) {
                        conflict(
                                item.getId(),
                                "document [" + item.getId()
                                        + "] changed after it was read; run again to cluster its new " + "version");
                    } else {
                        failure(item.getId(), item.getFailure().getStatus().getStatus(), item.getFailureMessage());
                        writesStopped = true;
                    }
                }
            }
        }

        private void throttle(int documents) {
            if (Float.isInfinite(request.requestsPerSecond())) {
                return;
            }
            long waitNanos = nextAllowedNanos - System.nanoTime();
            while (waitNanos > 0 && task.isCancelled() == false) {
                try {
                    Thread.sleep(Math.min(100, Math.max(1, waitNanos / 1_000_000)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while throttling", e);
                }
                waitNanos = nextAllowedNanos - System.nanoTime();
            }
            nextAllowedNanos = Math.max(nextAllowedNanos, System.nanoTime())
                    + (long) (documents * 1e9 / request.requestsPerSecond());
        }
    }
}
