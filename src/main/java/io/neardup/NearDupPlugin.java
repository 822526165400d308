package io.neardup;

import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.ingest.NearDupFingerprintProcessorFactory;
import org.opensearch.ingest.Processor;
import org.opensearch.plugins.IngestPlugin;
import org.opensearch.plugins.Plugin;

import java.util.Map;

/**
 * Entry point that OpenSearch loads from {@code plugin-descriptor.properties}; it registers the
 * plugin's processor, field types, query and response processor as each lands.
 */
public class NearDupPlugin extends Plugin implements IngestPlugin {

    @Override
    public Map<String, Processor.Factory> getProcessors(Processor.Parameters parameters) {
        return Map.of(
            NearDupFingerprintProcessor.TYPE,
            new NearDupFingerprintProcessorFactory(parameters.analysisRegistry, parameters.env)
        );
    }
}
