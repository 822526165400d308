/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.List;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.rest.BaseRestHandler;
import org.opensearch.rest.BytesRestResponse;
import org.opensearch.rest.RestRequest;
import org.opensearch.rest.action.RestToXContentListener;
import org.opensearch.tasks.LoggingTaskListener;
import org.opensearch.tasks.Task;
import org.opensearch.transport.client.node.NodeClient;

/**
 * {@code POST /<index>/_near_dup_clusters}: with {@code wait_for_completion=false} it answers
 * {@code {"task": "<node>:<id>"}} at once and stores the result for {@code GET _tasks/<task>},
 * as {@code _update_by_query} does.
 */
public final class RestNearDupClustersAction extends BaseRestHandler {

    @Override
    public String getName() {
        return "near_dup_clusters";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(RestRequest.Method.POST, "/{index}/_near_dup_clusters"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest restRequest, NodeClient client) throws IOException {
        if (restRequest.hasContentOrSourceParam() == false) {
            throw new IllegalArgumentException(
                    "[_near_dup_clusters] needs a body naming at least [field] and [target_field]");
        }
        NearDupClustersRequest request;
        try (XContentParser parser = restRequest.contentOrSourceParamParser()) {
            request = NearDupClustersRequest.parse(restRequest.param("index"), parser);
        }
        request.dryRun(restRequest.paramAsBoolean("dry_run", false));
        request.refresh(restRequest.paramAsBoolean("refresh", false));
        request.bulkTimeout(restRequest.paramAsTime("timeout", request.bulkTimeout()));
        request.scrollSize(restRequest.paramAsInt("scroll_size", NearDupClustersRequest.DEFAULT_SCROLL_SIZE));
        request.slices(NearDupClustersRequest.parseSlices(restRequest.param("slices", "1")));
        request.requestsPerSecond(parseRequestsPerSecond(restRequest.param("requests_per_second", "-1")));
        String conflicts = restRequest.param("conflicts", "abort");
        if ("abort".equals(conflicts) == false && "proceed".equals(conflicts) == false) {
            throw new IllegalArgumentException("[conflicts] must be [abort] or [proceed], got [" + conflicts + "]");
        }
        request.abortOnVersionConflict("abort".equals(conflicts));
        boolean waitForCompletion = restRequest.paramAsBoolean("wait_for_completion", true);
        if (waitForCompletion) {
            return channel -> client.executeLocally(
                    NearDupClustersDryRunAction.of(request), request, new RestToXContentListener<>(channel));
        }
        request.setShouldStoreResult(true);
        ActionRequestValidationException invalid = request.validate();
        if (invalid != null) {
            throw invalid;
        }
        return channel -> {
            Task task = client.executeLocally(
                    NearDupClustersDryRunAction.of(request),
                    request,
                    LoggingTaskListener.<NearDupClustersResponse>instance());
            XContentBuilder builder = channel.newBuilder();
            builder.startObject()
                    .field("task", client.getLocalNodeId() + ":" + task.getId())
                    .endObject();
            channel.sendResponse(new BytesRestResponse(RestStatus.OK, builder));
        };
    }

    /** {@code requests_per_second} as {@code _update_by_query} takes it: -1 is unlimited. */
    static float parseRequestsPerSecond(String value) {
        float rate = parseFloat("requests_per_second", value);
        return rate == -1 ? Float.POSITIVE_INFINITY : rate;
    }

    private static float parseFloat(String name, String value) {
        try {
            return Float.parseFloat(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("[" + name + "] must be a number, got [" + value + "]", e);
        }
    }
}
