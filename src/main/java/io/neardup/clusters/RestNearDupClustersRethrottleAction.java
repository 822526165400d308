/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.List;
import java.util.function.Supplier;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.admin.cluster.node.tasks.list.ListTasksResponse;
import org.opensearch.cluster.node.DiscoveryNodes;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.rest.BaseRestHandler;
import org.opensearch.rest.RestRequest;
import org.opensearch.rest.action.admin.cluster.RestListTasksAction;
import org.opensearch.transport.client.node.NodeClient;

/**
 * {@code POST _near_dup_clusters/<task>/_rethrottle?requests_per_second=}, answered as
 * {@code _update_by_query}'s rethrottle is (the task, grouped by node). A task that is not a running
 * run (finished, unknown, another action's) is an error naming it, not an empty answer.
 */
public final class RestNearDupClustersRethrottleAction extends BaseRestHandler {

    private final Supplier<DiscoveryNodes> nodesInCluster;

    public RestNearDupClustersRethrottleAction(Supplier<DiscoveryNodes> nodesInCluster) {
        this.nodesInCluster = nodesInCluster;
    }

    @Override
    public String getName() {
        return "near_dup_clusters_rethrottle";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(RestRequest.Method.POST, "/_near_dup_clusters/{task_id}/_rethrottle"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest restRequest, NodeClient client) {
        String rate = restRequest.param("requests_per_second");
        if (rate == null) {
            throw new IllegalArgumentException("[requests_per_second] is required (-1 for unlimited)");
        }
        float requestsPerSecond = RestNearDupClustersAction.parseRequestsPerSecond(rate);
        NearDupClustersRethrottleAction.Request request =
                new NearDupClustersRethrottleAction.Request(requestsPerSecond);
        request.setTaskId(new TaskId(restRequest.param("task_id")));
        String groupBy = restRequest.param("group_by", "nodes");
        return channel -> client.execute(
                NearDupClustersRethrottleAction.INSTANCE,
                request,
                failingWhereNothingRethrottled(
                        RestListTasksAction.listTasksResponseListener(nodesInCluster, groupBy, channel)));
    }

    private static ActionListener<ListTasksResponse> failingWhereNothingRethrottled(
            ActionListener<ListTasksResponse> listener) {
        return ActionListener.wrap(
                response -> {
                    if (response.getTasks().isEmpty()
                            && response.getTaskFailures().isEmpty() == false) {
                        listener.onFailure(
                                unwrapped(response.getTaskFailures().get(0).getCause()));
                    } else if (response.getTasks().isEmpty()
                            && response.getNodeFailures().isEmpty() == false) {
                        listener.onFailure(
                                unwrapped(response.getNodeFailures().get(0).getCause()));
                    } else {
                        listener.onResponse(response);
                    }
                },
                listener::onFailure);
    }

    /** The reason under the transport's wrappers, so that its status (404 for a missing task, 400 for a bad one) is the answer's. */
    private static Exception unwrapped(Throwable failure) {
        Throwable cause = ExceptionsHelper.unwrapCause(failure);
        return cause instanceof Exception e ? e : new IllegalStateException(cause);
    }
}
