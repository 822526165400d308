/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import java.util.HashMap;
import java.util.Map;
import org.opensearch.OpenSearchParseException;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.test.OpenSearchTestCase;

/** Every option of {@code near_dup_collapse} and {@code near_dup_window}, good and bad. */
public class NearDupCollapseProcessorFactoryTests extends OpenSearchTestCase {

    private static final Processor.PipelineContext CONTEXT =
            new Processor.PipelineContext(Processor.PipelineSource.VALIDATE_PIPELINE);

    private static NearDupCollapseResponseProcessor collapse(Map<String, Object> config) {
        Map<String, Object> copy = new HashMap<>(config);
        NearDupCollapseResponseProcessor processor =
                new NearDupCollapseResponseProcessor.Factory().create(null, "t", null, false, copy, CONTEXT);
        assertTrue("options left unread: " + copy, copy.isEmpty());
        return processor;
    }

    private static NearDupWindowRequestProcessor window(Map<String, Object> config) {
        return new NearDupWindowRequestProcessor.Factory()
                .create(null, "t", null, false, new HashMap<>(config), CONTEXT);
    }

    private static void assertRejected(Runnable create, String property, String message) {
        OpenSearchParseException e = expectThrows(OpenSearchParseException.class, create::run);
        assertEquals(message, e.getMessage());
        assertEquals(property, e.getMetadata("opensearch.property_name").get(0));
    }

    public void testDefaults() {
        NearDupCollapseResponseProcessor p = collapse(Map.of("field", "body_fp.simhash"));
        assertEquals("near_dup_collapse", p.getType());
        assertEquals("body_fp.simhash", p.field());
        assertNull("kind is told by the first fingerprint", p.kind());
        assertEquals(3, p.maxDistance());
        assertEquals(0.8, p.minSimilarity(), 0);
        assertEquals(10, p.maxFoldedIds());
        assertEquals(100, window(Map.of()).window());
        assertEquals("near_dup_window", window(Map.of()).getType());
    }

    public void testGoodValues() {
        NearDupCollapseResponseProcessor simhash =
                collapse(Map.of("field", "f", "max_distance", 0, "max_folded_ids", 0));
        assertEquals(HitFingerprint.Kind.SIMHASH, simhash.kind());
        assertEquals(0, simhash.maxDistance());
        assertEquals(0, simhash.maxFoldedIds());
        assertEquals(
                16,
                collapse(Map.of("field", "f", "max_distance", 16, "max_folded_ids", 1000))
                        .maxDistance());
        NearDupCollapseResponseProcessor minhash = collapse(Map.of("field", "f", "min_similarity", 1.0));
        assertEquals(HitFingerprint.Kind.MINHASH, minhash.kind());
        assertEquals(1.0, minhash.minSimilarity(), 0);
        assertEquals(
                0.05, collapse(Map.of("field", "f", "min_similarity", "0.05")).minSimilarity(), 0);
        assertEquals(1, window(Map.of("window", 1)).window());
        assertEquals(10_000, window(Map.of("window", 10_000)).window());
    }

    public void testBadCollapseOptions() {
        assertRejected(() -> collapse(Map.of()), "field", "[field] required property is missing");
        assertRejected(() -> collapse(Map.of("field", " ")), "field", "[field] must not be empty");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_distance", -1)),
                "max_distance",
                "[max_distance] must be in [0, 16], got [-1]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_distance", 17)),
                "max_distance",
                "[max_distance] must be in [0, 16], got [17]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_distance", 2.5)),
                "max_distance",
                "[max_distance] must be an integer, got [2.5]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_distance", "three")),
                "max_distance",
                "[max_distance] must be an integer, got [three]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "min_similarity", 0)),
                "min_similarity",
                "[min_similarity] must be in (0, 1], got [0.0]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "min_similarity", 1.01)),
                "min_similarity",
                "[min_similarity] must be in (0, 1], got [1.01]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "min_similarity", -0.5)),
                "min_similarity",
                "[min_similarity] must be in (0, 1], got [-0.5]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "min_similarity", "NaN")),
                "min_similarity",
                "[min_similarity] must be a number, got [NaN]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "min_similarity", "high")),
                "min_similarity",
                "[min_similarity] must be a number, got [high]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_distance", 3, "min_similarity", 0.8)),
                "min_similarity",
                "[min_similarity] cannot be combined with [max_distance]: [max_distance] is for simhash fields, [min_similarity] for minhash fields");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_folded_ids", -1)),
                "max_folded_ids",
                "[max_folded_ids] must be in [0, 1000], got [-1]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "max_folded_ids", 1001)),
                "max_folded_ids",
                "[max_folded_ids] must be in [0, 1000], got [1001]");
        assertRejected(
                () -> collapse(Map.of("field", "f", "window", 50)),
                "window",
                "[window] is an option of the [near_dup_window] request processor: add {\"near_dup_window\": {\"window\": 50}} to the "
                        + "pipeline's request_processors");
    }

    public void testBadWindow() {
        assertRejected(() -> window(Map.of("window", 0)), "window", "[window] must be in [1, 10000], got [0]");
        assertRejected(() -> window(Map.of("window", -5)), "window", "[window] must be in [1, 10000], got [-5]");
        assertRejected(() -> window(Map.of("window", 10_001)), "window", "[window] must be in [1, 10000], got [10001]");
        assertRejected(() -> window(Map.of("window", "many")), "window", "[window] must be an integer, got [many]");
    }
}
