/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.FingerprintFormat;
import io.neardup.match.ShardMatchAction;
import io.neardup.match.TransportShardMatchAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionType;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.index.shard.ShardNotFoundException;
import org.opensearch.search.SearchHit;
import org.opensearch.transport.ActionNotFoundTransportException;

/**
 * How a run finds the pairs of one shard, adding them to its {@link MatchGraph}; each shard's
 * steps are child tasks of the run ({@code GET _tasks?parent_task_id=}).
 */
sealed interface ShardScan permits ShardScan.WindowJoin, ShardScan.BandJoin, ShardScan.QueryPages {

    /** The units the run's scan goes through, {@code slices} at a time: its shards, unless said otherwise. */
    default int units() {
        return context().shards();
    }

    RunContext context();

    /**
     * The node that keeps the part of the run's shard {@code shard} (docs/clusters.md section 8), where its steps go;
     * null where the scan keeps no parts (a run with a {@code query}).
     */
    default String partNode(int shard) {
        return context().indices().primaryNode(shard);
    }

    /** Finds the pairs of one unit. */
    void scan(int unit, ActionListener<Void> done);

    /**
     * A full run on a {@code simhash} field (with {@code min_similarity}, its neighbours verified on the
     * sibling {@code minhash} field there) goes through the shards' self-join; a full run on a
     * {@code minhash} field through their band join (with leader linkage the join reports every
     * verified pair). A {@code query} run matches only some documents: it stays on the pages, here only with the graph
     * on this node (a rolling upgrade; else its parts' nodes read them, {@link PartsClustering#scan}).
     *
     * @param stopped whether a shard's scan stops at its next step: the run was cancelled, or another slice failed
     * @param documents about how many documents each index holds (by ordinal), null if not known
     */
    static ShardScan of(
            RunContext context,
            MatchGraph graph,
            ClusterMembers members,
            BooleanSupplier stopped,
            boolean simhashField,
            long[] documents) {
        if (context.request().query() != null) {
            return new QueryPages(context, graph, members, stopped);
        }
        return simhashField ? new WindowJoin(context, graph, stopped) : BandJoin.of(context, graph, stopped, documents);
    }

    /**
     * The shards whose tables shard {@code shard} of {@code shards} (the run's numbering, {@link RunIndices}: the
     * shards of every index it covers) looks its windows up in, so that every pair of shards is joined once and each
     * shard answers about as many look-ups as the others: the next {@code (shards - 1) / 2} shards round the ring, and
     * with an even count the opposite shard from the first half (the round-robin schedule of a tournament).
     */
    static int[] shardsProbedBy(int shard, int shards) {
        int half = shards / 2;
        boolean opposite = shards % 2 == 0 && shards > 0 && shard < half;
        int[] probed = new int[(shards - 1) / 2 + (opposite ? 1 : 0)];
        for (int i = 0; i < (shards - 1) / 2; i++) {
            probed[i] = (shard + 1 + i) % shards;
        }
        if (opposite) {
            probed[probed.length - 1] = shard + half;
        }
        return probed;
    }

    /** The run's shards {@code shards} as the join steps name them: an index and a shard of it. */
    private static ShardJoinRequest.OtherShard[] otherShards(RunIndices indices, int[] shards) {
        ShardJoinRequest.OtherShard[] others = new ShardJoinRequest.OtherShard[shards.length];
        for (int i = 0; i < shards.length; i++) {
            others[i] =
                    new ShardJoinRequest.OtherShard(indices.indexOfShard(shards[i]), indices.shardInIndex(shards[i]));
        }
        return others;
    }

    /**
     * A step of the run's shard {@code shard}, sent first to {@code partNode}, which keeps the pairs it finds in the
     * parts {@code parts} (the run's shard numbers: {@code shard}'s, then those of the shards it looks up).
     */
    private static ShardJoinRequest joinRequest(
            RunContext context, MatchGraph graph, int shard, ShardJoinRequest.Step step, int[] parts, String partNode) {
        RunIndices indices = context.indices();
        return new ShardJoinRequest(
                indices.indexOfShard(shard),
                indices.shardInIndex(shard),
                context.request().spec(),
                step,
                keptParts(graph, parts),
                partNode,
                context.request().linkage() == NearDupClustersRequest.Linkage.LEADER);
    }

    /**
     * The parts a step keeps its pairs in, and then answers without them: none where the graph is on the coordinating
     * node (in a rolling upgrade), which needs the pairs.
     */
    private static int[] keptParts(MatchGraph graph, int[] parts) {
        return graph.inParts() ? parts : new int[0];
    }

