/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.action.ActionType;

/**
 * {@code POST /<index>/_near_dup_clusters?dry_run=true}: the clusters of an index's near-duplicates,
 * reported and not written. A read action, so that a role with read permissions on the index can
 * run it; {@link NearDupClustersAction} is the writing run.
 */
public final class NearDupClustersDryRunAction extends ActionType<NearDupClustersResponse> {

    public static final String NAME = "indices:data/read/near_dup_clusters";
    public static final NearDupClustersDryRunAction INSTANCE = new NearDupClustersDryRunAction();

    private NearDupClustersDryRunAction() {
        super(NAME, NearDupClustersResponse::new);
    }

    /** The action that runs {@code request}: this one for a dry run, else the writing one. */
    public static ActionType<NearDupClustersResponse> of(NearDupClustersRequest request) {
        return request.dryRun() ? INSTANCE : NearDupClustersAction.INSTANCE;
    }
}
