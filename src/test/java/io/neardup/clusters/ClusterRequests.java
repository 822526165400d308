/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.List;

/** Requests the tests build without the REST layer. */
final class ClusterRequests {

    private ClusterRequests() {}

    /** A full run into {@code dup}: single linkage, representatives by {@code _id}, earlier ones kept, no singletons. */
    static NearDupClustersRequest fullRun(String index, MatchSpec spec) {
        return new NearDupClustersRequest(
                index, spec, "dup", NearDupClustersRequest.Linkage.SINGLE, List.of(), true, null, false);
    }
}
