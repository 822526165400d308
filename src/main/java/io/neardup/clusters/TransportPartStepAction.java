/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.GraphPart;
import io.neardup.core.PartitionedClusters;
import io.neardup.match.ClusterAssignment;
import io.neardup.match.NodeRunBreakers;
import io.neardup.match.OneShardAction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.routing.OperationRouting;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.index.query.QueryBuilder;
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
            RunParts.Run run = runParts.run(request.run());
            if (run == null) {
                throw new IllegalStateException("run [" + request.run() + "] has ended");
            }
            boolean leader = request.clusters().linkage() == NearDupClustersRequest.Linkage.LEADER;
            for (Map.Entry<Integer, List<Object>> got :
                    run.takeInbox(request.sequence() - 1).entrySet()) {
                if (PartMessages.kindOf(got.getValue().get(0)) == PartMessages.Kind.EARLIER_CLUSTER) {
                    for (Object told : got.getValue()) {
                        run.earlierClusters.told(((PartMessages.EarlierCluster) told).id());
                    }
                } else {
                    receive(run.part(got.getKey(), leader), got.getValue());
                }
            }
            List<ShardPart> parts = new ArrayList<>(run.parts.values());
            switch (request.step()) {
                case SCAN -> {
                    PartQueryScan scan = run.scans.computeIfAbsent(
                            partOf(request, shardId), n -> new PartQueryScan(n, threadPool, client, timeouts));
                    scan.nextPage(
                            request,
                            run,
                            charges,
                            ActionListener.map(
                                    closing,
                                    scanned -> new PartStepAction.Response(
                                            0, charges.nodeBytes(), scanned, null, scan.more())));
                }
                case SEARCH_EARLIER_CLUSTERS -> {
                    AtomicInteger pagesLeft = new AtomicInteger(memberChunksAStep);
                    AtomicLong added = new AtomicLong();
                    searchEarlierClusters(
                            request,
                            run,
                            localParts(request),
                            pagesLeft,
                            added,
                            ActionListener.map(
                                    closing,
                                    v -> new PartStepAction.Response(
                                            added.get(),
                                            charges.nodeBytes(),
                                            null,
                                            null,
                                            run.earlierClusters.searchLeft())));
                }
                case READ_MEMBERS -> {
                    run.order.set(new RepresentativeOrder(request.clusters()));
                    AtomicInteger chunksLeft = new AtomicInteger(memberChunksAStep);
                    AtomicLong read = new AtomicLong();
                    ClusterSteps.inTurn(
                            threadPool,
                            parts.size(),
                            () -> chunksLeft.get() <= 0,
                            (i, next) -> readMembers(request, run, parts.get(i), chunksLeft, read, next),
                            ActionListener.map(
                                    closing,
                                    v -> new PartStepAction.Response(
                                            read.get(),
                                            charges.nodeBytes(),
                                            null,
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
                                    written -> new PartStepAction.Response(
                                            0, charges.nodeBytes(), null, written, writer.more())));
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
        Map<Integer, List<Object>> byPart = request.step() == PartStepAction.Step.TELL_EARLIER_CLUSTERS
                ? earlierClusterMessages(request, run)
                : partMessages(request, parts, leader);
        PartMessages.Kind kind = byPart.isEmpty()
                ? null
                : PartMessages.kindOf(byPart.values().iterator().next().get(0));
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

    /** This step's messages of every part here, by the part they are for (none empty). */
    private static Map<Integer, List<Object>> partMessages(
            PartStepAction.Request request, List<ShardPart> parts, boolean leader) {
        Map<Integer, List<Object>> byPart = new LinkedHashMap<>();
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
                    byPart.computeIfAbsent(entry.getKey(), p -> new ArrayList<>())
                            .addAll(entry.getValue());
                }
            }
        }
        return byPart;
    }

    /**
     * The earlier clusters met here first since the last such step, to every other node that keeps parts, each addressed
     * through the first part it keeps.
     */
    private static Map<Integer, List<Object>> earlierClusterMessages(PartStepAction.Request request, RunParts.Run run) {
        List<Object> told = new ArrayList<>();
        for (String cluster : run.earlierClusters.takeToTell()) {
            told.add(new PartMessages.EarlierCluster(cluster));
        }
        Map<Integer, List<Object>> byPart = new LinkedHashMap<>();
        if (told.isEmpty() == false) {
            Set<String> nodes = new HashSet<>();
            nodes.add(request.node());
            for (int part = 0; part < request.parts(); part++) {
                if (nodes.add(request.partNode(part))) {
                    byPart.put(part, told);
                }
            }
        }
        return byPart;
    }

    /**
     * Reads the next chunks of a part's documents not read yet on its shard's copy here, and ranks them, while
     * {@code chunksLeft} (this step's, shared by the parts here) lasts; {@code read} counts them.
     */
    private void readMembers(
            PartStepAction.Request request,
            RunParts.Run run,
            ShardPart part,
            AtomicInteger chunksLeft,
            AtomicLong read,
            ActionListener<Void> done) {
        if (chunksLeft.get() <= 0 || part.membersLeft() == false) {
            done.onResponse(null);
            return;
        }
        chunksLeft.decrementAndGet();
        List<String> ids = part.membersToRead(ClusterMembers.MEMBER_CHUNK);
        readChunk(
                request,
                run,
                part,
                ids,
                ActionListener.wrap(
                        v -> {
                            part.membersRead(ids.size());
                            read.addAndGet(ids.size());
                            readMembers(request, run, part, chunksLeft, read, done);
                        },
                        done::onFailure));
    }

    private void readChunk(
            PartStepAction.Request request,
            RunParts.Run run,
            ShardPart part,
            List<String> ids,
            ActionListener<Void> done) {
        NearDupClustersRequest clusters = request.clusters();
        int number = part.graph().number();
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
                                        if (clusters.query() != null) {
                                            keepEarlierCluster(request, run, part, index, hit.getId(), member);
                                        }
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

    /**
     * With a {@code query}, as the coordinating node's {@code ClusterMembers} does: a member of an earlier cluster opens
     * that cluster (its members the query does not match are searched on every node), and a member the query does not
     * match keeps it, led by its representative, whose part its routing gives.
     */
    private void keepEarlierCluster(
            PartStepAction.Request request,
            RunParts.Run run,
            ShardPart part,
            String index,
            String id,
            ClusterMembers.Member member) {
        String cluster = member.existingCluster();
        if (cluster == null) {
            return;
        }
        run.earlierClusters.met(cluster);
        String leaderIndex = member.existingClusterIndex(index);
        if (request.coversIndex(leaderIndex) == false) {
            // A representative in an index the run does not cover is met as a missing one of the member's index.
            leaderIndex = index;
        }
        if (member.scanned() == false && (cluster.equals(id) && leaderIndex.equals(index)) == false) {
            part.keep(id, partOfDocument(request, leaderIndex, cluster), cluster);
        }
    }

    /** The run's number of the shard that holds (or would hold) document {@code id} of {@code index}. */
    private int partOfDocument(PartStepAction.Request request, String index, String id) {
        IndexMetadata metadata = clusterService.state().metadata().index(index);
        int part = metadata == null ? -1 : request.partOf(index, OperationRouting.generateShardId(metadata, id, null));
        if (part < 0) {
            // Deleted during the run.
            throw new IndexNotFoundException(index);
        }
        return part;
    }

    /** The run's numbers of the shards whose parts this node keeps. */
    private int[] localParts(PartStepAction.Request request) {
        List<Integer> local = new ArrayList<>();
        for (int part = 0; part < request.parts(); part++) {
            if (request.partNode(part).equals(request.node())) {
                local.add(part);
            }
        }
        return local.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Searches the shards whose parts are here for the members of the earlier clusters told, those the query does not
     * match, a page at a time while {@code pagesLeft} lasts, and adds them to their parts; {@code added} counts those new
     * there.
     */
    private void searchEarlierClusters(
            PartStepAction.Request request,
            RunParts.Run run,
            int[] localParts,
            AtomicInteger pagesLeft,
            AtomicLong added,
            ActionListener<Void> done) {
        RunParts.EarlierClusters.Search search = run.earlierClusters.search(localParts.length);
        if (search == null || pagesLeft.getAndDecrement() <= 0) {
            done.onResponse(null);
            return;
        }
        NearDupClustersRequest clusters = request.clusters();
        int number = localParts[search.shard()];
        QueryBuilder members = QueryBuilders.boolQuery()
                .filter(QueryBuilders.termsQuery(
                        clusters.targetField() + "." + ClusterAssignment.CLUSTER, search.clusters()))
                .mustNot(clusters.query());
        client.search(
                request.searchOfPart(
                        number, RunContext.page(members, new String[0], clusters.scrollSize(), search.after())),
                ClusterSteps.step(
                        threadPool,
                        timeouts,
                        "the members of earlier clusters in part " + number,
                        ActionListener.wrap(
                                response -> {
                                    SearchHit[] hits = response.getHits().getHits();
                                    ShardPart part = run.part(
                                            number, clusters.linkage() == NearDupClustersRequest.Linkage.LEADER);
                                    for (SearchHit hit : hits) {
                                        if (part.addMemberOfEarlierCluster(hit.getId())) {
                                            added.incrementAndGet();
                                        }
                                    }
                                    run.earlierClusters.searched(
                                            hits.length < clusters.scrollSize()
                                                    ? null
                                                    : hits[hits.length - 1].getSortValues());
                                    searchEarlierClusters(request, run, localParts, pagesLeft, added, done);
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
