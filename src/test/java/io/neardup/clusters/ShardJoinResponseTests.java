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

    /**
     * A step whose pairs are kept in the run's parts answers with how many there are, not the pairs: a document met as
     * its own match is not one; the count travels between nodes of one version.
     */
    public void testAnAnswerWithoutItsPairsCountsThem() throws Exception {
        ShardJoinResponse joined = new ShardJoinResponse(
                10,
                1,
                new String[] {"q", "r"},
                new long[] {7, 9},
                new ShardMatchResponse(
                                new int[] {0, 0, 1, 1},
                                new String[] {"m", "q", "q", "r"},
                                new long[] {8, 7, 7, 9},
                                new float[] {1f, 1f, 0.9f, 1f},
                                new String[4],
                                new String[4])
                        .nodeBytes(1_024),
                new int[] {1, 0, 0, 1},
                new int[] {0, 0});
        // q and r are in the step's shard (part 3); m and the last r in the shard looked up (part 5).
        ShardJoinResponse counted = joined.withoutPairs(new int[] {3, 5}).nodeBytes(2_048);
        assertEquals("q-m, r-q and r-r across shards; not q-q", 3, counted.pairsKept());
        assertEquals(0, counted.matches().size());
        assertEquals(10, counted.scanned());
        assertEquals(1, counted.noFingerprint());
        assertEquals(1_024, counted.matches().nodeBytes());
        ShardJoinResponse sent = WireAt.roundTrip(counted, Version.CURRENT, ShardJoinResponse::readGroup);
        assertEquals(3, sent.pairsKept());
        assertEquals(2_048, sent.nodeBytes());
        assertEquals(
                0,
                WireAt.roundTrip(counted, WireAt.OTHER, ShardJoinResponse::readGroup)
                        .pairsKept());
    }
}
