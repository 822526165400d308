/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.test.OpenSearchTestCase;

/** The band join's two kinds of step, as the coordinator sends them and as a data node reads them. */
public class ShardJoinRequestTests extends OpenSearchTestCase {

    private static final MatchSpec SPEC = new MatchSpec("fp.minhash", null, null, null, 0.8, null);

    public void testTheSelfJoinStepLooksUpNoOtherShard() throws IOException {
        boolean allPairs = randomBoolean();
        ShardJoinRequest read = roundTrip(ShardJoinRequest.bandsWithin("index", 2, SPEC, allPairs));
        assertTrue(read.bands());
        assertTrue(read.bandsWithin());
        assertArrayEquals(new int[0], read.otherShards());
        assertEquals(allPairs, read.allPairs());
        assertNull(read.validate());
    }

    public void testAStepAcrossShardsLooksUpOneOtherShardOnly() throws IOException {
        int other = between(0, 100);
        ShardJoinRequest read = roundTrip(ShardJoinRequest.bandsAcross("index", 2, SPEC, other));
        assertTrue(read.bands());
        assertFalse(read.bandsWithin());
        assertArrayEquals(new int[] {other}, read.otherShards());
        assertNull(read.validate());
    }

    private static ShardJoinRequest roundTrip(ShardJoinRequest request) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            request.writeTo(out);
            return new ShardJoinRequest(out.bytes().streamInput());
        }
    }
}
