/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.WireAt;
import java.io.IOException;
import java.util.List;
import org.opensearch.Version;
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
        return refusalOf("{\"field\": \"fp.simhash\", \"target_field\": \"dup\", " + body + "}");
    }

    private static String refusalOf(String body) throws IOException {
        try (XContentParser parser = parser(body)) {
            return expectThrows(ParsingException.class, () -> NearDupClustersRequest.parse("i", parser))
                    .getMessage();
        }
    }

    private static XContentParser parser(String body) throws IOException {
        return JsonXContent.jsonXContent.createParser(REGISTRY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, body);
    }

    private static NearDupClustersRequest parse(String body) throws IOException {
        try (XContentParser parser = parser(body)) {
            return NearDupClustersRequest.parse("i", parser);
        }
    }

    /** {@code dest} names the new index the assignments go into, instead of {@code target_field}, and nothing else. */
    public void testDestTakesTheIndexAndRefusesWhatDoesNotApply() throws IOException {
        NearDupClustersRequest request = parse("{\"field\": \"fp.simhash\", \"dest\": {\"index\": \"records\"}}");
        assertEquals("records", request.dest());
        assertNull(request.targetField());
        assertFalse(request.writesIntoDocuments());
        assertNull(request.validate());
        assertEquals(NearDupClustersDryRunAction.INSTANCE, NearDupClustersDryRunAction.of(request));
        assertTrue(request.getDescription(), request.getDescription().contains("into index [records]"));

        String base = "{\"field\": \"fp.simhash\", \"dest\": {\"index\": \"records\"}, ";
        assertEquals(
                "[_near_dup_clusters] [target_field] does not apply with [dest]: each document's assignment is written"
                        + " into [dest] as a record, not into the document",
                refusalOf(base + "\"target_field\": \"dup\"}"));
        assertTrue(
                refusalOf(base + "\"query\": {\"match_all\": {}}}"),
                refusalOf(base + "\"query\": {\"match_all\": {}}}")
                        .startsWith("[_near_dup_clusters] [query] does not apply with [dest]"));
        assertTrue(
                refusalOf(base + "\"representative\": {\"keep_existing\": true}}"),
                refusalOf(base + "\"representative\": {\"keep_existing\": true}}")
                        .startsWith("[_near_dup_clusters] [representative.keep_existing] does not apply with [dest]"));
        assertEquals("[dest] has unknown option [name], expected [index]", refusal("\"dest\": {\"name\": \"x\"}"));
        assertEquals(
                "[dest] requires [index]: the new index the assignments are written into", refusal("\"dest\": {}"));
        assertEquals("[dest] must be an object, got [VALUE_STRING]", refusal("\"dest\": \"records\""));
        assertEquals("[dest.index] must be a string, got [VALUE_NUMBER]", refusal("\"dest\": {\"index\": 3}"));
        assertTrue(
                refusalOf("{\"field\": \"fp.simhash\"}"),
                refusalOf("{\"field\": \"fp.simhash\"}").contains("requires [target_field]"));

        // dry_run is a URL parameter, set after the body.
        request.dryRun(true);
        assertEquals(
                List.of("[dest] does not apply to a dry run, which writes nothing"),
                request.validate().validationErrors());
        NearDupClustersRequest blank = parse("{\"field\": \"fp.simhash\", \"dest\": {\"index\": \" \"}}");
        assertEquals(
                List.of("[dest.index] must name an index, got [ ]"),
                blank.validate().validationErrors());
    }

    /** {@code dest} travels between nodes of this version; a node of another version reads the target field only. */
    public void testDestOnTheWire() throws IOException {
        NearDupClustersRequest request = parse("{\"field\": \"fp.simhash\", \"dest\": {\"index\": \"records\"}}");
        NearDupClustersRequest copy = WireAt.roundTrip(request, Version.CURRENT, NearDupClustersRequest::new);
        assertEquals("records", copy.dest());
        assertNull(copy.targetField());
        NearDupClustersRequest inPlace = parse("{\"field\": \"fp.simhash\", \"target_field\": \"dup\"}");
        NearDupClustersRequest old = WireAt.roundTrip(inPlace, WireAt.OTHER, NearDupClustersRequest::new);
        assertEquals("dup", old.targetField());
        assertNull(old.dest());
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
