/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.MemoryBudget;
import io.neardup.core.ShingleAlignment;
import io.neardup.core.TextTokens;
import io.neardup.index.BreakerBudget;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.match.MappingPaths;
import java.util.List;
import java.util.Map;
import org.opensearch.ResourceNotFoundException;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.ingest.GetPipelineAction;
import org.opensearch.action.ingest.GetPipelineRequest;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.HandledTransportAction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.MappingMetadata;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.IndexSettings;
import org.opensearch.ingest.IngestService;
import org.opensearch.search.fetch.subphase.FetchSourceContext;
import org.opensearch.tasks.Task;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;
import org.opensearch.transport.client.node.NodeClient;

/**
 * Compares two sides: reads each document as the caller (a realtime GET in the caller's thread context, so the
 * Security plugin checks it and its reader hides what the caller may not see: a hidden document answers as a missing
 * one), finds the {@code near_dup_fingerprint} processor that fingerprints them, then analyzes both texts with it and
 * aligns their shingles ({@link ShingleAlignment}) on the search pool, the scratch charged to the {@code neardup}
 * breaker. Every step answers a listener: no thread waits for a read.
 */
public final class TransportNearDupCompareAction
        extends HandledTransportAction<NearDupCompareRequest, NearDupCompareResponse> {
    static final String BREAKER_LABEL = "near_dup_compare";

    private final NodeClient client;
    private final ClusterService clusterService;
    private final IngestService ingestService;
    private final SegmentFingerprintCache cache;
    private final ThreadPool threadPool;

    @Inject
    public TransportNearDupCompareAction(
            TransportService transportService,
            ActionFilters actionFilters,
            NodeClient client,
            ClusterService clusterService,
            IngestService ingestService,
            SegmentFingerprintCache cache,
            ThreadPool threadPool) {
        super(NearDupCompareAction.NAME, transportService, actionFilters, NearDupCompareRequest::new);
        this.client = client;
        this.clusterService = clusterService;
        this.ingestService = ingestService;
        this.cache = cache;
        this.threadPool = threadPool;
    }

    /** {@link NearDupCompareTextsAction}: the same comparison, of two texts. */
    public static final class Texts
            extends HandledTransportAction<NearDupCompareTextsAction.Request, NearDupCompareResponse> {
        private final TransportNearDupCompareAction compare;

        @Inject
        public Texts(
                TransportService transportService, ActionFilters actionFilters, TransportNearDupCompareAction compare) {
            super(
                    NearDupCompareTextsAction.NAME,
                    transportService,
                    actionFilters,
                    NearDupCompareTextsAction.Request::new);
            this.compare = compare;
        }

        @Override
        protected void doExecute(
                Task task, NearDupCompareTextsAction.Request request, ActionListener<NearDupCompareResponse> listener) {
            compare.doExecute(task, request.compare(), listener);
        }
    }

    @Override
    protected void doExecute(
            Task task, NearDupCompareRequest request, ActionListener<NearDupCompareResponse> listener) {
        try {
            checkFields(request.a());
            checkFields(request.b());
        } catch (RuntimeException e) {
            listener.onFailure(e);
            return;
        }
        checkPipelineVisible(
                request,
                ActionListener.wrap(
                        visible -> read(
                                request.a(),
                                ActionListener.wrap(
                                        textA -> read(
                                                request.b(),
                                                ActionListener.wrap(
                                                        textB -> threadPool
                                                                .executor(ThreadPool.Names.SEARCH)
                                                                .execute(() -> {
                                                                    NearDupCompareResponse response;
                                                                    try {
                                                                        response = compare(request, textA, textB);
                                                                    } catch (Exception e) {
                                                                        listener.onFailure(e);
                                                                        return;
                                                                    }
                                                                    listener.onResponse(response);
                                                                }),
                                                        listener::onFailure)),
                                        listener::onFailure)),
                        listener::onFailure));
    }

    /**
     * A pipeline named in the request is read only by a caller who may read pipelines (with the Security plugin,
     * {@code cluster:admin/ingest/pipeline/get}), as {@code like.pipeline} is: a comparison cannot tell a user who may
     * not whether a pipeline exists.
     */
    private void checkPipelineVisible(NearDupCompareRequest request, ActionListener<Void> listener) {
        if (request.pipeline() == null) {
            listener.onResponse(null);
            return;
        }
        client.execute(
                GetPipelineAction.INSTANCE,
                new GetPipelineRequest(request.pipeline()).local(true),
                ActionListener.wrap(
                        response -> {
                            if (response.isFound() == false) {
                                listener.onFailure(new IllegalArgumentException(
                                        "[pipeline] [" + request.pipeline() + "] does not exist"));
                            } else {
                                listener.onResponse(null);
                            }
                        },
                        listener::onFailure));
    }

    /** A document's field must be mapped in its index (where the name is an index of this cluster: an alias is left to the GET). */
    private void checkFields(NearDupCompareRequest.Side side) {
        if (side.isDocument() == false) {
            return;
        }
        IndexMetadata index = clusterService.state().metadata().index(side.index());
        MappingMetadata mapping = index == null ? null : index.mapping();
        if (index != null && (mapping == null || MappingPaths.find(mapping.sourceAsMap(), side.field()) == null)) {
            throw new IllegalArgumentException(
                    "[" + side.name() + ".field] [" + side.field() + "] is not mapped in index [" + side.index() + "]");
        }
    }

    /** The side's text: given, or read from its document as the caller. */
    private void read(NearDupCompareRequest.Side side, ActionListener<String> listener) {
        if (side.isDocument() == false) {
            listener.onResponse(side.text());
            return;
        }
        GetRequest get = new GetRequest(side.index())
                .id(side.id())
                .fetchSourceContext(new FetchSourceContext(true, new String[] {side.field()}, null));
        client.get(
                get,
                ActionListener.wrap(
                        response -> {
                            if (response.isExists() == false) {
                                listener.onFailure(new ResourceNotFoundException("[" + side.name() + "._id] document ["
                                        + side.id() + "] not found in index [" + side.index() + "]"));
                                return;
                            }
                            Map<String, Object> source = response.getSourceAsMap();
                            Object value = source == null ? null : XContentMapValues.extractValue(side.field(), source);
                            listener.onResponse(textOf(side, value));
                        },
                        listener::onFailure));
    }

    private static String textOf(NearDupCompareRequest.Side side, Object value) {
        return textOf(side.name(), side.field(), side.id(), side.index(), value);
    }

    /**
     * A string, or an array of strings joined by new lines as the fingerprint processor joins them; else a 400 naming
     * {@code name}'s field of the document.
     */
    static String textOf(String name, String field, String id, String index, Object value) {
        if (value instanceof String string) {
            return string;
        }
        if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
            return String.join("\n", list.stream().map(String.class::cast).toList());
        }
        String what = "[" + name + ".field] [" + field + "] of document [" + id + "] in index [" + index + "]";
        throw new IllegalArgumentException(
                value == null ? what + " has no value" : what + " is not a string or an array of strings");
    }

    private NearDupCompareResponse compare(NearDupCompareRequest request, String textA, String textB) {
        String pipelineId = pipelineOf(request);
        NearDupFingerprintProcessor processor = ComparePipelines.processorOf(
                ingestService.getPipeline(pipelineId),
                pipelineId,
                request.fingerprint(),
                List.of(request.a(), request.b()).stream()
                        .filter(NearDupCompareRequest.Side::isDocument)
                        .map(NearDupCompareRequest.Side::field)
                        .toList());
        FingerprintScheme scheme = processor.scheme();
        MemoryBudget budget = BreakerBudget.of(cache.breaker(), BREAKER_LABEL);
        try (TextTokens a = new TextTokens(scheme.seed(), budget);
                TextTokens b = new TextTokens(scheme.seed(), budget)) {
            processor.tokens(textA, a);
            processor.tokens(textB, b);
            ShingleAlignment.Result result = ShingleAlignment.align(
                    a, b, scheme.minhashShingleSize(), scheme.seed(), request.maxExplainedChars(), budget);
            int distance = -1;
            if (processor.writesSimhashTo(processor.targetField() + ".simhash") && a.size() > 0 && b.size() > 0) {
                distance = Long.bitCount(simhash(processor, textA) ^ simhash(processor, textB));
            }
            return new NearDupCompareResponse(pipelineId, scheme.id(), result, distance);
        }
    }

    /** The simhash of the text as the processor writes it (the part it fingerprints, as {@link NearDupFingerprintProcessor#tokens}). */
    static long simhash(NearDupFingerprintProcessor processor, String text) {
        // The simhash does not depend on the fingerprint format, which only changes the MinHash side.
        return processor
                .fingerprint(processor.withinMaxChars(text), true, false, false, FingerprintFormat.NEW_INDEX_DEFAULT)
                .simhash();
    }

    /** The request's pipeline, else the default pipeline of a compared document's index ({@code a}'s first). */
    private String pipelineOf(NearDupCompareRequest request) {
        if (request.pipeline() != null) {
            return request.pipeline();
        }
        for (NearDupCompareRequest.Side side : List.of(request.a(), request.b())) {
            IndexMetadata index =
                    side.isDocument() ? clusterService.state().metadata().index(side.index()) : null;
            String pipeline = index == null ? null : IndexSettings.DEFAULT_PIPELINE.get(index.getSettings());
            if (pipeline != null && pipeline.isEmpty() == false && "_none".equals(pipeline) == false) {
                return pipeline;
            }
        }
        throw new IllegalArgumentException(
                "[pipeline] is needed to fingerprint the texts compared: name it, or compare "
                        + "documents of an index with [index.default_pipeline]");
    }
}
