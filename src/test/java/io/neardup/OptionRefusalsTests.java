/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.clusters.NearDupClustersRequest;
import io.neardup.lookup.NearDupLookupProcessor;
import io.neardup.query.NearDuplicateQueryBuilder;
import java.io.IOException;
import java.util.Map;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The same bad value of a matching option gets the same words in every entry point: the {@code near_duplicate}
 * query, a {@code _near_dup_clusters} body, a {@code near_dup_lookup} processor and a {@code near_dup_collapse}
 * processor; each puts only its own name (or its processor's) before them.
 */
public class OptionRefusalsTests extends OpenSearchTestCase {

    private static XContentParser parser(String json) throws IOException {
        return JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, json);
    }

    private static Map<String, Object> config(String json) throws IOException {
        try (XContentParser parser = parser(json)) {
            return parser.map();
        }
    }

    private static String queryRefusal(String option, String value) throws IOException {
        try (XContentParser parser =
                parser("{\"field\": \"fp.simhash\", \"like\": {\"_id\": \"1\"}, \"" + option + "\": " + value + "}")) {
            parser.nextToken();
            return expectThrows(Exception.class, () -> NearDuplicateQueryBuilder.fromXContent(parser, null))
                    .getMessage();
        }
    }

    private static String clustersRefusal(String option, String value) throws IOException {
        try (XContentParser parser =
                parser("{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"" + option + "\": " + value + "}")) {
            return expectThrows(Exception.class, () -> NearDupClustersRequest.parse("i", parser))
                    .getMessage();
        }
    }

    private static String lookupRefusal(String option, String value) throws IOException {
        Map<String, Object> config =
                config("{\"field\": \"fp.simhash\", \"target_field\": \"dup\", \"" + option + "\": " + value + "}");
        return expectThrows(
                        Exception.class,
                        () -> new NearDupLookupProcessor.Factory(null, null, null, null, Settings.EMPTY)
                                .create(Map.of(), "t", null, config))
                .getMessage();
    }

    private static String collapseRefusal(String option, String value) throws IOException {
        Map<String, Object> config = config("{\"field\": \"fp.simhash\", \"" + option + "\": " + value + "}");
        return expectThrows(Exception.class, () -> HostileRequests.collapseProcessor(config))
                .getMessage();
    }

    private static void assertEverywhere(String option, String value, String reason) throws IOException {
        assertEquals("[near_duplicate] " + reason, queryRefusal(option, value));
        assertEquals("[_near_dup_clusters] " + reason, clustersRefusal(option, value));
        assertEquals(reason, lookupRefusal(option, value));
        assertEquals(reason, collapseRefusal(option, value));
    }

    public void testTheSameBadValueHasTheSameReasonInEveryEntryPoint() throws IOException {
        assertEverywhere("min_similarity", "\"abc\"", "[min_similarity] must be a number, got [abc]");
        assertEverywhere("min_similarity", "0", "[min_similarity] must be in (0, 1], got [0.0]");
        assertEverywhere("min_similarity", "1e19", "[min_similarity] must be in (0, 1], got [1.0E19]");
        assertEverywhere("min_similarity", "null", "[min_similarity] must be a number, got [null]");
    }

    public void testTheQueryTheRunAndTheLookupShareMaxDistancesRange() throws IOException {
        for (String[] bad : new String[][] {
            {"9", "[max_distance] must be in [0, 8], got [9]"},
            {"\"abc\"", "[max_distance] must be an integer, got [abc]"},
            {"1e19", "[max_distance] must be an integer, got [1.0E19]"}
        }) {
            assertEquals("[near_duplicate] " + bad[1], queryRefusal("max_distance", bad[0]));
            assertEquals("[_near_dup_clusters] " + bad[1], clustersRefusal("max_distance", bad[0]));
            assertEquals(bad[1], lookupRefusal("max_distance", bad[0]));
        }
        // Collapse folds up to 16 bits apart (it compares hits with leaders; no flip sets to bound): same words.
        assertEquals("[max_distance] must be in [0, 16], got [17]", collapseRefusal("max_distance", "17"));
        assertEquals("[max_distance] must be an integer, got [abc]", collapseRefusal("max_distance", "\"abc\""));
    }
}
