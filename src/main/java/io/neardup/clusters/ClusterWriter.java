/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ClusterAssignment;
import io.neardup.match.MappingPaths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.update.UpdateRequest;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.index.seqno.SequenceNumbers;
import org.opensearch.search.SearchHit;

/**
 * The run's write phase: partial updates by cluster, each conditional on the sequence number read
 * (a document changed meanwhile is reported as a version conflict, never overwritten), then one pass
 * that clears (or, with {@code singletons}, sets) the documents that are in no cluster. Bulks of
 * {@code scroll_size}, up to {@code slices} in flight, spaced by the run's {@link WriteThrottle}.
 * A write failure (or a version conflict with {@code conflicts=abort}) stops further writes, as
 * {@code _update_by_query} does.
 */
final class ClusterWriter {

    static final int MAX_FAILURES_REPORTED = 100;

    private final RunContext context;
    private final NearDupClustersRequest request;
    private final NearDupClustersTask task;
    private final MatchGraph graph;
    private final ClusterMembers members;
    private final List<NearDupClustersResponse.Failure> failures = new ArrayList<>();
    private long cleared;
    private volatile boolean writesStopped;

    ClusterWriter(RunContext context, MatchGraph graph, ClusterMembers members) {
        this.context = context;
        this.request = context.request();
        this.task = context.task();
        this.graph = graph;
        this.members = members;
    }

    /** Whether writing stopped on a failure or a conflict ({@code conflicts=abort}). */
    boolean writesStopped() {
        return writesStopped;
    }

    synchronized long cleared() {
        return cleared;
    }

    synchronized List<NearDupClustersResponse.Failure> failures() {
        return List.copyOf(failures);
    }

    /** Every document of the graph, cluster by cluster, each write conditional on the sequence number read. */
    void writeClusters(int[] rep, int[] size, ActionListener<Void> done) {
        Integer[] boxed = new Integer[rep.length];
        for (int i = 0; i < rep.length; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, Comparator.comparingInt((Integer n) -> rep[n]).thenComparingInt(n -> n));
        int[] order = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
        Bulks bulks = new Bulks();
        new Object() {
            /** Adds the documents from {@code next} on; pauses where a full bulk must wait, and goes on once it is sent. */
            void addFrom(int next) {
                for (int i = next; i < order.length; i++) {
                    if (task.isCancelled() || writesStopped) {
                        break;
                    }
                    addDocument(order[i], rep, size, bulks);
                    if (bulks.full()) {
                        int resumeAt = i + 1;
                        if (bulks.sendNowOr(() -> addFrom(resumeAt)) == false) {
                            return;
                        }
                    }
                }
                bulks.finish(done);
            }
        }.addFrom(0);
    }

    private void addDocument(int n, int[] rep, int[] size, Bulks bulks) {
        ClusterMembers.Member member = members.member(n);
        if (member.found() == false) {
            return;
        }
        String id = graph.id(n);
        String index = context.indices().name(graph.ordinal(n));
        // A document of the graph left alone (its near-duplicates gone, or joined to other leaders) is written as one
        // in no cluster: here, because a run with a query would not meet it again among the documents it matches.
        boolean alone = size[rep[n]] < 2;
        Map<String, Object> desired = alone
                ? (request.singletons() ? ClusterAssignment.member(id, clusterIndex(index), 1, true) : null)
                : ClusterAssignment.member(
                        graph.id(rep[n]),
                        clusterIndex(context.indices().name(graph.ordinal(rep[n]))),
                        size[rep[n]],
                        rep[n] == n);
        if (Objects.equals(desired, ClusterAssignment.readMember(member.existing()))) {
            if (alone == false || member.existing() != null) {
                task.noops.incrementAndGet();
            }
            return;
        }
        long seen = graph.seenSeqNo(n);
        if (seen == MatchGraph.CHANGED || (seen != SequenceNumbers.UNASSIGNED_SEQ_NO && seen != member.seqNo())) {
            conflict(
                    index,
                    id,
                    "document [" + id + "] changed after its near-duplicates were found; run again to cluster "
                            + "its new version");
            return;
        }
        bulks.add(index, id, desired, member.seqNo(), member.primaryTerm(), desired == null);
    }

    /** The representative's index as an assignment names it: only where the run covers many indices. */
    private String clusterIndex(String representativeIndex) {
        return context.indices().spansIndices() ? representativeIndex : null;
    }

