/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FlipSetGenerator;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.opensearch.core.xcontent.XContentParser;

/**
 * The one table of the matching options: each option's name, the values it takes, its range and the field kinds
 * it applies to. Every entry point (the {@code near_duplicate} query, {@code _near_dup_clusters},
 * {@code near_dup_lookup}, {@code near_dup_collapse}) reads its options through {@link #read}, from a request body
 * ({@link #valueOf(XContentParser)}) or from a processor's configuration map, so that the same bad value gets the
 * same words everywhere; each entry point only puts its own name (or processor tag) before them.
 *
 * <p>A number is taken as a JSON number or a string of one, as OpenSearch's own parameters are; an integer option
 * refuses a fraction and anything beyond its range, however large, with a 400 naming it.
 */
public enum NearDupOption {
    MAX_DISTANCE(
            "max_distance", Kind.SIMHASH_ONLY, (o, raw) -> o.readIntWithin(raw, 0, NearDupOptions.MAX_MAX_DISTANCE)),
    MODE(
            "mode",
            Kind.SIMHASH_ONLY,
            (o, raw) -> o.oneOf(raw, NearDupOptions.Mode.values(), NearDupOptions.Mode::paramName)),
    MAX_FLIPS("max_flips", Kind.SIMHASH_ONLY, (o, raw) -> o.readIntWithin(raw, 1, FlipSetGenerator.MAX_K)),
    /** {@code "auto"} is {@link NearDupOptions#AUTO_PREFIX_BITS}. */
    PREFIX_BITS("prefix_bits", Kind.SIMHASH_ONLY, NearDupOption::prefixBits),
    FIRST_MATCH("first_match", Kind.SIMHASH_ONLY, (o, raw) -> booleanValue(o.paramName, raw)),
    MIN_SIMILARITY("min_similarity", Kind.BOTH, (o, raw) -> o.fraction(raw, false)),
    MIN_BAND_MATCHES(
            "min_band_matches",
            Kind.MINHASH_ONLY,
            (o, raw) -> o.readIntWithin(raw, 1, NearDupOptions.MAX_MIN_BAND_MATCHES)),
    VERIFICATION(
            "verification",
            Kind.BOTH,
            (o, raw) -> o.oneOf(raw, NearDupOptions.Verification.values(), NearDupOptions.Verification::paramName)),
    MIN_CONTAINMENT(Containment.MIN_CONTAINMENT, Kind.MINHASH_ONLY, (o, raw) -> o.fraction(raw, true)),
    CONTAINED(
            Containment.CONTAINED,
            Kind.MINHASH_ONLY,
            (o, raw) -> o.oneOf(raw, Containment.Contained.values(), Containment.Contained::paramName));

    /** How an option's value is read from what a request or a configuration holds. */
    private interface Conversion {
        Object convert(NearDupOption option, Object raw);
    }

    /** Which fingerprint fields an option applies to. */
    enum Kind {
        SIMHASH_ONLY,
        MINHASH_ONLY,
        BOTH
    }

    private final String paramName;
    private final Kind kind;
    private final Conversion conversion;

    NearDupOption(String paramName, Kind kind, Conversion conversion) {
        this.paramName = paramName;
        this.kind = kind;
        this.conversion = conversion;
    }

    /** The option's name in a request or a processor's configuration. */
    public String paramName() {
        return paramName;
    }

    /** Whether the option applies to a field of {@code fieldKind}. */
    public boolean appliesTo(FingerprintKind fieldKind) {
        return kind == Kind.BOTH || (kind == Kind.SIMHASH_ONLY) == (fieldKind == FingerprintKind.SIMHASH);
    }

