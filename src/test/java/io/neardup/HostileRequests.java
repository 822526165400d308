/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.clusters.NearDupClustersRequest;
import io.neardup.collapse.NearDupCollapseResponseProcessor;
import io.neardup.core.FingerprintFormat;
import io.neardup.index.Containment;
import io.neardup.index.FingerprintKind;
import io.neardup.index.NearDupOption;
import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.ingest.NearDupFingerprintProcessorFactory;
import io.neardup.lookup.NearDupLookupProcessor;
import io.neardup.query.NearDuplicateQueryBuilder;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.OpenSearchParseException;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.analysis.common.CommonAnalysisModulePlugin;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.env.Environment;
import org.opensearch.env.TestEnvironment;
import org.opensearch.indices.analysis.AnalysisModule;
import org.opensearch.search.SearchModule;
import org.opensearch.search.pipeline.Processor;

/**
 * A seeded generator of hostile requests for every entry point, and the property each must keep: a request is
 * either refused with a 400-kind exception whose message names a key the generator made hostile, or every key in
 * it is applied (another value of the key, or leaving it out, changes what the entry point made of it). No key is
 * silently ignored, and no option of the other field kind is taken where the entry point knows the kind.
 *
 * <p>A request is a valid one of its entry point with up to three of: an unknown key at one of its levels (the body,
 * {@code like}, {@code representative}), a matching option it may not take (of the other field kind, or not one of
 * this entry point's), a hostile value in place of one of its values (a wrong type, out of range, huge, null, empty,
 * an array or an object where a scalar goes).
 */
final class HostileRequests {

    /** The entry points, with the levels of their requests where keys are ours (not OpenSearch's). */
    enum EntryPoint {
        QUERY,
        CLUSTERS,
        LOOKUP,
        FINGERPRINT,
        COLLAPSE
    }

    /** Key names that no entry point takes at any level. */
    private static final List<String> UNKNOWN_KEYS = List.of(
            "maxdistance",
            "Max_Distance",
            "max-flips",
            "k",
            "size",
            "similarity",
            "min_similarity_",
            "threshold",
            "colour",
            "ignore_failures",
            "_type",
            "field ",
            "\u00e9t\u00e9");

    private static final Object REMOVED = new Object();

    /** Values semantically different from each other that each key takes (for the check that a key is applied). */
    private static final Map<String, List<Object>> VALID = Map.ofEntries(
            Map.entry("max_distance", List.of(0, 2, 5)),
            Map.entry("mode", List.of("psm", "exact")),
            Map.entry("max_flips", List.of(1, 64, 500)),
            Map.entry("prefix_bits", List.of("auto", 4, 20)),
            Map.entry("first_match", List.of(true, false)),
            Map.entry("min_similarity", List.of(0.5, 0.8, 1.0)),
            Map.entry("min_band_matches", List.of(1, 2, 7)),
            Map.entry("verification", List.of("auto", "estimate")),
            Map.entry("min_containment", List.of(Containment.FLOOR, 0.9, 1.0)),
            Map.entry("contained", List.of("like", "document")),
            Map.entry("include_self", List.of(true, false)),
            Map.entry("ignore_unmapped", List.of(true, false)),
            Map.entry("boost", List.of(0.5, 1.0, 2.0)),
            Map.entry("simhash", List.of("00ff00ff00ff00ff", "0123456789abcdef")),
            Map.entry("linkage", List.of("single", "leader")),
            Map.entry("singletons", List.of(true, false)),
            Map.entry("keep_existing", List.of(true, false)),
            Map.entry("sort", List.of("_id", List.of(Map.of("_id", "desc")), List.of(Map.of("date", "asc")))),
            Map.entry("query", List.of(Map.of("match_all", Map.of()), Map.of("term", Map.of("tag", "x")))),
            Map.entry("max_candidates", List.of(1, 5, 50)),
            Map.entry("timeout", List.of("1s", "5s")),
            Map.entry("recent_size", List.of(0, 10, 100)),
            Map.entry("recent_ttl", List.of("10s", "1m")),
            Map.entry("ignore_missing", List.of(true, false)),
            Map.entry("max_indices", List.of(1, 30, 1000)),
            Map.entry("max_age", List.of("1d", "30d")),
            Map.entry("max_chars", List.of(100, 5000)),
            Map.entry("truncate", List.of(true, false)),
            Map.entry("outputs", List.of(List.of("simhash"), List.of("minhash", "shingles"), List.of("content_hash"))),
            Map.entry("max_shingles", List.of(10, 100)),
            Map.entry("analyzer", List.of("standard", "whitespace", "simple")),
            Map.entry("tokenizer", List.of("standard", "whitespace")),
            Map.entry("filter", List.of(List.of("lowercase"), List.of("lowercase", "asciifolding"))),
            Map.entry("char_filter", List.of(List.of("html_strip"))),
            Map.entry("simhash_shingle_size", List.of(1, 2, 3)),
            Map.entry("weighting", List.of("binary", "tf", "log_tf")),
            Map.entry("minhash_shingle_size", List.of(1, 2, 4)),
            Map.entry("num_hashes", List.of(16, 64, 128)),
            Map.entry("minhash_method", List.of("classic", "one_permutation")),
            Map.entry("seed", List.of(1, 42)),
            Map.entry("max_folded_ids", List.of(0, 10, 100)));

