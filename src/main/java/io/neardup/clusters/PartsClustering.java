/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.PartitionedClusters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.opensearch.ExceptionsHelper;
import org.opensearch.OpenSearchStatusException;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.action.support.TransportActions;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.node.NodeClosedException;
import org.opensearch.transport.ConnectTransportException;

/**
 * The clustering of a run whose graph is in parts on the data nodes (docs/clusters.md section 8): the coordinating
 * node only sends each step to the nodes that keep parts and counts what they sent, so it holds O(nodes + shards),
 * whatever the number of clustered documents. With a {@code query}, it scans first: each shard's pages from its part's
 * node ({@link #scan}). The steps, each on every node before the next: the parts built (links, the members read and
 * ranked; with a {@code query} in waves, {@link #wave}); with writes, the sequence numbers seen; single-linkage rounds
 * (or leader linkage's ranks and rounds) until a round sends nothing; the two size steps; the report of the clusters
 * each part owns, merged here.
 */
final class PartsClustering {

    /** What the run reports of its clusters. */
    record Result(
            long clusters, long clusteredDocuments, long[] histogram, List<NearDupClustersResponse.Cluster> largest) {}

    private final RunContext context;
    private final TaskId run;
    private final String[] partNodes;
    private final String[] partIndices;
    private final int[] partShards;
    private final int[] partOrdinals;
    /** The nodes that keep parts, each with the run's number of one shard whose copy there the steps go through. */
    private final Map<String, Integer> nodes = new LinkedHashMap<>();

    /** The number of the last step sent. */
    private int sequence;

    /** Set when a shard's writes fail (its node lost, say), so that the other shards' stop at their next bulk. */
    private volatile boolean writeFailed;
    /** Set when a shard's scan fails, so that the other shards' stop at their next page. */
    private volatile boolean scanFailed;

    /** @param partNodes the node that keeps each part (by the run's shard number) */
    PartsClustering(RunContext context, TaskId run, String[] partNodes) {
        this.context = context;
        this.run = run;
        this.partNodes = partNodes;
        RunIndices indices = context.indices();
        partIndices = new String[indices.shards()];
        partShards = new int[indices.shards()];
        partOrdinals = new int[indices.shards()];
        for (int part = 0; part < indices.shards(); part++) {
            partIndices[part] = indices.indexOfShard(part);
            partShards[part] = indices.shardInIndex(part);
            partOrdinals[part] = indices.ordinalOfShard(part);
            if (partNodes[part] == null) {
                throw new OpenSearchStatusException(
                        "shard " + indices.describeShard(part) + " has no started copy; run again once it has one",
                        RestStatus.SERVICE_UNAVAILABLE);
            }
            nodes.putIfAbsent(partNodes[part], part);
        }
    }

    /**
     * A run with a {@code query}: each shard's documents the query matches, matched from the node that keeps its part
     * ({@link PartQueryScan}), a page at each ask, {@code slices} shards at a time; none is asked once {@code stopped}
     * says so. The task counts what each page read.
     */
    void scan(BooleanSupplier stopped, ActionListener<Void> done) {
        BooleanSupplier scanStopped = () -> scanFailed || stopped.getAsBoolean();
        ClusterSteps.inLanes(
                context.threadPool(),
                partNodes.length,
                context.slices(),
                scanStopped,
                (shard, next) -> scanShard(shard, scanStopped, ActionListener.wrap(next::onResponse, e -> {
                    scanFailed = true;
                    next.onFailure(e);
                })),
                done);
    }

    private void scanShard(int shard, BooleanSupplier stopped, ActionListener<Void> next) {
        if (stopped.getAsBoolean()) {
            next.onResponse(null);
            return;
        }
        sendThrough(
                shard,
                PartStepAction.Step.SCAN,
                0,
                ActionListener.wrap(
                        answer -> {
                            NearDupClustersTask task = context.task();
                            task.scanned.addAndGet(answer.scanned().scanned());
                            task.noFingerprint.addAndGet(answer.scanned().noFingerprint());
                            task.matches.addAndGet(answer.scanned().pairs());
                            if (answer.more()) {
                                scanShard(shard, stopped, next);
                            } else {
                                next.onResponse(null);
                            }
                        },
                        next::onFailure));
    }

    void run(ActionListener<Result> done) {
        ActionListener<Long> built = ActionListener.wrap(sent -> cluster(done), done::onFailure);
        wave(ActionListener.wrap(
                v -> {
                    if (context.request().dryRun()) {
                        built.onResponse(0L);
                    } else {
                        // A run with writes checks each document against every sequence number a pair saw it at:
                        // the parts that kept a pair with another part's document tell that part.
                        step(PartStepAction.Step.SEEN, built);
                    }
                },
                done::onFailure));
    }

