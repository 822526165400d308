/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.stats;

import static org.opensearch.rest.RestRequest.Method.GET;

import java.util.List;
import org.opensearch.rest.BaseRestHandler;
import org.opensearch.rest.RestRequest;
import org.opensearch.rest.action.RestActions;
import org.opensearch.transport.client.node.NodeClient;

/** {@code GET _plugins/neardup/stats} and {@code GET _plugins/neardup/stats/{nodeId}}. */
public final class RestNearDupStatsAction extends BaseRestHandler {

    @Override
    public String getName() {
        return "neardup_stats";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(GET, "/_plugins/neardup/stats"), new Route(GET, "/_plugins/neardup/stats/{nodeId}"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest request, NodeClient client) {
        String[] nodeIds = request.paramAsStringArray("nodeId", new String[0]);
        NearDupStatsRequest statsRequest = new NearDupStatsRequest(nodeIds);
        return channel -> client.execute(
                NearDupStatsAction.INSTANCE, statsRequest, new RestActions.NodesResponseRestListener<>(channel));
    }
}
