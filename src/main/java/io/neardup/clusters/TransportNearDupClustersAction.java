/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.index.FingerprintFields;
import io.neardup.index.FingerprintKind;
import io.neardup.index.IndexFingerprintFormat;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.match.ClusterAssignment;
import io.neardup.match.IndexSpan;
import io.neardup.match.MappingPaths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.opensearch.Version;
import org.opensearch.action.admin.indices.mapping.put.PutMappingRequest;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.HandledTransportAction;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.metadata.MappingMetadata;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.tasks.Task;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;
import org.opensearch.transport.client.Client;
import org.opensearch.transport.client.ParentTaskAssigningClient;

/**
 * Checks a {@code _near_dup_clusters} request against the index's mapping (so that a bad one is a
 * 400 before anything is read or written), maps the target field, and starts the {@link ClusterJob},
 * its searches, shard steps and writes as child tasks of this one.
 */
public class TransportNearDupClustersAction
        extends HandledTransportAction<NearDupClustersRequest, NearDupClustersResponse> {

    private static final Logger LOGGER = LogManager.getLogger(TransportNearDupClustersAction.class);

    private final Client client;
    private final ClusterService clusterService;
    private final ThreadPool threadPool;
    private final IndexNameExpressionResolver resolver;
    private final SegmentFingerprintCache cache;
    private final StepTimeouts timeouts;

    /** Shards one run covers at most: its joins pair every two shards, so their steps grow as the square. */
    static final int MAX_SHARDS = 1_024;

    @Inject
    public TransportNearDupClustersAction(
            TransportService transportService,
            ActionFilters actionFilters,
            Client client,
            ClusterService clusterService,
            ThreadPool threadPool,
            IndexNameExpressionResolver resolver,
            SegmentFingerprintCache cache,
            StepTimeouts timeouts) {
        this(
                NearDupClustersAction.NAME,
                transportService,
                actionFilters,
                client,
                clusterService,
                threadPool,
                resolver,
                cache,
                timeouts);
    }

    private TransportNearDupClustersAction(
            String name,
            TransportService transportService,
            ActionFilters actionFilters,
            Client client,
            ClusterService clusterService,
            ThreadPool threadPool,
            IndexNameExpressionResolver resolver,
            SegmentFingerprintCache cache,
            StepTimeouts timeouts) {
        super(name, transportService, actionFilters, NearDupClustersRequest::new);
        this.client = client;
        this.clusterService = clusterService;
        this.threadPool = threadPool;
        this.resolver = resolver;
        this.cache = cache;
        this.timeouts = timeouts;
    }

    /**
     * The dry run and the run with {@code dest}, under a read permission on the indices clustered
     * ({@link NearDupClustersDryRunAction}); it refuses a run that would write into them. A run with {@code dest}
     * creates and writes its index as its user, under that index's own permissions, as {@code _reindex} does.
     */
    public static final class DryRun extends TransportNearDupClustersAction {
        @Inject
        public DryRun(
                TransportService transportService,
                ActionFilters actionFilters,
                Client client,
                ClusterService clusterService,
                ThreadPool threadPool,
                IndexNameExpressionResolver resolver,
                SegmentFingerprintCache cache,
                StepTimeouts timeouts) {
            super(
                    NearDupClustersDryRunAction.NAME,
                    transportService,
                    actionFilters,
                    client,
                    clusterService,
                    threadPool,
                    resolver,
                    cache,
                    timeouts);
        }

        @Override
        protected void doExecute(
                Task task, NearDupClustersRequest request, ActionListener<NearDupClustersResponse> listener) {
            if (request.writesIntoDocuments()) {
                listener.onFailure(new IllegalArgumentException("[" + NearDupClustersDryRunAction.NAME
                        + "] only runs dry runs and runs with [dest]; a run that writes into the documents is ["
                        + NearDupClustersAction.NAME + "]"));
                return;
            }
            super.doExecute(task, request, listener);
        }
    }

    @Override
    protected void doExecute(
            Task task, NearDupClustersRequest request, ActionListener<NearDupClustersResponse> listener) {
        List<IndexMetadata> indices;
        boolean manyIndices;
        FingerprintKind kind;
        ClusterState state;
        try {
            state = clusterService.state();
            indices = indicesOf(state, request);
            manyIndices = indices.size() > 1 || standsForManyIndices(state, request.named());
            kind = checkMappings(indices, request, manyIndices);
            checkDest(state, request);
        } catch (RuntimeException e) {
            listener.onFailure(e);
            return;
        }
        Client taskClient = new ParentTaskAssigningClient(client, clusterService.localNode(), task);
        NearDupClustersTask run = (NearDupClustersTask) task;
        WriteThrottle throttle = new WriteThrottle(threadPool, request.requestsPerSecond());
        run.throttle(throttle, request.dryRun());
        RunIndices runIndices = new RunIndices(indices, manyIndices, state.routingTable());
        TaskId runId = new TaskId(clusterService.localNode().getId(), task.getId());
        ClusterJob job = new ClusterJob(
                new RunContext(taskClient, threadPool, timeouts, request, run, throttle, runIndices),
                cache.breaker(),
                kind == FingerprintKind.SIMHASH,
                // The parts are kept only where every node knows them: not in a rolling upgrade.
                state.nodes().getMinNodeVersion().equals(Version.CURRENT) ? runId : null,
                () -> releaseParts(runId, runIndices));
        checkRepresentativeSort(
                taskClient,
                runIndices.names(),
                request,
                ActionListener.wrap(
                        sortChecked -> {
                            if (request.dryRun()) {
                                job.run(listener);
                                return;
                            }
                            if (request.dest() != null) {
                                taskClient
                                        .admin()
                                        .indices()
                                        .create(
                                                AssignmentRecords.createIndex(request.dest()),
                                                ClusterSteps.step(
                                                        threadPool,
                                                        timeouts,
                                                        "creating [dest] index [" + request.dest() + "]",
                                                        ActionListener.wrap(
                                                                created -> job.run(listener), listener::onFailure)));
                                return;
                            }
                            mapTargetField(
                                    taskClient,
                                    indices,
                                    request.targetField(),
                                    runIndices.spansIndices(),
                                    ActionListener.wrap(mapped -> job.run(listener), listener::onFailure));
                        },
                        listener::onFailure));
    }

    /**
     * A run with {@code dest} writes into a new index of its own, so that nothing else is in it and a run again starts
     * afresh: a name taken already (an index, an alias, a data stream) is a bad request, before any work.
     */
    private static void checkDest(ClusterState state, NearDupClustersRequest request) {
        String dest = request.dest();
        if (dest != null && state.metadata().getIndicesLookup().containsKey(dest)) {
            throw new IllegalArgumentException("[dest.index] [" + dest + "] exists already: a run with [dest] creates"
                    + " the index it writes its records into; delete it, or name another");
        }
    }

    /**
     * Maps the target field where it is not mapped whole yet: one request for the indices that need the same mapping
     * (a data stream's generations), in turn; none where every index maps it already (a run again), since a put-mapping
     * request costs a cluster state update even when it changes nothing.
     */
    private void mapTargetField(
            Client client,
            List<IndexMetadata> indices,
            String targetField,
            boolean manyIndices,
            ActionListener<Void> done) {
        Map<Map<String, Object>, List<String>> indicesByMapping = new LinkedHashMap<>();
        for (IndexMetadata index : indices) {
            Map<String, Object> properties = mappingOf(index);
            boolean mapped = ((Map<?, ?>) ClusterAssignment.mapping(manyIndices).get("properties"))
                    .keySet().stream()
                            .allMatch(subfield -> MappingPaths.find(properties, targetField + "." + subfield) != null);
            if (mapped == false) {
                indicesByMapping
                        .computeIfAbsent(targetMapping(targetField, properties, manyIndices), m -> new ArrayList<>())
                        .add(index.getIndex().getName());
            }
        }
        List<Map.Entry<Map<String, Object>, List<String>>> requests = new ArrayList<>(indicesByMapping.entrySet());
        ClusterSteps.inTurn(
                threadPool,
                requests.size(),
                () -> false,
                (i, next) -> {
                    String[] names = requests.get(i).getValue().toArray(String[]::new);
                    client.admin()
                            .indices()
                            .putMapping(
                                    new PutMappingRequest(names)
                                            .source(requests.get(i).getKey()),
                                    ClusterSteps.step(
                                            threadPool,
                                            timeouts,
                                            "mapping [" + targetField + "] in " + Arrays.toString(names),
                                            ActionListener.map(next, mapped -> null)));
                },
                done);
    }

    /**
     * The indices the request names (a data stream's backing indices, an alias's, a pattern's, a list), oldest first
     * (by creation date, then name: the order ties go in); a bad request throws an {@code IllegalArgumentException}.
     */
    private List<IndexMetadata> indicesOf(ClusterState state, NearDupClustersRequest request) {
        String[] names = resolver.concreteIndexNames(state, request);
        if (names.length == 0) {
            throw new IllegalArgumentException(
                    "[_near_dup_clusters] [" + String.join(",", request.indices()) + "] names no index");
        }
        List<IndexMetadata> indices = new ArrayList<>(names.length);
        int shards = 0;
        for (String name : names) {
            IndexMetadata index = state.metadata().index(name);
            indices.add(index);
            shards += index.getNumberOfShards();
        }
        if (shards > MAX_SHARDS) {
            throw new IllegalArgumentException("[_near_dup_clusters] [" + String.join(",", request.indices())
                    + "] names " + names.length + " indices of " + shards + " shards in all; a run joins every two"
                    + " shards, and covers at most " + MAX_SHARDS + ": name fewer indices");
        }
        indices.sort(IndexSpan.OLDEST_FIRST);
        return indices;
    }

    /**
     * Whether the names a request gave can stand for more than one index (a list, a pattern, an alias, a data stream),
     * whatever they stand for now: then every assignment names its representative's index, also while a data stream
     * has one generation, so that one layout holds across its rollovers (as {@code near_dup_lookup} decides it).
     */
    private static boolean standsForManyIndices(ClusterState state, String[] named) {
        if (named.length != 1) {
            return true;
        }
        String name = IndexFingerprintFormat.resolveDateMath(named[0]);
        return name == null || IndexSpan.standsForManyIndices(state.metadata(), name);
    }

    /**
     * The kind of the field the request clusters on, after checking the field and the target field in every index,
     * and that every index maps the field alike (the joins compare fingerprints across them); a bad request throws an
     * {@code IllegalArgumentException} naming the index.
     */
    private static FingerprintKind checkMappings(
            List<IndexMetadata> indices, NearDupClustersRequest request, boolean manyIndices) {
        FingerprintKind kind = null;
        IndexMetadata first = null;
        for (IndexMetadata index : indices) {
            FingerprintKind its = checkMappings(index, request, manyIndices);
            if (first == null) {
                kind = its;
                first = index;
                continue;
            }
            String field = request.spec().field();
            Object firstMapping = MappingPaths.find(mappingOf(first), field);
            Object itsMapping = MappingPaths.find(mappingOf(index), field);
            if (Objects.equals(firstMapping, itsMapping) == false) {
                throw new IllegalArgumentException("[field] [" + field + "] is mapped as " + firstMapping + " in ["
                        + first.getIndex().getName() + "] and as " + itsMapping + " in ["
                        + index.getIndex().getName()
                        + "]: the indices of one run must map it alike, so that their fingerprints compare");
            }
        }
        return kind;
    }

    /**
     * The kind of the field the request clusters on, as the index's mapping says, after checking the field and the
     * target field; a bad request throws an {@code IllegalArgumentException}.
     */
    private static FingerprintKind checkMappings(
            IndexMetadata metadata, NearDupClustersRequest request, boolean manyIndices) {
        String index = metadata.getIndex().getName();
        Map<String, Object> properties = mappingOf(metadata);
        String field = request.spec().field();
        Map<?, ?> fieldMapping = MappingPaths.find(properties, field);
        if (fieldMapping == null) {
            throw new IllegalArgumentException("[field] [" + field + "] is not mapped in index [" + index + "]: "
                    + "fingerprint the index first (map the field as [simhash] or [minhash], then run its documents"
                    + " through a [near_dup_fingerprint] pipeline: POST " + index
                    + "/_update_by_query?pipeline=<pipeline>; the README's recipe 2)");
        }
        Object type = fieldMapping.get("type");
        if (type == null && fieldMapping.get("properties") instanceof Map<?, ?> subfields) {
            throw new IllegalArgumentException("[field] [" + field + "] is a fingerprint object; name one of its"
                    + " fingerprint fields: " + fingerprintFieldsOf(field, subfields));
        }
        FingerprintKind kind = FingerprintKind.ofType(type);
        if (kind == null) {
            throw new IllegalArgumentException("[field] [" + field + "] is of type [" + (type == null ? "object" : type)
                    + "], expected [simhash] or [minhash]");
        }
        request.spec().requireOptionsApplyTo(kind);
        if (request.targetField() != null) {
            MappingPaths.checkAssignable(
                    properties, request.targetField(), ClusterAssignment.acceptedTypes(manyIndices));
        }
        return kind;
    }

    /** The {@code simhash} and {@code minhash} fields directly under {@code object}, as {@code [body_fp.simhash], …}. */
    private static String fingerprintFieldsOf(String object, Map<?, ?> subfields) {
        String names = FingerprintFields.fingerprintSubfields(
                object, subfields.keySet(), name -> subfields.get(name) instanceof Map<?, ?> m ? m.get("type") : null);
        return names.isEmpty() ? "none is mapped as [simhash] or [minhash]" : names;
    }

    private static Map<String, Object> mappingOf(IndexMetadata metadata) {
        MappingMetadata mapping = metadata.mapping();
        return mapping == null ? Map.of() : mapping.sourceAsMap();
    }

    /**
     * Runs the representative sort once on one document, so that a sort the index cannot do (a
     * text field, an unmapped one without {@code unmapped_type}) fails the request before any work.
     */
    private void checkRepresentativeSort(
            Client client, String[] indices, NearDupClustersRequest request, ActionListener<Void> listener) {
        SearchSourceBuilder probe =
                new SearchSourceBuilder().size(1).fetchSource(false).trackTotalHits(false);
        request.representativeSort().stream()
                .filter(sort -> RepresentativeOrder.isIdSort(sort) == false)
                .forEach(probe::sort);
        if (probe.sorts() == null || probe.sorts().isEmpty()) {
            listener.onResponse(null);
            return;
        }
        client.search(
                new SearchRequest(indices).source(probe),
                ClusterSteps.step(
                        threadPool,
                        timeouts,
                        "checking [representative.sort]",
                        ActionListener.map(listener, response -> null)));
    }

    /**
     * {@link ClusterAssignment#mapping} at {@code targetField}, each level an object with {@code properties}. A
     * subfield mapped already keeps its type (one {@link ClusterAssignment#acceptedTypes} accepts: checked before),
     * e.g. {@code size} mapped {@code long} by dynamic mapping in an index reindexed from a clustered one.
     */
    static Map<String, Object> targetMapping(String targetField, Map<String, Object> properties, boolean manyIndices) {
        String[] path = targetField.split("\\.");
        Map<String, Object> subfields = new HashMap<>();
        ((Map<?, ?>) ClusterAssignment.mapping(manyIndices).get("properties")).forEach((subfield, wanted) -> {
            Map<?, ?> mapped = MappingPaths.find(properties, targetField + "." + subfield);
            subfields.put((String) subfield, mapped == null ? wanted : Map.of("type", mapped.get("type")));
        });
        Map<String, Object> mapping = Map.of("properties", subfields);
        for (int i = path.length - 1; i >= 0; i--) {
            mapping = Map.of("properties", Map.of(path[i], mapping));
        }
        return mapping;
    }

    /**
     * Gives back the parts of the run's graph on every node ({@link RunParts}). Not a child of the run: a cancelled
     * run's children are refused, and its parts must go all the same. A node that cannot be reached keeps them until
     * it sees this node leave.
     */
    private void releaseParts(TaskId run, RunIndices indices) {
        client.execute(
                ReleaseRunPartsAction.INSTANCE,
                new ReleaseRunPartsAction.Request(run, indices.names()),
                ActionListener.wrap(
                        released -> {
                            if (released.hasFailures()) {
                                LOGGER.warn("could not release the parts of run [{}]: {}", run, released.failures());
                            }
                        },
                        e -> LOGGER.warn("could not release the parts of run [" + run + "]", e)));
    }
}
