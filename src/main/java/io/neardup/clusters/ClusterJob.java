/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.compat.LuceneApi;
import io.neardup.core.ClusterGraph;
import io.neardup.match.RunBreaker;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.opensearch.action.admin.indices.refresh.RefreshRequest;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.index.mapper.IndexFieldMapper;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.search.aggregations.AggregationBuilders;
import org.opensearch.search.aggregations.bucket.terms.Terms;
import org.opensearch.search.builder.SearchSourceBuilder;

/**
 * One {@code _near_dup_clusters} run, on the node that received it, as a chain of listeners
 * ({@link ClusterSteps}): no thread waits for a search, a shard's answer or a bulk.
 * <ol>
 * <li><b>scan</b>: find every pair of near-duplicates, shard by shard ({@code slices} shards at a
 * time): the shards' joins ({@link ShardScan}), or with a {@code query} the pages of the documents it matches, each
 * read and matched from its shard's part node ({@link PartsClustering#scan});</li>
 * <li>the pairs are kept in parts on the shards' nodes ({@link RunParts}), and the run clusters there and writes from
 * there ({@link PartsClustering}: members read (with a {@code query}, in waves that add the earlier clusters' members),
 * rounds, sizes, then one bulk a shard at a time from its part's node, {@link PartWriter}); this node only counts;</li>
 * <li>in a rolling upgrade (a node of another version, which does not know the parts): the pairs become edges of a
 * {@link MatchGraph} here, whose documents are read again ({@link ClusterMembers}), clustered (single or leader
 * linkage, representatives by rank) and written from here ({@link ClusterWriter}): conditional partial updates by
 * cluster, then the documents in no cluster.</li>
 * </ol>
 * Nothing is written before every match is in, so a failure or cancellation before the write phase
 * leaves the index untouched; each document's update is atomic, so after a cancellation during the
 * writes every document holds either its old value or its complete new one.
 *
 * <p>Memory on this node: none charged, with a {@code query} or without; in a rolling upgrade, about
 * {@link MatchGraph#BYTES_PER_NODE} + 2 bytes a character of {@code _id} for every document that has a near-duplicate
 * (and, for leader linkage, {@link ClusterGraph#BYTES_PER_EDGE} a match), charged to the {@code neardup} breaker before
 * it is taken, plus one page per slice with a {@code query}. The most it charged at once is the run's
 * {@code coordinator_bytes}.
 */
final class ClusterJob {

    static final int LARGEST_REPORTED = 10;

    /** The count's aggregation of the documents by index, which plans a band join. */
    private static final String BY_INDEX = "by_index";

    private final RunContext context;
    private final NearDupClustersRequest request;
    private final NearDupClustersTask task;
    private final boolean simhashField;
    private final long startNanos = System.nanoTime();

    private final MatchGraph graph;
    private final Runnable releaseParts;
    /**
     * The run's task, by which the data nodes keep the parts its clusters come from; null where they may not (a rolling
     * upgrade: the graph is then on this node).
     */
    private final TaskId parts;
    /** The scan, which knows where each shard's part is (a run without a {@code query}, or in a rolling upgrade). */
    private ShardScan scan;
    /** A run with a {@code query} whose graph is in parts: its clustering, which scans too. */
    private PartsClustering clustering;

    private final ClusterMembers members;
    private final ClusterWriter writer;
    /** Set when one slice fails, so that the others stop at their next step. */
    private volatile boolean sliceFailed;

    /**
     * @param parts the run's task, by which the data nodes keep the parts of its graph ({@link RunParts}); null where
     *     they may not (a node of another version in the cluster)
     * @param releaseParts gives back the parts of the run's graph on the data nodes
     */
    ClusterJob(RunContext context, CircuitBreaker breaker, boolean simhashField, TaskId parts, Runnable releaseParts) {
        this.context = context;
        this.releaseParts = releaseParts;
        this.parts = parts;
        this.request = context.request();
        this.task = context.task();
        this.simhashField = simhashField;
        RunBreaker charges = new RunBreaker(breaker);
        task.coordinatorCharges(charges);
        this.graph = new MatchGraph(
                charges, task, request.linkage() == NearDupClustersRequest.Linkage.LEADER, this.parts != null);
        this.members = new ClusterMembers(context, graph);
        this.writer = new ClusterWriter(context, graph, members);
    }

