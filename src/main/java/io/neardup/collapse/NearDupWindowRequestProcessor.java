/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.index.NearDupOption;
import java.util.Map;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.search.SearchService;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.pipeline.AbstractProcessor;
import org.opensearch.search.pipeline.PipelineProcessingContext;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.search.pipeline.SearchRequestProcessor;
import org.opensearch.search.pipeline.StatefulSearchRequestProcessor;

/**
 * The request half of near-duplicate collapsing: remembers the page the user asked for
 * ({@code from}, {@code size}) in the pipeline's context and asks the engine for the top
 * {@code window} hits instead ({@code from: 0, size: window}); {@link NearDupCollapseResponseProcessor}
 * collapses the window and then cuts the user's page out of the collapsed list, so that pages are
 * disjoint and consecutive.
 *
 * <p>Left untouched: requests with {@code size: 0} (aggregations only), and scroll requests
 * (reindex, exports: a scroll pages through everything and must not lose copies).
 */
public final class NearDupWindowRequestProcessor extends AbstractProcessor implements StatefulSearchRequestProcessor {
    public static final String TYPE = "near_dup_window";
    public static final int DEFAULT_WINDOW = 100;
    /** The engine's default {@code index.max_result_window}: a window past it would fail every search. */
    public static final int MAX_WINDOW = 10_000;

    private final int window;

    NearDupWindowRequestProcessor(String tag, String description, boolean ignoreFailure, int window) {
        super(tag, description, ignoreFailure);
        this.window = window;
    }

    public int window() {
        return window;
    }

    @Override
    public String getType() {
        return TYPE;
    }

    @Override
    public SearchRequest processRequest(SearchRequest request, PipelineProcessingContext context) {
        if (request.scroll() != null) {
            return request;
        }
        SearchSourceBuilder source = request.source();
        if (source == null) {
            source = new SearchSourceBuilder();
            request.source(source);
        }
        int size = source.size() < 0 ? SearchService.DEFAULT_SIZE : source.size();
        if (size == 0) {
            return request;
        }
        int from = source.from() < 0 ? SearchService.DEFAULT_FROM : source.from();
        context.setAttribute(CollapseWindow.ATTRIBUTE, new CollapseWindow(from, size, window));
        source.from(0);
        source.size(window);
        return request;
    }

    /** Parses {@code {"window": 100}}; a window outside [1, 10000] fails the pipeline PUT. */
    public static final class Factory implements Processor.Factory<SearchRequestProcessor> {
        @Override
        public NearDupWindowRequestProcessor create(
                Map<String, Processor.Factory<SearchRequestProcessor>> processorFactories,
                String tag,
                String description,
                boolean ignoreFailure,
                Map<String, Object> config,
                PipelineContext pipelineContext) {
            Integer window;
            try {
                window = NearDupOption.removeIntSetting(config, "window", 1, MAX_WINDOW);
            } catch (NearDupOption.Invalid e) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, e.option(), e.reason());
            }
            return new NearDupWindowRequestProcessor(
                    tag, description, ignoreFailure, window == null ? DEFAULT_WINDOW : window);
        }
    }
}
