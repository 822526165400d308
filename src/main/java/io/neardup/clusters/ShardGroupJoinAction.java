/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import org.opensearch.action.ActionType;

/** Internal: the band self-join of shards with copies on one node, as one reader (a step of {@code _near_dup_clusters}). */
public final class ShardGroupJoinAction extends ActionType<ShardJoinResponse> {

    public static final String NAME = "indices:data/read/near_dup_clusters/join_group";
    public static final ShardGroupJoinAction INSTANCE = new ShardGroupJoinAction();

    private ShardGroupJoinAction() {
        super(NAME, ShardJoinResponse::readGroup);
    }
}
