/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

/**
 * What {@link NearDupWindowRequestProcessor} leaves for {@link NearDupCollapseResponseProcessor} in
 * the request's {@code PipelineProcessingContext}: the page the user asked for ({@code from},
 * {@code size}) and the {@code window} of top hits that was fetched instead. The first collapse
 * processor of the pipeline applies the page and marks the window {@link #used()}; a second one
 * then collapses the page it is given, without paging again.
 */
public final class CollapseWindow {
    /** The context attribute under which the window travels from the request to the response processor. */
    public static final String ATTRIBUTE = "near_dup_collapse.window";

    private final int from;
    private final int size;
    private final int window;
    private boolean used;

    public CollapseWindow(int from, int size, int window) {
        if (from < 0 || size < 0 || window < 1) {
            throw new IllegalArgumentException(
                    "from [" + from + "] and size [" + size + "] must be >= 0 and window [" + window + "] >= 1");
        }
        this.from = from;
        this.size = size;
        this.window = window;
    }

    public int from() {
        return from;
    }

    public int size() {
        return size;
    }

    public int window() {
        return window;
    }

    boolean used() {
        return used;
    }

    void markUsed() {
        used = true;
    }

    @Override
    public String toString() {
        return "CollapseWindow[from=" + from + ", size=" + size + ", window=" + window + "]";
    }
}
