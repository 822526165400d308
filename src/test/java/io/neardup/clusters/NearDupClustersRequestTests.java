/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.List;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.search.SearchModule;
import org.opensearch.test.OpenSearchTestCase;

/** The body of {@code POST <index>/_near_dup_clusters}: what OpenSearch's own parsers read in it is named too. */
public class NearDupClustersRequestTests extends OpenSearchTestCase {

    private static final NamedXContentRegistry REGISTRY =
            new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents());

    private static String refusal(String body) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                REGISTRY,
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                "{\"field\": \"fp.simhash\", \"target_field\": \"dup\", " + body + "}")) {
            return expectThrows(ParsingException.class, () -> NearDupClustersRequest.parse("i", parser))
                    .getMessage();
        }
    }

    /**
     * Found by HostileRequestsTests: a malformed {@code query} or {@code representative.sort} was refused in
     * OpenSearch's words alone ("[_na] query malformed, must start with start_object", "malformed sort format"),
     * which do not say which key of the body they are about.
     */
    public void testAMalformedQueryOrSortNamesItsKey() throws IOException {
        assertEquals("[query] must be an object, got [VALUE_NUMBER]", refusal("\"query\": 3"));
        assertEquals("[query] must be an object, got [VALUE_NULL]", refusal("\"query\": null"));
        assertTrue(
                refusal("\"query\": {\"a\": 1}"),
                refusal("\"query\": {\"a\": 1}").startsWith("[query] "));
        assertTrue(
                refusal("\"representative\": {\"sort\": 3}"),
                refusal("\"representative\": {\"sort\": 3}").startsWith("[representative.sort] malformed sort format"));
    }
}
