/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import org.opensearch.action.ActionType;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.tasks.TaskId;

/**
 * Internal: the messages one node's parts of a run's graph send to the parts another node keeps, in one step of the
 * clustering ({@link TransportPartStepAction}); addressed to that node through one of the shards whose parts it keeps.
 */
public final class PartMessagesAction extends ActionType<PartMessagesAction.Response> {

    public static final String NAME = "indices:data/read/near_dup_clusters/parts/messages";
    public static final PartMessagesAction INSTANCE = new PartMessagesAction();

    private PartMessagesAction() {
        super(NAME, Response::new);
    }

    public static final class Request extends PartRequest<Request> {
        private final PartMessages messages;

        Request(String index, int shard, TaskId run, String node, PartMessages messages) {
            super(index, shard, run, node);
            this.messages = messages;
        }

        public Request(StreamInput in) throws IOException {
            super(in);
            messages = PartMessages.read(in);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            messages.writeTo(out);
        }

        PartMessages messages() {
            return messages;
        }

        @Override
        public String getDescription() {
            return messages.size() + " " + messages.kind() + " messages to the parts on node [" + node() + "]";
        }
    }

    public static final class Response extends ActionResponse {
        Response() {}

        public Response(StreamInput in) throws IOException {
            super(in);
        }

        @Override
        public void writeTo(StreamOutput out) {}
    }
}
