/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import static io.neardup.ingest.NearDupFingerprintProcessor.TYPE;
import static org.opensearch.ingest.ConfigurationUtils.newConfigurationException;

import io.neardup.compat.NodeEnvironment;
import io.neardup.core.FeatureWeighting;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.IdfTable;
import io.neardup.core.MinHasher;
import io.neardup.core.Murmur3;
import io.neardup.core.ShingleSetCodec;
import io.neardup.index.NearDupOption;
import io.neardup.ingest.NearDupFingerprintProcessor.Output;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.Analyzer;
import org.opensearch.OpenSearchException;
import org.opensearch.env.Environment;
import org.opensearch.index.analysis.AnalysisRegistry;
import org.opensearch.index.analysis.NameOrDefinition;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.ingest.Processor;

/** Parses and validates a {@code near_dup_fingerprint} config; every bad option fails the pipeline PUT. */
public final class NearDupFingerprintProcessorFactory implements Processor.Factory {

    /** The folder under the node's config directory where {@code opensearch-plugin install} puts our files. */
    public static final String CONFIG_FOLDER = "opensearch-neardup";

    public static final int DEFAULT_MAX_CHARS = 1_000_000;
    public static final int MAX_MAX_CHARS = 10_000_000;
    /**
     * Sets larger than this are not written (the document's candidates are then verified by the
     * MinHash estimate): about 300 KB of doc values, a text of some 100,000 words.
     */
    public static final int DEFAULT_MAX_SHINGLES = 100_000;

    private static final FingerprintScheme DEFAULTS = FingerprintScheme.defaults("standard");
    /** Where an object cannot go: the ingest document's metadata. */
    private static final Set<String> METADATA_FIELDS = Set.of(
            "_index",
            "_id",
            "_routing",
            "_version",
            "_version_type",
            "_if_seq_no",
            "_if_primary_term",
            "_ingest",
            "_source");

    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

    private final AnalysisRegistry analysisRegistry;
    private final Environment environment;

    private final FingerprintScratchPool scratchPool;
    private final Function<String, FingerprintFormat> formatOfIndex;

    /** A factory whose processors write every document in {@code format} (tests and tools, which have no cluster). */
    public NearDupFingerprintProcessorFactory(
            AnalysisRegistry analysisRegistry, Environment environment, FingerprintFormat format) {
        this(analysisRegistry, environment, FingerprintScratchPool.unaccounted(), target -> format);
    }

    /**
     * @param formatOfIndex the format of the index a document is written to, by the document's {@code _index}
     *     ({@code IndexFingerprintFormat.forWrite} on the node's cluster state)
     */
    public NearDupFingerprintProcessorFactory(
            AnalysisRegistry analysisRegistry,
            Environment environment,
            FingerprintScratchPool scratchPool,
            Function<String, FingerprintFormat> formatOfIndex) {
        this.analysisRegistry = analysisRegistry;
        this.environment = environment;
        this.scratchPool = scratchPool;
        this.formatOfIndex = formatOfIndex;
    }