    /** Values that are wrong somewhere: a wrong type, out of range, huge, empty, null, an array or an object. */
    private static final List<Object> HOSTILE_VALUES = Arrays.asList(
            null,
            "",
            "   ",
            "abc",
            "NaN",
            "Infinity",
            "-1",
            -1,
            0,
            -0.0,
            0.5,
            1.5,
            2147483648L,
            -2147483649L,
            1e19,
            1e308,
            -1e308,
            new BigInteger("9223372036854775808"),
            new BigInteger("1000000000000000000000000000000"),
            true,
            false,
            List.of(),
            List.of(1),
            List.of("a", "b"),
            Map.of(),
            Map.of("a", 1),
            "\u0000",
            "\ufeff\u200b",
            "x".repeat(300),
            "true",
            "auto",
            "psm",
            "exact",
            "1e19");

    /** One generated request: its body, the keys made hostile, the unknown keys and the kind of its field. */
    static final class Request {
        final EntryPoint entryPoint;
        final Map<String, Object> body;
        final Set<String> touched = new LinkedHashSet<>();
        final Set<String> unknown = new LinkedHashSet<>();

        Request(EntryPoint entryPoint, Map<String, Object> body) {
            this.entryPoint = entryPoint;
            this.body = body;
        }

        String json() {
            return HostileRequests.json(body);
        }

        @Override
        public String toString() {
            return entryPoint + " " + json() + " (hostile keys " + touched + ")";
        }
    }

    /** What an entry point made of a request: a description of everything it holds, or the refusal. */
    record Outcome(String state, Exception refusal) {}

    private final NamedXContentRegistry registry;
    private final NearDupFingerprintProcessorFactory fingerprints;

