/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.action.ActionType;

/**
 * {@code POST /<index>/_near_dup_clusters?dry_run=true}: the clusters of an index's near-duplicates,
 * reported and not written; and a run with {@code dest}, which writes them into a new index, not into the
 * documents. A read action, so that a role with read permissions on the index can run it (a run with {@code dest}
 * also needs the permissions to create and write its index, checked there); {@link NearDupClustersAction} is the run
 * that writes into the documents.
 */
public final class NearDupClustersDryRunAction extends ActionType<NearDupClustersResponse> {

    public static final String NAME = "indices:data/read/near_dup_clusters";
    public static final NearDupClustersDryRunAction INSTANCE = new NearDupClustersDryRunAction();

    private NearDupClustersDryRunAction() {
        super(NAME, NearDupClustersResponse::new);
    }

    /** The action that runs {@code request}: the one that writes into the documents where it does, else this one. */
    public static ActionType<NearDupClustersResponse> of(NearDupClustersRequest request) {
        return request.writesIntoDocuments() ? NearDupClustersAction.INSTANCE : INSTANCE;
    }
}
