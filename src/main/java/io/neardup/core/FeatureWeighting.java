/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Locale;

/**
 * How a feature's count within one document becomes its simhash weight (before any IDF factor).
 * On synthetic Zipf text raw TF is degenerate for single words (the commonest set every bit); on
 * real text it keeps unrelated documents 25-30 bits apart. The default is {@link #LOG_TF} (see
 * {@link FingerprintScheme#defaults}).
 */
public enum FeatureWeighting {
    /** Every distinct feature weighs 1. */
    BINARY("binary"),
    /** The raw count c. */
    TF("tf"),
    /** 1 + ln(c): dampens repetition while still ranking repeated features higher. */
    LOG_TF("log_tf");

    private final String paramName;

    FeatureWeighting(String paramName) {
        this.paramName = paramName;
    }

    /** The name users write in configuration, also used in {@link FingerprintScheme#describe()}. */
    public String paramName() {
        return paramName;
    }

    /** The weight of a feature seen {@code count >= 1} times. */
    public double weight(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, got " + count);
        }
        return switch (this) {
            case BINARY -> 1.0;
            case TF -> count;
            // StrictMath: weights feed persisted fingerprints, so they must not vary by JVM/CPU.
            case LOG_TF -> 1.0 + StrictMath.log(count);
        };
    }

    public static FeatureWeighting parse(String value) {
        if (value != null) {
            String v = value.toLowerCase(Locale.ROOT);
            for (FeatureWeighting w : values()) {
                if (w.paramName.equals(v)) {
                    return w;
                }
            }
        }
        throw new IllegalArgumentException("unknown weighting [" + value + "], expected one of [binary, tf, log_tf]");
    }
}
