/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static io.neardup.index.IndexFingerprintFormatTests.other;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import java.util.Collection;
import java.util.List;
import org.opensearch.index.shard.IndexSettingProvider;
import org.opensearch.plugins.Plugin;

/**
 * {@link IndexFingerprintFormatSingleNodeTests} with the format that is not {@link FingerprintFormat#NEW_INDEX_DEFAULT}
 * as the new indices' default: nothing may depend on which format that is.
 */
public class IndexFingerprintFormatOtherDefaultSingleNodeTests extends IndexFingerprintFormatSingleNodeTests {

    /** The plugin with the other default. */
    public static class OtherDefaultPlugin extends NearDupPlugin {
        @Override
        public Collection<IndexSettingProvider> getAdditionalIndexSettingProviders() {
            return List.of(IndexFingerprintFormat.newIndexProvider(other(FingerprintFormat.NEW_INDEX_DEFAULT)));
        }
    }

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(OtherDefaultPlugin.class);
    }

    @Override
    protected FingerprintFormat providerFormat() {
        return other(FingerprintFormat.NEW_INDEX_DEFAULT);
    }
}