    /** {@code shard}, then {@code others}. */
    private static int[] parts(int shard, int... others) {
        int[] parts = new int[others.length + 1];
        parts[0] = shard;
        System.arraycopy(others, 0, parts, 1, others.length);
        return parts;
    }

    /** Sends one step of a shard join as a child of the run; its answer goes to the graph. */
    private static void joinStep(
            RunContext context, MatchGraph graph, ShardJoinRequest step, ActionListener<Void> next) {
        join(context, graph, ShardJoinAction.INSTANCE, step, step.getDescription(), step.matchedIndices(), next);
    }

    /**
     * Sends a join step ({@code action}: one shard's, or a group's) as a child of the run; its answer goes to the
     * graph, its queries and matches in {@code indices} as the answer numbers them.
     */
    private static <Request extends ActionRequest> void join(
            RunContext context,
            MatchGraph graph,
            ActionType<ShardJoinResponse> action,
            Request step,
            String description,
            String[] indices,
            ActionListener<Void> next) {
        int[] ordinals =
                Arrays.stream(indices).mapToInt(context.indices()::ordinalOf).toArray();
        context.client()
                .execute(
                        action,
                        step,
                        context.step(
                                description,
                                ActionListener.wrap(
                                        joined -> {
                                            graph.addJoined(joined, ordinals);
                                            next.onResponse(null);
                                        },
                                        next::onFailure)));
    }

    /**
     * A {@code simhash} shard joined with the whole index ({@link SimhashWindowJoin}), window by window of
     * {@code scroll_size} sequence numbers (so at most that many documents) up to the shard's newest now: the
     * windows of a shard look up the shard itself and the shards {@link #shardsProbedBy} it, so each pair of
     * documents is found once; then one more pass from there up to the shard's newest then, for the documents written
     * (or updated) during the first.
     */
    record WindowJoin(RunContext context, MatchGraph graph, BooleanSupplier stopped) implements ShardScan {
        @Override
        public void scan(int shard, ActionListener<Void> done) {
            int[] probed = shardsProbedBy(shard, context.shards());
            ShardJoinRequest.OtherShard[] otherShards = otherShards(context.indices(), probed);
            int[] parts = parts(shard, probed);
            // Then once more from the newest at the start: a document updated during the scan moves past the windows
            // (its new sequence number), so two documents both updated before their windows were read would be met by
            // no window; the second pass meets them (and documents indexed meanwhile) as queries.
            scanFrom(
                    shard,
                    0,
                    otherShards,
                    parts,
                    ActionListener.wrap(
                            newest -> {
                                if (stopped.getAsBoolean()) {
                                    done.onResponse(null);
                                } else {
                                    scanFrom(
                                            shard, newest + 1, otherShards, parts, ActionListener.map(done, n -> null));
                                }
                            },
                            done::onFailure));
        }

        /** The windows from sequence number {@code first} up to the shard's newest now, which {@code done} gets. */
        private void scanFrom(
                int shard,
                long first,
                ShardJoinRequest.OtherShard[] otherShards,
                int[] parts,
                ActionListener<Long> done) {
            NearDupClustersRequest request = context.request();
            context.maxSeqNo(
                    shard,
                    ActionListener.wrap(
                            newest -> {
                                long windows = Math.max(
                                        0, (newest + 1 - first + request.scrollSize() - 1) / request.scrollSize());
                                ClusterSteps.inTurn(
                                        context.threadPool(),
                                        (int) windows,
                                        stopped,
                                        (window, next) -> {
                                            long from = first + window * (long) request.scrollSize();
                                            long to = Math.min(newest + 1, from + request.scrollSize());
                                            joinStep(
                                                    context,
                                                    graph,
                                                    joinRequest(
                                                            context,
                                                            graph,
                                                            shard,
                                                            new ShardJoinRequest.Window(from, to, otherShards),
                                                            parts,
                                                            partNode(shard)),
                                                    next);
                                        },
                                        ActionListener.map(done, v -> newest));
                            },
                            done::onFailure));
        }
    }

