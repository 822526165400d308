/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.clusters.ClusterSteps;
import io.neardup.clusters.NearDupClustersAction;
import io.neardup.clusters.NearDupClustersDryRunAction;
import io.neardup.clusters.NearDupClustersRethrottleAction;
import io.neardup.clusters.NearDupClustersTask;
import io.neardup.clusters.PartMessagesAction;
import io.neardup.clusters.PartStepAction;
import io.neardup.clusters.ReleaseRunPartsAction;
import io.neardup.clusters.RestNearDupClustersAction;
import io.neardup.clusters.RestNearDupClustersRethrottleAction;
import io.neardup.clusters.RunParts;
import io.neardup.clusters.ShardGroupJoinAction;
import io.neardup.clusters.ShardJoinAction;
import io.neardup.clusters.StepTimeouts;
import io.neardup.clusters.TransportNearDupClustersAction;
import io.neardup.clusters.TransportPartMessagesAction;
import io.neardup.clusters.TransportPartStepAction;
import io.neardup.clusters.TransportReleaseRunPartsAction;
import io.neardup.clusters.TransportShardGroupJoinAction;
import io.neardup.clusters.TransportShardJoinAction;
import io.neardup.collapse.NearDupCollapseExt;
import io.neardup.collapse.NearDupCollapseResponseProcessor;
import io.neardup.collapse.NearDupWindowRequestProcessor;
import io.neardup.compare.NearDupCompareAction;
import io.neardup.compare.NearDupCompareTextsAction;
import io.neardup.compare.NearDupExplainCoordinator;
import io.neardup.compare.NearDupExplainExt;
import io.neardup.compare.NearDupExplainPhase;
import io.neardup.compare.RestNearDupCompareAction;
import io.neardup.compare.TransportNearDupCompareAction;
import io.neardup.core.FingerprintFormat;
import io.neardup.index.IndexFingerprintFormat;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.index.SimhashDocValueFormat;
import io.neardup.index.SimhashFieldMapper;
import io.neardup.ingest.FingerprintScratchPool;
import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.ingest.NearDupFingerprintProcessorFactory;
import io.neardup.lookup.LookupWriteIndices;
import io.neardup.lookup.NearDupLookupProcessor;
import io.neardup.match.NearDupLookupAction;
import io.neardup.match.NodeRunBreakers;
import io.neardup.match.ShardMatchAction;
import io.neardup.match.TransportShardMatchAction;
import io.neardup.query.FingerprintSearchChecks;
import io.neardup.query.LikeResolver;
import io.neardup.query.NearDuplicateQueryBuilder;
import io.neardup.query.QueryServices;
import io.neardup.stats.NearDupStatsAction;
import io.neardup.stats.RestNearDupStatsAction;
import io.neardup.stats.TransportNearDupStatsAction;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.node.DiscoveryNodes;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.ClusterSettings;
import org.opensearch.common.settings.IndexScopedSettings;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.settings.SettingsFilter;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.common.io.stream.NamedWriteableRegistry;
import org.opensearch.core.common.unit.ByteSizeValue;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.env.Environment;
import org.opensearch.env.NodeEnvironment;
import org.opensearch.index.mapper.Mapper;
import org.opensearch.index.shard.IndexSettingProvider;
import org.opensearch.indices.breaker.BreakerSettings;
import org.opensearch.ingest.IngestService;
import org.opensearch.ingest.Processor;
import org.opensearch.plugins.ActionPlugin;
import org.opensearch.plugins.CircuitBreakerPlugin;
import org.opensearch.plugins.IngestPlugin;
import org.opensearch.plugins.MapperPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.SearchPipelinePlugin;
import org.opensearch.plugins.SearchPlugin;
import org.opensearch.repositories.RepositoriesService;
import org.opensearch.rest.RestController;
import org.opensearch.rest.RestHandler;
import org.opensearch.script.ScriptService;
import org.opensearch.search.DocValueFormat;
import org.opensearch.search.SearchExtBuilder;
import org.opensearch.search.fetch.FetchSubPhase;
import org.opensearch.search.pipeline.SearchRequestProcessor;
import org.opensearch.search.pipeline.SearchResponseProcessor;
import org.opensearch.tasks.Task;
import org.opensearch.threadpool.ExecutorBuilder;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;
import org.opensearch.watcher.ResourceWatcherService;

/**
 * Entry point that OpenSearch loads from {@code plugin-descriptor.properties}: registers the
 * fingerprint processor, the field types, the query and its stats, the collapse processors, the
 * {@code _near_dup_clusters} task and {@code _near_dup/_compare}.
 */
