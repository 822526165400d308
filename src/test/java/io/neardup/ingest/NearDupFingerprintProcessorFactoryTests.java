/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import io.neardup.compat.NodeEnvironment;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintScheme;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Before;
import org.opensearch.OpenSearchParseException;
import org.opensearch.analysis.common.CommonAnalysisModulePlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.env.TestEnvironment;
import org.opensearch.indices.analysis.AnalysisModule;
import org.opensearch.test.OpenSearchTestCase;

public class NearDupFingerprintProcessorFactoryTests extends OpenSearchTestCase {

    private NearDupFingerprintProcessorFactory factory;
    private Path configFolder;

    @Before
    public void createFactory() throws Exception {
        Path home = createTempDir();
        Environment environment = TestEnvironment.newEnvironment(
                Settings.builder().put("path.home", home).build());
        configFolder = NodeEnvironment.configDir(environment).resolve(NearDupFingerprintProcessorFactory.CONFIG_FOLDER);
        Files.createDirectories(configFolder);
        AnalysisModule analysis = new AnalysisModule(environment, List.of(new CommonAnalysisModulePlugin()));
        factory = new NearDupFingerprintProcessorFactory(
                analysis.getAnalysisRegistry(), environment, FingerprintFormat.SIGNATURE);
    }

    private NearDupFingerprintProcessor create(Map<String, Object> config) throws Exception {
        return factory.create(null, "tag", null, new HashMap<>(config));
    }

    private void assertRejected(Map<String, Object> config, String property, String reasonPart) {
        OpenSearchParseException e = expectThrows(OpenSearchParseException.class, () -> create(config));
        assertEquals(
                config + " -> " + e.getMessage(),
                property,
                e.getMetadata("opensearch.property_name") == null
                        ? null
                        : e.getMetadata("opensearch.property_name").get(0));
        assertTrue(
                "[" + e.getMessage() + "] should contain [" + reasonPart + "]",
                e.getMessage().contains(reasonPart));
    }

    public void testDefaults() throws Exception {
        NearDupFingerprintProcessor processor = create(Map.of("field", "body"));
        assertEquals("body", processor.field());
        assertEquals("body_fp", processor.targetField());
        assertFalse(processor.ignoreMissing());
        assertFalse(processor.truncate());
        assertEquals(NearDupFingerprintProcessorFactory.DEFAULT_MAX_CHARS, processor.maxChars());
        assertEquals(EnumSet.allOf(NearDupFingerprintProcessor.Output.class), processor.outputs());
        assertEquals(NearDupFingerprintProcessorFactory.DEFAULT_MAX_SHINGLES, processor.maxShingles());
        FingerprintScheme defaults = FingerprintScheme.defaults("standard");
        assertEquals(defaults, processor.scheme());
    }

    public void testEveryOption() throws Exception {
        Map<String, Object> config = new HashMap<>();
        config.put("field", "body");
        config.put("target_field", "fp");
        config.put("analyzer", "english");
        config.put("simhash_shingle_size", 2);
        config.put("weighting", "tf");
        config.put("minhash_shingle_size", "4");
        config.put("num_hashes", 64);
        config.put("minhash_method", "classic");
        config.put("seed", 42);
        config.put("outputs", List.of("simhash", "content_hash"));
        config.put("ignore_missing", true);
        config.put("max_chars", 1000);
        config.put("truncate", true);
        NearDupFingerprintProcessor processor = create(config);
        FingerprintScheme scheme = processor.scheme();
        assertEquals("english", scheme.analyzer());
        assertEquals(2, scheme.simhashShingleSize());
        assertEquals("tf", scheme.weighting().paramName());
        assertEquals(4, scheme.minhashShingleSize());
        assertEquals(64, scheme.numHashes());
        assertEquals("classic", scheme.minhashMethod().paramName());
        assertEquals(42L, scheme.seed());
        assertEquals("fp", processor.targetField());
        assertEquals(2, processor.outputs().size());
        assertTrue(processor.ignoreMissing());
        assertTrue(processor.truncate());
        assertEquals(1000, processor.maxChars());
    }

    public void testCustomAnalysisChainIsPartOfTheScheme() throws Exception {
        NearDupFingerprintProcessor stripped = create(Map.of(
                "field", "body", "char_filter", List.of("html_strip"), "filter", List.of("lowercase", "asciifolding")));
        NearDupFingerprintProcessor plain = create(Map.of("field", "body", "filter", List.of("lowercase")));
        assertTrue(stripped.scheme().analyzer(), stripped.scheme().analyzer().startsWith("custom-"));
        assertNotEquals(stripped.scheme().id(), plain.scheme().id());
        NearDupFingerprintProcessor inline = create(Map.of(
                "field",
                "body",
                "tokenizer",
                "whitespace",
                "filter",
                List.of(Map.of("type", "stop", "stopwords", List.of("the")))));
        assertTrue(inline.scheme().analyzer().startsWith("custom-"));
    }

