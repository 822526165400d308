/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.SimhashCodec;
import java.util.function.LongSupplier;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.search.DocValueFormat;

/**
 * Renders a {@code simhash} doc value (the fingerprint xor {@link Long#MIN_VALUE}) as the
 * fingerprint's 16 lowercase hex digits, for {@code docvalue_fields}, sort values and
 * {@code search_after}. Stateless; registered as a {@code NamedWriteable} under {@link #NAME}.
 */
public final class SimhashDocValueFormat implements DocValueFormat {
    public static final String NAME = "neardup_simhash_hex";
    public static final SimhashDocValueFormat INSTANCE = new SimhashDocValueFormat();

    private SimhashDocValueFormat() {}

    /** Reader for the named writeable registry: the format has no state. */
    public static SimhashDocValueFormat readFrom(StreamInput in) {
        return INSTANCE;
    }

    @Override
    public String getWriteableName() {
        return NAME;
    }

    @Override
    public void writeTo(StreamOutput out) {}

    @Override
    public String format(long value) {
        return SimhashCodec.toHex(SimhashFieldMapper.decode(value));
    }

    @Override
    public long parseLong(String value, boolean roundUp, LongSupplier now) {
        return SimhashFieldMapper.encode(SimhashCodec.parseHex(value));
    }

    /**
     * Numeric aggregations (avg, sum, min, max, stats, percentiles, histogram, range) work on
     * doubles, which cannot hold a 64-bit fingerprint exactly: refused with a reason instead of
     * answering with a wrong fingerprint.
     */
    @Override
    public Object format(double value) {
        throw numeric();
    }

    @Override
    public double parseDouble(String value, boolean roundUp, LongSupplier now) {
        throw numeric();
    }

    /** Why a fingerprint is not read as a number, and what to use instead. */
    public static final String NOT_NUMBERS =
            "[simhash] fields hold fingerprints, not numbers: numeric aggregations (avg, sum, min, max, "
                    + "stats, percentiles, histogram, range) do not apply; use terms, cardinality, value_count, missing, or sort by the field";

    private static IllegalArgumentException numeric() {
        return new IllegalArgumentException(NOT_NUMBERS);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