    /**
     * Builds the parts: the links, then the members read (some chunks a step, until no node has more). A run with a
     * {@code query} goes on in waves, as the coordinating node's members read does: the members of the earlier clusters
     * its documents met, which the query does not match, are searched and added to their parts, and keep their
     * cluster, which adds kept assignments, links and members to read in turn; the waves end when one finds, links,
     * reads and tells nothing.
     */
    private void wave(ActionListener<Void> built) {
        if (failedIfCancelled(built)) {
            return;
        }
        boolean earlierClusters = context.request().query() != null;
        AtomicLong done = new AtomicLong();
        ActionListener<Long> told = ActionListener.wrap(
                sent -> {
                    if (done.addAndGet(sent) > 0 && earlierClusters) {
                        wave(built);
                    } else {
                        built.onResponse(null);
                    }
                },
                built::onFailure);
        ActionListener<Long> read = ActionListener.wrap(
                count -> {
                    done.addAndGet(count);
                    if (earlierClusters) {
                        step(PartStepAction.Step.TELL_EARLIER_CLUSTERS, told);
                    } else {
                        told.onResponse(0L);
                    }
                },
                built::onFailure);
        ActionListener<Long> searched = ActionListener.wrap(
                added -> {
                    done.addAndGet(added);
                    step(
                            PartStepAction.Step.LINK,
                            ActionListener.wrap(
                                    sent -> {
                                        done.addAndGet(sent);
                                        untilDone(PartStepAction.Step.READ_MEMBERS, 0, read);
                                    },
                                    built::onFailure));
                },
                built::onFailure);
        if (earlierClusters) {
            untilDone(PartStepAction.Step.SEARCH_EARLIER_CLUSTERS, 0, searched);
        } else {
            searched.onResponse(0L);
        }
    }

    /** {@code step} on every node, again while one has more; {@code done} gets what they did in all. */
    private void untilDone(PartStepAction.Step step, long before, ActionListener<Long> done) {
        send(
                step,
                ActionListener.wrap(
                        answers -> {
                            long total = before;
                            for (PartStepAction.Response answer : answers) {
                                total += answer.sent();
                            }
                            if (answers.stream().anyMatch(PartStepAction.Response::more)) {
                                if (failedIfCancelled(done) == false) {
                                    untilDone(step, total, done);
                                }
                            } else {
                                done.onResponse(total);
                            }
                        },
                        done::onFailure));
    }

    /** The clustering rounds, then the sizes and the report. */
    private void cluster(ActionListener<Result> done) {
        ActionListener<Void> clustered = ActionListener.wrap(v -> sizes(done), done::onFailure);
        if (context.request().linkage() == NearDupClustersRequest.Linkage.LEADER) {
            step(
                    PartStepAction.Step.RANK,
                    ActionListener.wrap(sent -> rounds(PartStepAction.Step.DECIDE, clustered), done::onFailure));
        } else {
            rounds(PartStepAction.Step.LABEL, clustered);
        }
    }

    /** Rounds of {@code step} until one sends nothing. */
    private void rounds(PartStepAction.Step step, ActionListener<Void> done) {
        if (failedIfCancelled(done)) {
            return;
        }
        step(
                step,
                ActionListener.wrap(
                        sent -> {
                            if (sent == 0) {
                                done.onResponse(null);
                            } else {
                                rounds(step, done);
                            }
                        },
                        done::onFailure));
    }

    /**
     * Between two steps of a cancelled run: fails {@code done} (the run then answers as cancelled, {@link ClusterJob})
     * and says so.
     */
    private boolean failedIfCancelled(ActionListener<?> done) {
        if (context.task().isCancelled()) {
            done.onFailure(new IllegalStateException("cancelled"));
            return true;
        }
        return false;
    }

    private void sizes(ActionListener<Result> done) {
        step(
                PartStepAction.Step.COUNT_SIZES,
                ActionListener.wrap(
                        counted -> step(
                                PartStepAction.Step.TOTAL_SIZES,
                                ActionListener.wrap(totalled -> report(done), done::onFailure)),
                        done::onFailure));
    }

    private void report(ActionListener<Result> done) {
        send(
                PartStepAction.Step.REPORT,
                ActionListener.wrap(
                        answers -> {
                            long clusters = 0;
                            long clustered = 0;
                            List<long[]> histograms = new ArrayList<>();
                            List<NearDupClustersResponse.Cluster> largest = new ArrayList<>();
                            RunIndices indices = context.indices();
                            for (PartStepAction.Response answer : answers) {
                                clusters += answer.clusters();
                                clustered += answer.clusteredDocuments();
                                histograms.add(answer.histogram());
                                for (PartStepAction.OwnedCluster cluster : answer.largest()) {
                                    largest.add(new NearDupClustersResponse.Cluster(
                                            cluster.id(),
                                            indices.spansIndices() ? indices.indexOfShard(cluster.part()) : null,
                                            (int) cluster.size()));
                                }
                            }
                            largest.sort(Comparator.comparingInt(NearDupClustersResponse.Cluster::size)
                                    .reversed()
                                    .thenComparing(NearDupClustersResponse.Cluster::id)
                                    .thenComparing(
                                            NearDupClustersResponse.Cluster::index,
                                            Comparator.nullsFirst(Comparator.naturalOrder())));
                            done.onResponse(new Result(
                                    clusters,
                                    clustered,
                                    PartitionedClusters.addHistograms(histograms),
                                    List.copyOf(largest.subList(
                                            0, Math.min(ClusterJob.LARGEST_REPORTED, largest.size())))));
                        },
                        done::onFailure));
    }