    /**
     * Refuses the first of {@code set} (in the table's order) that does not apply to a field of {@code kind}, and
     * {@code verification} on a {@code simhash} field without {@code min_similarity}, whose candidates it would not
     * verify.
     *
     * @throws Invalid naming that option
     */
    public static void requireApplicable(Set<NearDupOption> set, FingerprintKind kind, String field) {
        FingerprintKind other = kind == FingerprintKind.SIMHASH ? FingerprintKind.MINHASH : FingerprintKind.SIMHASH;
        for (NearDupOption option : values()) {
            if (set.contains(option) && option.appliesTo(kind) == false) {
                throw new Invalid(
                        option,
                        "applies to [" + other.typeName() + "] fields; [" + field + "] is a [" + kind.typeName()
                                + "] field"
                                + (kind == FingerprintKind.MINHASH ? ": use [min_similarity]" : ""));
            }
        }
        if (kind == FingerprintKind.SIMHASH && set.contains(VERIFICATION) && set.contains(MIN_SIMILARITY) == false) {
            throw new Invalid(VERIFICATION, "on a [simhash] field goes with [min_similarity]");
        }
    }

    /** The option named {@code name}, or null when no matching option has that name. */
    public static NearDupOption named(String name) {
        for (NearDupOption option : values()) {
            if (option.paramName.equals(name)) {
                return option;
            }
        }
        return null;
    }

    /**
     * The option's value from {@code raw} (a number, a string, a boolean or null, as JSON or a processor's
     * configuration gives it): an {@code Integer}, a {@code Double}, a {@code Boolean} or the option's enum constant.
     *
     * @throws Invalid naming the option, with the same reason whichever entry point reads it
     */
    public Object read(Object raw) {
        return conversion.convert(this, raw);
    }

    /**
     * The current value of a request body, as {@link #read} takes it: a number, a string, a boolean or null.
     *
     * @throws Invalid for an object or an array, naming {@code name}
     */
    public static Object valueOf(XContentParser parser, String name) throws IOException {
        XContentParser.Token token = parser.currentToken();
        return switch (token) {
            case VALUE_NUMBER -> parser.numberValue();
            case VALUE_STRING -> parser.text();
            case VALUE_BOOLEAN -> parser.booleanValue();
            case VALUE_NULL -> null;
            default -> throw new Invalid(name, "must be a value, got [" + token + "]");
        };
    }

    /** The names of {@code options}, as {@code [a], [b] and [c]}. */
    public static String names(Set<NearDupOption> options) {
        String[] names = options.stream().map(o -> "[" + o.paramName + "]").toArray(String[]::new);
        if (names.length <= 1) {
            return String.join("", names);
        }
        return String.join(", ", Arrays.copyOf(names, names.length - 1)) + " and " + names[names.length - 1];
    }

    /** Every option, for the entry points that take them all. */
    public static Set<NearDupOption> all() {
        return EnumSet.allOf(NearDupOption.class);
    }

    /**
     * This integer option's value from {@code raw}, within {@code [min, max]}: the table's own range, or another an
     * entry point means to take (collapse's {@code max_distance} reaches further than the query's).
     */
    public int readIntWithin(Object raw, int min, int max) {
        return integerWithin(paramName, raw, min, max);
    }

    private Object prefixBits(Object raw) {
        if ("auto".equals(raw)) {
            return NearDupOptions.AUTO_PREFIX_BITS;
        }
        int value = integer(paramName, raw);
        if (value < 1 || value > SortedFingerprints.MAX_PREFIX_BITS) {
            throw new Invalid(
                    this, "must be \"auto\" or in [1, " + SortedFingerprints.MAX_PREFIX_BITS + "], got [" + raw + "]");
        }
        return value;
    }

    /** A number in (0, 1], or with {@code containmentFloor} in [{@value Containment#FLOOR}, 1]. */
    private Object fraction(Object raw, boolean containmentFloor) {
        double value = finiteNumber(paramName, raw);
        if (containmentFloor
                ? (value >= Containment.FLOOR && value <= 1) == false
                : (value > 0 && value <= 1) == false) {
            throw new Invalid(
                    this,
                    "must be in " + (containmentFloor ? "[" + Containment.FLOOR : "(0") + ", 1], got [" + value + "]");
        }
        return value;
    }

