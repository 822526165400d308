/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.GraphPart;
import io.neardup.core.PartitionedClusters;
import io.neardup.match.NodeRunBreakers;
import io.neardup.match.OneShardAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.search.SearchHit;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;
import org.opensearch.transport.client.Client;

/**
 * A step of the clustering on the parts of a run's graph this node keeps (docs/clusters.md section 8), on the plugin's
 * pool: the messages the parts got in the step before go in, then each part makes this step's messages, which go to
 * the nodes that keep their parts ({@link PartMessagesAction}); the step answers once they are all there, so that the
 * run's next step finds every message in place. Reading the members searches each part's own shard here, as the user
 * who runs the clusters.
 */
public final class TransportPartStepAction extends OneShardAction<PartStepAction.Request, PartStepAction.Response> {

    private final RunParts runParts;
    private final NodeRunBreakers runBreakers;
    private final Client client;
    private final StepTimeouts timeouts;

    /**
     * The most documents one step of a run's members read reads on a node (in chunks of
     * {@link ClusterMembers#MEMBER_CHUNK}); the run sends the step again while a part has more, so that each answers well
     * within its step timeout however many documents a node's parts hold.
     */
    public static final Setting<Integer> MEMBERS_A_STEP = Setting.intSetting(
            "neardup.clusters.members_per_step", 50_000, ClusterMembers.MEMBER_CHUNK, Setting.Property.NodeScope);

    private final int memberChunksAStep;