    /**
     * A step's failure; where the node that keeps parts is gone (or its copies moved), a 503 that says so: another
     * copy cannot stand in for the part, which was only on that node.
     */
    private static Exception lost(String node, Exception e) {
        Throwable cause = ExceptionsHelper.unwrapCause(e);
        if (TransportActions.isShardNotAvailableException(cause)
                || cause instanceof ConnectTransportException
                || cause instanceof NodeClosedException) {
            return new PartLostException(node, e);
        }
        return e;
    }

    /** A node that keeps parts of the run's graph is gone, or its copies moved: a 503. */
    private static final class PartLostException extends OpenSearchStatusException {
        PartLostException(String node, Exception cause) {
            super(
                    "node [" + node + "], which kept part of the run's graph, left or lost its copies during the run;"
                            + " run it again",
                    RestStatus.SERVICE_UNAVAILABLE,
                    cause);
        }
    }

    /** One step on every node that keeps parts; {@code sent} gets the messages they sent in all. */
    private void step(PartStepAction.Step step, ActionListener<Long> sent) {
        send(step, ActionListener.map(sent, answers -> {
            long total = 0;
            for (PartStepAction.Response answer : answers) {
                total += answer.sent();
            }
            return total;
        }));
    }

    private void send(PartStepAction.Step step, ActionListener<List<PartStepAction.Response>> answered) {
        int number = ++sequence;
        GroupedActionListener<PartStepAction.Response> all =
                new GroupedActionListener<>(ActionListener.map(answered, List::copyOf), nodes.size());
        for (Map.Entry<String, Integer> node : nodes.entrySet()) {
            sendThrough(node.getValue(), step, number, all);
        }
    }

    /** {@code step} to the node that keeps part {@code through}, addressed through that part's shard. */
    private void sendThrough(
            int through, PartStepAction.Step step, int number, ActionListener<PartStepAction.Response> answered) {
        String node = partNodes[through];
        PartStepAction.Request request = new PartStepAction.Request(
                partIndices[through],
                partShards[through],
                run,
                step,
                number,
                node,
                partNodes,
                partIndices,
                partShards,
                partOrdinals,
                context.indices().spansIndices(),
                context.request());
        context.client()
                .execute(
                        PartStepAction.INSTANCE,
                        request,
                        context.step(
                                request.getDescription(),
                                ActionListener.wrap(
                                        answer -> {
                                            context.task().dataNodeHeld(answer.nodeBytes());
                                            answered.onResponse(answer);
                                        },
                                        e -> answered.onFailure(lost(node, e)))));
    }

    /**
     * The writes, after the clustering: each shard's from the node that keeps its part ({@link PartWriter}), a bulk at
     * each ask, {@code slices} shards at a time; each ask waits for the run's throttle (the bulk before counted), and
     * none is sent once the run is cancelled, {@code writer} says the writes stopped or a shard's writes failed.
     * {@code writer} adds up what they did.
     */
    void write(ClusterWriter writer, ActionListener<Void> done) {
        ClusterSteps.inLanes(
                context.threadPool(),
                partNodes.length,
                context.slices(),
                () -> writesStopped(writer),
                (shard, next) -> writeShard(shard, 0, writer, ActionListener.wrap(next::onResponse, e -> {
                    writeFailed = true;
                    if (e instanceof PartLostException lost) {
                        // As a bulk's items to a lost shard are: a failure of the writes, reported with what was
                        // written.
                        WriteOutcome failed = new WriteOutcome();
                        failed.shardFailed(
                                partIndices[shard],
                                lost.status().getStatus(),
                                lost.getMessage() + "; shard "
                                        + context.indices().describeShard(shard) + " was not written to the end");
                        writer.add(failed);
                        next.onResponse(null);
                    } else {
                        next.onFailure(e);
                    }
                })),
                done);
    }

    private boolean writesStopped(ClusterWriter writer) {
        return context.task().isCancelled() || writer.writesStopped() || writeFailed;
    }

    /** Asks for shard {@code shard}'s next bulk once the throttle allows it after the {@code sent} updates before. */
    private void writeShard(int shard, long sent, ClusterWriter writer, ActionListener<Void> next) {
        Runnable ask = () -> {
            if (writesStopped(writer)) {
                next.onResponse(null);
                return;
            }
            sendThrough(
                    shard,
                    PartStepAction.Step.WRITE,
                    0,
                    ActionListener.wrap(
                            answer -> {
                                writer.add(answer.written());
                                if (answer.more()) {
                                    writeShard(shard, answer.written().sent(), writer, next);
                                } else {
                                    next.onResponse(null);
                                }
                            },
                            next::onFailure));
        };
        if (context.throttle().runWhenAllowed(Math.toIntExact(sent), ask)) {
            ask.run();
        }
    }
}
