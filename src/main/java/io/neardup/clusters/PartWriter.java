/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.PartitionedClusters;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.opensearch.action.bulk.BulkRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.core.action.ActionListener;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/**
 * The writes of one shard's documents, from the node that keeps the shard's part (docs/clusters.md section 8, step 4),
 * one bulk at each {@link PartStepAction.Step#WRITE}: first the assignments of the part's documents, cluster by
 * cluster, each conditional on the sequence number its members read found; then the shard's documents in no cluster
 * ({@link Assignments#others}: an earlier run's assignment cleared, or with {@code singletons} a cluster of one), paged
 * on the shard's copy here up to its newest operation when that pass began (the documents the pass writes come back
 * beyond it). The coordinating node asks for each bulk in turn, so that the run's throttle, {@code _rethrottle},
 * cancellation and counts stay with its task; the writer is the cursor between two asks. Not thread-safe: a shard's
 * bulks are asked for one at a time.
 */
final class PartWriter {

    /** The most pages of documents in no cluster one ask reads, so that a run of no-ops answers within its timeout. */
    static final int MAX_PAGES_AN_ASK = 10;

    /** The part of the shard here; null where no document of the shard has a near-duplicate. */
    private final ShardPart part;

    private final int number;
    private final ThreadPool threadPool;
    private final Client client;
    private final StepTimeouts timeouts;

    /** The part's documents, cluster by cluster; null until the first ask. */
    private List<String> order;

    private int nextMember;
    /** The newest operation of the shard when the pass over the documents in no cluster began; null before. */
    private Long newest;

    private Object[] after;
    private final ArrayDeque<SearchHit> pending = new ArrayDeque<>();
    private boolean othersRead;
    private boolean stopped;

    PartWriter(
            ShardPart part,
            int number,
            boolean writesOthers,
            ThreadPool threadPool,
            Client client,
            StepTimeouts timeouts) {
        this.part = part;
        this.othersRead = writesOthers == false;
        this.number = number;
        this.threadPool = threadPool;
        this.client = client;
        this.timeouts = timeouts;
    }

    /** Whether the shard has more to write after the last ask. */
    boolean more() {
        return stopped == false
                && (order == null || nextMember < order.size() || othersRead == false || pending.isEmpty() == false);
    }

    /** Writes the shard's next bulk (of up to {@code scroll_size} updates); {@code done} has what it did. */
    void nextBulk(PartStepAction.Request request, ActionListener<WriteOutcome> done) {
        if (order == null) {
            order = order();
        }
        Bulk bulk = new Bulk(request);
        while (nextMember < order.size() && bulk.full() == false && stopped == false) {
            addMember(request, order.get(nextMember++), bulk);
        }
        addOthers(request, bulk, 0, done);
    }

    /** The part's documents by their cluster, so that a cluster's members go in the same bulks. */
    private List<String> order() {
        if (part == null) {
            return List.of();
        }
        List<String> ids = new ArrayList<>(part.graph().nodeIds());
        part.charge((long) ids.size() * Long.BYTES);
        Comparator<PartitionedClusters.NodeRef<String>> byCluster =
                Comparator.comparingInt(PartitionedClusters.NodeRef::part);
        Comparator<String> order = Comparator.comparing(
                        (String id) -> part.graph().clusterOf(id),
                        byCluster.thenComparing(PartitionedClusters.NodeRef::id))
                .thenComparing(Comparator.naturalOrder());
        ids.sort(order);
        return ids;
    }

    private void addMember(PartStepAction.Request request, String id, Bulk bulk) {
        ClusterMembers.Member member = part.member(id);
        if (member.found() == false) {
            return;
        }
        String index = request.partIndex(number);
        PartitionedClusters.NodeRef<String> cluster = part.graph().clusterOf(id);
        Assignments.Plan plan = Assignments.ofMember(
                request.clusters(),
                request.spansIndices(),
                id,
                index,
                cluster.id(),
                request.partIndex(cluster.part()),
                part.graph().clusterSize(id),
                member.existing(),
                part.seenSeqNo(id),
                member.seqNo());
        switch (plan.kind()) {
            case NONE -> {}
            case NOOP -> bulk.outcome.noop();
            case CONFLICT -> {
                bulk.outcome.conflict(
                        index,
                        id,
                        Assignments.changedSinceFound(id),
                        request.clusters().abortOnVersionConflict());
                stopped = bulk.outcome.stopped();
            }
            case WRITE -> bulk.add(index, id, plan, member.seqNo(), member.primaryTerm());
        }
    }