    HostileRequests(Path home) {
        registry = new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents());
        Environment environment = TestEnvironment.newEnvironment(
                Settings.builder().put("path.home", home).build());
        try {
            AnalysisModule analysis = new AnalysisModule(environment, List.of(new CommonAnalysisModulePlugin()));
            fingerprints = new NearDupFingerprintProcessorFactory(
                    analysis.getAnalysisRegistry(), environment, FingerprintFormat.SIGNATURE);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    // ---- generation ----

    /** A request for {@code entryPoint}: a valid one with {@code hostileChanges} changes. */
    static Request generate(Random random, EntryPoint entryPoint, int hostileChanges) {
        Request request = new Request(entryPoint, valid(random, entryPoint));
        for (int i = 0; i < hostileChanges; i++) {
            switch (random.nextInt(4)) {
                case 0 -> insertUnknownKey(random, request);
                case 1 -> insertOption(random, request);
                default -> replaceValue(random, request);
            }
        }
        return request;
    }

    private static Map<String, Object> valid(Random random, EntryPoint entryPoint) {
        Map<String, Object> body = new LinkedHashMap<>();
        boolean minhash = random.nextBoolean();
        switch (entryPoint) {
            case QUERY -> {
                body.put("field", minhash ? "fp.minhash" : "fp.simhash");
                Map<String, Object> like = new LinkedHashMap<>();
                switch (random.nextInt(4)) {
                    case 0 -> like.put("_id", "d1");
                    case 1 -> {
                        like.put("_id", "d1");
                        like.put("_index", "hostile");
                    }
                    case 2 -> {
                        like.put("text", "a heat wave reaches the valleys on thursday");
                        maybe(random, like, "pipeline", "fingerprints");
                    }
                    default -> {
                        if (minhash) {
                            like.put("minhash", "AQAAAAAAAAAB");
                        } else {
                            like.put("simhash", "00ff00ff00ff00ff");
                        }
                    }
                }
                body.put("like", like);
                if (minhash && random.nextInt(4) == 0) {
                    body.put("min_containment", pick(random, "min_containment"));
                    maybe(random, body, "contained", pick(random, "contained"));
                } else {
                    similarityOptions(random, body, minhash, true);
                }
                for (String key : List.of("include_self", "ignore_unmapped", "boost")) {
                    maybe(random, body, key, pick(random, key));
                }
                maybe(random, body, "_name", "copies");
            }
            case CLUSTERS -> {
                body.put("field", minhash ? "fp.minhash" : "fp.simhash");
                // dest goes without target_field, query and keep_existing (which are about the documents' own).
                boolean dest = random.nextInt(4) == 0;
                if (dest) {
                    body.put("dest", Map.of("index", "records"));
                } else {
                    body.put("target_field", "dup");
                }
                similarityOptions(random, body, minhash, false);
                maybe(random, body, "linkage", pick(random, "linkage"));
                maybe(random, body, "singletons", pick(random, "singletons"));
                if (dest == false) {
                    maybe(random, body, "query", pick(random, "query"));
                }
                if (random.nextBoolean()) {
                    Map<String, Object> representative = new LinkedHashMap<>();
                    maybe(random, representative, "sort", pick(random, "sort"));
                    if (dest == false) {
                        maybe(random, representative, "keep_existing", pick(random, "keep_existing"));
                    }
                    body.put("representative", representative);
                }
            }
            case LOOKUP -> {
                body.put("field", minhash ? "fp.minhash" : "fp.simhash");
                body.put("target_field", "dup");
                maybe(random, body, "index", "hostile");
                if (minhash == false) {
                    maybe(random, body, "max_distance", pick(random, "max_distance"));
                } else if (random.nextInt(3) == 0) {
                    body.put("min_containment", pick(random, "min_containment"));
                    maybe(random, body, "contained", pick(random, "contained"));
                } else {
                    maybe(random, body, "min_similarity", pick(random, "min_similarity"));
                }
                for (String key : List.of(
                        "max_candidates",
                        "timeout",
                        "recent_size",
                        "recent_ttl",
                        "ignore_missing",
                        "max_indices",
                        "max_age")) {
                    maybe(random, body, key, pick(random, key));
                }
            }
            case FINGERPRINT -> {
                body.put("field", "body");
                maybe(random, body, "target_field", "body_fingerprints");
                if (random.nextBoolean()) {
                    maybe(random, body, "analyzer", pick(random, "analyzer"));
                } else {
                    for (String key : List.of("tokenizer", "filter", "char_filter")) {
                        maybe(random, body, key, pick(random, key));
                    }
                }
                for (String key : List.of(
                        "ignore_missing",
                        "max_chars",
                        "truncate",
                        "outputs",
                        "max_shingles",
                        "simhash_shingle_size",
                        "weighting",
                        "minhash_shingle_size",
                        "num_hashes",
                        "minhash_method",
                        "seed")) {
                    maybe(random, body, key, pick(random, key));
                }
            }
            case COLLAPSE -> {
                body.put("field", minhash ? "fp.minhash" : "fp.simhash");
                maybe(
                        random,
                        body,
                        minhash ? "min_similarity" : "max_distance",
                        pick(random, minhash ? "min_similarity" : "max_distance"));
                maybe(random, body, "max_folded_ids", pick(random, "max_folded_ids"));
            }
        }
        return body;
    }

    /** The similarity options of a field's kind; {@code all}: those the query takes beyond a run's. */
    private static void similarityOptions(Random random, Map<String, Object> body, boolean minhash, boolean all) {
        if (minhash) {
            maybe(random, body, "min_similarity", pick(random, "min_similarity"));
            maybe(random, body, "verification", pick(random, "verification"));
            if (all) {
                maybe(random, body, "min_band_matches", pick(random, "min_band_matches"));
            }
            return;
        }
        maybe(random, body, "max_distance", pick(random, "max_distance"));
        if (all) {
            maybe(random, body, "prefix_bits", pick(random, "prefix_bits"));
            maybe(random, body, "first_match", pick(random, "first_match"));
        }
        if (all || random.nextBoolean()) {
            // A run takes mode and max_flips on a simhash field only beside min_similarity.
            if (random.nextBoolean()) {
                body.put("min_similarity", pick(random, "min_similarity"));
                maybe(random, body, "verification", pick(random, "verification"));
                maybe(random, body, "mode", pick(random, "mode"));
                maybe(random, body, "max_flips", pick(random, "max_flips"));
            } else if (all) {
                maybe(random, body, "mode", pick(random, "mode"));
                maybe(random, body, "max_flips", pick(random, "max_flips"));
            }
        }
    }

    private static void maybe(Random random, Map<String, Object> map, String key, Object value) {
        if (random.nextBoolean()) {
            map.put(key, value);
        }
    }

    private static Object pick(Random random, String key) {
        List<Object> values = VALID.get(key);
        return values.get(random.nextInt(values.size()));
    }

    private static Object hostileValue(Random random) {
        Object value = HOSTILE_VALUES.get(random.nextInt(HOSTILE_VALUES.size()));
        // An object in place of a value is a level of its own, which a later change may add to.
        return value instanceof Map<?, ?> map ? new LinkedHashMap<>(map) : value;
    }

    /** The objects of {@code body} whose keys are ours, the body first. */
    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> levels(Map<String, Object> body) {
        List<Map<String, Object>> levels = new ArrayList<>();
        levels.add(body);
        for (String nested : List.of("like", "representative")) {
            if (body.get(nested) instanceof Map<?, ?> map) {
                levels.add((Map<String, Object>) map);
            }
        }
        return levels;
    }

    private static void insertUnknownKey(Random random, Request request) {
        List<Map<String, Object>> levels = levels(request.body);
        Map<String, Object> level = levels.get(random.nextInt(levels.size()));
        String key = UNKNOWN_KEYS.get(random.nextInt(UNKNOWN_KEYS.size()));
        level.put(key, random.nextBoolean() ? hostileValue(random) : 3);
        request.touched.add(key);
        request.unknown.add(key);
    }

    /** A matching option with a valid value: of the other kind, one this entry point does not take, or a fine one. */
    private static void insertOption(Random random, Request request) {
        NearDupOption option = NearDupOption.values()[random.nextInt(NearDupOption.values().length)];
        request.body.put(option.paramName(), pick(random, option.paramName()));
        request.touched.add(option.paramName());
    }

    /** Replaces a value at any level (an object of ours too) with a hostile one. */
    private static void replaceValue(Random random, Request request) {
        List<Map<String, Object>> levels = levels(request.body);
        Map<String, Object> level = levels.get(random.nextInt(levels.size()));
        if (level.isEmpty()) {
            level = request.body;
        }
        List<String> keys = new ArrayList<>(level.keySet());
        String key = keys.get(random.nextInt(keys.size()));
        level.put(key, hostileValue(random));
        request.touched.add(key);
        // An object of ours replaced takes the unknown keys inserted into it along: they are no longer in the request.
        Set<String> present = new HashSet<>();
        levels(request.body).forEach(remaining -> present.addAll(remaining.keySet()));
        request.unknown.retainAll(present);
    }

    // ---- the entry points, in this JVM ----

    /** What {@code entryPoint} makes of {@code body}: parsed, validated and checked against the field's kind as on a node. */
    Outcome apply(EntryPoint entryPoint, Map<String, Object> body) {
        String json = json(body);
        try {
            return new Outcome(
                    switch (entryPoint) {
                        case QUERY -> query(json);
                        case CLUSTERS -> clusters(json);
                        case LOOKUP -> lookup(config(json));
                        case FINGERPRINT -> fingerprint(config(json));
                        case COLLAPSE -> collapse(config(json));
                    },
                    null);
        } catch (Exception e) {
            return new Outcome(null, e);
        }
    }

    private XContentParser parser(String json) throws IOException {
        return JsonXContent.jsonXContent.createParser(registry, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, json);
    }

    private Map<String, Object> config(String json) throws IOException {
        try (XContentParser parser = parser(json)) {
            return parser.map();
        }
    }

    /** The kind a field is mapped with in every test here: by its name, as the tests' mappings name them. */
    static FingerprintKind kindOf(String field) {
        return field.endsWith(".simhash")
                ? FingerprintKind.SIMHASH
                : field.endsWith(".minhash") ? FingerprintKind.MINHASH : null;
    }

    private String query(String json) throws IOException {
        NearDuplicateQueryBuilder builder;
        try (XContentParser parser = parser(json)) {
            parser.nextToken();
            builder = NearDuplicateQueryBuilder.fromXContent(parser, null);
        }
        FingerprintKind kind = kindOf(builder.field());
        if (kind != null) {
            // What doToQuery checks against the mapped field (and, for containment, the field type).
            Set<NearDupOption> set = EnumSet.noneOf(NearDupOption.class);
            set.addAll(builder.options().set().keySet());
            if (builder.containment() != null) {
                set.add(NearDupOption.MIN_CONTAINMENT);
            }
            NearDupOption.requireApplicable(set, kind, builder.field());
        }
        XContentBuilder xContent = JsonXContent.contentBuilder();
        builder.toXContent(xContent, ToXContent.EMPTY_PARAMS);
        String rendered = xContent.toString();
        String inner = rendered.substring("{\"near_duplicate\":".length(), rendered.length() - 1);
        NearDuplicateQueryBuilder again;
        try (XContentParser parser = parser(inner)) {
            parser.nextToken();
            again = NearDuplicateQueryBuilder.fromXContent(parser, null);
        }
        if (again.equals(builder) == false) {
            throw new IllegalStateException("toXContent does not round-trip: " + json + " -> " + rendered);
        }
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            builder.writeTo(out);
            return rendered + " "
                    + HexFormat.of()
                            .formatHex(
                                    out.bytes().toBytesRef().bytes,
                                    0,
                                    out.bytes().length());
        }
    }