    /** Starts the run; {@code listener} has its response (also after a cancellation) or its failure. */
    void run(ActionListener<NearDupClustersResponse> listener) {
        ActionListener<NearDupClustersResponse> releasing = ActionListener.runAfter(listener, () -> {
            graph.release();
            releaseParts.run();
        });
        countDocuments(ActionListener.wrap(
                counted -> {
                    task.total.set(counted.total());
                    scan(counted.ofIndex(), ActionListener.wrap(v -> clusterScanned(releasing), e -> {
                        // Cancelling the run cancels its requests to the shards, which then fail: cancelled, not
                        // failed.
                        if (task.isCancelled()) {
                            clusterScanned(releasing);
                        } else {
                            releasing.onFailure(e);
                        }
                    }));
                },
                releasing::onFailure));
    }

    private void clusterScanned(ActionListener<NearDupClustersResponse> listener) {
        if (parts == null) {
            readMembers(listener);
            return;
        }
        if (task.isCancelled()) {
            listener.onResponse(response(null, new long[0], List.of()));
            return;
        }
        task.phase(NearDupClustersTask.Phase.CLUSTERING);
        if (clustering == null) {
            String[] partNodes = new String[context.shards()];
            for (int shard = 0; shard < partNodes.length; shard++) {
                partNodes[shard] = scan.partNode(shard);
            }
            try {
                clustering = new PartsClustering(context, parts, partNodes);
            } catch (RuntimeException e) {
                listener.onFailure(e);
                return;
            }
        }
        clustering.run(ActionListener.wrap(
                clustered -> {
                    task.clusters.addAndGet(clustered.clusters());
                    ActionListener<Void> done = ActionListener.wrap(
                            v -> {
                                task.phase(NearDupClustersTask.Phase.DONE);
                                listener.onResponse(response(
                                        clustered.clusteredDocuments(), clustered.histogram(), clustered.largest()));
                            },
                            listener::onFailure);
                    if (request.dryRun() || task.isCancelled()) {
                        done.onResponse(null);
                        return;
                    }
                    task.total.set(clustered.clusteredDocuments());
                    task.phase(NearDupClustersTask.Phase.WRITING);
                    clustering.write(writer, ActionListener.wrap(v -> refresh(done), done::onFailure));
                },
                e -> {
                    if (task.isCancelled()) {
                        listener.onResponse(response(null, new long[0], List.of()));
                    } else {
                        listener.onFailure(e);
                    }
                }));
    }

    private void readMembers(ActionListener<NearDupClustersResponse> listener) {
        if (task.isCancelled()) {
            listener.onResponse(response(null, new long[0], List.of()));
            return;
        }
        task.phase(NearDupClustersTask.Phase.READING_MEMBERS);
        members.read(ActionListener.wrap(v -> cluster(listener), listener::onFailure));
    }

