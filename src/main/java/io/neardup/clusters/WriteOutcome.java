/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.rest.RestStatus;

/**
 * What writes of cluster assignments did: documents updated, left as they were, in conflict, cleared; the first
 * {@link #MAX_FAILURES_REPORTED} failures; and whether the writes must stop (a failure, or a conflict with
 * {@code conflicts=abort}, as {@code _update_by_query} stops). The run's writer adds them up; a part's writes on a
 * data node answer with theirs. Not thread-safe.
 */
final class WriteOutcome implements Writeable {

    static final int MAX_FAILURES_REPORTED = 100;

    /** The updates sent in bulks (what the run's throttle counts). */
    private long sent;

    private long updated;
    private long noops;
    private long conflicts;
    private long cleared;
    private final List<NearDupClustersResponse.Failure> failures = new ArrayList<>();
    private boolean stopped;

    WriteOutcome() {}

    WriteOutcome(StreamInput in) throws IOException {
        sent = in.readVLong();
        updated = in.readVLong();
        noops = in.readVLong();
        conflicts = in.readVLong();
        cleared = in.readVLong();
        failures.addAll(in.readList(NearDupClustersResponse.Failure::new));
        stopped = in.readBoolean();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVLong(sent);
        out.writeVLong(updated);
        out.writeVLong(noops);
        out.writeVLong(conflicts);
        out.writeVLong(cleared);
        out.writeList(failures);
        out.writeBoolean(stopped);
    }

    void noop() {
        noops++;
    }

    /** A document changed after it was read: reported, never overwritten; with {@code abort} the writes stop. */
    void conflict(String index, String id, String reason, boolean abort) {
        conflicts++;
        failure(index, id, RestStatus.CONFLICT.getStatus(), reason);
        stopped |= abort;
    }

    /** The writes of a shard of {@code index} could not go on: reported (without an {@code _id}), and the writes stop. */
    void shardFailed(String index, int status, String reason) {
        failure(index, null, status, reason);
        stopped = true;
    }

    /** A bulk's answers: {@code clears.get(i)} says whether item {@code i} cleared an assignment. */
    void record(BulkItemResponse[] items, List<Boolean> clears, boolean abortOnConflict) {
        sent += items.length;
        for (int i = 0; i < items.length; i++) {
            BulkItemResponse item = items[i];
            if (item.isFailed() == false) {
                if (clears.get(i)) {
                    cleared++;
                } else {
                    updated++;
                }
            } else if (item.getFailure().getStatus() == RestStatus.CONFLICT) {
                conflict(
                        item.getIndex(),
                        item.getId(),
                        "document [" + item.getId()
                                + "] changed after it was read; run again to cluster its new version",
                        abortOnConflict);
            } else {
                failure(
                        item.getIndex(),
                        item.getId(),
                        item.getFailure().getStatus().getStatus(),
                        item.getFailureMessage());
                stopped = true;
            }
        }
    }

    /** Adds {@code other}'s counts and failures (up to the most reported) to these. */
    void add(WriteOutcome other) {
        sent += other.sent;
        updated += other.updated;
        noops += other.noops;
        conflicts += other.conflicts;
        cleared += other.cleared;
        for (NearDupClustersResponse.Failure failure : other.failures) {
            failure(failure.index(), failure.id(), failure.status(), failure.reason());
        }
        stopped |= other.stopped;
    }

    private void failure(String index, String id, int status, String reason) {
        if (failures.size() < MAX_FAILURES_REPORTED) {
            failures.add(new NearDupClustersResponse.Failure(index, id, status, reason));
        }
    }

    long sent() {
        return sent;
    }

    long updated() {
        return updated;
    }

    long noops() {
        return noops;
    }

    long conflicts() {
        return conflicts;
    }

    long cleared() {
        return cleared;
    }

    List<NearDupClustersResponse.Failure> failures() {
        return failures;
    }

    /** Whether the writes must stop: a failure, or a conflict with {@code conflicts=abort}. */
    boolean stopped() {
        return stopped;
    }
}
