/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ShardMatchResponse;
import io.neardup.match.WireAt;
import org.opensearch.Version;
import org.opensearch.test.OpenSearchTestCase;

public class ShardJoinResponseTests extends OpenSearchTestCase {

    private static ShardJoinResponse oneMatch(int[] queryIn) {
        return new ShardJoinResponse(
                10,
                1,
                new String[] {"q"},
                new long[] {7},
                new ShardMatchResponse(
                        new int[] {0},
                        new String[] {"m"},
                        new long[] {8},
                        new float[] {1f},
                        new String[1],
                        new String[1]),
                new int[] {0},
                queryIn);
    }

    public void testTheNodeBytesTravelInBothLayoutsBetweenNodesOfOneVersion() throws Exception {
        ShardJoinResponse one =
                WireAt.roundTrip(oneMatch(null).nodeBytes(4_096), Version.CURRENT, ShardJoinResponse::new);
        assertEquals(4_096, one.nodeBytes());
        assertEquals("q", one.queryId(0));
        ShardJoinResponse group = WireAt.roundTrip(
                oneMatch(new int[] {1}).nodeBytes(8_192), Version.CURRENT, ShardJoinResponse::readGroup);
        assertEquals(8_192, group.nodeBytes());
        assertEquals(1, group.queryIn(0));
        assertEquals("m", group.matches().matchedId(0));
    }

    public void testANodeOfAnotherVersionGetsTheEarlierLayouts() throws Exception {
        ShardJoinResponse one = WireAt.roundTrip(oneMatch(null).nodeBytes(4_096), WireAt.OTHER, ShardJoinResponse::new);
        assertEquals(0, one.nodeBytes());
        assertEquals(7, one.querySeqNo(0));
        ShardJoinResponse group =
                WireAt.roundTrip(oneMatch(new int[] {1}).nodeBytes(8_192), WireAt.OTHER, ShardJoinResponse::readGroup);
        assertEquals(0, group.nodeBytes());
        assertEquals(1, group.queryIn(0));
        assertEquals(0, group.matches().nodeBytes());
    }
}
