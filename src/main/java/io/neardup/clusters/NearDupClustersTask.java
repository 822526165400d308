/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.AddedWireFields;
import io.neardup.match.RunBreaker;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.tasks.CancellableTask;
import org.opensearch.tasks.Task;

/** A {@code _near_dup_clusters} run: cancellable, with its progress in {@code GET _tasks}. */
public final class NearDupClustersTask extends CancellableTask {

    /** What the run is doing now. */
    public enum Phase {
        SCANNING,
        /** Only with the graph on the coordinating node (a rolling upgrade); on the parts, the members are read while clustering. */
        READING_MEMBERS,
        CLUSTERING,
        WRITING,
        DONE;

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private volatile Phase phase = Phase.SCANNING;
    /** The run's throttle, set when it starts: {@code _rethrottle} changes its rate. */
    private volatile WriteThrottle throttle;

    private volatile boolean dryRun;
    /** The documents the current phase goes through: to scan while scanning, to write while writing; -1 until known. */
    final AtomicLong total = new AtomicLong(-1);

    final AtomicLong scanned = new AtomicLong();
    final AtomicLong noFingerprint = new AtomicLong();
    final AtomicLong matches = new AtomicLong();
    final AtomicLong clusters = new AtomicLong();
    final AtomicLong updated = new AtomicLong();
    final AtomicLong noops = new AtomicLong();
    final AtomicLong versionConflicts = new AtomicLong();
    /** The run's charges on this, its coordinating node; set when the run starts. */
    private volatile RunBreaker coordinatorCharges;
    /** The most any one data node reported holding for the run at once, so far. */
    private final AtomicLong dataNodeBytes = new AtomicLong();

    public NearDupClustersTask(
            long id, String type, String action, String description, TaskId parentTaskId, Map<String, String> headers) {
        super(id, type, action, description, parentTaskId, headers);
    }

    @Override
    public boolean shouldCancelChildrenOnCancellation() {
        return true;
    }

    void phase(Phase phase) {
        this.phase = phase;
    }

    /** Starts the run's throttle; a dry run writes nothing, so it has none to change. */
    void throttle(WriteThrottle throttle, boolean dryRun) {
        this.throttle = throttle;
        this.dryRun = dryRun;
    }

    WriteThrottle throttle() {
        return throttle;
    }

    /** The breaker the run charges on this node: its peak is the run's {@code coordinator_bytes}. */
    void coordinatorCharges(RunBreaker charges) {
        this.coordinatorCharges = charges;
    }

    /** A data node's answer said the most the run held there at once: the largest is {@code data_node_bytes}. */
    void dataNodeHeld(long bytes) {
        dataNodeBytes.accumulateAndGet(bytes, Math::max);
    }

    /** Changes the rate of the run's writes ({@code POST _near_dup_clusters/<task>/_rethrottle}). */
    void rethrottle(float requestsPerSecond) {
        WriteThrottle running = throttle;
        if (running == null) {
            throw new IllegalStateException("task [" + getId() + "] has not started its run yet; try again");
        }
        if (dryRun) {
            throw new IllegalArgumentException(
                    "task [" + getId() + "] is a dry run: it writes nothing, [requests_per_second] does not apply");
        }
        running.rethrottle(requestsPerSecond);
    }

    /** A bulk waiting for its time goes now, so that the cancelled run ends without waiting for it. */
    @Override
    protected void onCancelled() {
        WriteThrottle running = throttle;
        if (running != null) {
            running.wakeUp();
        }
    }

    @Override
    public Status getStatus() {
        WriteThrottle running = throttle;
        RunBreaker charges = coordinatorCharges;
        return new Status(
                phase.paramName(),
                running == null ? Float.POSITIVE_INFINITY : running.requestsPerSecond(),
                running == null ? 0 : running.throttledMillis(),
                total.get(),
                scanned.get(),
                noFingerprint.get(),
                matches.get(),
                clusters.get(),
                updated.get(),
                noops.get(),
                versionConflicts.get(),
                charges == null ? 0 : charges.peak(),
                dataNodeBytes.get());
    }

    /**
     * The progress shown in {@code GET _tasks?detailed}. {@code coordinatorBytes}: the most the run charged to the
     * {@code neardup} breaker at once on its coordinating node (the graph); {@code dataNodeBytes}: the most any one data
     * node charged to it at once for the run (its shard steps and look-ups running there together), so far; both 0 from
     * a node of another version, which does not carry them.
     */
    public record Status(
            String phase,
            float requestsPerSecond,
            long throttledMillis,
            long total,
            long scanned,
            long noFingerprint,
            long matches,
            long clusters,
            long updated,
            long noops,
            long versionConflicts,
            long coordinatorBytes,
            long dataNodeBytes)
            implements Task.Status {

        public static final String NAME = "near_dup_clusters";

        public Status(StreamInput in) throws IOException {
            this(
                    in.readString(),
                    in.readFloat(),
                    in.readVLong(),
                    in.readZLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    AddedWireFields.read(in) ? in.readVLong() : 0,
                    AddedWireFields.read(in) ? in.readVLong() : 0);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeString(phase);
            out.writeFloat(requestsPerSecond);
            out.writeVLong(throttledMillis);
            out.writeZLong(total);
            out.writeVLong(scanned);
            out.writeVLong(noFingerprint);
            out.writeVLong(matches);
            out.writeVLong(clusters);
            out.writeVLong(updated);
            out.writeVLong(noops);
            out.writeVLong(versionConflicts);
            if (AddedWireFields.written(out)) {
                out.writeVLong(coordinatorBytes);
                out.writeVLong(dataNodeBytes);
            }
        }

        @Override
        public String getWriteableName() {
            return NAME;
        }

        @Override
        public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
            builder.startObject();
            builder.field("phase", phase);
            // as reindex shows them: -1 for no throttle
            builder.field("requests_per_second", Float.isInfinite(requestsPerSecond) ? -1 : requestsPerSecond);
            builder.field("throttled_millis", throttledMillis);
            if (total >= 0) {
                // as reindex shows it: how far a run is, scanned (then updated + noops) of total
                builder.field("total", total);
            }
            return counts(builder).endObject();
        }

        /** The counts, as fields of the object being built: the task's status and its final response share them. */
        XContentBuilder counts(XContentBuilder builder) throws IOException {
            builder.field("scanned", scanned);
            builder.field("no_fingerprint", noFingerprint);
            builder.field("matches", matches);
            builder.field("clusters", clusters);
            builder.field("updated", updated);
            builder.field("noops", noops);
            builder.field("version_conflicts", versionConflicts);
            builder.field("coordinator_bytes", coordinatorBytes);
            return builder.field("data_node_bytes", dataNodeBytes);
        }
    }
}
