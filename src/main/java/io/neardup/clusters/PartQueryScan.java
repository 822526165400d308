/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ClusterAssignment;
import io.neardup.match.DocumentQueries;
import io.neardup.match.MatchSpec;
import io.neardup.match.NodeRunBreakers;
import io.neardup.match.ShardMatchAction;
import io.neardup.match.ShardMatchRequest;
import io.neardup.match.ShardMatchResponse;
import io.neardup.match.TransportShardMatchAction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.search.SearchHit;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/**
 * The scan of one shard of a run with a {@code query}, from the node that keeps the shard's part (docs/clusters.md
 * section 8, step 5), one page at each {@link PartStepAction.Step#SCAN}: the shard's documents the query matches, in
 * {@code _seq_no} order on its copy here, each page sent to every shard of the run, whose {@code near_duplicate}
 * queries find its near-duplicates anywhere ({@link TransportShardMatchAction}); the pairs are kept in this shard's part,
 * and the earlier clusters the page's documents belong to are met ({@link RunParts.EarlierClusters}). The coordinating
 * node asks for each page in turn and only counts. Not thread-safe: a shard's pages are asked for one at a time.
 */
final class PartQueryScan {

    private final int number;
    private final ThreadPool threadPool;
    private final Client client;
    private final StepTimeouts timeouts;

    /** The sort values of the last document read; null before the first page. */
    private Object[] after;

    private boolean done;

    PartQueryScan(int number, ThreadPool threadPool, Client client, StepTimeouts timeouts) {
        this.number = number;
        this.threadPool = threadPool;
        this.client = client;
        this.timeouts = timeouts;
    }

    /** Whether the shard has more to scan after the last page. */
    boolean more() {
        return done == false;
    }

    /** Reads and matches the shard's next page; {@code read} has what it found. */
    void nextPage(
            PartStepAction.Request request,
            RunParts.Run run,
            NodeRunBreakers.Request charges,
            ActionListener<PartStepAction.ScanCounts> read) {
        NearDupClustersRequest clusters = request.clusters();
        String[] includes = {clusters.spec().sourceToMatch(), clusters.targetField()};
        client.search(
                request.searchOfPart(number, RunContext.page(clusters.query(), includes, clusters.scrollSize(), after)),
                ClusterSteps.step(
                        threadPool,
                        timeouts,
                        "a page of the documents of part " + number + " the query matches",
                        ActionListener.wrap(
                                response -> {
                                    SearchHit[] hits = response.getHits().getHits();
                                    if (hits.length < clusters.scrollSize()) {
                                        done = true;
                                    }
                                    if (hits.length > 0) {
                                        after = hits[hits.length - 1].getSortValues();
                                    }
                                    match(request, run, charges, hits, read);
                                },
                                read::onFailure)));
    }

    /** Sends the page's documents with a fingerprint to every shard of the run, then keeps the pairs in the part. */
    private void match(
            PartStepAction.Request request,
            RunParts.Run run,
            NodeRunBreakers.Request charges,
            SearchHit[] hits,
            ActionListener<PartStepAction.ScanCounts> read) {
        NearDupClustersRequest clusters = request.clusters();
        Page page = Page.of(clusters, hits);
        page.earlierClusters().forEach(run.earlierClusters::met);
        List<String> ids = page.ids();
        long[] seqNos = page.seqNos();
        long scanned = hits.length;
        long noFingerprint = page.noFingerprint();
        if (ids.isEmpty()) {
            read.onResponse(new PartStepAction.ScanCounts(scanned, noFingerprint, 0));
            return;
        }
        page.matchOnEveryShard(
                clusters.spec(),
                request.parts(),
                request::partIndex,
                request::partShard,
                request.partIndex(number),
                (shard, lookUp, answer) -> {
                    lookUp.setParentTask(request.run());
                    client.execute(
                            ShardMatchAction.INSTANCE,
                            lookUp,
                            ClusterSteps.step(
                                    threadPool,
                                    timeouts,
                                    "matching a page of part " + number + " on shard [" + lookUp.shard() + "] of ["
                                            + lookUp.index() + "]",
                                    ActionListener.map(answer, matches -> {
                                        charges.heardFrom(matches.nodeBytes());
                                        return matches;
                                    })));
                },
                ActionListener.wrap(
                        answers -> read.onResponse(new PartStepAction.ScanCounts(
                                scanned, noFingerprint, keep(request, run, ids, seqNos, answers))),
                        read::onFailure));
    }

