/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.test.OpenSearchTestCase;

public class ShardScanTests extends OpenSearchTestCase {

    /** Every pair of distinct shards is joined exactly once, and no shard answers more than one look-up set above another. */
    public void testShardsProbedByCoverEveryPairOnceAndBalanceTheLoad() {
        for (int shards = 1; shards <= 64; shards++) {
            int[][] joined = new int[shards][shards];
            int[] answered = new int[shards];
            for (int shard = 0; shard < shards; shard++) {
                for (int other : ShardScan.shardsProbedBy(shard, shards)) {
                    assertNotEquals("a shard joins itself through its own tables", shard, other);
                    joined[Math.min(shard, other)][Math.max(shard, other)]++;
                    answered[other]++;
                }
            }
            for (int a = 0; a < shards; a++) {
                for (int b = a + 1; b < shards; b++) {
                    assertEquals(shards + " shards: pair " + a + "," + b, 1, joined[a][b]);
                }
            }
            int most = java.util.Arrays.stream(answered).max().orElse(0);
            int least = java.util.Arrays.stream(answered).min().orElse(0);
            assertTrue(shards + " shards: answered " + java.util.Arrays.toString(answered), most - least <= 1);
        }
    }
}