    /**
     * A {@code minhash} run's pairs, found on the shards' nodes ({@link MinhashBandJoin}), group by group
     * ({@link JoinGroups}): the shards of a group joined together on the node that holds them
     * ({@link ShardGroupJoinRequest}), or a group of one shard by its band self-join; then each shard looks its
     * documents' bands up in the shards {@link #shardsProbedBy} it of other groups, so that each pair of documents is
     * found once. Each is a step of its own, one other shard at a time, so that none outlasts
     * {@link StepTimeouts#STEP_TIMEOUT} on a large shard (at 5M documents a shard, ~1 min a step: docs/clusters.md
     * section 4) and the run's progress and memory move step by step. A unit of the scan is a group.
     */
    record BandJoin(RunContext context, MatchGraph graph, BooleanSupplier stopped, JoinGroups groups)
            implements ShardScan {

        /**
         * The groups of a run whose shards hold about {@code documents} documents an index (by ordinal; null where
         * the count could not run): without it, shard by shard.
         */
        static BandJoin of(RunContext context, MatchGraph graph, BooleanSupplier stopped, long[] documents) {
            RunIndices indices = context.indices();
            if (documents == null) {
                return new BandJoin(context, graph, stopped, JoinGroups.oneByOne(indices.shards()));
            }
            String[][] copies = new String[indices.shards()][];
            FingerprintFormat[] formats = new FingerprintFormat[indices.shards()];
            long[] documentsOfShard = new long[indices.shards()];
            for (int shard = 0; shard < indices.shards(); shard++) {
                int ordinal = indices.ordinalOfShard(shard);
                copies[shard] = indices.nodesWithCopy(shard);
                formats[shard] = indices.formatOfShard(shard);
                long shardsOfIndex = indices.shardsOf(ordinal);
                documentsOfShard[shard] = (documents[ordinal] + shardsOfIndex - 1) / shardsOfIndex;
            }
            return new BandJoin(context, graph, stopped, JoinGroups.plan(copies, formats, documentsOfShard));
        }

        @Override
        public int units() {
            return groups.count();
        }

        @Override
        public void scan(int group, ActionListener<Void> done) {
            int[] members = groups.members(group);
            List<ShardStep> steps = new ArrayList<>();
            steps.add(members.length == 1 ? within(members[0]) : together(group, members));
            addAcross(steps, members, other -> groups.groupOf(other) != group);
            inTurn(steps, done);
        }

        /** The look-up steps of {@code members} in the shards {@link #shardsProbedBy} each of them that {@code joined}. */
        private void addAcross(List<ShardStep> steps, int[] members, IntPredicate joined) {
            for (int shard : members) {
                for (int other : shardsProbedBy(shard, context.shards())) {
                    if (joined.test(other)) {
                        steps.add(across(shard, other));
                    }
                }
            }
        }

        /** One step of a shard join, ending with {@code next}. */
        private interface ShardStep {
            void run(ActionListener<Void> next);
        }

        private void inTurn(List<ShardStep> steps, ActionListener<Void> done) {
            ClusterSteps.inTurn(
                    context.threadPool(),
                    steps.size(),
                    stopped,
                    (step, next) -> steps.get(step).run(next),
                    done);
        }

        private ShardStep within(int shard) {
            boolean allPairs = context.request().linkage() == NearDupClustersRequest.Linkage.LEADER;
            return next -> joinStep(
                    context,
                    graph,
                    joinRequest(
                            context,
                            graph,
                            shard,
                            new ShardJoinRequest.BandsWithin(allPairs),
                            parts(shard),
                            partNode(shard)),
                    next);
        }

        /**
         * The shards of a group joined together on its node; where one of them has no started copy there any more (it
         * moved since the run began) or the node does not know the step (a node of an earlier build, in a rolling
         * upgrade), they are joined one by one instead: each by itself, and each pair of them by look-ups.
         */
        private ShardStep together(int group, int[] members) {
            RunIndices indices = context.indices();
            ShardGroupJoinRequest request = new ShardGroupJoinRequest(
                    indices.indexOfShard(members[0]),
                    indices.shardInIndex(members[0]),
                    context.request().spec(),
                    context.request().linkage() == NearDupClustersRequest.Linkage.LEADER,
                    otherShards(indices, Arrays.copyOfRange(members, 1, members.length)),
                    groups.node(group),
                    keptParts(graph, members));
            return next -> join(
                    context,
                    graph,
                    ShardGroupJoinAction.INSTANCE,
                    request,
                    request.getDescription(),
                    request.joinedIndices(),
                    ActionListener.wrap(next::onResponse, e -> {
                        if (notTogether(e)) {
                            inTurn(oneByOne(members), next);
                        } else {
                            next.onFailure(e);
                        }
                    }));
        }

        private static boolean notTogether(Exception e) {
            Throwable cause = ExceptionsHelper.unwrapCause(e);
            return cause instanceof ShardNotFoundException || cause instanceof ActionNotFoundTransportException;
        }

        /** The steps that join the shards of a group one by one, as if each were a group of its own. */
        private List<ShardStep> oneByOne(int[] members) {
            List<ShardStep> steps = new ArrayList<>();
            for (int shard : members) {
                steps.add(within(shard));
            }
            int group = groups.groupOf(members[0]);
            addAcross(steps, members, other -> groups.groupOf(other) == group);
            return steps;
        }

        /**
         * The step that joins two shards: {@code shard} looks its documents up in {@code other}, unless only
         * {@code other}'s format has signatures that are not of the sets (format 1 beside format 2, in a data stream
         * upgraded in place): then {@code other} looks up in {@code shard}, by its sets' signatures of that format
         * ({@link MinhashBandJoin}).
         */
        private ShardStep across(int shard, int other) {
            RunIndices indices = context.indices();
            boolean reversed = indices.formatOfShard(shard).derivesSignatureFromSet()
                    && indices.formatOfShard(other).derivesSignatureFromSet() == false;
            int prober = reversed ? other : shard;
            int probed = reversed ? shard : other;
            return next -> joinStep(
                    context,
                    graph,
                    joinRequest(
                            context,
                            graph,
                            prober,
                            new ShardJoinRequest.BandsAcross(otherShards(indices, new int[] {probed})[0]),
                            parts(prober, probed),
                            partNode(prober)),
                    next);
        }

        /**
         * The node that keeps the part of the run's shard {@code shard}: its group's, where it is joined together with
         * others; else its primary's.
         */
        @Override
        public String partNode(int shard) {
            String groupNode = groups.node(groups.groupOf(shard));
            return groupNode != null ? groupNode : context.indices().primaryNode(shard);
        }
    }