    public void testBadConfigsNameTheOptionAndTheReason() {
        assertRejected(Map.of(), "field", "required property is missing");
        assertRejected(Map.of("field", " "), "field", "must not be empty");
        assertRejected(Map.of("field", "body", "target_field", "body"), "target_field", "must differ");
        assertRejected(
                Map.of("field", "body", "analyzer", "no_such_analyzer"),
                "analyzer",
                "unknown analyzer [no_such_analyzer]");
        assertRejected(
                Map.of("field", "body", "analyzer", "standard", "filter", List.of("lowercase")),
                "analyzer",
                "not both");
        assertRejected(Map.of("field", "body", "tokenizer", "no_such_tokenizer"), "tokenizer", "no_such_tokenizer");
        assertRejected(Map.of("field", "body", "filter", List.of(17)), "filter", "expected a name or an object");
        assertRejected(Map.of("field", "body", "num_hashes", 0), "num_hashes", "must be in [1, 1024], got [0]");
        assertRejected(Map.of("field", "body", "num_hashes", 5000), "num_hashes", "got [5000]");
        assertRejected(Map.of("field", "body", "num_hashes", "many"), "num_hashes", "must be an integer, got [many]");
        assertRejected(Map.of("field", "body", "simhash_shingle_size", 9), "simhash_shingle_size", "must be in [1, 8]");
        assertRejected(Map.of("field", "body", "minhash_shingle_size", 0), "minhash_shingle_size", "must be in [1, 8]");
        assertRejected(Map.of("field", "body", "weighting", "bm25"), "weighting", "unknown weighting [bm25]");
        assertRejected(
                Map.of("field", "body", "minhash_method", "fast"), "minhash_method", "unknown minhash method [fast]");
        assertRejected(
                Map.of("field", "body", "outputs", List.of("simhash", "sha1")), "outputs", "unknown output [sha1]");
        assertRejected(Map.of("field", "body", "outputs", List.of()), "outputs", "at least one");
        assertRejected(
                Map.of("field", "body", "outputs", List.of("simhash", "shingles")),
                "outputs",
                "[shingles] are written inside the [minhash] object: add [minhash]");
        assertRejected(Map.of("field", "body", "max_shingles", 0), "max_shingles", "must be in [1, 10000000], got [0]");
        assertRejected(
                Map.of("field", "body", "target_field", "_id"),
                "target_field",
                "must not be the document's metadata field [_id]");
        assertRejected(Map.of("field", "body", "target_field", "_index.fp"), "target_field", "metadata field [_index]");
        assertRejected(Map.of("field", "body", "max_chars", 0), "max_chars", "must be in [1, 10000000]");
        assertRejected(Map.of("field", "body", "max_chars", 20_000_000), "max_chars", "got [20000000]");
        assertRejected(Map.of("field", "body", "seed", "x"), "seed", "must be a 64-bit integer, got [x]");
        assertRejected(Map.of("field", "body", "ignore_missing", "maybe"), "ignore_missing", "isn't a boolean");
        assertRejected(Map.of("field", "body", "idf_table", "../etc/passwd"), "idf_table", "must be a file name");
        assertRejected(Map.of("field", "body", "idf_table", "absent.tsv"), "idf_table", "no file [absent.tsv]");
    }

    /** The configurations {@code HostileInputIT} once sent over HTTP that the test above does not already. */
    public void testOutOfRangeOrOfTheWrongKindNameTheOption() {
        for (Object[] bad : new Object[][] {
            {"target_field", "_index", "[target_field] must not be the document's metadata field [_index]"},
            {"target_field", "_source.fp", "[target_field]"},
            {"target_field", "body", "[target_field] must differ from field [body]"},
            {"num_hashes", 1025, "[num_hashes] must be in [1, 1024], got [1025]"},
            {"max_chars", 10000001, "[max_chars]"},
            {"outputs", List.of("bogus"), "[outputs] unknown output [bogus]"},
            {"analyzer", "klingon", "[analyzer] unknown analyzer [klingon]"},
            {"weighting", "loud", "[weighting]"}
        }) {
            String option = (String) bad[0];
            assertRejected(Map.of("field", "body", option, bad[1]), option, (String) bad[2]);
        }
    }

    public void testIdfTableIsLoadedFromTheConfigFolderAndChangesTheScheme() throws Exception {
        Files.writeString(
                configFolder.resolve("words.tsv"), "#docs\t100\nthe\t99\nsimhash\t1\n", StandardCharsets.UTF_8);
        NearDupFingerprintProcessor withIdf = create(Map.of("field", "body", "idf_table", "words.tsv"));
        assertNotNull(withIdf.idfTable());
        assertTrue(withIdf.scheme().idf(), withIdf.scheme().idf().startsWith("words@"));
        assertNotEquals(
                create(Map.of("field", "body")).scheme().id(), withIdf.scheme().id());

        Files.writeString(configFolder.resolve("broken.tsv"), "no header\n", StandardCharsets.UTF_8);
        assertRejected(Map.of("field", "body", "idf_table", "broken.tsv"), "idf_table", "line 1");
    }

    /**
     * Found by HostileRequestsTests: an unknown char filter or filter was refused as [tokenizer]; the refusal names
     * the key whose component the registry could not find.
     */
    public void testAnUnknownComponentNamesItsKey() {
        assertRejected(
                Map.of("field", "body", "char_filter", List.of("no_such_char_filter")),
                "char_filter",
                "failed to find global char_filter under [no_such_char_filter]");
        assertRejected(
                Map.of("field", "body", "filter", List.of("lowercase", "no_such_filter")),
                "filter",
                "failed to find global filter under [no_such_filter]");
        assertRejected(
                Map.of("field", "body", "tokenizer", "no_such_tokenizer"),
                "tokenizer",
                "failed to find global tokenizer under [no_such_tokenizer]");
    }
}