    private String clusters(String json) throws IOException {
        NearDupClustersRequest request;
        try (XContentParser parser = parser(json)) {
            request = NearDupClustersRequest.parse("hostile", parser);
        }
        ActionRequestValidationException invalid = request.validate();
        if (invalid != null) {
            throw invalid;
        }
        FingerprintKind kind = kindOf(request.spec().field());
        if (kind != null) {
            request.spec().requireOptionsApplyTo(kind); // as TransportNearDupClustersAction does on the mapping
        }
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            request.writeTo(out);
            return request.getDescription() + " "
                    + HexFormat.of()
                            .formatHex(
                                    out.bytes().toBytesRef().bytes,
                                    0,
                                    out.bytes().length());
        }
    }

    private static String lookup(Map<String, Object> config) {
        return dumpOf(
                new NearDupLookupProcessor.Factory(null, null, new ThreadContext(Settings.EMPTY), null, Settings.EMPTY)
                        .create(Map.of(), "t", null, config),
                config,
                NearDupLookupProcessor.TYPE);
    }

    private String fingerprint(Map<String, Object> config) throws Exception {
        return dumpOf(fingerprints.create(Map.of(), "t", null, config), config, NearDupFingerprintProcessor.TYPE);
    }

    private static String collapse(Map<String, Object> config) {
        return dumpOf(collapseProcessor(config), config, NearDupCollapseResponseProcessor.TYPE);
    }

    /** A {@code near_dup_collapse} processor made from {@code config}, as a search pipeline PUT makes it. */
    static NearDupCollapseResponseProcessor collapseProcessor(Map<String, Object> config) {
        return new NearDupCollapseResponseProcessor.Factory()
                .create(
                        null,
                        "t",
                        null,
                        false,
                        config,
                        new Processor.PipelineContext(Processor.PipelineSource.VALIDATE_PIPELINE));
    }

    /** The processor's state; the keys left in its configuration refused, as the pipeline services refuse them. */
    private static String dumpOf(Object processor, Map<String, Object> config, String type) {
        if (config.isEmpty() == false) {
            throw new OpenSearchParseException(
                    "processor [{}] doesn't support one or more provided configuration parameters {}",
                    type,
                    Arrays.toString(config.keySet().toArray()));
        }
        StringBuilder out = new StringBuilder();
        dump(processor, out, 0, Collections.newSetFromMap(new IdentityHashMap<>()));
        return out.toString();
    }

    /** Every field of our classes, recursively; values of other libraries' classes by their type alone. */
    private static void dump(Object value, StringBuilder out, int depth, Set<Object> seen) {
        if (value == null
                || value instanceof CharSequence
                || value instanceof Number
                || value instanceof Boolean
                || value instanceof Enum<?>
                || value instanceof TimeValue) {
            out.append(value);
            return;
        }
        Class<?> type = value.getClass();
        if (depth > 6 || seen.add(value) == false) {
            out.append('^');
            return;
        }
        if (value instanceof Map<?, ?> map) {
            out.append('{');
            map.forEach((k, v) -> {
                dump(k, out, depth + 1, seen);
                out.append(':');
                dump(v, out, depth + 1, seen);
                out.append(',');
            });
            out.append('}');
        } else if (value instanceof Collection<?> collection) {
            out.append('[');
            collection.forEach(v -> {
                dump(v, out, depth + 1, seen);
                out.append(',');
            });
            out.append(']');
        } else if (type.isArray()) {
            int length = Array.getLength(value);
            out.append(type.getComponentType().getSimpleName())
                    .append('[')
                    .append(length)
                    .append(']');
        } else if (type.getName().startsWith("io.neardup.") == false
                || type.isSynthetic()
                || type.getName().contains("$$Lambda")) {
            out.append(type.getSimpleName());
        } else {
            out.append(type.getSimpleName()).append('{');
            for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field field : c.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers())) {
                        continue;
                    }
                    field.setAccessible(true);
                    out.append(field.getName()).append('=');
                    try {
                        dump(field.get(value), out, depth + 1, seen);
                    } catch (IllegalAccessException e) {
                        throw new AssertionError(e);
                    }
                    out.append(',');
                }
            }
            out.append('}');
        }
    }

    // ---- the property ----

    /** Exceptions a node answers with a 400: a refusal of the request, not a failure of the plugin. */
    static boolean isRefusal(Exception e) {
        return e instanceof IllegalArgumentException
                || e instanceof ParsingException
                || e instanceof OpenSearchParseException;
    }

    /** Counts of what the property found, for the test's report. */
    static final class Tally {
        int refused;
        int accepted;
        int keysApplied;
        int keysUndecided;

        @Override
        public String toString() {
            return refused + " refused, " + accepted + " accepted (" + keysApplied + " keys seen applied, "
                    + keysUndecided + " with no other value accepted)";
        }
    }

    /**
     * Null when {@code request} keeps the property; else what it broke. A refusal must be a 400 kind naming a key
     * made hostile; an acceptance must hold no unknown key, no option of the other kind (where the entry point
     * knows the kind), and each key must be applied.
     */
    String violation(Request request, Tally tally) {
        Outcome outcome = apply(request.entryPoint, request.body);
        if (outcome.refusal() != null) {
            Exception e = outcome.refusal();
            tally.refused++;
            if (isRefusal(e) == false) {
                return "failed with " + e.getClass().getName() + " (a 500): " + e.getMessage() + "\n" + stackOf(e);
            }
            if (request.touched.isEmpty()) {
                return "a valid request refused: " + e.getMessage();
            }
            String message = String.valueOf(e.getMessage());
            // [key], [like.key], one of a list ([k, size]), or the subject: "simhash must be 16 hex characters"
            if (request.touched.stream()
                    .noneMatch(key -> message.contains("[" + key)
                            || message.startsWith(key + " ")
                            || message.contains("." + key + "]")
                            || message.contains(" " + key + "]")
                            || message.contains(", " + key))) {
                return "refused without naming any of " + request.touched + ": " + message;
            }
            return null;
        }
        tally.accepted++;
        if (request.unknown.isEmpty() == false) {
            return "accepted with the unknown key(s) " + request.unknown + " silently ignored";
        }
        Object field = request.body.get("field");
        FingerprintKind kind = field instanceof String name ? kindOf(name) : null;
        // The lookup reads the field's kind from the mapping of the index a document goes to, collapse from the
        // hits' fingerprints: on a node (HostileRequestsIT, OptionsOfTheOtherKindIT), not from a configuration.
        if (kind != null && (request.entryPoint == EntryPoint.QUERY || request.entryPoint == EntryPoint.CLUSTERS)) {
            for (String key : request.body.keySet()) {
                NearDupOption option = NearDupOption.named(key);
                if (option != null && option.appliesTo(kind) == false) {
                    return "accepted [" + key + "], an option of the other kind, on a [" + kind.typeName() + "] field";
                }
            }
        }
        for (List<String> path : paths(request.body)) {
            Boolean applied = applied(request, path, outcome.state());
            if (applied == null) {
                tally.keysUndecided++;
            } else if (applied) {
                tally.keysApplied++;
            } else {
                return "accepted, but [" + String.join(".", path) + "] is silently ignored: no other value of it "
                        + "changes what the entry point made of the request";
            }
        }
        return null;
    }

    /** Whether another value of the key at {@code path} (or none) changes the outcome; null when none is accepted. */
    private Boolean applied(Request request, List<String> path, String state) {
        Object current = get(request.body, path);
        if (current == null) {
            // OpenSearch's own processor settings (ConfigurationUtils) take null as "not set": the key is applied
            // when it gives what leaving it out gives; the matching options refuse null.
            Map<String, Object> without = deepCopy(request.body);
            set(without, path, REMOVED);
            Outcome outcome = apply(request.entryPoint, without);
            if (outcome.refusal() == null && outcome.state().equals(state)) {
                return true;
            }
        }
        List<Object> others = new ArrayList<>(VALID.getOrDefault(path.get(path.size() - 1), List.of()));
        if (current instanceof String s) {
            others.add("alt_" + s);
        } else if (current instanceof Boolean b) {
            others.add(b == false);
        } else if (current instanceof Integer n) {
            others.add(n + 1);
        }
        others.add(REMOVED);
        boolean anyAccepted = false;
        for (Object other : others) {
            Map<String, Object> copy = deepCopy(request.body);
            set(copy, path, other);
            Outcome outcome = apply(request.entryPoint, copy);
            if (outcome.refusal() == null) {
                anyAccepted = true;
                if (outcome.state().equals(state) == false) {
                    return true;
                }
            }
        }
        return anyAccepted ? false : null;
    }

    /** The paths of the values in the levels of ours: {@code [max_distance]}, {@code [like, _id]}, … */
    private static List<List<String>> paths(Map<String, Object> body) {
        List<List<String>> paths = new ArrayList<>();
        for (Map.Entry<String, Object> entry : body.entrySet()) {
            if (entry.getValue() instanceof Map<?, ?> map
                    && (entry.getKey().equals("like") || entry.getKey().equals("representative"))) {
                for (Object inner : map.keySet()) {
                    paths.add(List.of(entry.getKey(), (String) inner));
                }
            } else {
                paths.add(List.of(entry.getKey()));
            }
        }
        return paths;
    }

    @SuppressWarnings("unchecked")
    private static Object get(Map<String, Object> body, List<String> path) {
        Map<String, Object> level = body;
        for (int i = 0; i < path.size() - 1; i++) {
            level = (Map<String, Object>) level.get(path.get(i));
        }
        return level.get(path.get(path.size() - 1));
    }

    @SuppressWarnings("unchecked")
    private static void set(Map<String, Object> body, List<String> path, Object value) {
        Map<String, Object> level = body;
        for (int i = 0; i < path.size() - 1; i++) {
            level = (Map<String, Object>) level.get(path.get(i));
        }
        if (value == REMOVED) {
            level.remove(path.get(path.size() - 1));
        } else {
            level.put(path.get(path.size() - 1), value);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> deepCopy(Map<String, Object> body) {
        Map<String, Object> copy = new LinkedHashMap<>();
        body.forEach((k, v) -> copy.put(k, v instanceof Map<?, ?> m ? deepCopy((Map<String, Object>) m) : v));
        return copy;
    }

    static String json(Map<String, Object> body) {
        try {
            return JsonXContent.contentBuilder().map(body).toString();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String stackOf(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (StackTraceElement element : e.getStackTrace()) {
            out.append("\tat ").append(element).append('\n');
            if (out.length() > 2000) {
                break;
            }
        }
        return out.toString();
    }
}
