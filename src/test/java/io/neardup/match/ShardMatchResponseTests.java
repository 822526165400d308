/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import org.opensearch.Version;
import org.opensearch.test.OpenSearchTestCase;

public class ShardMatchResponseTests extends OpenSearchTestCase {

    private static ShardMatchResponse twoMatches() {
        return new ShardMatchResponse(
                new int[] {0, 1},
                new String[] {"a", "b"},
                new long[] {3, 4},
                new float[] {0.9f, 0.8f},
                new String[] {null, "c"},
                new String[] {null, null});
    }

    public void testTheNodeBytesTravelBetweenNodesOfOneVersion() throws Exception {
        ShardMatchResponse read =
                WireAt.roundTrip(twoMatches().nodeBytes(123_456), Version.CURRENT, ShardMatchResponse::new);
        assertEquals(123_456, read.nodeBytes());
        assertEquals(2, read.size());
        assertEquals("c", read.matchedCluster(1));
    }

    /** To and from a node of another version the layout is the earlier one: the field is left out, read as 0. */
    public void testANodeOfAnotherVersionGetsTheEarlierLayout() throws Exception {
        ShardMatchResponse read =
                WireAt.roundTrip(twoMatches().nodeBytes(123_456), WireAt.OTHER, ShardMatchResponse::new);
        assertEquals(0, read.nodeBytes());
        assertEquals("b", read.matchedId(1));
        assertEquals(
                "the same bytes but the field's, a 0 here",
                WireAt.bytes(twoMatches(), Version.CURRENT).length() - 1,
                WireAt.bytes(twoMatches().nodeBytes(123_456), WireAt.OTHER).length());
    }
}
