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
 * whatever the number of clustered documents. The steps, each on every node before the next: links; the members read
 * and ranked; single-linkage rounds (or leader linkage's ranks and rounds) until a round sends nothing; the two size
 * steps; the report of the clusters each part owns, merged here.
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
                throw new IllegalStateException("shard " + indices.describeShard(part) + " had no started copy");
            }
            nodes.putIfAbsent(partNodes[part], part);
        }
    }

    void run(ActionListener<Result> done) {
        boolean leader = context.request().linkage() == NearDupClustersRequest.Linkage.LEADER;
        step(
                PartStepAction.Step.LINK,
                ActionListener.wrap(
                        linked -> step(
                                PartStepAction.Step.READ_MEMBERS,
                                ActionListener.wrap(
                                        ranked -> {
                                            ActionListener<Void> clustered =
                                                    ActionListener.wrap(v -> sizes(done), done::onFailure);
                                            if (leader) {
                                                step(
                                                        PartStepAction.Step.RANK,
                                                        ActionListener.wrap(
                                                                sent -> rounds(PartStepAction.Step.DECIDE, clustered),
                                                                done::onFailure));
                                            } else {
                                                rounds(PartStepAction.Step.LABEL, clustered);
                                            }
                                        },
                                        done::onFailure)),
                        done::onFailure));
    }

    /** Rounds of {@code step} until one sends nothing. */
    private void rounds(PartStepAction.Step step, ActionListener<Void> done) {
        if (context.task().isCancelled()) {
            done.onFailure(new IllegalStateException("cancelled"));
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
            return new OpenSearchStatusException(
                    "node [" + node + "], which kept part of the run's graph, left or lost its copies during the run;"
                            + " run it again",
                    RestStatus.SERVICE_UNAVAILABLE,
                    e);
        }
        return e;
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
            int through = node.getValue();
            PartStepAction.Request request = new PartStepAction.Request(
                    partIndices[through],
                    partShards[through],
                    run,
                    step,
                    number,
                    node.getKey(),
                    partNodes,
                    partIndices,
                    partShards,
                    partOrdinals,
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
                                                all.onResponse(answer);
                                            },
                                            e -> all.onFailure(lost(node.getKey(), e)))));
        }
    }
}
