/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import java.util.Collection;
import java.util.List;
import org.opensearch.index.shard.IndexSettingProvider;
import org.opensearch.plugins.Plugin;

/**
 * {@link IndexFingerprintFormatSingleNodeTests} on a node without the provider: every index that names no format is
 * created as before formats were recorded, and reads as {@link FingerprintFormat#UNRECORDED}.
 */
public class IndexFingerprintFormatUnrecordedSingleNodeTests extends IndexFingerprintFormatSingleNodeTests {

    /** The plugin without its provider. */
    public static class NoProviderPlugin extends NearDupPlugin {
        @Override
        public Collection<IndexSettingProvider> getAdditionalIndexSettingProviders() {
            return List.of();
        }
    }

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NoProviderPlugin.class);
    }

    @Override
    protected FingerprintFormat providerFormat() {
        return null;
    }
}
