/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.WireAt;
import java.util.List;
import java.util.Map;
import org.opensearch.Version;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.test.OpenSearchTestCase;

public class NearDupClustersResponseTests extends OpenSearchTestCase {

    private static NearDupClustersTask.Status status() {
        return new NearDupClustersTask.Status(
                "writing", Float.POSITIVE_INFINITY, 0, 40, 40, 0, 20, 20, 12, 0, 0, 12_480, 3_072);
    }

    private static NearDupClustersResponse response(NearDupClustersTask.Status counts) {
        return new NearDupClustersResponse(5, false, counts, 40, 0, new long[] {0, 20}, List.of(), List.of(), null);
    }

    private static Map<String, Object> json(ToXContent shown) throws Exception {
        return XContentHelper.convertToMap(
                        XContentHelper.toXContent(shown, XContentType.JSON, false), false, XContentType.JSON)
                .v2();
    }

    public void testTheResponseAndTheStatusSayWhatTheRunHeld() throws Exception {
        Map<String, Object> status = json(status());
        assertEquals(12_480, status.get("coordinator_bytes"));
        assertEquals(3_072, status.get("data_node_bytes"));
        assertEquals("writing", status.get("phase"));
        Map<String, Object> response = json(response(status()));
        assertEquals(12_480, response.get("coordinator_bytes"));
        assertEquals(3_072, response.get("data_node_bytes"));
        assertEquals(12, response.get("updated"));
    }

    public void testTheBytesTravelBetweenNodesOfOneVersionOnly() throws Exception {
        NearDupClustersTask.Status same = WireAt.roundTrip(status(), Version.CURRENT, NearDupClustersTask.Status::new);
        assertEquals(status(), same);
        NearDupClustersTask.Status other = WireAt.roundTrip(status(), WireAt.OTHER, NearDupClustersTask.Status::new);
        assertEquals(0, other.coordinatorBytes());
        assertEquals(0, other.dataNodeBytes());
        assertEquals(12, other.updated());
        assertEquals(
                12_480,
                WireAt.roundTrip(response(status()), Version.CURRENT, NearDupClustersResponse::new)
                        .counts()
                        .coordinatorBytes());
        NearDupClustersResponse older =
                WireAt.roundTrip(response(status()), WireAt.OTHER, NearDupClustersResponse::new);
        assertEquals(0, older.counts().coordinatorBytes());
        assertEquals(40, older.clusteredDocuments());
    }

    /** The writes of a shard that could not go on (its part's node lost) are a failure without an {@code _id}. */
    public void testAShardsFailureHasNoId() throws Exception {
        NearDupClustersResponse failed = new NearDupClustersResponse(
                5,
                false,
                status(),
                40,
                0,
                new long[] {0, 20},
                List.of(),
                List.of(
                        new NearDupClustersResponse.Failure("articles", null, 503, "node [n] left"),
                        new NearDupClustersResponse.Failure("articles", "a1", 409, "changed")),
                null);
        List<?> failures = (List<?>) json(failed).get("failures");
        assertEquals(Map.of("index", "articles", "status", 503, "reason", "node [n] left"), failures.get(0));
        assertEquals("a1", ((Map<?, ?>) failures.get(1)).get("id"));
        assertEquals(
                failed.failures(),
                WireAt.roundTrip(failed, Version.CURRENT, NearDupClustersResponse::new)
                        .failures());
        NearDupClustersResponse older = WireAt.roundTrip(failed, WireAt.OTHER, NearDupClustersResponse::new);
        assertEquals("", older.failures().get(0).id());
        assertEquals("a1", older.failures().get(1).id());
    }
}
