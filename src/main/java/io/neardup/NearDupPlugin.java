package io.neardup;

import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.ingest.NearDupFingerprintProcessorFactory;
import io.neardup.mapper.MinhashFieldMapper;
import io.neardup.mapper.SimhashDocValueFormat;
import io.neardup.mapper.SimhashFieldMapper;
import io.neardup.query.LikeResolver;
import io.neardup.query.NearDuplicateQueryBuilder;
import io.neardup.query.QueryServices;
import io.neardup.query.SegmentFingerprintCache;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.common.unit.ByteSizeValue;
import org.opensearch.indices.breaker.BreakerSettings;
import org.opensearch.ingest.IngestService;
import org.opensearch.plugins.CircuitBreakerPlugin;
import org.opensearch.plugins.SearchPlugin;
import org.opensearch.core.common.io.stream.NamedWriteableRegistry;
import org.opensearch.index.mapper.Mapper;
import org.opensearch.ingest.Processor;
import org.opensearch.plugins.IngestPlugin;
import org.opensearch.plugins.MapperPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.DocValueFormat;

import java.util.List;
import java.util.Map;

/**
 * Entry point that OpenSearch loads from {@code plugin-descriptor.properties}; it registers the
 * plugin's processor, field types, query and response processor as each lands.
 */
public class NearDupPlugin extends Plugin implements IngestPlugin, MapperPlugin, SearchPlugin, CircuitBreakerPlugin {

    public static final String BREAKER_NAME = "neardup";
    /** Heap the per-segment fingerprint structures may take on a node, beyond which a query fails with a 429. */
    public static final Setting<ByteSizeValue> BREAKER_LIMIT = Setting.memorySizeSetting(
        "neardup.breaker.limit",
        "10%",
        Setting.Property.NodeScope
    );

    private volatile IngestService ingestService;
    private volatile CircuitBreaker breaker;
    private final SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> breaker);
    private final QueryServices queryServices = new QueryServices(new LikeResolver(() -> ingestService), cache);

    @Override
    public Map<String, Processor.Factory> getProcessors(Processor.Parameters parameters) {
        ingestService = parameters.ingestService;
        return Map.of(
            NearDupFingerprintProcessor.TYPE,
            new NearDupFingerprintProcessorFactory(parameters.analysisRegistry, parameters.env)
        );
    }

    @Override
    public Map<String, Mapper.TypeParser> getMappers() {
        return Map.of(
            SimhashFieldMapper.CONTENT_TYPE, SimhashFieldMapper.PARSER,
            MinhashFieldMapper.CONTENT_TYPE, MinhashFieldMapper.PARSER
        );
    }

    @Override
    public List<QuerySpec<?>> getQueries() {
        return List.of(new QuerySpec<>(
            NearDuplicateQueryBuilder.NAME,
            in -> new NearDuplicateQueryBuilder(in, queryServices),
            parser -> NearDuplicateQueryBuilder.fromXContent(parser, queryServices)
        ));
    }

    @Override
    public List<Setting<?>> getSettings() {
        return List.of(BREAKER_LIMIT);
    }

    @Override
    public BreakerSettings getCircuitBreaker(Settings settings) {
        return new BreakerSettings(BREAKER_NAME, BREAKER_LIMIT.get(settings).getBytes(), 1.0);
    }

    @Override
    public void setCircuitBreaker(CircuitBreaker circuitBreaker) {
        breaker = circuitBreaker;
    }

    public SegmentFingerprintCache fingerprintCache() {
        return cache;
    }

    /** The simhash doc value format travels between nodes with sort values and aggregation results. */
    @Override
    public List<NamedWriteableRegistry.Entry> getNamedWriteables() {
        return List.of(new NamedWriteableRegistry.Entry(DocValueFormat.class, SimhashDocValueFormat.NAME, SimhashDocValueFormat::readFrom));
    }
}
