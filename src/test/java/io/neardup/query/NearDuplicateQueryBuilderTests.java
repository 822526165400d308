/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.index.SimhashFieldMapperTests;
import java.io.IOException;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.test.OpenSearchTestCase;

public class NearDuplicateQueryBuilderTests extends OpenSearchTestCase {

    private static NearDuplicateQueryBuilder parse(String json) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, json)) {
            parser.nextToken();
            return NearDuplicateQueryBuilder.fromXContent(parser, null);
        }
    }

    private static void assertRejected(String json, String message) {
        ParsingException e = expectThrows(ParsingException.class, () -> parse(json));
        assertTrue(
                "[" + e.getMessage() + "] should contain [" + message + "]",
                e.getMessage().contains(message));
    }

    public void testDefaultsAndEveryParameterRoundTrip() throws IOException {
        NearDuplicateQueryBuilder defaults = parse("{\"field\": \"fp.simhash\", \"like\": {\"_id\": \"doc-17\"}}");
        assertEquals(Like.id("doc-17", null), defaults.like());
        NearDuplicateQueryBuilder minhash = parse("""
            {"field": "fp.minhash", "like": {"minhash": "AQAAAAAAAAAB"}, "min_similarity": 0.7, "min_band_matches": 2,
             "prefix_bits": "auto"}""");
        NearDuplicateQueryBuilder full = parse("""
            {"field": "fp.simhash", "like": {"simhash": "00FF00ff00ff00ff", "scheme": "nd1-75205b5f"}, "max_distance": 5,
             "mode": "exact", "max_flips": 200, "prefix_bits": 12, "first_match": true, "include_self": true,
             "ignore_unmapped": true, "boost": 2.0, "_name": "copies"}""");
        for (NearDuplicateQueryBuilder builder : new NearDuplicateQueryBuilder[] {defaults, full, minhash}) {
            XContentBuilder json = JsonXContent.contentBuilder();
            builder.toXContent(json, ToXContent.EMPTY_PARAMS);
            String wrapped = json.toString();
            assertTrue(wrapped, wrapped.startsWith("{\"near_duplicate\":"));
            assertEquals(builder, parse(wrapped.substring("{\"near_duplicate\":".length(), wrapped.length() - 1)));
            try (BytesStreamOutput out = new BytesStreamOutput()) {
                builder.writeTo(out);
                assertEquals(builder, new NearDuplicateQueryBuilder(out.bytes().streamInput(), null));
            }
        }
        assertNotEquals(defaults, full);
        assertNotEquals(full, minhash);
    }

    public void testBadQueriesNameTheParameterAndTheReason() {
        assertRejected("{\"like\": {\"_id\": \"1\"}}", "[near_duplicate] requires a [field]");
        assertRejected("{\"field\": \"f\"}", "[near_duplicate] requires [like]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"max_distance\": 9}",
                "[max_distance] must be in [0, 8], got [9]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"max_distance\": -1}",
                "[max_distance] must be in [0, 8], got [-1]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"max_flips\": 0}",
                "[max_flips] must be in [1, 10000], got [0]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"max_flips\": 10001}",
                "[max_flips] must be in [1, 10000]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"prefix_bits\": 33}",
                "[prefix_bits] must be \"auto\" or in [1, 32]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"prefix_bits\": \"many\"}",
                "[prefix_bits] must be an integer");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"min_similarity\": 0}",
                "[min_similarity] must be in (0, 1], got [0.0]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"min_similarity\": 1.5}",
                "[min_similarity] must be in (0, 1]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"min_band_matches\": 0}",
                "[min_band_matches] must be in [1, 1024]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"mode\": \"fuzzy\"}",
                "[mode] must be [psm] or [exact], got [fuzzy]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\"}, \"k\": 3}",
                "[near_duplicate] query does not support [k]");
        assertRejected(
                "{\"field\": \"f\", \"like\": {}}",
                "[like] needs exactly one of [_id], [text], [simhash], [minhash], got 0");
        assertRejected("{\"field\": \"f\", \"like\": {\"_id\": \"1\", \"text\": \"t\"}}", "needs exactly one of");
        assertRejected("{\"field\": \"f\", \"like\": {\"simhash\": \"xyz\"}}", "simhash must be 16 hex characters");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"simhash\": \"00ff00ff00ff00ff\", \"margins\": \"!!\"}}", "margins");
        assertRejected(
                "{\"field\": \"f\", \"like\": {\"_id\": \"1\", \"margins\": \"AA\"}}", "takes none of the other keys");
        assertRejected("{\"field\": \"f\", \"like\": {\"_id\": 17}}", "[like._id] must be a string");
        assertRejected("{\"field\": \"f\", \"like\": \"doc-17\"}", "[like] must be an object");
        assertRejected("{\"field\": \"f\", \"like\": {\"colour\": \"red\"}}", "[like] does not support [colour]");
        String like = "{\"field\": \"f\", \"like\": {\"_id\": \"x\"}, ";
        assertRejected(
                like + "\"max_distance\": 1e20}", "[near_duplicate] [max_distance] must be an integer, got [1.0E20]");
        assertRejected(
                like + "\"max_distance\": 2147483648}",
                "[near_duplicate] [max_distance] must be an integer, got [2147483648]");
        assertRejected(
                like + "\"max_distance\": true}", "[near_duplicate] [max_distance] must be an integer, got [true]");
        assertRejected(
                like + "\"max_distance\": 2.5}", "[near_duplicate] [max_distance] must be an integer, got [2.5]");
        assertRejected(
                like + "\"first_match\": \"yes\"}", "[near_duplicate] [first_match] must be true or false, got [yes]");
        assertRejected(like + "\"boost\": \"abc\"}", "[near_duplicate] [boost] must be a number, got [abc]");
        assertRejected(
                like + "\"min_similarity\": \"NaN\"}", "[near_duplicate] [min_similarity] must be a number, got [NaN]");
        assertRejected(
                like + "\"prefix_bits\": 0}", "[near_duplicate] [prefix_bits] must be \"auto\" or in [1, 32], got [0]");
    }

    /**
     * The refusals {@code HostileInputIT} once sent over HTTP, with its bodies, that the test above does not
     * already make: the builder's parse alone decides them, so a real node is needed only for one of them.
     */
    public void testValuesThatAreNotWhatTheyClaimNameThemselves() {
        String like = "{\"field\": \"body_fp.simhash\", \"like\": {\"_id\": \"0\"}, ";
        assertRejected(like + "\"max_distance\": [3]}", "[max_distance] must be a value");
        assertRejected(like + "\"include_self\": 1}", "[include_self] must be true or false, got [1]");
        assertRejected(like + "\"boost\": \"Infinity\"}", "[boost] must be a number, got [Infinity]");
        assertRejected(like + "\"boost\": \"NaN\"}", "[boost] must be a number, got [NaN]");
        assertRejected(like + "\"prefix_bits\": 33}", "got [33]");
        assertRejected(like + "\"prefix_bits\": \"AUTO\"}", "[prefix_bits] must be an integer, got [AUTO]");
        assertRejected(like + "\"max_flips\": 10001}", "[max_flips] must be in [1, 10000], got [10001]");
        assertRejected(like + "\"min_similarity\": \"lots\"}", "[min_similarity] must be a number, got [lots]");
        assertRejected(like + "\"maxdistance\": 3}", "[near_duplicate] query does not support [maxdistance]");
        assertRejected("{\"field\": {\"a\": 1}, \"like\": {\"_id\": \"0\"}}", "[field] must be a value");
        // Found by HostileRequestsTests: null was read as text, an IllegalStateException (a 500).
        assertRejected(
                "{\"field\": null, \"like\": {\"_id\": \"0\"}}",
                "[near_duplicate] [field] must be a string, got [null]");
        assertRejected(like + "\"_name\": null}", "[near_duplicate] [_name] must be a string, got [null]");
    }

    /** Digits that are not ASCII hex digits (full-width, Arabic-Indic), a 0x, a 17th digit or a space: no simhash. */
    public void testOnlyAsciiHexIsALikeSimhash() {
        for (String lookalike : SimhashFieldMapperTests.ASCII_HEX_LOOKALIKES) {
            assertRejected(
                    "{\"field\": \"body_fp.simhash\", \"like\": {\"simhash\": \"" + lookalike
                            + "\"}, \"mode\": \"exact\"}",
                    "simhash must be 16 hex characters");
        }
    }
}
