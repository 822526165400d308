/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import org.opensearch.action.ActionType;

/** {@code GET _plugins/neardup/stats}: each node's near-duplicate structures and query counters. */
public final class NearDupStatsAction extends ActionType<NearDupStatsResponse> {

    public static final String NAME = "cluster:monitor/neardup/stats";
    public static final NearDupStatsAction INSTANCE = new NearDupStatsAction();

    private NearDupStatsAction() {
        super(NAME, NearDupStatsResponse::new);
    }
}