    /**
     * Fills {@code bulk} from the documents in no cluster, a page at a time (after {@code pages} read by this ask), then
     * sends it.
     */
    private void addOthers(PartStepAction.Request request, Bulk bulk, int pages, ActionListener<WriteOutcome> done) {
        while (pending.isEmpty() == false && bulk.full() == false && stopped == false) {
            SearchHit hit = pending.poll();
            if (part != null && part.member(hit.getId()).found()) {
                continue;
            }
            Assignments.Plan plan = Assignments.ofOther(request.clusters(), request.spansIndices(), hit);
            if (plan.kind() == Assignments.Kind.NOOP) {
                bulk.outcome.noop();
            } else {
                bulk.add(hit.getIndex(), hit.getId(), plan, hit.getSeqNo(), hit.getPrimaryTerm());
            }
        }
        if (bulk.full() || stopped || nextMember < order.size() || othersRead || pages == MAX_PAGES_AN_ASK) {
            bulk.send(done);
            return;
        }
        String what = "a page of the documents in no cluster of part " + number;
        ActionListener<Void> paged =
                ActionListener.wrap(v -> addOthers(request, bulk, pages + 1, done), done::onFailure);
        if (newest == null) {
            search(
                    request,
                    RunContext.newestOperation(),
                    "the newest operation of part " + number,
                    ActionListener.wrap(
                            response -> {
                                newest = RunContext.newestOperation(response);
                                readPage(request, what, paged);
                            },
                            done::onFailure));
        } else {
            readPage(request, what, paged);
        }
    }

    private void readPage(PartStepAction.Request request, String what, ActionListener<Void> paged) {
        NearDupClustersRequest clusters = request.clusters();
        search(
                request,
                RunContext.page(
                        Assignments.others(clusters, newest),
                        new String[] {clusters.targetField()},
                        clusters.scrollSize(),
                        after),
                what,
                ActionListener.map(paged, response -> {
                    SearchHit[] hits = response.getHits().getHits();
                    if (hits.length == 0) {
                        othersRead = true;
                    } else {
                        after = hits[hits.length - 1].getSortValues();
                        pending.addAll(Arrays.asList(hits));
                    }
                    return null;
                }));
    }

    /** A search of this shard's copy here, as the run's user. */
    private void search(
            PartStepAction.Request request,
            SearchSourceBuilder source,
            String what,
            ActionListener<SearchResponse> listener) {
        client.search(request.searchOfPart(number, source), ClusterSteps.step(threadPool, timeouts, what, listener));
    }

    /** One ask's bulk and what it did. */
    private final class Bulk {
        private final PartStepAction.Request request;
        private final BulkRequest bulk = new BulkRequest();
        private final List<Boolean> clears = new ArrayList<>();
        final WriteOutcome outcome = new WriteOutcome();

        Bulk(PartStepAction.Request request) {
            this.request = request;
        }

        boolean full() {
            return bulk.numberOfActions() >= request.clusters().scrollSize();
        }

        void add(String index, String id, Assignments.Plan plan, long seqNo, long primaryTerm) {
            bulk.add(Assignments.write(
                    request.clusters(), request.spansIndices(), index, id, plan.assignment(), seqNo, primaryTerm));
            clears.add(plan.clears());
        }

        /** Sends the bulk as the run's user (nothing once the writes must stop), and answers with what it did. */
        void send(ActionListener<WriteOutcome> done) {
            if (bulk.numberOfActions() == 0 || stopped) {
                done.onResponse(outcome);
                return;
            }
            bulk.timeout(request.clusters().bulkTimeout());
            bulk.setParentTask(request.run());
            client.bulk(
                    bulk,
                    ClusterSteps.step(
                            threadPool,
                            timeouts,
                            "a bulk of cluster assignments of part " + number,
                            ActionListener.map(done, response -> {
                                outcome.record(
                                        response.getItems(),
                                        clears,
                                        request.clusters().abortOnVersionConflict());
                                stopped = outcome.stopped();
                                return outcome;
                            })));
        }
    }
}
