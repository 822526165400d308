/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.io.IOException;
import org.opensearch.action.support.nodes.BaseNodeRequest;
import org.opensearch.core.common.io.stream.StreamInput;

/**
 * What a nodes action's per-node request extends: OpenSearch 2.x's {@code TransportNodesAction} bounds it by
 * {@link BaseNodeRequest}. Twin of {@code src/main/compat/opensearch-3}'s class of this name (see pom.xml,
 * compat-line-dir).
 */
public abstract class NodeRequestBase extends BaseNodeRequest {
    protected NodeRequestBase() {}

    protected NodeRequestBase(StreamInput in) throws IOException {
        super(in);
    }
}
