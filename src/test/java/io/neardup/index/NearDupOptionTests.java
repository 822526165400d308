/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.io.IOException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.test.OpenSearchTestCase;

public class NearDupOptionTests extends OpenSearchTestCase {

    /** The value of {@code {"v": json}} as a request body gives it to {@link NearDupOption#read}. */
    private static Object fromJson(String json) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, "{\"v\": " + json + "}")) {
            parser.nextToken();
            parser.nextToken();
            parser.nextToken();
            return NearDupOption.valueOf(parser, "v");
        }
    }

    /** The value of {@code {"v": json}} as a processor's configuration map holds it. */
    private static Object fromMap(String json) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, "{\"v\": " + json + "}")) {
            return parser.map().get("v");
        }
    }

    private static void assertRefused(NearDupOption option, String json, String message) throws IOException {
        for (Object raw : new Object[] {fromJson(json), fromMap(json)}) {
            NearDupOption.Invalid e = expectThrows(NearDupOption.Invalid.class, () -> option.read(raw));
            assertEquals(json, message, e.getMessage());
            assertEquals(option.paramName(), e.option());
        }
    }

    private static void assertRead(NearDupOption option, String json, Object expected) throws IOException {
        assertEquals(json, expected, option.read(fromJson(json)));
        assertEquals(json, expected, option.read(fromMap(json)));
    }

    public void testEachOptionReadsTheSameFromABodyAndFromAConfiguration() throws IOException {
        assertRead(NearDupOption.MAX_DISTANCE, "3", 3);
        assertRead(NearDupOption.MAX_DISTANCE, "\"3\"", 3);
        assertRead(NearDupOption.MAX_DISTANCE, "3.0", 3);
        assertRead(NearDupOption.MODE, "\"exact\"", NearDupOptions.Mode.EXACT);
        assertRead(NearDupOption.MAX_FLIPS, "64", 64);
        assertRead(NearDupOption.PREFIX_BITS, "\"auto\"", NearDupOptions.AUTO_PREFIX_BITS);
        assertRead(NearDupOption.PREFIX_BITS, "20", 20);
        assertRead(NearDupOption.FIRST_MATCH, "true", true);
        assertRead(NearDupOption.FIRST_MATCH, "\"false\"", false);
        assertRead(NearDupOption.MIN_SIMILARITY, "0.8", 0.8);
        assertRead(NearDupOption.MIN_SIMILARITY, "\"0.8\"", 0.8);
        assertRead(NearDupOption.MIN_SIMILARITY, "1", 1.0);
        assertRead(NearDupOption.MIN_BAND_MATCHES, "2", 2);
        assertRead(NearDupOption.VERIFICATION, "\"estimate\"", NearDupOptions.Verification.ESTIMATE);
        assertRead(NearDupOption.MIN_CONTAINMENT, "0.5", 0.5);
        assertRead(NearDupOption.CONTAINED, "\"document\"", Containment.Contained.DOCUMENT);
    }

    public void testEachBadValueHasOneReasonWhereverItIsRead() throws IOException {
        assertRefused(NearDupOption.MAX_DISTANCE, "9", "[max_distance] must be in [0, 8], got [9]");
        assertRefused(NearDupOption.MAX_DISTANCE, "-1", "[max_distance] must be in [0, 8], got [-1]");
        assertRefused(NearDupOption.MAX_DISTANCE, "2.5", "[max_distance] must be an integer, got [2.5]");
        assertRefused(NearDupOption.MAX_DISTANCE, "\"abc\"", "[max_distance] must be an integer, got [abc]");
        assertRefused(NearDupOption.MAX_DISTANCE, "true", "[max_distance] must be an integer, got [true]");
        assertRefused(NearDupOption.MAX_DISTANCE, "null", "[max_distance] must be an integer, got [null]");
        assertRefused(NearDupOption.MODE, "\"fuzzy\"", "[mode] must be [psm] or [exact], got [fuzzy]");
        assertRefused(NearDupOption.MAX_FLIPS, "0", "[max_flips] must be in [1, 10000], got [0]");
        assertRefused(NearDupOption.PREFIX_BITS, "0", "[prefix_bits] must be \"auto\" or in [1, 32], got [0]");
        assertRefused(NearDupOption.PREFIX_BITS, "\"many\"", "[prefix_bits] must be an integer, got [many]");
        assertRefused(NearDupOption.FIRST_MATCH, "\"yes\"", "[first_match] must be true or false, got [yes]");
        assertRefused(NearDupOption.MIN_SIMILARITY, "\"abc\"", "[min_similarity] must be a number, got [abc]");
        assertRefused(NearDupOption.MIN_SIMILARITY, "0", "[min_similarity] must be in (0, 1], got [0.0]");
        assertRefused(NearDupOption.MIN_SIMILARITY, "1.5", "[min_similarity] must be in (0, 1], got [1.5]");
        assertRefused(NearDupOption.MIN_BAND_MATCHES, "1025", "[min_band_matches] must be in [1, 1024], got [1025]");
        assertRefused(
                NearDupOption.VERIFICATION, "\"exact\"", "[verification] must be [auto] or [estimate], got [exact]");
        assertRefused(NearDupOption.MIN_CONTAINMENT, "0.4", "[min_containment] must be in [0.5, 1], got [0.4]");
        assertRefused(NearDupOption.CONTAINED, "\"both\"", "[contained] must be [like] or [document], got [both]");
    }

    public void testNumbersBeyondAnyRangeAreRefusedByName() throws IOException {
        for (NearDupOption option : EnumSet.of(
                NearDupOption.MAX_DISTANCE,
                NearDupOption.MAX_FLIPS,
                NearDupOption.PREFIX_BITS,
                NearDupOption.MIN_BAND_MATCHES)) {
            for (String huge : new String[] {"1e19", "10000000000000000000", "2147483648", "\"99999999999\""}) {
                NearDupOption.Invalid e = expectThrows(NearDupOption.Invalid.class, () -> option.read(fromJson(huge)));
                assertTrue(e.getMessage(), e.getMessage().startsWith("[" + option.paramName() + "] must be"));
            }
        }
        NearDupOption.Invalid e =
                expectThrows(NearDupOption.Invalid.class, () -> NearDupOption.MIN_SIMILARITY.read(fromJson("1e400")));
        assertEquals("[min_similarity] must be a number, got [Infinity]", e.getMessage());
    }

    public void testAnObjectIsNoValue() throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, "{\"v\": [3]}")) {
            parser.nextToken();
            parser.nextToken();
            parser.nextToken();
            NearDupOption.Invalid e =
                    expectThrows(NearDupOption.Invalid.class, () -> NearDupOption.valueOf(parser, "max_distance"));
            assertEquals("[max_distance] must be a value, got [START_ARRAY]", e.getMessage());
        }
    }

    public void testTheReaderTakesItsEntryPointsOptionsAndTheRulesBetweenThem() {
        NearDupOptions.Reader all = new NearDupOptions.Reader();
        assertFalse(all.read("field", "f"));
        assertTrue(all.read("max_distance", 2));
        assertTrue(all.read("mode", "exact"));
        assertEquals(NearDupOptions.DEFAULTS.withMaxDistance(2).withMode(NearDupOptions.Mode.EXACT), all.options());
        assertNull(all.containment());

        NearDupOptions.Reader run =
                new NearDupOptions.Reader(EnumSet.of(NearDupOption.MAX_DISTANCE), "does not apply to a run");
        NearDupOption.Invalid e = expectThrows(NearDupOption.Invalid.class, () -> run.read("prefix_bits", 3));
        assertEquals("[prefix_bits] does not apply to a run", e.getMessage());

        NearDupOptions.Reader containedAlone = new NearDupOptions.Reader();
        containedAlone.read("contained", "like");
        e = expectThrows(NearDupOption.Invalid.class, containedAlone::containment);
        assertEquals("[contained] goes with [min_containment]", e.getMessage());

        Map<String, Object> config = new HashMap<>(Map.of("min_containment", 0.8, "min_similarity", 0.8, "tag", "t"));
        NearDupOptions.Reader both = new NearDupOptions.Reader().readFrom(config);
        assertEquals(Map.of("tag", "t"), config);
        e = expectThrows(NearDupOption.Invalid.class, both::containment);
        assertTrue(e.getMessage(), e.getMessage().startsWith("[min_similarity] does not apply with [min_containment]"));
    }

    public void testOptionsOfTheOtherKindAreRefusedInTheTablesOrder() {
        NearDupOption.Invalid e = expectThrows(
                NearDupOption.Invalid.class,
                () -> NearDupOptions.DEFAULTS
                        .withFirstMatch(true)
                        .withMaxDistance(2)
                        .requireApplicableTo(FingerprintKind.MINHASH, "fp.minhash"));
        assertEquals(
                "[max_distance] applies to [simhash] fields; [fp.minhash] is a [minhash] field: use [min_similarity]",
                e.getMessage());
        e = expectThrows(
                NearDupOption.Invalid.class,
                () -> NearDupOptions.DEFAULTS
                        .withMinBandMatches(2)
                        .requireApplicableTo(FingerprintKind.SIMHASH, "fp.simhash"));
        assertEquals(
                "[min_band_matches] applies to [minhash] fields; [fp.simhash] is a [simhash] field", e.getMessage());
        e = expectThrows(
                NearDupOption.Invalid.class,
                () -> NearDupOptions.DEFAULTS
                        .withVerification(NearDupOptions.Verification.ESTIMATE)
                        .requireApplicableTo(FingerprintKind.SIMHASH, "fp.simhash"));
        assertEquals("[verification] on a [simhash] field goes with [min_similarity]", e.getMessage());
        NearDupOptions.DEFAULTS.withMinSimilarity(0.9).requireApplicableTo(FingerprintKind.SIMHASH, "f");
    }
}
