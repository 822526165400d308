/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import org.opensearch.Version;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * Whether a field added to a message after its first release travels: only between nodes of one OpenSearch version.
 * The plugin is replaced together with OpenSearch on each node (docs/install.md), so in a rolling upgrade a node of
 * another version runs an earlier build, which reads the message without the field; between nodes of one version
 * both sides know it. The writer and the reader decide alike, each from the other's version.
 */
public final class AddedWireFields {

    private AddedWireFields() {}

    public static boolean written(StreamOutput out) {
        return out.getVersion().equals(Version.CURRENT);
    }

    public static boolean read(StreamInput in) {
        return in.getVersion().equals(Version.CURRENT);
    }
}
