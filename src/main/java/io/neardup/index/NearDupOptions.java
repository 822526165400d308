/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FlipSetGenerator;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
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
    }

    /** Checks each value set against {@link NearDupOption}'s table; a refusal names the option as the query does. */
    public NearDupOptions {
        check(NearDupOption.MAX_DISTANCE, maxDistance);
        check(NearDupOption.MAX_FLIPS, maxFlips);
        check(NearDupOption.PREFIX_BITS, prefixBits == null || prefixBits != AUTO_PREFIX_BITS ? prefixBits : "auto");
        check(NearDupOption.MIN_SIMILARITY, minSimilarity);
        check(NearDupOption.MIN_BAND_MATCHES, minBandMatches);
    }

    private static void check(NearDupOption option, Object value) {
        if (value != null) {
            try {
                option.read(value);
            } catch (NearDupOption.Invalid e) {
                throw new IllegalArgumentException("[" + QUERY + "] " + e.getMessage(), e);
            }
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
     * @throws NearDupOption.Invalid naming the first such option; the entry point puts its name before it
     */
    public void requireApplicableTo(FingerprintKind kind, String field) {
        NearDupOption.requireApplicable(set().keySet(), kind, field);
    }

    /** The options set, in the query's order (the order of {@link NearDupOption}). */
    public Map<NearDupOption, Object> set() {
        Object[] values = {
            maxDistance, mode, maxFlips, prefixBits, firstMatch, minSimilarity, minBandMatches, verification
        };
        Map<NearDupOption, Object> set = new EnumMap<>(NearDupOption.class);
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null) {
                set.put(NearDupOption.values()[i], values[i]);
            }
        }
        return set;
    }

    /** The options set, in the query's order. */
    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        for (Map.Entry<NearDupOption, Object> option : set().entrySet()) {
            Object value = option.getValue();
            if (option.getKey() == NearDupOption.PREFIX_BITS && prefixBits == AUTO_PREFIX_BITS) {
                value = "auto";
            } else if (value instanceof Mode m) {
                value = m.paramName();
            } else if (value instanceof Verification v) {
                value = v.paramName();
            }
            builder.field(option.getKey().paramName(), value);
        }
        return builder;
    }

    /**
     * Reads the matching options of one entry point from its request body or its processor's configuration, each
     * through {@link NearDupOption#read}, then the rules between them: {@code contained} goes with
     * {@code min_containment}, beside which no similarity option applies.
     */
    public static final class Reader {
        private final Set<NearDupOption> accepted;
        private final String notAccepted;
        private final Map<NearDupOption, Object> values = new EnumMap<>(NearDupOption.class);

        /**
         * @param accepted the options this entry point takes
         * @param notAccepted why it takes none of the others: the reason given for one of them
         */
        public Reader(Set<NearDupOption> accepted, String notAccepted) {
            this.accepted = accepted;
            this.notAccepted = notAccepted;
        }

        /** An entry point that takes every option (the query). */
        public Reader() {
            this(NearDupOption.all(), "");
        }

        /**
         * Reads {@code raw} when {@code name} is a matching option and returns true; false when it is none (an option
         * of the entry point's own, or an unknown one).
         *
         * @throws NearDupOption.Invalid for a bad value, or an option this entry point does not take
         */
        public boolean read(String name, Object raw) {
            NearDupOption option = NearDupOption.named(name);
            if (option == null) {
                return false;
            }
            if (accepted.contains(option) == false) {
                throw new NearDupOption.Invalid(option, notAccepted);
            }
            values.put(option, option.read(raw));
            return true;
        }

        /** Reads (and removes) every matching option of a processor's configuration, a key set to null too. */
        public Reader readFrom(Map<String, Object> config) {
            for (NearDupOption option : NearDupOption.values()) {
                if (config.containsKey(option.paramName())) {
                    read(option.paramName(), config.remove(option.paramName()));
                }
            }
            return this;
        }

        /** Whether {@code option} was read. */
        public boolean has(NearDupOption option) {
            return values.containsKey(option);
        }

        /** The similarity options read. */
        public NearDupOptions options() {
            return new NearDupOptions(
                    (Integer) values.get(NearDupOption.MAX_DISTANCE),
                    (Mode) values.get(NearDupOption.MODE),
                    (Integer) values.get(NearDupOption.MAX_FLIPS),
                    (Integer) values.get(NearDupOption.PREFIX_BITS),
                    (Boolean) values.get(NearDupOption.FIRST_MATCH),
                    (Double) values.get(NearDupOption.MIN_SIMILARITY),
                    (Integer) values.get(NearDupOption.MIN_BAND_MATCHES),
                    (Verification) values.get(NearDupOption.VERIFICATION));
        }

        /**
         * The containment match read, or null without {@code min_containment}.
         *
         * @throws NearDupOption.Invalid for {@code contained} without {@code min_containment}, or a similarity option
         *     beside it
         */
        public Containment containment() {
            Double min = (Double) values.get(NearDupOption.MIN_CONTAINMENT);
            Containment.Contained contained = (Containment.Contained) values.get(NearDupOption.CONTAINED);
            if (min == null) {
                if (contained != null) {
                    throw new NearDupOption.Invalid(
                            NearDupOption.CONTAINED, "goes with [" + Containment.MIN_CONTAINMENT + "]");
                }
                return null;
            }
            Containment.requireNoSimilarityOption(options());
            return new Containment(min, contained);
        }
    }
}
