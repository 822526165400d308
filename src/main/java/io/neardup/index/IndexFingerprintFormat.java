/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintFormat;
import java.util.Arrays;
import java.util.List;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Setting.Property;
import org.opensearch.common.settings.Settings;

/**
 * Where an index's {@link FingerprintFormat} is recorded: the index setting {@value #KEY}, 1 or 2, set when the
 * index is created and final (no settings update changes it). An index without it was created before formats were
 * recorded and reads as {@link FingerprintFormat#UNRECORDED}.
 */
public final class IndexFingerprintFormat {

    public static final String KEY = "index.neardup.fingerprint_format";

    private static final List<Integer> NUMBERS = Arrays.stream(FingerprintFormat.values())
            .map(FingerprintFormat::number)
            .toList();

    /** {@value #KEY}; its default is the format of an index created before formats were recorded. */
    public static final Setting<FingerprintFormat> SETTING = new Setting<>(
            KEY,
            settings -> Integer.toString(FingerprintFormat.UNRECORDED.number()),
            IndexFingerprintFormat::parse,
            Property.IndexScope,
            Property.Final);

    private IndexFingerprintFormat() {}

    /** The format recorded in an index's settings, {@link FingerprintFormat#UNRECORDED} where there is none. */
    public static FingerprintFormat of(Settings indexSettings) {
        return SETTING.get(indexSettings);
    }

    /** A value of {@value #KEY}; a bad one is refused naming the setting and the values it takes. */
    private static FingerprintFormat parse(String value) {
        try {
            return FingerprintFormat.of(Integer.parseInt(value));
        } catch (IllegalArgumentException e) { // a NumberFormatException too
            throw new IllegalArgumentException(
                    "[" + KEY + "] must be one of " + NUMBERS + " (a fingerprint format), got [" + value + "]", e);
        }
    }
}
