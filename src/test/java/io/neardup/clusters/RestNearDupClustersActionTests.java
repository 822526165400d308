/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.Map;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.rest.RestRequest;
import org.opensearch.test.OpenSearchTestCase;
import org.opensearch.test.rest.FakeRestRequest;

/** The URL parameters of {@code POST <index>/_near_dup_clusters}, read before any work starts. */
public class RestNearDupClustersActionTests extends OpenSearchTestCase {

    private RestRequest request(String slices) {
        return new FakeRestRequest.Builder(xContentRegistry())
                .withMethod(RestRequest.Method.POST)
                .withPath("/texts/_near_dup_clusters")
                .withParams(new java.util.HashMap<>(Map.of("index", "texts", "slices", slices)))
                .withContent(
                        new BytesArray("{\"field\": \"text_fp.simhash\", \"target_field\": \"dup\"}"),
                        XContentType.JSON)
                .build();
    }

    /**
     * {@code slices=0} ran as {@code auto} (issue 40), where {@code _update_by_query} refuses it and -1 was refused:
     * every number outside [1, 64] is now refused in the same words, and {@code auto} and the range still pass.
     */
    public void testSlicesOutsideTheRangeAreRefusedAlikeAndZeroIsNotAuto() {
        for (String slices : new String[] {"0", "-1", "65", "2147483647"}) {
            IllegalArgumentException e = expectThrows(
                    IllegalArgumentException.class,
                    () -> new RestNearDupClustersAction().prepareRequest(request(slices), null));
            assertEquals("[slices] must be in [1, 64] or [auto], got [" + slices + "]", e.getMessage());
        }
        for (String slices : new String[] {"many", "1.5", "2147483648", ""}) {
            IllegalArgumentException e = expectThrows(
                    IllegalArgumentException.class,
                    () -> new RestNearDupClustersAction().prepareRequest(request(slices), null));
            assertEquals("[slices] must be an integer or [auto], got [" + slices + "]", e.getMessage());
        }
        assertEquals(NearDupClustersRequest.AUTO_SLICES, NearDupClustersRequest.parseSlices("auto"));
        assertEquals(1, NearDupClustersRequest.parseSlices("1"));
        assertEquals(64, NearDupClustersRequest.parseSlices("64"));
    }
}