    /**
     * The documents outside the graph (no near-duplicate found): with {@code singletons}, each
     * becomes a cluster of one; otherwise an assignment left by an earlier run is cleared.
     */
    void writeOthers(ActionListener<Void> done) {
        QueryBuilder documents = QueryBuilders.boolQuery()
                .filter(request.query() == null ? QueryBuilders.matchAllQuery() : request.query())
                .filter(QueryBuilders.existsQuery(
                        request.singletons()
                                ? request.spec().field()
                                : request.targetField() + "." + ClusterAssignment.CLUSTER));
        Bulks bulks = new Bulks();
        ClusterSteps.inTurn(
                context.threadPool(),
                context.shards(),
                () -> task.isCancelled() || writesStopped,
                (shard, next) -> writeOthersOf(shard, documents, bulks, next),
                ActionListener.wrap(v -> bulks.finish(done), done::onFailure));
    }

    /**
     * One shard's documents of {@code documents} up to its newest operation now: the documents this pass writes come
     * back at new sequence numbers, beyond it.
     */
    private void writeOthersOf(int shard, QueryBuilder documents, Bulks bulks, ActionListener<Void> next) {
        context.maxSeqNo(
                shard,
                ActionListener.wrap(
                        newest -> {
                            QueryBuilder upToNow = QueryBuilders.boolQuery()
                                    .filter(documents)
                                    .filter(QueryBuilders.rangeQuery(SeqNoFieldMapper.NAME)
                                            .lte(newest));
                            context.forEachPage(
                                    shard,
                                    upToNow,
                                    new String[] {request.targetField()},
                                    () -> writesStopped == false,
                                    (hits, page) -> {
                                        addOthers(hits, bulks);
                                        if (bulks.sendNowOr(() -> page.onResponse(null))) {
                                            page.onResponse(null);
                                        }
                                    },
                                    next);
                        },
                        next::onFailure));
    }

    private void addOthers(SearchHit[] hits, Bulks bulks) {
        for (SearchHit hit : hits) {
            Integer n = graph.nodeOf(context.indices().ordinalOf(hit.getIndex()), hit.getId());
            if (n != null && members.member(n).found()) {
                continue;
            }
            Map<String, Object> hitSource = hit.getSourceAsMap();
            Object existing =
                    hitSource == null ? null : XContentMapValues.extractValue(request.targetField(), hitSource);
            Map<String, Object> desired = request.singletons()
                    ? ClusterAssignment.member(hit.getId(), clusterIndex(hit.getIndex()), 1, true)
                    : null;
            if (Objects.equals(desired, existing instanceof Map<?, ?> map ? ClusterAssignment.readMember(map) : null)) {
                task.noops.incrementAndGet();
                continue;
            }
            bulks.add(hit.getIndex(), hit.getId(), desired, hit.getSeqNo(), hit.getPrimaryTerm(), desired == null);
        }
    }

    private synchronized void conflict(String index, String id, String reason) {
        task.versionConflicts.incrementAndGet();
        failure(index, id, RestStatus.CONFLICT.getStatus(), reason);
        if (request.abortOnVersionConflict()) {
            writesStopped = true;
        }
    }

    private synchronized void failure(String index, String id, int status, String reason) {
        if (failures.size() < MAX_FAILURES_REPORTED) {
            failures.add(new NearDupClustersResponse.Failure(index, id, status, reason));
        }
    }

    /**
     * Bulk partial updates, {@code scroll_size} at a time, up to {@code slices} bulks in flight (so that as many write
     * threads index as shards are scanned at once), spaced by the run's throttle. Whoever adds waits for nothing: a
     * bulk that cannot go yet is sent later, and the adding goes on from there.
     */
    private final class Bulks {
        private final int maxInFlight = context.slices();
        private BulkRequest bulk = new BulkRequest();
        private List<Boolean> clearing = new ArrayList<>();
        // Guarded by this.
        private int inFlight;
        private Runnable waitingForSlot;
        private ActionListener<Void> waitingForAll;
        private Exception bulkFailure;

        void add(
                String index, String id, Map<String, Object> assignment, long seqNo, long primaryTerm, boolean clears) {
            bulk.add(new UpdateRequest(index, id)
                    .doc(MappingPaths.nest(request.targetField(), assignment))
                    .setIfSeqNo(seqNo)
                    .setIfPrimaryTerm(primaryTerm));
            clearing.add(clears);
        }

        boolean full() {
            return bulk.numberOfActions() >= request.scrollSize();
        }