public class NearDupPlugin extends Plugin
        implements IngestPlugin, MapperPlugin, SearchPlugin, SearchPipelinePlugin, CircuitBreakerPlugin, ActionPlugin {

    public static final String BREAKER_NAME = "neardup";
    /**
     * Heap the per-segment fingerprint structures and the fingerprinting scratch may take on a node,
     * beyond which a query or a document fails with a 429.
     */
    public static final Setting<ByteSizeValue> BREAKER_LIMIT =
            Setting.memorySizeSetting("neardup.breaker.limit", "10%", Setting.Property.NodeScope);

    private volatile IngestService ingestService;
    private volatile CircuitBreaker breaker;
    private volatile ClusterService clusterService;
    private volatile IndexNameExpressionResolver indexNameExpressionResolver;
    private volatile Client client;
    private volatile ThreadPool threadPool;
    private final FingerprintSearchChecks searchChecks =
            new FingerprintSearchChecks(() -> clusterService, () -> indexNameExpressionResolver);
    private final SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> breaker);
    private final FingerprintScratchPool scratchPool = new FingerprintScratchPool(() -> breaker);
    private final NodeRunBreakers runBreakers = new NodeRunBreakers(() -> breaker);
    /** The parts of the clusters runs' graphs this node keeps; released by each run, or when its node leaves. */
    private final RunParts runParts = new RunParts(runBreakers);

    private final QueryServices queryServices = new QueryServices(
            new LikeResolver(
                    () -> ingestService, () -> clusterService, () -> indexNameExpressionResolver, searchChecks),
            cache);
    /** Made with the node's thread pool in {@link #createComponents}; its periodic check stops in {@link #close}. */
    private StepTimeouts stepTimeouts;

    @Override
    public Map<String, Processor.Factory> getProcessors(Processor.Parameters parameters) {
        ingestService = parameters.ingestService;
        return Map.of(
                NearDupFingerprintProcessor.TYPE,
                new NearDupFingerprintProcessorFactory(
                        parameters.analysisRegistry,
                        parameters.env,
                        scratchPool,
                        target -> IndexFingerprintFormat.forWrite(
                                parameters.ingestService.getClusterService().state(), target)),
                NearDupLookupProcessor.TYPE,
                new NearDupLookupProcessor.Factory(
                        parameters.client,
                        parameters.ingestService.getClusterService(),
                        parameters.threadContext,
                        parameters.scheduler,
                        parameters.env.settings()));
    }

    @Override
    public Map<String, Mapper.TypeParser> getMappers() {
        return Map.of(
                SimhashFieldMapper.CONTENT_TYPE, SimhashFieldMapper.PARSER,
                MinhashFieldMapper.CONTENT_TYPE, MinhashFieldMapper.PARSER);
    }

    @Override
    public List<QuerySpec<?>> getQueries() {
        return List.of(new QuerySpec<>(
                NearDuplicateQueryBuilder.NAME,
                in -> new NearDuplicateQueryBuilder(in, queryServices),
                parser -> NearDuplicateQueryBuilder.fromXContent(parser, queryServices)));
    }

    /** {@code near_dup_explain}: each hit's comparison with a text, as highlighting adds {@code highlight}. */
    @Override
    public List<FetchSubPhase> getFetchSubPhases(FetchPhaseConstructionContext context) {
        return List.of(new NearDupExplainPhase(() -> ingestService, () -> breaker));
    }

    @Override
    public List<SearchExtSpec<?>> getSearchExts() {
        return List.of(new SearchExtSpec<>(NearDupExplainExt.NAME, NearDupExplainExt::new, NearDupExplainExt::parse));
    }

    /**
     * Bad {@code format}s and aggregations on fingerprint fields fail the search on the coordinating
     * node, not some shards' fetch phase or the node's heap; a {@code near_dup_explain} document is read
     * there as the caller, and its cap per request split over the shards; a shrink, split or clone keeps its source's fingerprint format.
     */
    @Override
    public List<ActionFilter> getActionFilters() {
        return List.of(
                searchChecks,
                new NearDupExplainCoordinator(() -> client, () -> clusterService, () -> indexNameExpressionResolver),
                new IndexFingerprintFormat.ResizeCheck(() -> clusterService),
                new LookupWriteIndices(() -> threadPool == null ? null : threadPool.getThreadContext()));
    }

    /** Every new index records its fingerprint format: {@link FingerprintFormat#NEW_INDEX_DEFAULT} unless it names one. */
    @Override
    public Collection<IndexSettingProvider> getAdditionalIndexSettingProviders() {
        return List.of(IndexFingerprintFormat.newIndexProvider(FingerprintFormat.NEW_INDEX_DEFAULT));
    }

    @Override
    public List<Setting<?>> getSettings() {
        return List.of(BREAKER_LIMIT, IndexFingerprintFormat.SETTING, TransportPartStepAction.MEMBERS_A_STEP);
    }

    /** The pool of {@code _near_dup_clusters} runs: their steps queue there instead of holding generic threads. */
    @Override
    public List<ExecutorBuilder<?>> getExecutorBuilders(Settings settings) {
        return List.of(ClusterSteps.executorBuilder(settings));
    }

    @Override
    public BreakerSettings getCircuitBreaker(Settings settings) {
        return new BreakerSettings(BREAKER_NAME, BREAKER_LIMIT.get(settings).getBytes(), 1.0);
    }

    @Override
    public void setCircuitBreaker(CircuitBreaker circuitBreaker) {
        breaker = circuitBreaker;
    }

    /**
     * Binds the cache and the scratch pool for injection into {@link TransportNearDupStatsAction}, the query services
     * the clusters runs' step timeouts, each run's breaker on this node ({@link NodeRunBreakers}) and the parts of the
     * runs' graphs kept here ({@link RunParts}) for the actions that use them.
     */
    @Override
    public Collection<Object> createComponents(
            Client client,
            ClusterService clusterService,
            ThreadPool threadPool,
            ResourceWatcherService resourceWatcherService,
            ScriptService scriptService,
            NamedXContentRegistry xContentRegistry,
            Environment environment,
            NodeEnvironment nodeEnvironment,
            NamedWriteableRegistry namedWriteableRegistry,
            IndexNameExpressionResolver indexNameExpressionResolver,
            Supplier<RepositoriesService> repositoriesServiceSupplier) {
        this.clusterService = clusterService;
        this.indexNameExpressionResolver = indexNameExpressionResolver;
        this.client = client;
        this.threadPool = threadPool;
        stepTimeouts = new StepTimeouts(threadPool);
        clusterService.addListener(runParts);
        return List.of(cache, scratchPool, queryServices, stepTimeouts, runBreakers, runParts);
    }

    @Override
    public List<ActionHandler<? extends ActionRequest, ? extends ActionResponse>> getActions() {
        return List.of(
                new ActionHandler<>(NearDupStatsAction.INSTANCE, TransportNearDupStatsAction.class),
                new ActionHandler<>(NearDupClustersAction.INSTANCE, TransportNearDupClustersAction.class),
                new ActionHandler<>(NearDupClustersDryRunAction.INSTANCE, TransportNearDupClustersAction.DryRun.class),
                new ActionHandler<>(ShardMatchAction.INSTANCE, TransportShardMatchAction.class),
                new ActionHandler<>(NearDupLookupAction.INSTANCE, TransportShardMatchAction.Lookup.class),
                new ActionHandler<>(ShardJoinAction.INSTANCE, TransportShardJoinAction.class),
                new ActionHandler<>(ShardGroupJoinAction.INSTANCE, TransportShardGroupJoinAction.class),
                new ActionHandler<>(ReleaseRunPartsAction.INSTANCE, TransportReleaseRunPartsAction.class),
                new ActionHandler<>(PartStepAction.INSTANCE, TransportPartStepAction.class),
                new ActionHandler<>(PartMessagesAction.INSTANCE, TransportPartMessagesAction.class),
                new ActionHandler<>(NearDupCompareAction.INSTANCE, TransportNearDupCompareAction.class),
                new ActionHandler<>(NearDupCompareTextsAction.INSTANCE, TransportNearDupCompareAction.Texts.class),
                new ActionHandler<>(
                        NearDupClustersRethrottleAction.INSTANCE,
                        NearDupClustersRethrottleAction.TransportAction.class));
    }

    @Override
    public List<RestHandler> getRestHandlers(
            Settings settings,
            RestController restController,
            ClusterSettings clusterSettings,
            IndexScopedSettings indexScopedSettings,
            SettingsFilter settingsFilter,
            IndexNameExpressionResolver indexNameExpressionResolver,
            Supplier<DiscoveryNodes> nodesInCluster) {
        return List.of(
                new RestNearDupStatsAction(),
                new RestNearDupClustersAction(),
                new RestNearDupClustersRethrottleAction(nodesInCluster),
                new RestNearDupCompareAction());
    }

    /** {@code near_dup_window}: fetches the top {@code window} hits for {@code near_dup_collapse} and remembers the user's page. */
    @Override
    public Map<String, org.opensearch.search.pipeline.Processor.Factory<SearchRequestProcessor>> getRequestProcessors(
            SearchPipelinePlugin.Parameters parameters) {
        return Map.of(NearDupWindowRequestProcessor.TYPE, new NearDupWindowRequestProcessor.Factory());
    }

    /** {@code near_dup_collapse}: folds near-duplicates in the hits into the best-ranked copy. */
    @Override
    public Map<String, org.opensearch.search.pipeline.Processor.Factory<SearchResponseProcessor>> getResponseProcessors(
            SearchPipelinePlugin.Parameters parameters) {
        return Map.of(NearDupCollapseResponseProcessor.TYPE, new NearDupCollapseResponseProcessor.Factory());
    }

    /**
     * The simhash doc value format travels between nodes with sort values and aggregation results;
     * the collapse summary with a search response.
     */
    @Override
    public List<NamedWriteableRegistry.Entry> getNamedWriteables() {
        return List.of(
                new NamedWriteableRegistry.Entry(
                        DocValueFormat.class, SimhashDocValueFormat.NAME, SimhashDocValueFormat::readFrom),
                new NamedWriteableRegistry.Entry(
                        SearchExtBuilder.class, NearDupCollapseExt.NAME, NearDupCollapseExt::new),
                new NamedWriteableRegistry.Entry(
                        Task.Status.class, NearDupClustersTask.Status.NAME, NearDupClustersTask.Status::new));
    }

    @Override
    public void close() {
        if (stepTimeouts != null) {
            stepTimeouts.close();
        }
    }
}
