/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.clusters.ShardJoinRequest;
import java.util.Map;
import org.opensearch.core.tasks.TaskCancelledException;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.tasks.CancellableTask;
import org.opensearch.test.OpenSearchTestCase;

/** A shard's work runs as a cancellable child of the run: cancelled, its next checkpoint throws. */
public class OneShardRequestTests extends OpenSearchTestCase {

    public void testCancelledTaskStopsTheShardWork() {
        ShardJoinRequest request = new ShardJoinRequest(
                "index",
                0,
                new MatchSpec("fp.minhash", null, null, null, 0.8, null),
                new ShardJoinRequest.BandsWithin(false));
        request.ensureNotCancelled(); // not run as a task yet: nothing to cancel
        CancellableTask task = (CancellableTask)
                request.createTask(1, "transport", ShardMatchAction.NAME, new TaskId("node", 7), Map.of());
        assertEquals(new TaskId("node", 7), task.getParentTaskId());
        request.ensureNotCancelled();
        task.cancel("by the user");
        TaskCancelledException e = expectThrows(TaskCancelledException.class, request::ensureNotCancelled);
        assertTrue(e.getMessage(), e.getMessage().contains("by the user"));
    }
}
