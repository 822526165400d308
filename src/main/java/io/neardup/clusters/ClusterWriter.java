/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.core.action.ActionListener;
import org.opensearch.search.SearchHit;

/**
 * What a run's writes did, added up ({@link #add}), wherever they were sent from; and the write phase of a run with a
 * {@code query}, whose graph is on the coordinating node: partial updates by cluster, each conditional on the sequence number read
 * (a document changed meanwhile is reported as a version conflict, never overwritten), then one pass
 * that clears (or, with {@code singletons}, sets) the documents that are in no cluster. Bulks of
 * {@code scroll_size}, up to {@code slices} in flight, spaced by the run's {@link WriteThrottle}.
 * A write failure (or a version conflict with {@code conflicts=abort}) stops further writes, as
 * {@code _update_by_query} does.
 */
final class ClusterWriter {

    private final RunContext context;
    private final NearDupClustersRequest request;
    private final NearDupClustersTask task;
    private final MatchGraph graph;
    private final ClusterMembers members;
    /** What the run's writes did, added up (the task's counts are added to as they come). */
    private final WriteOutcome total = new WriteOutcome();

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
        return total.cleared();
    }

    synchronized List<NearDupClustersResponse.Failure> failures() {
        return List.copyOf(total.failures());
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
        Assignments.Plan plan = Assignments.ofMember(
                request,
                context.indices().spansIndices(),
                id,
                index,
                graph.id(rep[n]),
                context.indices().name(graph.ordinal(rep[n])),
                size[rep[n]],
                member.existing(),
                graph.seenSeqNo(n),
                member.seqNo());
        switch (plan.kind()) {
            case NONE -> {}
            case NOOP -> task.noops.incrementAndGet();
            case CONFLICT -> {
                WriteOutcome conflict = new WriteOutcome();
                conflict.conflict(index, id, Assignments.changedSinceFound(id), request.abortOnVersionConflict());
                add(conflict);
            }
            case WRITE -> bulks.add(index, id, plan.assignment(), member.seqNo(), member.primaryTerm());
        }
    }

    /**
     * The documents outside the graph (no near-duplicate found): with {@code singletons}, each
     * becomes a cluster of one; otherwise an assignment left by an earlier run is cleared.
     */
    void writeOthers(ActionListener<Void> done) {
        if (Assignments.writesOthers(request) == false) {
            done.onResponse(null);
            return;
        }
        Bulks bulks = new Bulks();
        ClusterSteps.inTurn(
                context.threadPool(),
                context.shards(),
                () -> task.isCancelled() || writesStopped,
                (shard, next) -> writeOthersOf(shard, bulks, next),
                ActionListener.wrap(v -> bulks.finish(done), done::onFailure));
    }

    /** One shard's documents in no cluster, up to its newest operation now ({@link Assignments#others}). */
    private void writeOthersOf(int shard, Bulks bulks, ActionListener<Void> next) {
        context.maxSeqNo(
                shard,
                ActionListener.wrap(
                        newest -> {
                            context.forEachPage(
                                    shard,
                                    Assignments.others(request, newest),
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
            Assignments.Plan plan =
                    Assignments.ofOther(request, context.indices().spansIndices(), hit);
            if (plan.kind() == Assignments.Kind.NOOP) {
                task.noops.incrementAndGet();
            } else {
                bulks.add(hit.getIndex(), hit.getId(), plan.assignment(), hit.getSeqNo(), hit.getPrimaryTerm());
            }
        }
    }

    /** Adds what some writes did to the run's counts, failures and cleared documents; stops the writes if it says so. */
    synchronized void add(WriteOutcome outcome) {
        task.updated.addAndGet(outcome.updated());
        task.noops.addAndGet(outcome.noops());
        task.versionConflicts.addAndGet(outcome.conflicts());
        total.add(outcome);
        if (outcome.stopped()) {
            writesStopped = true;
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

        void add(String index, String id, Map<String, Object> assignment, long seqNo, long primaryTerm) {
            bulk.add(Assignments.write(
                    request, context.indices().spansIndices(), index, id, assignment, seqNo, primaryTerm));
            clearing.add(assignment == null);
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
            WriteOutcome outcome = new WriteOutcome();
            outcome.record(items, clears, request.abortOnVersionConflict());
            ClusterWriter.this.add(outcome);
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
