package io.neardup;

import org.opensearch.plugins.Plugin;

/**
 * Entry point that OpenSearch loads from {@code plugin-descriptor.properties}; it registers the
 * plugin's processor, field types, query and response processor as each lands.
 */
public class NearDupPlugin extends Plugin {
}
