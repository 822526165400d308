/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import org.opensearch.action.ActionType;

/** Internal: matches a batch of documents against one shard's near-duplicate structures (a step of {@code _near_dup_clusters}). */
public final class ShardMatchAction extends ActionType<ShardMatchResponse> {

    public static final String NAME = "indices:data/read/near_dup_clusters/match";
    public static final ShardMatchAction INSTANCE = new ShardMatchAction();

    private ShardMatchAction() {
        super(NAME, ShardMatchResponse::new);
    }
}
