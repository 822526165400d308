/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.index.FingerprintFields;
import io.neardup.index.FingerprintKind;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.match.ClusterAssignment;
import io.neardup.match.MappingPaths;
import java.util.HashMap;
import java.util.Map;
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

    private final Client client;
    private final ClusterService clusterService;
    private final ThreadPool threadPool;
    private final IndexNameExpressionResolver resolver;
    private final SegmentFingerprintCache cache;
    private final StepTimeouts timeouts;

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

    /** The dry run, under a read permission ({@link NearDupClustersDryRunAction}); it refuses a run that would write. */
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
            if (request.dryRun() == false) {
                listener.onFailure(new IllegalArgumentException("[" + NearDupClustersDryRunAction.NAME
                        + "] only runs dry runs; a run that writes is [" + NearDupClustersAction.NAME + "]"));
                return;
            }
            super.doExecute(task, request, listener);
        }
    }

    @Override
    protected void doExecute(
            Task task, NearDupClustersRequest request, ActionListener<NearDupClustersResponse> listener) {
        IndexMetadata indexMetadata;
        FingerprintKind kind;
        try {
            indexMetadata = indexOf(clusterService.state(), request);
            kind = checkMappings(indexMetadata, request);
        } catch (RuntimeException e) {
            listener.onFailure(e);
            return;
        }
        Client taskClient = new ParentTaskAssigningClient(client, clusterService.localNode(), task);
        NearDupClustersTask run = (NearDupClustersTask) task;
        WriteThrottle throttle = new WriteThrottle(threadPool, request.requestsPerSecond());
        run.throttle(throttle, request.dryRun());
        String index = indexMetadata.getIndex().getName();
        ClusterJob job = new ClusterJob(
                new RunContext(
                        taskClient,
                        threadPool,
                        timeouts,
                        request,
                        run,
                        throttle,
                        index,
                        indexMetadata.getNumberOfShards()),
                cache.breaker(),
                kind == FingerprintKind.SIMHASH);
        checkRepresentativeSort(
                taskClient,
                index,
                request,
                ActionListener.wrap(
                        sortChecked -> {
                            if (request.dryRun()) {
                                job.run(listener);
                                return;
                            }
                            taskClient
                                    .admin()
                                    .indices()
                                    .putMapping(
                                            new PutMappingRequest(index)
                                                    .source(targetMapping(
                                                            request.targetField(), mappingOf(indexMetadata))),
                                            ClusterSteps.step(
                                                    threadPool,
                                                    timeouts,
                                                    "mapping [" + request.targetField() + "]",
                                                    ActionListener.wrap(
                                                            mapped -> job.run(listener), listener::onFailure)));
                        },
                        listener::onFailure));
    }

    /** The one index the request names; a bad request throws an {@code IllegalArgumentException}. */
    private IndexMetadata indexOf(ClusterState state, NearDupClustersRequest request) {
        String[] names = resolver.concreteIndexNames(state, request);
        if (names.length != 1) {
            throw new IllegalArgumentException("[_near_dup_clusters] runs on one index; ["
                    + String.join(",", request.indices()) + "] names " + names.length
                    + " (a data stream's backing indices, an alias's indices): run it on each of them");
        }
        return state.metadata().index(names[0]);
    }

    /**
     * The kind of the field the request clusters on, as the index's mapping says, after checking the field and the
     * target field; a bad request throws an {@code IllegalArgumentException}.
     */
    private static FingerprintKind checkMappings(IndexMetadata metadata, NearDupClustersRequest request) {
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
        MappingPaths.checkAssignable(properties, request.targetField(), ClusterAssignment.ACCEPTED_TYPES);
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
            Client client, String index, NearDupClustersRequest request, ActionListener<Void> listener) {
        SearchSourceBuilder probe =
                new SearchSourceBuilder().size(1).fetchSource(false).trackTotalHits(false);
        request.representativeSort().stream()
                .filter(sort -> ClusterMembers.isIdSort(sort) == false)
                .forEach(probe::sort);
        if (probe.sorts() == null || probe.sorts().isEmpty()) {
            listener.onResponse(null);
            return;
        }
        client.search(
                new SearchRequest(index).source(probe),
                ClusterSteps.step(
                        threadPool,
                        timeouts,
                        "checking [representative.sort]",
                        ActionListener.map(listener, response -> null)));
    }

    /**
     * {@link ClusterAssignment#mapping()} at {@code targetField}, each level an object with {@code properties}. A
     * subfield mapped already keeps its type (one {@link ClusterAssignment#ACCEPTED_TYPES} accepts: checked before),
     * e.g. {@code size} mapped {@code long} by dynamic mapping in an index reindexed from a clustered one.
     */
    static Map<String, Object> targetMapping(String targetField, Map<String, Object> properties) {
        String[] path = targetField.split("\\.");
        Map<String, Object> subfields = new HashMap<>();
        ((Map<?, ?>) ClusterAssignment.mapping().get("properties")).forEach((subfield, wanted) -> {
            Map<?, ?> mapped = MappingPaths.find(properties, targetField + "." + subfield);
            subfields.put((String) subfield, mapped == null ? wanted : Map.of("type", mapped.get("type")));
        });
        Map<String, Object> mapping = Map.of("properties", subfields);
        for (int i = path.length - 1; i >= 0; i--) {
            mapping = Map.of("properties", Map.of(path[i], mapping));
        }
        return mapping;
    }
}