    @Override
    public NearDupFingerprintProcessor create(
            Map<String, Processor.Factory> registry, String tag, String description, Map<String, Object> config)
            throws Exception {
        String field = ConfigurationUtils.readStringProperty(TYPE, tag, config, "field");
        if (field.isBlank()) {
            throw newConfigurationException(TYPE, tag, "field", "must not be empty");
        }
        String targetField = ConfigurationUtils.readStringProperty(TYPE, tag, config, "target_field", field + "_fp");
        if (targetField.isBlank()) {
            throw newConfigurationException(TYPE, tag, "target_field", "must not be empty");
        }
        if (targetField.equals(field)) {
            throw newConfigurationException(
                    TYPE, tag, "target_field", "must differ from field [" + field + "], or the text is lost");
        }
        String targetRoot = targetField.split("\\.", 2)[0];
        if (METADATA_FIELDS.contains(targetRoot)) {
            throw newConfigurationException(
                    TYPE,
                    tag,
                    "target_field",
                    "must not be the document's metadata field [" + targetRoot + "]: the fingerprints are an object");
        }
        boolean ignoreMissing = ConfigurationUtils.readBooleanProperty(TYPE, tag, config, "ignore_missing", false);
        int maxChars = readIntInRange(tag, config, "max_chars", DEFAULT_MAX_CHARS, 1, MAX_MAX_CHARS);
        boolean truncate = ConfigurationUtils.readBooleanProperty(TYPE, tag, config, "truncate", false);
        Set<Output> outputs = readOutputs(tag, config);
        int maxShingles =
                readIntInRange(tag, config, "max_shingles", DEFAULT_MAX_SHINGLES, 1, ShingleSetCodec.MAX_VALUES);

        AnalyzerChoice analyzer = readAnalyzer(tag, config);
        int simhashShingleSize =
                readIntInRange(tag, config, "simhash_shingle_size", DEFAULTS.simhashShingleSize(), 1, 8);
        FeatureWeighting weighting = parse(
                tag,
                "weighting",
                ConfigurationUtils.readStringProperty(
                        TYPE, tag, config, "weighting", DEFAULTS.weighting().paramName()),
                FeatureWeighting::parse);
        int minhashShingleSize =
                readIntInRange(tag, config, "minhash_shingle_size", DEFAULTS.minhashShingleSize(), 1, 8);
        int numHashes = readIntInRange(tag, config, "num_hashes", DEFAULTS.numHashes(), 1, MinHasher.MAX_HASHES);
        MinHasher.Method method = parse(
                tag,
                "minhash_method",
                ConfigurationUtils.readStringProperty(
                        TYPE,
                        tag,
                        config,
                        "minhash_method",
                        DEFAULTS.minhashMethod().paramName()),
                MinHasher.Method::parse);
        long seed = readLong(tag, config, "seed", DEFAULTS.seed());
        String idfTableName = ConfigurationUtils.readOptionalStringProperty(TYPE, tag, config, "idf_table");
        IdfTable idfTable = idfTableName == null ? null : loadIdfTable(tag, idfTableName, seed);

        FingerprintScheme scheme;
        try {
            scheme = new FingerprintScheme(
                    FingerprintScheme.CURRENT_VERSION,
                    analyzer.schemeName(),
                    simhashShingleSize,
                    weighting,
                    idfTable == null ? FingerprintScheme.NO_IDF : idfTable.identity(),
                    minhashShingleSize,
                    numHashes,
                    method,
                    seed);
        } catch (IllegalArgumentException e) {
            throw newConfigurationException(TYPE, tag, null, e.getMessage());
        }
        return new NearDupFingerprintProcessor(
                tag,
                description,
                field,
                targetField,
                ignoreMissing,
                maxChars,
                truncate,
                outputs,
                maxShingles,
                analyzer.analyzer(),
                scheme,
                idfTable,
                scratchPool,
                formatOfIndex);
    }

    private record AnalyzerChoice(Analyzer analyzer, String schemeName) {}

    private AnalyzerChoice readAnalyzer(String tag, Map<String, Object> config) throws IOException {
        String name = ConfigurationUtils.readOptionalStringProperty(TYPE, tag, config, "analyzer");
        Object tokenizer = config.remove("tokenizer");
        List<NameOrDefinition> charFilters = readComponents(tag, config, "char_filter");
        List<NameOrDefinition> filters = readComponents(tag, config, "filter");
        boolean custom = tokenizer != null || charFilters.isEmpty() == false || filters.isEmpty() == false;
        if (name != null && custom) {
            throw newConfigurationException(
                    TYPE, tag, "analyzer", "set either [analyzer] or [tokenizer, char_filter, filter], not both");
        }
        if (custom == false) {
            String analyzerName = name == null ? "standard" : name;
            Analyzer analyzer;
            try {
                analyzer = analysisRegistry.getAnalyzer(analyzerName);
            } catch (IllegalArgumentException e) {
                throw newConfigurationException(TYPE, tag, "analyzer", e.getMessage());
            }
            if (analyzer == null) {
                throw newConfigurationException(
                        TYPE,
                        tag,
                        "analyzer",
                        "unknown analyzer [" + analyzerName
                                + "]; name a built-in or plugin analyzer, or define one with [tokenizer], [char_filter] and [filter]");
            }
            return new AnalyzerChoice(analyzer, analyzerName);
        }
        NameOrDefinition tokenizerSpec =
                tokenizer == null ? new NameOrDefinition("standard") : component(tag, "tokenizer", tokenizer);
        Analyzer analyzer;
        try {
            analyzer = analysisRegistry.buildCustomAnalyzer(null, false, tokenizerSpec, charFilters, filters);
        } catch (IllegalArgumentException | IllegalStateException | OpenSearchException e) {
            throw newConfigurationException(
                    TYPE, tag, failedComponent(e.getMessage()), "cannot build the analysis chain: " + e.getMessage());
        }
        // The scheme records the chain as a hash of its canonical description, so that a change to
        // it is a change of scheme.
        String chain = "tokenizer=" + describe(tokenizerSpec) + ";char_filter=" + describeAll(charFilters) + ";filter="
                + describeAll(filters);
        byte[] bytes = chain.getBytes(StandardCharsets.UTF_8);
        return new AnalyzerChoice(
                analyzer, String.format(Locale.ROOT, "custom-%016x", Murmur3.hash64(bytes, 0, bytes.length, 0)));
    }

