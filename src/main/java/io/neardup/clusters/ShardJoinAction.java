/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.action.ActionType;

/** Internal: one window of a shard's documents joined with the whole index by their simhash (a step of {@code _near_dup_clusters}). */
public final class ShardJoinAction extends ActionType<ShardJoinResponse> {

    public static final String NAME = "indices:data/read/near_dup_clusters/join";
    public static final ShardJoinAction INSTANCE = new ShardJoinAction();

    private ShardJoinAction() {
        super(NAME, ShardJoinResponse::new);
    }
}
