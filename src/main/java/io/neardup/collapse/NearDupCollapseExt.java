/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.search.SearchExtBuilder;

/**
 * The response's {@code ext.near_dup_collapse} section: what the collapse did to the window
 * ({@code hits} read, {@code groups} kept, hits {@code folded}, hits {@code without_fingerprint}),
 * and the page it cut out. {@code hits.total} is left as the engine's count of matching documents.
 */
public final class NearDupCollapseExt extends SearchExtBuilder {
    public static final String NAME = NearDupCollapseResponseProcessor.TYPE;

    private final Map<String, Object> stats;

    public NearDupCollapseExt(Map<String, Object> stats) {
        this.stats = new LinkedHashMap<>(stats);
    }

    public NearDupCollapseExt(StreamInput in) throws IOException {
        this.stats = in.readMap();
    }

    public Map<String, Object> stats() {
        return stats;
    }

    @Override
    public String getWriteableName() {
        return NAME;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeMap(stats);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.field(NAME, stats);
    }

    @Override
    public int hashCode() {
        return Objects.hash(NAME, stats);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof NearDupCollapseExt other && stats.equals(other.stats);
    }
}
