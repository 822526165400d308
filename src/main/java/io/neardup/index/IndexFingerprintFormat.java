/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintFormat;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexAbstraction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Settings;

/** The index setting that records an index's {@link FingerprintFormat}, fixed when the index is created. */
public final class IndexFingerprintFormat {
    public static final Setting<Integer> SETTING = Setting.intSetting(
            "index.neardup.fingerprint_format",
            FingerprintFormat.UNRECORDED.number(),
            1,
            2,
            Setting.Property.IndexScope,
            Setting.Property.Final);

    private IndexFingerprintFormat() {}

    public static FingerprintFormat of(Settings indexSettings) {
        return FingerprintFormat.of(SETTING.get(indexSettings));
    }

    /** The format of a document indexed into {@code target}: its index's, its write index's, else a new index's. */
    public static FingerprintFormat forWrite(ClusterState state, String target) {
        IndexAbstraction abstraction =
                target == null ? null : state.metadata().getIndicesLookup().get(target);
        IndexMetadata index = abstraction == null ? null : abstraction.getWriteIndex();
        return index == null ? FingerprintFormat.NEW_INDEX_DEFAULT : of(index.getSettings());
    }
}
