/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.FingerprintFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.opensearch.test.OpenSearchTestCase;

public class JoinGroupsTests extends OpenSearchTestCase {

    private static final FingerprintFormat F1 = FingerprintFormat.SIGNATURE;
    private static final FingerprintFormat F2 = FingerprintFormat.COMPACT;

    private static String[][] on(String... nodes) {
        return Arrays.stream(nodes).map(n -> n.split(",")).toArray(String[][]::new);
    }

    private static FingerprintFormat[] formats(int shards, FingerprintFormat format) {
        FingerprintFormat[] formats = new FingerprintFormat[shards];
        Arrays.fill(formats, format);
        return formats;
    }

    private static long[] documents(int shards, long each) {
        long[] documents = new long[shards];
        Arrays.fill(documents, each);
        return documents;
    }

    private static List<String> describe(JoinGroups groups) {
        List<String> described = new ArrayList<>();
        for (int g = 0; g < groups.count(); g++) {
            described.add(Arrays.toString(groups.members(g)) + "@" + groups.node(g));
            for (int shard : groups.members(g)) {
                assertEquals(g, groups.groupOf(shard));
            }
        }
        return described;
    }

    public void testTheShardsOfOneNodeAreOneGroup() {
        JoinGroups groups = JoinGroups.plan(on("n1", "n1", "n1", "n1"), formats(4, F2), documents(4, 1_000));
        assertEquals(List.of("[0, 1, 2, 3]@n1"), describe(groups));
    }

    /** Each node takes the shards it holds, the node with the most first; a shard is in one group only. */
    public void testEachNodeTakesTheShardsItHoldsMostFirst() {
        JoinGroups groups =
                JoinGroups.plan(on("n1", "n2", "n1,n2", "n2", "n2", "n3"), formats(6, F2), documents(6, 1_000));
        assertEquals(List.of("[1, 2, 3, 4]@n2", "[0]@null", "[5]@null"), describe(groups));
    }

    public void testFormatsAreNotJoinedTogether() {
        FingerprintFormat[] formats = {F1, F2, F1, F2, F2};
        JoinGroups groups = JoinGroups.plan(on("n1", "n1", "n1", "n1", "n1"), formats, documents(5, 10));
        assertEquals(List.of("[0, 2]@n1", "[1, 3, 4]@n1"), describe(groups));
    }

    /** A group is closed before the shard that would take it past the bound; a shard past it alone is its own. */
    public void testAGroupHoldsAtMostTheBoundsDocuments() {
        long third = JoinGroups.MAX_DOCUMENTS / 3;
        long[] documents = {third, third, third, third, JoinGroups.MAX_DOCUMENTS + 1, 1};
        JoinGroups groups = JoinGroups.plan(on("n1", "n1", "n1", "n1", "n1", "n1"), formats(6, F2), documents);
        assertEquals(List.of("[0, 1, 2]@n1", "[3]@null", "[4]@null", "[5]@null"), describe(groups));
    }

    public void testShardsWithoutACopyAreEachAlone() {
        JoinGroups groups = JoinGroups.plan(new String[][] {{}, {}, {"n1"}, {"n1"}}, formats(4, F2), documents(4, 10));
        assertEquals(List.of("[2, 3]@n1", "[0]@null", "[1]@null"), describe(groups));
        assertEquals(List.of("[0]@null", "[1]@null"), describe(JoinGroups.oneByOne(2)));
    }
}
