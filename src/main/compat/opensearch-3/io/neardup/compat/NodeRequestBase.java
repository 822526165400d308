/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compat;

import java.io.IOException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.transport.TransportRequest;

/**
 * What a nodes action's per-node request extends: on OpenSearch 3.x any {@link TransportRequest}. Twin of
 * {@code src/main/compat/opensearch-2}'s class of this name, where {@code TransportNodesAction} bounds it by
 * {@code BaseNodeRequest} (see pom.xml, compat-line-dir).
 */
public abstract class NodeRequestBase extends TransportRequest {
    protected NodeRequestBase() {}

    protected NodeRequestBase(StreamInput in) throws IOException {
        super(in);
    }
}