    private void cluster(ActionListener<NearDupClustersResponse> listener) {
        if (task.isCancelled()) {
            listener.onResponse(response(null, new long[0], List.of()));
            return;
        }
        task.phase(NearDupClustersTask.Phase.CLUSTERING);
        ClusterGraph clusterGraph = graph.graph();
        int[] ranks = members.ranks();
        int[] rep = request.linkage() == NearDupClustersRequest.Linkage.LEADER
                ? clusterGraph.leaderLinkage(ranks)
                : clusterGraph.singleLinkage(ranks);
        int[] size = new int[rep.length];
        boolean[] found = new boolean[rep.length];
        for (int n = 0; n < rep.length; n++) {
            found[n] = members.member(n).found();
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
                largest.add(new NearDupClustersResponse.Cluster(
                        graph.id(n),
                        context.indices().spansIndices() ? context.indices().name(graph.ordinal(n)) : null,
                        size[n]));
            }
        }
        largest.sort(Comparator.comparingInt(NearDupClustersResponse.Cluster::size)
                .reversed()
                .thenComparing(NearDupClustersResponse.Cluster::id)
                .thenComparing(
                        NearDupClustersResponse.Cluster::index, Comparator.nullsFirst(Comparator.naturalOrder())));
        List<NearDupClustersResponse.Cluster> reported = largest.subList(0, Math.min(LARGEST_REPORTED, largest.size()));
        long[] histogram = ClusterGraph.sizeHistogram(rep, found);
        long clustered = clusteredDocuments;
        ActionListener<Void> done = ActionListener.wrap(
                v -> {
                    task.phase(NearDupClustersTask.Phase.DONE);
                    listener.onResponse(response(clustered, histogram, reported));
                },
                listener::onFailure);
        if (request.dryRun()) {
            done.onResponse(null);
            return;
        }
        task.total.set(clusteredDocuments);
        task.phase(NearDupClustersTask.Phase.WRITING);
        writer.writeClusters(
                rep,
                size,
                ActionListener.wrap(
                        v -> {
                            if (task.isCancelled() || writer.writesStopped()) {
                                refresh(done);
                            } else {
                                writer.writeOthers(ActionListener.wrap(w -> refresh(done), done::onFailure));
                            }
                        },
                        done::onFailure));
    }

    private void refresh(ActionListener<Void> done) {
        if (request.refresh() == false) {
            done.onResponse(null);
            return;
        }
        String[] written = request.dest() == null ? context.indices().names() : new String[] {request.dest()};
        context.client()
                .admin()
                .indices()
                .refresh(
                        new RefreshRequest(written),
                        context.step("refreshing " + Arrays.toString(written), ActionListener.map(done, r -> null)));
    }

    private NearDupClustersResponse response(
            Long clusteredDocuments, long[] histogram, List<NearDupClustersResponse.Cluster> largest) {
        long tookMillis = (System.nanoTime() - startNanos) / 1_000_000;
        return new NearDupClustersResponse(
                tookMillis,
                request.dryRun(),
                task.getStatus(),
                clusteredDocuments == null ? 0 : clusteredDocuments,
                writer.cleared(),
                histogram,
                largest,
                writer.failures(),
                task.isCancelled() ? task.getReasonCancelled() : null);
    }

    // ---- scan ----------------------------------------------------------------------------------

    /**
     * The documents the run reads: the index's, or those its {@code query} matches; a count, shown as the
     * task's {@code total}, and for a band join a count an index (by ordinal), which plans it ({@link JoinGroups}). Not
     * part of the result: where the count cannot run (a role with the run's permissions but not
     * {@code indices:data/read/search}) the total stays unknown (-1) and the band join goes shard by shard.
     */
    private void countDocuments(ActionListener<DocumentCount> counted) {
        QueryBuilder documents = request.query() == null ? QueryBuilders.matchAllQuery() : request.query();
        RunIndices indices = context.indices();
        SearchSourceBuilder count =
                new SearchSourceBuilder().size(0).trackTotalHits(true).query(documents);
        if (request.query() == null && simhashField == false) {
            // Only the band join plans by it; otherwise the count alone is a shortcut of the shards' statistics.
            count.aggregation(AggregationBuilders.terms(BY_INDEX)
                    .field(IndexFieldMapper.NAME)
                    .size(indices.names().length));
        }
        context.search(
                new SearchRequest(indices.names()).source(count),
                "counting the documents",
                ActionListener.wrap(
                        response -> {
                            long[] ofIndex = new long[indices.names().length];
                            Terms byIndex = response.getAggregations() == null
                                    ? null
                                    : response.getAggregations().get(BY_INDEX);
                            if (byIndex != null) {
                                for (Terms.Bucket bucket : byIndex.getBuckets()) {
                                    int ordinal = indices.ordinalOf(bucket.getKeyAsString());
                                    if (ordinal >= 0) {
                                        ofIndex[ordinal] = bucket.getDocCount();
                                    }
                                }
                            }
                            counted.onResponse(new DocumentCount(
                                    LuceneApi.count(response.getHits().getTotalHits()),
                                    byIndex == null ? null : ofIndex));
                        },
                        e -> counted.onResponse(new DocumentCount(-1L, null))));
    }

    /** @param ofIndex the documents of each index, by ordinal; null if not known */
    private record DocumentCount(long total, long[] ofIndex) {}

    /** Every shard's pairs, {@code slices} shards at a time; the first failure stops the others at their next step. */
    private void scan(long[] documentsOfIndex, ActionListener<Void> done) {
        if (parts != null && request.query() != null) {
            // The pages of a query run are read and matched from the nodes that keep their shards' parts, each shard's
            // on its primary's.
            String[] partNodes = new String[context.shards()];
            for (int shard = 0; shard < partNodes.length; shard++) {
                partNodes[shard] = context.indices().primaryNode(shard);
            }
            try {
                clustering = new PartsClustering(context, parts, partNodes);
            } catch (RuntimeException e) {
                done.onFailure(e);
                return;
            }
            clustering.scan(this::scanStopped, done);
            return;
        }
        scan = ShardScan.of(context, graph, members, this::scanStopped, simhashField, documentsOfIndex);
        ClusterSteps.inLanes(
                context.threadPool(),
                scan.units(),
                context.slices(),
                this::scanStopped,
                (unit, next) -> scan.scan(unit, ActionListener.wrap(next::onResponse, e -> {
                    sliceFailed = true;
                    next.onFailure(e);
                })),
                done);
    }

    /** Whether the scan should stop at its next step: the run was cancelled, or another slice failed. */
    private boolean scanStopped() {
        return task.isCancelled() || sliceFailed;
    }
}
