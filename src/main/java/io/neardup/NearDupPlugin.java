package io.neardup;

import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.ingest.NearDupFingerprintProcessorFactory;
import io.neardup.mapper.MinhashFieldMapper;
import io.neardup.mapper.SimhashDocValueFormat;
import io.neardup.mapper.SimhashFieldMapper;
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
public class NearDupPlugin extends Plugin implements IngestPlugin, MapperPlugin {

    @Override
    public Map<String, Processor.Factory> getProcessors(Processor.Parameters parameters) {
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

    /** The simhash doc value format travels between nodes with sort values and aggregation results. */
    @Override
    public List<NamedWriteableRegistry.Entry> getNamedWriteables() {
        return List.of(new NamedWriteableRegistry.Entry(DocValueFormat.class, SimhashDocValueFormat.NAME, SimhashDocValueFormat::readFrom));
    }
}
