/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FlipSetGenerator;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.Locale;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * The options of a near-duplicate match, validated once: what the {@code near_duplicate} query,
 * {@code _near_dup_clusters} and {@code near_dup_lookup} take. Null is "not set": the field kind's
 * default applies, and an option of the other kind set on a field is refused
 * ({@link #requireApplicableTo}), never ignored. Immutable; each {@code with…} checks its value.
 */
public record NearDupOptions(
        Integer maxDistance,
        Mode mode,
        Integer maxFlips,
        Integer prefixBits,
        Boolean firstMatch,
        Double minSimilarity,
        Integer minBandMatches,
        Verification verification)
        implements Writeable, ToXContentFragment {

    /** The name every message starts with: the options are the query's, whichever entry point takes them. */
    public static final String QUERY = "near_duplicate";

    public static final int DEFAULT_MAX_DISTANCE = 3;
    public static final int MAX_MAX_DISTANCE = FlipSetGenerator.MAX_DISTANCE;
    public static final int DEFAULT_MAX_FLIPS = 64;
    public static final int MAX_MAX_FLIPS = FlipSetGenerator.MAX_K;
    public static final int MAX_PREFIX_BITS = SortedFingerprints.MAX_PREFIX_BITS;
    /** {@code prefix_bits: "auto"}: about log2 of each segment's size. */
    public static final int AUTO_PREFIX_BITS = 0;

    public static final double DEFAULT_MIN_SIMILARITY = 0.8;
    public static final int MAX_MIN_BAND_MATCHES = 1024;

    /** No option set: every default. */
    public static final NearDupOptions DEFAULTS = new NearDupOptions(null, null, null, null, null, null, null, null);

    /** How the neighbours of a {@code simhash} fingerprint are looked up. */
    public enum Mode {
        /** Probabilistic Simhash Matching: the {@code max_flips} most probable flip sets of the query's weak bits. */
        PSM,
        /** Every document within {@code max_distance}: recall 1 by construction. */
        EXACT;

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Mode parse(String value) {
            for (Mode mode : values()) {
                if (mode.paramName().equals(value)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException(
                    "[" + QUERY + "] unknown mode [" + value + "], expected [psm] or [exact]");
        }
    }

    /** How candidates are checked against {@code min_similarity} (on a {@code minhash} field, or a {@code simhash} one with it). */
    public enum Verification {
        /** The exact Jaccard of the shingle sets where the query and the document both have one, else the estimate. */
        AUTO,
        /** Always the MinHash estimate (fraction of equal signature values): cheaper, ±0.035 at J = 0.8 with 128 values. */
        ESTIMATE;

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Verification parse(String value) {
            for (Verification verification : values()) {
                if (verification.paramName().equals(value)) {
                    return verification;
                }
            }
            throw new IllegalArgumentException(
                    "[" + QUERY + "] unknown verification [" + value + "], expected [auto] or [estimate]");
        }
    }

    /** The two kinds of fingerprint field, each with the options that apply to it. */
    public enum FieldKind {
        SIMHASH("simhash"),
        MINHASH("minhash");

        private final String typeName;

        FieldKind(String typeName) {
            this.typeName = typeName;
        }

        public String typeName() {
            return typeName;
        }

        /** The kind a mapping's {@code type} names, or null for a type that is no fingerprint field. */
        public static FieldKind ofType(Object type) {
            for (FieldKind kind : values()) {
                if (kind.typeName.equals(type)) {
                    return kind;
                }
            }
            return null;
        }
    }

    public NearDupOptions {
        if (maxDistance != null && (maxDistance < 0 || maxDistance > MAX_MAX_DISTANCE)) {
            throw new IllegalArgumentException("[" + QUERY + "] [max_distance] must be in [0, " + MAX_MAX_DISTANCE
                    + "], got [" + maxDistance + "]");
        }
        if (maxFlips != null && (maxFlips < 1 || maxFlips > MAX_MAX_FLIPS)) {
            throw new IllegalArgumentException(
                    "[" + QUERY + "] [max_flips] must be in [1, " + MAX_MAX_FLIPS + "], got [" + maxFlips + "]");
        }
        if (prefixBits != null && prefixBits != AUTO_PREFIX_BITS && (prefixBits < 1 || prefixBits > MAX_PREFIX_BITS)) {
            throw new IllegalArgumentException("[" + QUERY + "] [prefix_bits] must be \"auto\" or in [1, "
                    + MAX_PREFIX_BITS + "], got [" + prefixBits + "]");
        }
        if (minSimilarity != null && (minSimilarity > 0 && minSimilarity <= 1) == false) {
            throw new IllegalArgumentException(
                    "[" + QUERY + "] [min_similarity] must be in (0, 1], got [" + minSimilarity + "]");
        }
        if (minBandMatches != null && (minBandMatches < 1 || minBandMatches > MAX_MIN_BAND_MATCHES)) {
            throw new IllegalArgumentException("[" + QUERY + "] [min_band_matches] must be in [1, "
                    + MAX_MIN_BAND_MATCHES + "], got [" + minBandMatches + "]");
        }
    }

    public NearDupOptions(StreamInput in) throws IOException {
        this(
                in.readOptionalVInt(),
                in.readBoolean() ? in.readEnum(Mode.class) : null,
                in.readOptionalVInt(),
                in.readOptionalVInt(),
                in.readOptionalBoolean(),
                in.readOptionalDouble(),
                in.readOptionalVInt(),
                in.readBoolean() ? in.readEnum(Verification.class) : null);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeOptionalVInt(maxDistance);
        out.writeBoolean(mode != null);
        if (mode != null) {
            out.writeEnum(mode);
        }
        out.writeOptionalVInt(maxFlips);
        out.writeOptionalVInt(prefixBits);
        out.writeOptionalBoolean(firstMatch);
        out.writeOptionalDouble(minSimilarity);
        out.writeOptionalVInt(minBandMatches);
        out.writeBoolean(verification != null);
        if (verification != null) {
            out.writeEnum(verification);
        }
    }

    public NearDupOptions withMaxDistance(int value) {
        return new NearDupOptions(
                value, mode, maxFlips, prefixBits, firstMatch, minSimilarity, minBandMatches, verification);
    }

    public NearDupOptions withMode(Mode value) {
        return new NearDupOptions(
                maxDistance, value, maxFlips, prefixBits, firstMatch, minSimilarity, minBandMatches, verification);
    }

    public NearDupOptions withMaxFlips(int value) {
        return new NearDupOptions(
                maxDistance, mode, value, prefixBits, firstMatch, minSimilarity, minBandMatches, verification);
    }

    /** @param value {@link #AUTO_PREFIX_BITS} or 1 to {@value #MAX_PREFIX_BITS} */
    public NearDupOptions withPrefixBits(int value) {
        return new NearDupOptions(
                maxDistance, mode, maxFlips, value, firstMatch, minSimilarity, minBandMatches, verification);
    }

    public NearDupOptions withFirstMatch(boolean value) {
        return new NearDupOptions(
                maxDistance, mode, maxFlips, prefixBits, value, minSimilarity, minBandMatches, verification);
    }

    public NearDupOptions withMinSimilarity(double value) {
        return new NearDupOptions(
                maxDistance, mode, maxFlips, prefixBits, firstMatch, value, minBandMatches, verification);
    }

    public NearDupOptions withMinBandMatches(int value) {
        return new NearDupOptions(
                maxDistance, mode, maxFlips, prefixBits, firstMatch, minSimilarity, value, verification);
    }

    public NearDupOptions withVerification(Verification value) {
        return new NearDupOptions(
                maxDistance, mode, maxFlips, prefixBits, firstMatch, minSimilarity, minBandMatches, value);
    }

    public int effectiveMaxDistance() {
        return maxDistance == null ? DEFAULT_MAX_DISTANCE : maxDistance;
    }

    public Mode effectiveMode() {
        return mode == null ? Mode.PSM : mode;
    }

    public int effectiveMaxFlips() {
        return maxFlips == null ? DEFAULT_MAX_FLIPS : maxFlips;
    }

    public int effectivePrefixBits() {
        return prefixBits == null ? AUTO_PREFIX_BITS : prefixBits;
    }

    public boolean effectiveFirstMatch() {
        return firstMatch != null && firstMatch;
    }

    public double effectiveMinSimilarity() {
        return minSimilarity == null ? DEFAULT_MIN_SIMILARITY : minSimilarity;
    }

    /** Whether candidates may be verified on their shingle sets' exact Jaccard (else the estimate alone). */
    public boolean exactVerification() {
        return verification != Verification.ESTIMATE;
    }

    /**
     * Refuses every option set here that does not apply to a field of {@code kind}: a 400 naming the
     * option, never an option silently ignored.
     *
     * @param entryPoint the request that took the options, first in the message ({@value #QUERY}, {@code _near_dup_clusters})
     */
    public void requireApplicableTo(String entryPoint, FieldKind kind, String field) {
        if (kind == FieldKind.SIMHASH) {
            refuse(entryPoint, kind, field, minBandMatches, "min_band_matches");
            if (minSimilarity == null && verification != null) {
                throw new IllegalArgumentException(
                        "[" + entryPoint + "] [verification] on a [simhash] field goes with [min_similarity]");
            }
        } else {
            refuse(entryPoint, kind, field, maxDistance, "max_distance");
            refuse(entryPoint, kind, field, mode, "mode");
            refuse(entryPoint, kind, field, maxFlips, "max_flips");
            refuse(entryPoint, kind, field, prefixBits, "prefix_bits");
            refuse(entryPoint, kind, field, firstMatch, "first_match");
        }
    }

    private static void refuse(String entryPoint, FieldKind kind, String field, Object value, String name) {
        if (value != null) {
            FieldKind other = kind == FieldKind.SIMHASH ? FieldKind.MINHASH : FieldKind.SIMHASH;
            throw new IllegalArgumentException("[" + entryPoint + "] [" + name + "] applies to [" + other.typeName()
                    + "] fields; [" + field + "] is a [" + kind.typeName() + "] field"
                    + (kind == FieldKind.MINHASH ? ": use [min_similarity]" : ""));
        }
    }

    /** The name of the first option set, in the query's order, or null when none is. */
    public String firstSetName() {
        Object[] values = {
            maxDistance, mode, maxFlips, prefixBits, firstMatch, minSimilarity, minBandMatches, verification
        };
        String[] names = {
            "max_distance",
            "mode",
            "max_flips",
            "prefix_bits",
            "first_match",
            "min_similarity",
            "min_band_matches",
            "verification"
        };
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                return names[i];
            }
        }
        return null;
    }

    /** The options set, in the query's order. */
    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        if (maxDistance != null) {
            builder.field("max_distance", maxDistance);
        }
        if (mode != null) {
            builder.field("mode", mode.paramName());
        }
        if (maxFlips != null) {
            builder.field("max_flips", maxFlips);
        }
        if (prefixBits != null) {
            builder.field("prefix_bits", prefixBits == AUTO_PREFIX_BITS ? "auto" : prefixBits);
        }
        if (firstMatch != null) {
            builder.field("first_match", firstMatch);
        }
        if (minSimilarity != null) {
            builder.field("min_similarity", minSimilarity);
        }
        if (minBandMatches != null) {
            builder.field("min_band_matches", minBandMatches);
        }
        if (verification != null) {
            builder.field("verification", verification.paramName());
        }
        return builder;
    }
}
