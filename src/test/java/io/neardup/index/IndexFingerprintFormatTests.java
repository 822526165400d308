/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintFormat;
import org.opensearch.common.settings.Settings;
import org.opensearch.test.OpenSearchTestCase;

/** {@link IndexFingerprintFormat} without a node: the setting's values. */
public class IndexFingerprintFormatTests extends OpenSearchTestCase {

    public void testAnIndexWithoutTheSettingIsUnrecorded() {
        assertSame(FingerprintFormat.UNRECORDED, IndexFingerprintFormat.of(Settings.EMPTY));
        assertSame(
                FingerprintFormat.UNRECORDED,
                IndexFingerprintFormat.of(
                        Settings.builder().putNull(IndexFingerprintFormat.KEY).build()));
    }

    public void testEachFormatReadsBack() {
        for (FingerprintFormat format : FingerprintFormat.values()) {
            Settings settings = Settings.builder()
                    .put(IndexFingerprintFormat.KEY, format.number())
                    .build();
            assertSame(format, IndexFingerprintFormat.of(settings));
        }
    }

    public void testABadValueNamesTheSettingAndTheValues() {
        for (String bad : new String[] {"3", "0", "-1", "x", "1.5", ""}) {
            Settings settings =
                    Settings.builder().put(IndexFingerprintFormat.KEY, bad).build();
            IllegalArgumentException e =
                    expectThrows(IllegalArgumentException.class, () -> IndexFingerprintFormat.of(settings));
            assertEquals(
                    "[index.neardup.fingerprint_format] must be one of [1, 2] (a fingerprint format), got [" + bad
                            + "]",
                    e.getMessage());
        }
    }

    public void testTheSettingIsAFinalIndexSetting() {
        assertTrue(IndexFingerprintFormat.SETTING.hasIndexScope());
        assertTrue(IndexFingerprintFormat.SETTING.isFinal());
        assertFalse(IndexFingerprintFormat.SETTING.isDynamic());
        assertEquals(
                Integer.toString(FingerprintFormat.UNRECORDED.number()),
                IndexFingerprintFormat.SETTING.getDefaultRaw(Settings.EMPTY));
    }
}
