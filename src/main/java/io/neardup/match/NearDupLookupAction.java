/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import org.opensearch.action.ActionType;

/**
 * The {@code near_dup_lookup} processor's look-up of one document in one shard of the lookup index.
 * The same matching as {@link ShardMatchAction}, under its own name, so that a role can grant the
 * look-up at ingest without granting the steps of {@code _near_dup_clusters}.
 */
public final class NearDupLookupAction extends ActionType<ShardMatchResponse> {

    public static final String NAME = "indices:data/read/near_dup_lookup";
    public static final NearDupLookupAction INSTANCE = new NearDupLookupAction();

    private NearDupLookupAction() {
        super(NAME, ShardMatchResponse::new);
    }
}
