/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.MatchSpec;
import java.io.IOException;
import org.opensearch.Version;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.test.OpenSearchTestCase;

/** The band join's two kinds of step, as the coordinator sends them and as a data node reads them. */
public class ShardJoinRequestTests extends OpenSearchTestCase {

    private static final MatchSpec SPEC = new MatchSpec("fp.minhash", null, null, null, 0.8, null);

    public void testTheSelfJoinStepLooksUpNoOtherShard() throws IOException {
        boolean allPairs = randomBoolean();
        ShardJoinRequest read =
                roundTrip(new ShardJoinRequest("index", 2, SPEC, new ShardJoinRequest.BandsWithin(allPairs)));
        assertEquals(new ShardJoinRequest.BandsWithin(allPairs), read.step());
        assertNull(read.validate());
    }

    public void testAStepAcrossShardsLooksUpOneOtherShardOnly() throws IOException {
        ShardJoinRequest.OtherShard other =
                new ShardJoinRequest.OtherShard(randomFrom("index", "other"), between(0, 100));
        ShardJoinRequest read =
                roundTrip(new ShardJoinRequest("index", 2, SPEC, new ShardJoinRequest.BandsAcross(other)));
        assertEquals(new ShardJoinRequest.BandsAcross(other), read.step());
        assertNull(read.validate());
        // A band step naming two other shards cannot be written any more; read from an older writer, it is refused.
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            new ShardJoinRequest("index", 2, SPEC, new ShardJoinRequest.Window(0, 10, shards("index", 1, "index", 3)))
                    .writeTo(out);
            byte[] bytes = BytesReference.toBytes(out.bytes());
            int indices; // the bytes of the other shards' index names, then of the parts, written last
            try (BytesStreamOutput names = new BytesStreamOutput()) {
                names.writeStringArray(new String[] {"index", "index"});
                names.writeVIntArray(new int[0]);
                names.writeOptionalString(null);
                names.writeBoolean(false);
                indices = names.bytes().length();
            }
            bytes[bytes.length - indices - 2] = 1; // the "bands" flag
            expectThrows(
                    IllegalArgumentException.class, () -> new ShardJoinRequest(new BytesArray(bytes).streamInput()));
        }
    }

    public void testAWindowCrossesTheWireAndIsBounded() throws IOException {
        ShardJoinRequest.Window window = (ShardJoinRequest.Window) roundTrip(new ShardJoinRequest(
                        "index", 2, SPEC, new ShardJoinRequest.Window(5, 15, shards("index", 0, "logs-2", 1))))
                .step();
        assertEquals(5, window.fromSeqNo());
        assertEquals(15, window.toSeqNo());
        assertArrayEquals(shards("index", 0, "logs-2", 1), window.otherShards());
        assertNotNull(new ShardJoinRequest("index", 2, SPEC, new ShardJoinRequest.Window(5, 5, shards())).validate());
        assertNotNull(new ShardJoinRequest(
                        "index", 2, SPEC, new ShardJoinRequest.Window(0, ShardJoinRequest.MAX_WINDOW + 1, shards()))
                .validate());
    }

    /**
     * Where the step's pairs are kept (docs/clusters.md section 8) crosses the wire between nodes of one version; a node
     * of another version neither writes nor reads it, and its steps record nothing.
     */
    public void testTheStepsPartsCrossTheWireBetweenNodesOfOneVersion() throws IOException {
        ShardJoinRequest request = new ShardJoinRequest(
                "index",
                2,
                SPEC,
                new ShardJoinRequest.Window(0, 10, shards("index", 1, "logs-2", 0)),
                new int[] {2, 1, 7},
                "node-a",
                true);
        ShardJoinRequest read = roundTrip(request);
        assertArrayEquals(new int[] {2, 1, 7}, read.parts());
        assertEquals("node-a", read.preferredNode());
        assertTrue(read.keepEdges());
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            out.setVersion(Version.CURRENT.minimumCompatibilityVersion());
            request.writeTo(out);
            StreamInput in = out.bytes().streamInput();
            in.setVersion(Version.CURRENT.minimumCompatibilityVersion());
            ShardJoinRequest older = new ShardJoinRequest(in);
            assertEquals(0, older.parts().length);
            assertNull(older.preferredNode());
            assertEquals(request.getDescription(), older.getDescription());
        }
        expectThrows(
                IllegalArgumentException.class,
                () -> new ShardJoinRequest(
                        "index", 2, SPEC, new ShardJoinRequest.BandsWithin(false), new int[] {2, 3}, null, false));
    }

    /** Other shards from pairs of an index name and a shard number. */
    private static ShardJoinRequest.OtherShard[] shards(Object... indexAndShard) {
        ShardJoinRequest.OtherShard[] shards = new ShardJoinRequest.OtherShard[indexAndShard.length / 2];
        for (int i = 0; i < shards.length; i++) {
            shards[i] =
                    new ShardJoinRequest.OtherShard((String) indexAndShard[2 * i], (Integer) indexAndShard[2 * i + 1]);
        }
        return shards;
    }

    private static ShardJoinRequest roundTrip(ShardJoinRequest request) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            request.writeTo(out);
            return new ShardJoinRequest(out.bytes().streamInput());
        }
    }
}
