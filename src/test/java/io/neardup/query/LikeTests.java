/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import static org.hamcrest.Matchers.instanceOf;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.test.OpenSearchTestCase;

public class LikeTests extends OpenSearchTestCase {

    private static Like parse(String json) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY, DeprecationHandler.THROW_UNSUPPORTED_OPERATION, json)) {
            parser.nextToken();
            return Like.fromXContent(parser);
        }
    }

    private static String json(Like like) throws IOException {
        XContentBuilder builder = XContentFactory.jsonBuilder();
        like.toXContent(builder, ToXContent.EMPTY_PARAMS);
        return BytesReference.bytes(builder).utf8ToString();
    }

    private static Like wire(Like like) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            like.writeTo(out);
            try (StreamInput in = out.bytes().streamInput()) {
                return Like.readFrom(in);
            }
        }
    }

    public void testEveryKindRoundTripsThroughJsonAndTheWire() throws IOException {
        List<Like> likes = List.of(
                Like.id("doc-1", null),
                Like.id("doc-1", "pages"),
                Like.text("some text", "fingerprints"),
                Like.simhash("00000000000000ff", null, "nd1-0123abcd"),
                Like.minhash("AQID", "AQIDBAU", "nd1-0123abcd"));
        for (Like like : likes) {
            assertEquals(like, parse(json(like)));
            assertEquals(like, wire(like));
        }
    }

    /** A document the rewrite fetched travels with its source, and prints as the _id and _index it was asked for. */
    public void testFetchedCarriesItsSourceAndPrintsAsAnId() throws IOException {
        Like fetched = Like.fetched("doc-1", "pages", Map.of("text_fp", Map.of("simhash", "00000000000000ff")));
        assertEquals(fetched, wire(fetched));
        assertEquals("{\"_id\":\"doc-1\",\"_index\":\"pages\"}", json(fetched));
        assertNotEquals(fetched, Like.id("doc-1", "pages"));
    }

    /**
     * A document read in each index travels with every index's answer (found, missing, or the GET's failure, its type
     * and words kept), and prints as the _id it was asked for, which parses back to a document read again.
     */
    public void testReadInEachIndexCarriesEveryAnswerAndPrintsAsAnId() throws IOException {
        Map<String, Object> source = Map.of("text_fp", Map.of("simhash", "00000000000000ff"));
        Like read = new Like.ReadInEachIndex(
                "doc-1",
                Map.of(
                        "uuid-found", new Like.IndexRead(source, null),
                        "uuid-missing", Like.IndexRead.NOT_FOUND,
                        "uuid-failed", new Like.IndexRead(null, new IllegalArgumentException("no reading here"))));
        Like.ReadInEachIndex copy = (Like.ReadInEachIndex) wire(read);
        assertEquals("doc-1", copy.id());
        assertEquals(
                Set.of("uuid-found", "uuid-missing", "uuid-failed"),
                copy.byIndexUuid().keySet());
        assertEquals(new Like.IndexRead(source, null), copy.byIndexUuid().get("uuid-found"));
        assertEquals(Like.IndexRead.NOT_FOUND, copy.byIndexUuid().get("uuid-missing"));
        Exception failure = copy.byIndexUuid().get("uuid-failed").failure();
        assertThat(failure, instanceOf(IllegalArgumentException.class));
        assertEquals("no reading here", failure.getMessage());
        assertNull(copy.byIndexUuid().get("uuid-failed").source());
        assertEquals("{\"_id\":\"doc-1\"}", json(read));
        assertEquals(Like.id("doc-1", null), parse(json(read)));
    }

    /**
     * A text whose named pipeline the rewrite read as the caller says so on the wire, under a kind of its own (what an
     * older build wrote reads as an unchecked text), and never in JSON: a request cannot claim the check.
     */
    public void testAPipelineCheckedTextSaysSoOnlyOnTheWire() throws IOException {
        Like.Text checked = new Like.Text("some text", "fp").pipelineCheckedText();
        assertTrue(checked.pipelineChecked());
        assertEquals(checked, wire(checked));
        assertNotEquals(checked, Like.text("some text", "fp"));
        assertWire(checked, 6, new String[] {null, null, "some text", "fp", null, null, null, null, null}, null);
        assertEquals(json(Like.text("some text", "fp")), json(checked));
        assertEquals(Like.text("some text", "fp"), parse(json(checked)));
        assertFalse(((Like.Text) wire(Like.text("some text", "fp"))).pipelineChecked());
    }

    /**
     * The bytes each kind writes are the ones the single class wrote (its kind enum's ordinal, ten optional
     * strings in a fixed order, an optional map), written out here by hand: a node of either build reads them.
     */
    public void testWireLayoutIsUnchanged() throws IOException {
        Map<String, Object> source = Map.of("text_fp", Map.of("simhash", "00000000000000ff"));
        assertWire(
                Like.id("doc-1", "pages"),
                0,
                new String[] {"doc-1", "pages", null, null, null, null, null, null, null},
                null);
        assertWire(
                Like.text("some text", "fp"),
                1,
                new String[] {null, null, "some text", "fp", null, null, null, null, null},
                null);
        assertWire(
                Like.simhash("00000000000000ff", null, "nd1-0123abcd"),
                2,
                new String[] {null, null, null, null, "00000000000000ff", null, null, null, "nd1-0123abcd"},
                null);
        assertWire(
                Like.minhash("AQID", "AQIDBAU", null),
                3,
                new String[] {null, null, null, null, null, null, "AQID", "AQIDBAU", null},
                null);
        assertWire(
                Like.fetched("doc-1", "pages", source),
                4,
                new String[] {"doc-1", "pages", null, null, null, null, null, null, null},
                source);
    }

    private static void assertWire(Like like, int kind, String[] strings, Map<String, Object> source)
            throws IOException {
        try (BytesStreamOutput expected = new BytesStreamOutput();
                BytesStreamOutput actual = new BytesStreamOutput()) {
            expected.writeVInt(kind);
            for (String value : strings) {
                expected.writeOptionalString(value);
            }
            expected.writeBoolean(source != null);
            if (source != null) {
                expected.writeMap(source);
            }
            like.writeTo(actual);
            assertEquals(like.toString(), expected.bytes(), actual.bytes());
        }
    }

    public void testMalformedLikeSaysWhy() {
        assertEquals(
                "[like] needs exactly one of [_id], [text], [simhash], [minhash], got 2",
                expectThrows(ParsingException.class, () -> parse("{\"_id\": \"a\", \"text\": \"b\"}"))
                        .getMessage());
        assertEquals(
                "[like] does not support [colour]",
                expectThrows(ParsingException.class, () -> parse("{\"colour\": \"red\"}"))
                        .getMessage());
        assertEquals(
                "[like.text] must be a string, got [VALUE_NUMBER]",
                expectThrows(ParsingException.class, () -> parse("{\"text\": 3}"))
                        .getMessage());
        assertTrue(expectThrows(ParsingException.class, () -> parse("{\"minhash\": \"AQID\", \"margins\": \"x\"}"))
                .getMessage()
                .contains("takes none of the other keys"));
        for (String blank : new String[] {"", "  "}) {
            // Was a 404 "no such index []" when the query ran (issue 40).
            assertEquals(
                    "[like._index] must not be empty",
                    expectThrows(ParsingException.class, () -> parse("{\"_id\": \"a\", \"_index\": \"" + blank + "\"}"))
                            .getMessage());
        }
        assertEquals(
                "simhash must be 16 hex characters, got [xyz]",
                expectThrows(ParsingException.class, () -> parse("{\"simhash\": \"xyz\"}"))
                        .getMessage());
    }
}