    /**
     * The key whose component the analysis registry could not build, by the component type its message names
     * ("failed to find global char_filter under [x]"): the tokenizer's unless a char filter or a filter is named.
     */
    private static String failedComponent(String message) {
        String text = String.valueOf(message);
        for (String component : List.of("char_filter", "filter")) {
            if (text.contains(" global " + component + " ") || text.contains(" anonymous " + component + ":")) {
                return component;
            }
        }
        return "tokenizer";
    }

    private static String describeAll(List<NameOrDefinition> components) {
        List<String> parts = new ArrayList<>();
        for (NameOrDefinition component : components) {
            parts.add(describe(component));
        }
        return String.join(",", parts);
    }

    private static String describe(NameOrDefinition component) {
        return component.name != null ? component.name : component.definition.toString();
    }

    private static List<NameOrDefinition> readComponents(String tag, Map<String, Object> config, String key) {
        Object value = config.remove(key);
        List<NameOrDefinition> components = new ArrayList<>();
        if (value == null) {
            return components;
        }
        if (value instanceof List<?> list) {
            for (Object element : list) {
                components.add(component(tag, key, element));
            }
        } else {
            components.add(component(tag, key, value));
        }
        return components;
    }

    private static NameOrDefinition component(String tag, String key, Object value) {
        if (value instanceof String name && name.isBlank() == false) {
            return new NameOrDefinition(name);
        }
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> definition = (Map<String, ?>) map;
            try {
                return new NameOrDefinition(definition);
            } catch (IllegalArgumentException e) {
                throw newConfigurationException(TYPE, tag, key, e.getMessage());
            }
        }
        throw newConfigurationException(TYPE, tag, key, "expected a name or an object definition, got [" + value + "]");
    }

    private static Set<Output> readOutputs(String tag, Map<String, Object> config) {
        List<String> names = ConfigurationUtils.readOptionalList(TYPE, tag, config, "outputs");
        if (names == null) {
            return EnumSet.allOf(Output.class);
        }
        if (names.isEmpty()) {
            throw newConfigurationException(TYPE, tag, "outputs", "must name at least one of " + Output.NAMES);
        }
        Set<Output> outputs = EnumSet.noneOf(Output.class);
        for (Object name : names) {
            outputs.add(parse(tag, "outputs", String.valueOf(name), Output::parse));
        }
        if (outputs.contains(Output.SHINGLES) && outputs.contains(Output.MINHASH) == false) {
            throw newConfigurationException(
                    TYPE, tag, "outputs", "[shingles] are written inside the [minhash] object: add [minhash]");
        }
        return outputs;
    }

    private IdfTable loadIdfTable(String tag, String name, long seed) {
        if (FILE_NAME.matcher(name).matches() == false) {
            throw newConfigurationException(
                    TYPE,
                    tag,
                    "idf_table",
                    "must be a file name in config/" + CONFIG_FOLDER + "/ (letters, digits, '.', '_', '-'), got ["
                            + name + "]");
        }
        Path folder = NodeEnvironment.configDir(environment).resolve(CONFIG_FOLDER);
        Path file = folder.resolve(name);
        try (InputStream in = Files.newInputStream(file)) {
            return IdfTable.load(stripExtension(name), seed, in);
        } catch (NoSuchFileException e) {
            throw newConfigurationException(TYPE, tag, "idf_table", "no file [" + name + "] in " + folder);
        } catch (IOException e) {
            throw newConfigurationException(TYPE, tag, "idf_table", "cannot read [" + file + "]: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw newConfigurationException(TYPE, tag, "idf_table", e.getMessage());
        }
    }

    private static String stripExtension(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    private static int readIntInRange(
            String tag, Map<String, Object> config, String key, int defaultValue, int min, int max) {
        try {
            Integer value = NearDupOption.removeIntSetting(config, key, min, max);
            return value == null ? defaultValue : value;
        } catch (NearDupOption.Invalid e) {
            throw newConfigurationException(TYPE, tag, e.option(), e.reason());
        }
    }

    private static long readLong(String tag, Map<String, Object> config, String key, long defaultValue) {
        Object raw = config.remove(key);
        if (raw == null) {
            return defaultValue;
        }
        if (raw instanceof Integer || raw instanceof Long) {
            return ((Number) raw).longValue();
        }
        if (raw instanceof String string) {
            try {
                return Long.parseLong(string.trim());
            } catch (NumberFormatException e) {
                // fall through to the error below
            }
        }
        throw newConfigurationException(TYPE, tag, key, "must be a 64-bit integer, got [" + raw + "]");
    }

    private static <T> T parse(String tag, String key, String value, java.util.function.Function<String, T> parser) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw newConfigurationException(TYPE, tag, key, e.getMessage());
        }
    }
}
