/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import org.opensearch.action.ActionType;

/** {@code POST _near_dup/_compare}: why two texts or documents are near-duplicates (a read: it reads documents). */
public final class NearDupCompareAction extends ActionType<NearDupCompareResponse> {

    public static final String NAME = "indices:data/read/near_dup/compare";
    public static final NearDupCompareAction INSTANCE = new NearDupCompareAction();

    private NearDupCompareAction() {
        super(NAME, NearDupCompareResponse::new);
    }
}
