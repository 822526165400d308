/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/**
 * What the phases of one {@code _near_dup_clusters} run ({@link ShardScan}, {@link ClusterMembers},
 * {@link ClusterWriter}) are given by {@link ClusterJob}, so that none reaches back into the job: the run's
 * request and task, the client its requests go through (a child of the task), the plugin's pool and the step
 * timeouts its answers continue with, the throttle of its writes, the indices and their shards; and the reads of a
 * shard more than one phase makes, each a step of the run.
 *
 * @param throttle the one the task holds, so that {@code _rethrottle} changes the rate of these writes
 */
record RunContext(
        Client client,
        ThreadPool threadPool,
        StepTimeouts timeouts,
        NearDupClustersRequest request,
        NearDupClustersTask task,
        WriteThrottle throttle,
        RunIndices indices) {

    /** The shards of every index the run covers, numbered as {@link RunIndices} does. */
    int shards() {
        return indices.shards();
    }

    /** Shards scanned at once, and bulks written at once. */
    int slices() {
        int shards = shards();
        return Math.min(shards, request.slices() == NearDupClustersRequest.AUTO_SLICES ? shards : request.slices());
    }

    /**
     * Pages through the documents of one shard (the run's numbering) matching {@code documents}, in {@code _seq_no}
     * order (unique within a shard), each page a search of its own: no search context is held
     * between pages, so nothing on the data nodes outlives a page, and a document updated meanwhile
     * is simply met again at its new sequence number. Stops when a page is empty, the run is
     * cancelled, or {@code goOn} says so; {@code consumer} calls its listener to ask for the next page.
     */
    void forEachPage(
            int shard,
            QueryBuilder documents,
            String[] includes,
            BooleanSupplier goOn,
            PageConsumer consumer,
            ActionListener<Void> done) {
        new Object() {
            void page(Object[] after) {
                if (task.isCancelled() || goOn.getAsBoolean() == false) {
                    done.onResponse(null);
                    return;
                }
                search(
                        onShard(shard, RunContext.page(documents, includes, request.scrollSize(), after)),
                        "a page of shard " + indices.describeShard(shard),
                        ActionListener.wrap(
                                response -> {
                                    SearchHit[] hits = response.getHits().getHits();
                                    if (hits.length == 0) {
                                        done.onResponse(null);
                                        return;
                                    }
                                    Object[] last = hits[hits.length - 1].getSortValues();
                                    consumer.accept(hits, ActionListener.wrap(v -> page(last), done::onFailure));
                                },
                                done::onFailure));
            }
        }.page(null);
    }

    /** What a page goes to; it calls {@code next} (now or later) for the next page. */
    interface PageConsumer {
        void accept(SearchHit[] hits, ActionListener<Void> next) throws Exception;
    }

    /** The sequence number of the newest operation of a shard now, -1 if it has none. */
    void maxSeqNo(int shard, ActionListener<Long> listener) {
        search(
                onShard(shard, newestOperation()),
                "the newest operation of shard " + indices.describeShard(shard),
                ActionListener.map(listener, RunContext::newestOperation));
    }

    /** The search of a shard's newest operation ({@link #newestOperation(SearchResponse)} reads its answer). */
    static SearchSourceBuilder newestOperation() {
        return new SearchSourceBuilder()
                .size(1)
                .sort(SeqNoFieldMapper.NAME, SortOrder.DESC)
                .seqNoAndPrimaryTerm(true)
                .fetchSource(false)
                .trackTotalHits(false);
    }

    /** The sequence number of the newest operation {@link #newestOperation()} found, -1 if none. */
    static long newestOperation(SearchResponse response) {
        SearchHit[] hits = response.getHits().getHits();
        return hits.length == 0 ? -1L : hits[0].getSeqNo();
    }

    /**
     * A page of {@code size} of a shard's {@code documents} in {@code _seq_no} order, after the sort values
     * {@code after} (null: the first), with their sequence numbers and the {@code includes} of their source
     * ({@link #fetchSource}).
     */
    static SearchSourceBuilder page(QueryBuilder documents, String[] includes, int size, Object[] after) {
        SearchSourceBuilder source = fetchSource(
                new SearchSourceBuilder()
                        .query(documents)
                        .size(size)
                        .sort(SeqNoFieldMapper.NAME, SortOrder.ASC)
                        .seqNoAndPrimaryTerm(true)
                        .trackTotalHits(false),
                includes);
        if (after != null) {
            source.searchAfter(after);
        }
        return source;
    }

    /**
     * {@code source} reading these fields of each hit's source, a null among them left out (a run with {@code dest}
     * has no target field): none left, no source at all.
     */
    static SearchSourceBuilder fetchSource(SearchSourceBuilder source, String... includes) {
        String[] read = Arrays.stream(includes).filter(Objects::nonNull).toArray(String[]::new);
        return read.length == 0 ? source.fetchSource(false) : source.fetchSource(read, null);
    }

    /** A search of the run's shard {@code shard} alone. */
    private SearchRequest onShard(int shard, SearchSourceBuilder source) {
        return new SearchRequest(indices.indexOfShard(shard))
                .preference("_shards:" + indices.shardInIndex(shard))
                .source(source);
    }

    void search(SearchRequest search, String what, ActionListener<SearchResponse> listener) {
        client.search(search, step(what, listener));
    }

    /** {@code next}, continued on the plugin's pool with a request's answer, or failed once the request has waited too long. */
    <T> ActionListener<T> step(String what, ActionListener<T> next) {
        return ClusterSteps.step(threadPool, timeouts, what, next);
    }
}