    /**
     * An integer setting of an entry point's own (a processor's {@code window}, {@code max_candidates}, …) read as the
     * matching options' integers are, in the same words: null when {@code config} has no {@code name}; the key is
     * removed, a null value refused.
     *
     * @throws Invalid naming {@code name}
     */
    public static Integer removeIntSetting(Map<String, Object> config, String name, int min, int max) {
        if (config.containsKey(name) == false) {
            return null;
        }
        return integerWithin(name, config.remove(name), min, max);
    }

    /** {@link #integer} within {@code [min, max]}, in the same words for any parameter named {@code name}. */
    private static int integerWithin(String name, Object raw, int min, int max) {
        int value = integer(name, raw);
        if (value < min || value > max) {
            throw new Invalid(name, "must be in [" + min + ", " + max + "], got [" + raw + "]");
        }
        return value;
    }

    /**
     * A parameter named {@code name} as an integral number within int range (a JSON integer, an integral number, or
     * a string of one); the mapping parameters read it too.
     */
    static int integer(String name, Object raw) {
        if (raw instanceof Number n) {
            double value = n.doubleValue();
            if (value == Math.rint(value) && value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) {
                return (int) value;
            }
        } else if (raw instanceof String s) {
            try {
                return Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                // reported below, with the option's name
            }
        }
        throw new Invalid(name, "must be an integer, got [" + raw + "]");
    }

    /**
     * A parameter named {@code name} as a finite number (a JSON number or a string of one): the options' fractions,
     * and an entry point's own numbers (the query's {@code boost}) in the same words.
     */
    public static double finiteNumber(String name, Object raw) {
        double value = Double.NaN;
        if (raw instanceof Number n) {
            value = n.doubleValue();
        } else if (raw instanceof String s) {
            try {
                value = Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                // reported below, with the option's name
            }
        }
        if (Double.isFinite(value) == false) {
            throw new Invalid(name, "must be a number, got [" + raw + "]");
        }
        return value;
    }

    /**
     * A parameter named {@code name} as a boolean ({@code true}, {@code false} or a string of either): the options'
     * booleans, and an entry point's own (the query's {@code include_self}, {@code ignore_unmapped}) in the same words.
     */
    public static boolean booleanValue(String name, Object raw) {
        if (raw instanceof Boolean b) {
            return b;
        }
        if ("true".equals(raw) || "false".equals(raw)) {
            return Boolean.parseBoolean((String) raw);
        }
        throw new Invalid(name, "must be true or false, got [" + raw + "]");
    }

    <E> E oneOf(Object raw, E[] constants, java.util.function.Function<E, String> nameOf) {
        for (E constant : constants) {
            if (nameOf.apply(constant).equals(raw)) {
                return constant;
            }
        }
        throw new Invalid(
                this,
                "must be "
                        + Arrays.stream(constants)
                                .map(c -> "[" + nameOf.apply(c) + "]")
                                .collect(Collectors.joining(" or "))
                        + ", got [" + raw + "]");
    }

    /**
     * A value an option refuses: {@link #option()} and {@link #reason()} apart, so that each entry point can put
     * them in its own form ({@code [near_duplicate] [max_distance] must be …}, or a processor's configuration
     * error naming the option); the message is {@code [option] reason}.
     */
    public static final class Invalid extends IllegalArgumentException {
        private final String option;
        private final String reason;

        public Invalid(NearDupOption option, String reason) {
            this(option.paramName, reason);
        }

        public Invalid(String option, String reason) {
            super("[" + option + "] " + reason);
            this.option = option;
            this.reason = reason;
        }

        public String option() {
            return option;
        }

        public String reason() {
            return reason;
        }
    }

    @Override
    public String toString() {
        return paramName.toLowerCase(Locale.ROOT);
    }
}
