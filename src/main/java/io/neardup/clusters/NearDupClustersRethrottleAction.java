/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.List;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.ActionType;
import org.opensearch.action.FailedNodeException;
import org.opensearch.action.TaskOperationFailure;
import org.opensearch.action.ValidateActions;
import org.opensearch.action.admin.cluster.node.tasks.list.ListTasksResponse;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.tasks.BaseTasksRequest;
import org.opensearch.action.support.tasks.TransportTasksAction;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.tasks.TaskInfo;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/**
 * {@code POST _near_dup_clusters/<task>/_rethrottle?requests_per_second=}: changes the rate of a
 * running run's writes, as {@code _update_by_query/<task>/_rethrottle} does (reindex's
 * {@code TransportRethrottleAction}); the answer is the run's task with its new rate.
 */
public final class NearDupClustersRethrottleAction extends ActionType<ListTasksResponse> {

    public static final String NAME = "cluster:admin/near_dup_clusters/rethrottle";
    public static final NearDupClustersRethrottleAction INSTANCE = new NearDupClustersRethrottleAction();

    private NearDupClustersRethrottleAction() {
        super(NAME, ListTasksResponse::new);
    }

    /** The run's task and its new rate ({@link Float#POSITIVE_INFINITY}: unlimited). */
    public static final class Request extends BaseTasksRequest<Request> {
        private final float requestsPerSecond;

        public Request(float requestsPerSecond) {
            this.requestsPerSecond = requestsPerSecond;
            // Only the runs' tasks: another task's id is a 404 naming it, not a cast failure.
            setActions(NearDupClustersAction.NAME, NearDupClustersDryRunAction.NAME);
        }

        public Request(StreamInput in) throws IOException {
            super(in);
            requestsPerSecond = in.readFloat();
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            out.writeFloat(requestsPerSecond);
        }

        public float requestsPerSecond() {
            return requestsPerSecond;
        }

        @Override
        public ActionRequestValidationException validate() {
            ActionRequestValidationException e = super.validate();
            if (getTaskId().isSet() == false) {
                e = ValidateActions.addValidationError("a [_near_dup_clusters] task id is required", e);
            }
            return NearDupClustersRequest.validateRequestsPerSecond(requestsPerSecond, e);
        }
    }

    /** Rethrottles the run on the node that runs it. */
    public static final class TransportAction
            extends TransportTasksAction<NearDupClustersTask, Request, ListTasksResponse, TaskInfo> {

        @Inject
        public TransportAction(
                ClusterService clusterService, TransportService transportService, ActionFilters actionFilters) {
            super(
                    NAME,
                    clusterService,
                    transportService,
                    actionFilters,
                    Request::new,
                    ListTasksResponse::new,
                    TaskInfo::new,
                    ThreadPool.Names.MANAGEMENT);
        }

        @Override
        protected void taskOperation(Request request, NearDupClustersTask task, ActionListener<TaskInfo> listener) {
            task.rethrottle(request.requestsPerSecond());
            listener.onResponse(task.taskInfo(clusterService.localNode().getId(), true));
        }

        @Override
        protected ListTasksResponse newResponse(
                Request request,
                List<TaskInfo> tasks,
                List<TaskOperationFailure> taskOperationFailures,
                List<FailedNodeException> failedNodeExceptions) {
            return new ListTasksResponse(tasks, taskOperationFailures, failedNodeExceptions);
        }
    }
}