    /**
     * A page of the documents a run's {@code query} matches: those with a value in the field (their {@code _id}s,
     * sources and sequence numbers), how many have none, and the earlier clusters the page's documents belong to.
     */
    record Page(
            List<String> ids,
            List<Map<String, Object>> sources,
            long[] seqNos,
            int noFingerprint,
            List<String> earlierClusters) {

        static Page of(NearDupClustersRequest request, SearchHit[] hits) {
            List<String> ids = new ArrayList<>(hits.length);
            List<Map<String, Object>> sources = new ArrayList<>(hits.length);
            long[] seqNos = new long[hits.length];
            List<String> earlierClusters = new ArrayList<>();
            for (SearchHit hit : hits) {
                Map<String, Object> source = hit.getSourceAsMap();
                if (source != null
                        && XContentMapValues.extractValue(request.spec().field(), source) != null) {
                    seqNos[ids.size()] = hit.getSeqNo();
                    ids.add(hit.getId());
                    sources.add(source);
                }
                String earlier = ClusterAssignment.clusterOf(Assignments.stored(request, hit));
                if (earlier != null) {
                    earlierClusters.add(earlier);
                }
            }
            return new Page(ids, sources, seqNos, hits.length - ids.size(), earlierClusters);
        }

        /** Sends one shard's look-up of a page; its answer goes to {@code answer}. */
        interface LookUp {
            void send(int shard, ShardMatchRequest lookUp, ActionListener<ShardMatchResponse> answer);
        }

        /**
         * Sends the page to each of {@code shards} shards (shard {@code s} is shard {@code shardOf(s)} of
         * {@code indexOf(s)}) through {@code lookUp}; {@code done} gets their answers by shard. Each document is left out
         * of its own matches by its {@code _id} in its own index, {@code ownIndex}, only: in another index the same
         * {@code _id} is another document (docs/lookup.md, as {@code near_dup_lookup} sends them).
         */
        void matchOnEveryShard(
                MatchSpec spec,
                int shards,
                IntFunction<String> indexOf,
                IntUnaryOperator shardOf,
                String ownIndex,
                LookUp lookUp,
                ActionListener<ShardMatchResponse[]> done) {
            ShardMatchResponse[] answers = new ShardMatchResponse[shards];
            // The same documents go to every shard: the shards on one node build each document's query once.
            DocumentQueries queries = new DocumentQueries();
            GroupedActionListener<Void> all =
                    new GroupedActionListener<>(ActionListener.map(done, v -> answers), shards);
            for (int shard = 0; shard < shards; shard++) {
                int answered = shard;
                String index = indexOf.apply(shard);
                List<String> leftOut = index.equals(ownIndex) ? ids : Collections.nCopies(ids.size(), "");
                lookUp.send(
                        shard,
                        new ShardMatchRequest(
                                index,
                                shardOf.applyAsInt(shard),
                                spec,
                                new ShardMatchRequest.Documents(leftOut, sources, queries),
                                TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT,
                                null),
                        ActionListener.map(all, matches -> {
                            answers[answered] = matches;
                            return null;
                        }));
            }
        }
    }

    /** Keeps every shard's pairs with the page's documents in this shard's part; returns how many. */
    private long keep(
            PartStepAction.Request request,
            RunParts.Run run,
            List<String> ids,
            long[] seqNos,
            ShardMatchResponse[] answers) {
        long pairs = 0;
        for (int shard = 0; shard < answers.length; shard++) {
            ShardMatchResponse matches = answers[shard];
            int n = matches.size();
            if (n == 0) {
                continue;
            }
            int other = shard;
            run.part(number, request.clusters().linkage() == NearDupClustersRequest.Linkage.LEADER)
                    .addMatches(matches, IntStream.range(0, n).toArray(), ids::get, q -> seqNos[q], i -> other);
            pairs += n;
        }
        return pairs;
    }
}