    @Inject
    public TransportPartStepAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            RunParts runParts,
            NodeRunBreakers runBreakers,
            Client client,
            StepTimeouts timeouts,
            Settings settings) {
        super(
                PartStepAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                PartStepAction.Request::new,
                PartStepAction.Response::new,
                ClusterSteps.EXECUTOR);
        this.runParts = runParts;
        this.runBreakers = runBreakers;
        this.client = client;
        this.timeouts = timeouts;
        this.memberChunksAStep = MEMBERS_A_STEP.get(settings) / ClusterMembers.MEMBER_CHUNK;
    }

    @Override
    protected void asyncShardOperation(
            PartStepAction.Request request, ShardId shardId, ActionListener<PartStepAction.Response> listener) {
        ClusterSteps.fork(threadPool, listener, answer -> step(request, shardId, answer));
    }

    @Override
    protected PartStepAction.Response shardOperation(PartStepAction.Request request, ShardId shardId) {
        throw new UnsupportedOperationException("a part step answers through asyncShardOperation");
    }

    private void step(
            PartStepAction.Request request, ShardId shardId, ActionListener<PartStepAction.Response> listener) {
        request.ensureOnPreferredNode(
                clusterService.localNode().getId(), shardId, "the parts of run [" + request.run() + "]");
        NodeRunBreakers.Request charges = runBreakers.open(request.run());
        ActionListener<PartStepAction.Response> closing = ActionListener.runAfter(listener, charges::close);
        try {
            RunParts.Run run = runParts.run(request.run(), charges.breaker());
            if (run == null) {
                throw new IllegalStateException("run [" + request.run() + "] has ended");
            }
            boolean leader = request.clusters().linkage() == NearDupClustersRequest.Linkage.LEADER;
            for (Map.Entry<Integer, List<Object>> got :
                    run.takeInbox(request.sequence() - 1).entrySet()) {
                receive(run.part(got.getKey(), leader), got.getValue());
            }
            List<ShardPart> parts = new ArrayList<>(run.parts.values());
            switch (request.step()) {
                case READ_MEMBERS -> {
                    run.order.set(new RepresentativeOrder(request.clusters()));
                    AtomicInteger chunksLeft = new AtomicInteger(memberChunksAStep);
                    ClusterSteps.inTurn(
                            threadPool,
                            parts.size(),
                            () -> chunksLeft.get() <= 0,
                            (i, next) -> readMembers(request, parts.get(i), chunksLeft, next),
                            ActionListener.map(
                                    closing,
                                    v -> new PartStepAction.Response(
                                            charges.nodeBytes(),
                                            null,
                                            parts.stream().anyMatch(ShardPart::membersLeft))));
                }
                case REPORT -> closing.onResponse(report(parts, charges));
                case WRITE -> {
                    int number = partOf(request, shardId);
                    PartWriter writer = run.writers.computeIfAbsent(
                            number,
                            n -> new PartWriter(
                                    run.parts.get(n),
                                    n,
                                    Assignments.writesOthers(request.clusters()),
                                    threadPool,
                                    client,
                                    timeouts));
                    writer.nextBulk(
                            request,
                            ActionListener.map(
                                    closing,
                                    written ->
                                            new PartStepAction.Response(charges.nodeBytes(), written, writer.more())));
                }
                default -> send(request, run, parts, leader, charges, closing);
            }
        } catch (Exception e) {
            closing.onFailure(e);
        }
    }

    /** The run's number of the shard {@code shardId}. */
    private static int partOf(PartStepAction.Request request, ShardId shardId) {
        for (int part = 0; part < request.parts(); part++) {
            if (request.partShard(part) == shardId.id()
                    && request.partIndex(part).equals(shardId.getIndexName())) {
                return part;
            }
        }
        throw new IllegalArgumentException("shard " + shardId + " is not one of the run's");
    }

    @SuppressWarnings("unchecked")
    private static void receive(ShardPart part, List<Object> messages) {
        GraphPart<String, RankKey> graph = part.graph();
        switch (PartMessages.kindOf(messages.get(0))) {
            case LINK -> {
                // Each link adds at most a node and an edge to another part: charged before, the rest given back.
                long bound = 0;
                for (Object message : messages) {
                    bound += PartitionedClusters.BYTES_PER_NODE
                            + PartitionedClusters.BYTES_PER_CROSS_EDGE
                            + 2L
                                    * ((PartitionedClusters.Link<String>) message)
                                            .to()
                                            .length();
                }
                part.charge(bound);
                int nodes = graph.nodeCount();
                int cross = graph.crossEdgeCount();
                graph.receiveLinks((List<PartitionedClusters.Link<String>>) (List<?>) messages);
                long used =
                        (graph.nodeCount() - nodes) * (PartitionedClusters.BYTES_PER_NODE + 2L * longestId(messages))
                                + (graph.crossEdgeCount() - cross) * (long) PartitionedClusters.BYTES_PER_CROSS_EDGE;
                part.giveBack(Math.max(0, bound - used));
            }
            case LABEL -> graph.receiveLabels((List<PartitionedClusters.Label<String, RankKey>>) (List<?>) messages);
            case RANK -> graph.receiveRanks((List<PartitionedClusters.RankOf<String, RankKey>>) (List<?>) messages);
            case DECISION -> graph.receiveDecisions((List<PartitionedClusters.Decision<String>>) (List<?>) messages);
            case SIZE_COUNT ->
                graph.receiveSizeCounts((List<PartitionedClusters.SizeCount<String>>) (List<?>) messages);
            case SIZE_TOTAL ->
                graph.receiveSizeTotals((List<PartitionedClusters.SizeTotal<String>>) (List<?>) messages);
            case SEEN -> part.receiveSeen((List<PartMessages.Seen>) (List<?>) messages);
        }
    }

    @SuppressWarnings("unchecked")
    private static long longestId(List<Object> links) {
        long longest = 0;
        for (Object link : links) {
            longest = Math.max(
                    longest, ((PartitionedClusters.Link<String>) link).to().length());
        }
        return longest;
    }

    /** This step's messages of every part here, to the nodes that keep the parts they are for. */
    private void send(
            PartStepAction.Request request,
            RunParts.Run run,
            List<ShardPart> parts,
            boolean leader,
            NodeRunBreakers.Request charges,
            ActionListener<PartStepAction.Response> listener) {
        Map<Integer, List<Object>> byPart = new LinkedHashMap<>();
        PartMessages.Kind kind = null;
        for (ShardPart part : parts) {
            GraphPart<String, RankKey> graph = part.graph();
            Map<Integer, ? extends List<?>> out = switch (request.step()) {
                case LINK -> graph.linkMessages();
                case SEEN -> part.seenMessages();
                case LABEL -> graph.labelMessages();
                case RANK -> graph.rankMessages();
                case DECIDE -> graph.decisionMessages();
                case COUNT_SIZES -> graph.sizeCounts(leader);
                case TOTAL_SIZES -> graph.sizeTotals();
                default -> throw new IllegalStateException("no messages in step " + request.step());
            };
            for (Map.Entry<Integer, ? extends List<?>> entry : out.entrySet()) {
                if (entry.getValue().isEmpty() == false) {
                    kind = PartMessages.kindOf(entry.getValue().get(0));
                    byPart.computeIfAbsent(entry.getKey(), p -> new ArrayList<>())
                            .addAll(entry.getValue());
                }
            }
        }
        Map<String, Map<Integer, List<Object>>> byNode = new LinkedHashMap<>();
        long sent = 0;
        for (Map.Entry<Integer, List<Object>> entry : byPart.entrySet()) {
            byNode.computeIfAbsent(request.partNode(entry.getKey()), n -> new LinkedHashMap<>())
                    .put(entry.getKey(), entry.getValue());
            sent += entry.getValue().size();
        }
        long messages = sent;
        if (byNode.isEmpty()) {
            listener.onResponse(answer(0, charges));
            return;
        }
        GroupedActionListener<PartMessagesAction.Response> delivered = new GroupedActionListener<>(
                ActionListener.map(listener, all -> answer(messages, charges)), byNode.size());
        for (Map.Entry<String, Map<Integer, List<Object>>> toNode : byNode.entrySet()) {
            PartMessages batch = new PartMessages(request.sequence(), kind, toNode.getValue());
            if (toNode.getKey().equals(request.node())) {
                run.deliver(batch);
                delivered.onResponse(new PartMessagesAction.Response());
                continue;
            }
            int through = toNode.getValue().keySet().iterator().next();
            PartMessagesAction.Request deliver = new PartMessagesAction.Request(
                    request.partIndex(through), request.partShard(through), request.run(), toNode.getKey(), batch);
            deliver.setParentTask(request.run());
            client.execute(
                    PartMessagesAction.INSTANCE,
                    deliver,
                    ClusterSteps.step(
                            threadPool,
                            timeouts,
                            "delivering " + batch.size() + " messages to node [" + toNode.getKey() + "]",
                            delivered));
        }
    }

    /**
     * Reads the next chunks of a part's documents on its shard's copy here, and ranks them, while {@code chunksLeft} (this
     * step's, shared by the parts here) lasts.
     */
    private void readMembers(
            PartStepAction.Request request, ShardPart part, AtomicInteger chunksLeft, ActionListener<Void> done) {
        int number = part.graph().number();
        List<String> ids = part.graph().nodeIds();
        int first = part.memberChunksRead();
        ClusterSteps.inTurn(
                threadPool,
                ShardPart.memberChunks(ids.size()) - first,
                () -> chunksLeft.get() <= 0,
                (i, next) -> {
                    int chunk = first + i;
                    chunksLeft.decrementAndGet();
                    List<String> chunkIds = ids.subList(
                            chunk * ClusterMembers.MEMBER_CHUNK,
                            Math.min(ids.size(), (chunk + 1) * ClusterMembers.MEMBER_CHUNK));
                    readChunk(
                            request,
                            part,
                            number,
                            chunkIds,
                            ActionListener.wrap(
                                    v -> {
                                        part.memberChunkRead();
                                        next.onResponse(null);
                                    },
                                    next::onFailure));
                },
                done);
    }

    private void readChunk(
            PartStepAction.Request request, ShardPart part, int number, List<String> ids, ActionListener<Void> done) {
        NearDupClustersRequest clusters = request.clusters();
        String index = request.partIndex(number);
        SearchRequest search = request.searchOfPart(
                number,
                ClusterMembers.memberSearch(clusters, QueryBuilders.idsQuery().addIds(ids.toArray(String[]::new)))
                        .size(ids.size()));
        client.search(
                search,
                ClusterSteps.step(
                        threadPool,
                        timeouts,
                        "reading the members of part " + number,
                        ActionListener.wrap(
                                response -> {
                                    part.charge(ids.size() * ClusterMembers.bytesPerMember(clusters));
                                    int ordinal = request.partOrdinal(number);
                                    Set<String> found = new HashSet<>();
                                    GraphPart<String, RankKey> graph = part.graph();
                                    for (SearchHit hit : response.getHits().getHits()) {
                                        ClusterMembers.Member member = ClusterMembers.member(clusters, hit);
                                        found.add(hit.getId());
                                        if (clusters.dryRun() == false) {
                                            part.member(hit.getId(), member);
                                        }
                                        graph.rank(
                                                hit.getId(),
                                                new RankKey(
                                                        true,
                                                        member.wasRepresentativeOf(index, hit.getId()),
                                                        member.sortValues(),
                                                        hit.getId(),
                                                        ordinal),
                                                true);
                                    }
                                    for (String id : ids) {
                                        if (found.contains(id) == false) {
                                            graph.rank(
                                                    id, new RankKey(false, false, new Object[0], id, ordinal), false);
                                        }
                                    }
                                    done.onResponse(null);
                                },
                                done::onFailure)));
    }

    private static PartStepAction.Response report(List<ShardPart> parts, NodeRunBreakers.Request charges) {
        List<long[]> histograms = new ArrayList<>();
        List<PartStepAction.OwnedCluster> largest = new ArrayList<>();
        long clusters = 0;
        long clustered = 0;
        for (ShardPart part : parts) {
            GraphPart<String, RankKey> graph = part.graph();
            histograms.add(graph.sizeHistogram());
            for (PartitionedClusters.ClusterSize<String> cluster :
                    graph.largest(ClusterJob.LARGEST_REPORTED, String::compareTo)) {
                largest.add(new PartStepAction.OwnedCluster(graph.number(), cluster.id(), cluster.size()));
            }
            for (long size : graph.ownedClusterSizes().values()) {
                if (size >= 2) {
                    clusters++;
                    clustered += size;
                }
            }
        }
        return new PartStepAction.Response(
                0,
                charges.nodeBytes(),
                histograms.isEmpty() ? new long[0] : PartitionedClusters.addHistograms(histograms),
                largest,
                clusters,
                clustered);
    }

    private static PartStepAction.Response answer(long sent, NodeRunBreakers.Request charges) {
        return new PartStepAction.Response(sent, charges.nodeBytes(), new long[0], List.of(), 0, 0);
    }
}