    /**
     * A {@code query} run with its graph on this node (in a rolling upgrade, where a node of another version does not
     * know {@link PartQueryScan}, which reads the pages on the parts' nodes): the shard's documents the query matches,
     * page by page, each page sent to every shard, where {@link TransportShardMatchAction} runs their
     * {@code near_duplicate} queries in its own structures.
     */
    record QueryPages(RunContext context, MatchGraph graph, ClusterMembers members, BooleanSupplier stopped)
            implements ShardScan {
        @Override
        public String partNode(int shard) {
            return null;
        }

        @Override
        public void scan(int shard, ActionListener<Void> done) {
            NearDupClustersRequest request = context.request();
            String[] includes = {request.spec().sourceToMatch(), request.targetField()};
            QueryBuilder documents = request.query() == null ? QueryBuilders.matchAllQuery() : request.query();
            int ordinal = context.indices().ordinalOfShard(shard);
            context.forEachPage(
                    shard,
                    documents,
                    includes,
                    () -> stopped.getAsBoolean() == false,
                    (hits, next) -> scanPage(ordinal, hits, next),
                    done);
        }

        /** A page of documents of the index {@code ordinal}. */
        private void scanPage(int ordinal, SearchHit[] hits, ActionListener<Void> next) {
            PartQueryScan.Page page = PartQueryScan.Page.of(context.request(), hits);
            page.earlierClusters().forEach(members::expand);
            context.task().noFingerprint.addAndGet(page.noFingerprint());
            context.task().scanned.addAndGet(hits.length);
            match(ordinal, page, next);
        }

        /** Sends a page to every shard of every index, then adds what they found to the graph, in shard order. */
        private void match(int ordinal, PartQueryScan.Page page, ActionListener<Void> next) {
            List<String> batchIds = page.ids();
            long[] batchSeqNos = page.seqNos();
            if (batchIds.isEmpty()) {
                next.onResponse(null);
                return;
            }
            RunIndices indices = context.indices();
            page.matchOnEveryShard(
                    context.request().spec(),
                    context.shards(),
                    indices::indexOfShard,
                    indices::shardInIndex,
                    indices.name(ordinal),
                    (shard, lookUp, answer) -> context.client()
                            .execute(
                                    ShardMatchAction.INSTANCE,
                                    lookUp,
                                    context.step("matching a page on shard " + indices.describeShard(shard), answer)),
                    ActionListener.wrap(
                            answers -> {
                                for (int answered = 0; answered < answers.length; answered++) {
                                    int matchedOrdinal = indices.ordinalOfShard(answered);
                                    graph.addMatches(
                                            q -> ordinal,
                                            batchIds::get,
                                            q -> batchSeqNos[q],
                                            answers[answered],
                                            i -> matchedOrdinal);
                                }
                                next.onResponse(null);
                            },
                            next::onFailure));
        }
    }
}