        /**
         * Sends the bulk being filled: true if it went now (or there was nothing to send); false if it waits for its
         * time or a free slot, and then {@code goOn} runs once it has gone.
         */
        boolean sendNowOr(Runnable goOn) {
            if (bulk.numberOfActions() == 0 || writesStopped || task.isCancelled()) {
                return true;
            }
            BulkRequest toSend = bulk;
            List<Boolean> clears = clearing;
            bulk = new BulkRequest();
            clearing = new ArrayList<>();
            Runnable whenAllowed = () -> {
                if (sendUnlessCancelled(toSend, clears, goOn)) {
                    goOn.run();
                }
            };
            return context.throttle().runWhenAllowed(toSend.numberOfActions(), whenAllowed)
                    && sendUnlessCancelled(toSend, clears, goOn);
        }

        /** A cancelled run sends nothing more (true: nothing waits); else as {@link #sendOrQueue}. */
        private boolean sendUnlessCancelled(BulkRequest toSend, List<Boolean> clears, Runnable goOn) {
            return task.isCancelled() || sendOrQueue(toSend, clears, goOn);
        }

        /** Sends now if a slot is free (true); else queues the send, and {@code goOn} after it (false). */
        private boolean sendOrQueue(BulkRequest toSend, List<Boolean> clears, Runnable goOn) {
            synchronized (this) {
                if (inFlight >= maxInFlight) {
                    waitingForSlot = () -> {
                        send(toSend, clears);
                        goOn.run();
                    };
                    return false;
                }
                inFlight++;
            }
            send(toSend, clears);
            return true;
        }

        /**
         * Sends a bulk that holds a slot; its answer gives the slot on ({@link #sent}). A client that refuses the bulk
         * by throwing from the call rather than through the listener fails it as an answer would (the run stops
         * writing and fails with that exception's status): a bulk sent by the throttle's timer or after another
         * bulk's answer has no caller to take the exception, which was lost there and the run never answered.
         */
        private void send(BulkRequest toSend, List<Boolean> clears) {
            ActionListener<BulkResponse> answer = context.step(
                    "a bulk of cluster assignments",
                    ActionListener.runAfter(
                            ActionListener.wrap(response -> record(response.getItems(), clears), e -> {
                                synchronized (this) {
                                    bulkFailure = e;
                                }
                                writesStopped = true;
                            }),
                            this::sent));
            try {
                context.client().bulk(toSend.timeout(request.bulkTimeout()), answer);
            } catch (RuntimeException e) {
                answer.onFailure(e);
            }
        }

        private void record(BulkItemResponse[] items, List<Boolean> clears) {
            synchronized (ClusterWriter.this) {
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
                                item.getIndex(),
                                item.getId(),
                                "document [" + item.getId()
                                        + "] changed after it was read; run again to cluster its new version");
                    } else {
                        failure(
                                item.getIndex(),
                                item.getId(),
                                item.getFailure().getStatus().getStatus(),
                                item.getFailureMessage());
                        writesStopped = true;
                    }
                }
            }
        }

        /** A bulk answered: its slot goes to the bulk waiting for one, or, at the end, to {@link #finish}. */
        private void sent() {
            Runnable next;
            ActionListener<Void> all = null;
            Exception failure;
            synchronized (this) {
                next = waitingForSlot;
                waitingForSlot = null;
                if (next == null) {
                    inFlight--; // else the slot goes to the bulk waiting for it
                }
                if (next == null && inFlight == 0 && waitingForAll != null) {
                    all = waitingForAll;
                    waitingForAll = null;
                }
                failure = bulkFailure;
            }
            if (next != null) {
                next.run();
            } else if (all != null) {
                complete(all, failure);
            }
        }

        /** Sends what is left, then answers {@code done} once every bulk is answered; fails with a whole bulk's failure. */
        void finish(ActionListener<Void> done) {
            if (sendNowOr(() -> awaitAll(done))) {
                awaitAll(done);
            }
        }

        private void awaitAll(ActionListener<Void> done) {
            Exception failure;
            synchronized (this) {
                if (inFlight > 0) {
                    waitingForAll = done;
                    return;
                }
                failure = bulkFailure;
            }
            complete(done, failure);
        }

        private void complete(ActionListener<Void> done, Exception failure) {
            if (failure != null) {
                done.onFailure(failure);
            } else {
                done.onResponse(null);
            }
        }
    }
}
