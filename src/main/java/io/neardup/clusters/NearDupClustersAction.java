/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.action.ActionType;

/** {@code POST /<index>/_near_dup_clusters}: clusters an index's near-duplicates and writes the clusters into the documents. */
public final class NearDupClustersAction extends ActionType<NearDupClustersResponse> {

    public static final String NAME = "indices:data/write/near_dup_clusters";
    public static final NearDupClustersAction INSTANCE = new NearDupClustersAction();

    private NearDupClustersAction() {
        super(NAME, NearDupClustersResponse::new);
    }
}
