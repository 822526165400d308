/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import java.util.Collection;
import java.util.List;
import org.opensearch.ExceptionsHelper;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/** {@value IndexFingerprintFormat#KEY} on a real node: what an index gets and keeps. */
public class IndexFingerprintFormatSingleNodeTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    private FingerprintFormat formatOf(String index) {
        Settings settings = client().admin()
                .indices()
                .prepareGetSettings(index)
                .get()
                .getIndexToSettings()
                .get(index);
        return IndexFingerprintFormat.of(settings);
    }

    private static FingerprintFormat other(FingerprintFormat format) {
        return format == FingerprintFormat.SIGNATURE ? FingerprintFormat.COMPACT : FingerprintFormat.SIGNATURE;
    }

    private static void assertRefusedNaming(String value, Exception e) {
        assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
        assertEquals(
                "[index.neardup.fingerprint_format] must be one of [1, 2] (a fingerprint format), got [" + value + "]",
                ExceptionsHelper.unwrapCause(e).getMessage());
    }

    public void testABadValueIsRefusedAtCreation() {
        for (String bad : new String[] {"3", "x"}) {
            Exception e = expectThrows(
                    Exception.class,
                    () -> client().admin()
                            .indices()
                            .prepareCreate("bad")
                            .setSettings(Settings.builder().put(IndexFingerprintFormat.KEY, bad))
                            .get());
            assertRefusedNaming(bad, e);
        }
    }

    public void testTheSettingCannotBeUpdated() {
        FingerprintFormat chosen = randomFrom(FingerprintFormat.values());
        createIndex(
                "fixed",
                Settings.builder()
                        .put(IndexFingerprintFormat.KEY, chosen.number())
                        .build());
        for (boolean closed : new boolean[] {false, true}) {
            if (closed) {
                client().admin().indices().prepareClose("fixed").get();
            }
            for (Settings update : List.of(
                    Settings.builder()
                            .put(IndexFingerprintFormat.KEY, other(chosen).number())
                            .build(),
                    Settings.builder().putNull(IndexFingerprintFormat.KEY).build())) {
                Exception e = expectThrows(
                        Exception.class,
                        () -> client().admin()
                                .indices()
                                .prepareUpdateSettings("fixed")
                                .setSettings(update)
                                .get());
                assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
                // OpenSearch's own words: an open index refuses a static setting, a closed one a final setting.
                assertEquals(
                        closed
                                ? "final fixed setting [index.neardup.fingerprint_format], not updateable"
                                : "Can't update non dynamic settings [[index.neardup.fingerprint_format]] for open indices ["
                                        + resolveIndex("fixed") + "]",
                        ExceptionsHelper.unwrapCause(e).getMessage());
            }
        }
        assertSame(chosen, formatOf("fixed"));
    }
}
