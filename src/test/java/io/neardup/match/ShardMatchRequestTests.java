/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.index.Containment;
import io.neardup.index.NearDupOptions;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.test.OpenSearchTestCase;

/** Each kind of batch crosses the wire as itself, in the layout written before the kinds were types of their own. */
public class ShardMatchRequestTests extends OpenSearchTestCase {

    private static final MatchSpec SPEC = new MatchSpec("fp.simhash", 3, null, null, null, null);

    private static ShardMatchRequest roundTrip(ShardMatchRequest request) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            request.writeTo(out);
            try (StreamInput in = out.bytes().streamInput()) {
                ShardMatchRequest read = new ShardMatchRequest(in);
                assertEquals(0, in.available());
                return read;
            }
        }
    }

    public void testEachBatchKindCrossesTheWire() throws IOException {
        ShardMatchRequest documents = roundTrip(new ShardMatchRequest(
                "i",
                2,
                SPEC,
                new ShardMatchRequest.Documents(List.of("a", ""), List.of(Map.of("x", 1), Map.of())),
                7,
                "dup.cluster"));
        assertEquals(2, documents.shard());
        assertEquals(7, documents.maxMatches());
        assertEquals("dup.cluster", documents.clusterField());
        ShardMatchRequest.Documents docs = (ShardMatchRequest.Documents) documents.batch();
        assertEquals(List.of("a", ""), docs.ids());
        assertEquals(List.of(Map.of("x", 1), Map.of()), docs.sources());

        byte[][] signatures = {{1, 2, 3, 4}, null};
        byte[][] sets = {null, {9}};
        ShardMatchRequest.Simhashes simhashes = (ShardMatchRequest.Simhashes) roundTrip(new ShardMatchRequest(
                        "i",
                        0,
                        SPEC,
                        new ShardMatchRequest.Simhashes(new long[] {5, -1}, signatures, sets, "s1"),
                        3,
                        null))
                .batch();
        assertArrayEquals(new long[] {5, -1}, simhashes.values());
        assertArrayEquals(signatures, simhashes.signatures());
        assertArrayEquals(sets, simhashes.shingleSets());
        assertEquals("s1", simhashes.scheme());
        ShardMatchRequest.Simhashes unverified = (ShardMatchRequest.Simhashes) roundTrip(new ShardMatchRequest(
                        "i", 0, SPEC, new ShardMatchRequest.Simhashes(new long[] {5}, null, null, null), 3, null))
                .batch();
        assertNull(unverified.signatures());
        assertNull(unverified.scheme());

        ShardMatchRequest.Signatures bands = (ShardMatchRequest.Signatures) roundTrip(new ShardMatchRequest(
                        "i",
                        1,
                        SPEC,
                        new ShardMatchRequest.Signatures(
                                new byte[][] {{1, 2, 3, 4}}, new byte[][] {null}, new int[][] {{0, 7}}, "s2"),
                        3,
                        null))
                .batch();
        assertArrayEquals(new byte[][] {{1, 2, 3, 4}}, bands.signatures());
        assertArrayEquals(new int[][] {{0, 7}}, bands.bands());
        assertEquals("s2", bands.scheme());

        assertTrue(
                roundTrip(ShardMatchRequest.bandFilter("i", 1, SPEC)).batch() instanceof ShardMatchRequest.BandFilter);
    }

    public void testABatchOfMismatchedPartsIsRefused() {
        expectThrows(IllegalArgumentException.class, () -> new ShardMatchRequest.Documents(List.of("a"), List.of()));
        expectThrows(
                IllegalArgumentException.class,
                () -> new ShardMatchRequest.Simhashes(new long[2], new byte[1][], new byte[1][], null));
        expectThrows(
                IllegalArgumentException.class,
                () -> new ShardMatchRequest.Signatures(new byte[1][], new byte[1][], new int[2][], null));
    }

    /** A lookup's containment match crosses the wire with its direction; a similarity spec arrives without one. */
    public void testAContainmentSpecCrossesTheWire() throws IOException {
        for (Containment.Contained contained : Containment.Contained.values()) {
            MatchSpec spec = new MatchSpec("fp.minhash", new Containment(0.75, contained));
            ShardMatchRequest read = roundTrip(new ShardMatchRequest(
                    "i", 0, spec, new ShardMatchRequest.Documents(List.of("a"), List.of(Map.of())), 5, null));
            assertEquals(spec, read.spec());
            assertEquals(contained, read.spec().containment().contained());
            assertEquals(0.75, read.spec().containment().min(), 0);
        }
        assertNull(roundTrip(ShardMatchRequest.bandFilter("i", 1, SPEC)).spec().containment());
    }

    public void testAContainmentSpecTakesNoSimilarityOption() {
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> new MatchSpec(
                        "fp.minhash",
                        NearDupOptions.DEFAULTS.withMinSimilarity(0.8),
                        new Containment(0.8, Containment.Contained.LIKE)));
        assertTrue(e.getMessage(), e.getMessage().contains("[min_similarity] does not apply with [min_containment]"));
    }
}
