/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.ClusterGraph;
import io.neardup.match.AddedWireFields;
import io.neardup.match.ClusterAssignment;
import java.io.IOException;
import java.util.List;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.ToXContentObject;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * What a {@code _near_dup_clusters} run did, in the shape of {@code _update_by_query}'s answer
 * ({@code took}, counts, {@code failures}) plus the clusters found: how many, how many documents
 * they hold, their sizes by power-of-two bucket, and the largest ones.
 */
public final class NearDupClustersResponse extends ActionResponse implements ToXContentObject {

    /**
     * A write that failed, or a document that changed after it was compared: the document's index and {@code _id}; or
     * the writes of a whole shard that could not go on (its part's node lost): its index, and no {@code _id}.
     */
    public record Failure(String index, String id, int status, String reason) implements Writeable {
        Failure(StreamInput in) throws IOException {
            this(
                    in.readString(),
                    AddedWireFields.read(in) ? in.readOptionalString() : in.readString(),
                    in.readVInt(),
                    in.readString());
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeString(index);
            if (AddedWireFields.written(out)) {
                out.writeOptionalString(id);
            } else {
                // A node of another version reads an _id always: a shard's failure shows it as empty there.
                out.writeString(id == null ? "" : id);
            }
            out.writeVInt(status);
            out.writeString(reason);
        }
    }

    /**
     * One of the largest clusters: its id (the representative's {@code _id}), the representative's index where the run
     * covers many indices (else null), and its size.
     */
    public record Cluster(String id, String index, int size) implements Writeable {
        Cluster(StreamInput in) throws IOException {
            this(in.readString(), in.readOptionalString(), in.readVInt());
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeString(id);
            out.writeOptionalString(index);
            out.writeVInt(size);
        }
    }

    private final long tookMillis;
    private final boolean dryRun;
    private final NearDupClustersTask.Status counts;
    private final long clusteredDocuments;
    private final long cleared;
    private final long[] sizeHistogram;
    private final List<Cluster> largest;
    private final List<Failure> failures;
    private final String canceled;

    public NearDupClustersResponse(
            long tookMillis,
            boolean dryRun,
            NearDupClustersTask.Status counts,
            long clusteredDocuments,
            long cleared,
            long[] sizeHistogram,
            List<Cluster> largest,
            List<Failure> failures,
            String canceled) {
        this.tookMillis = tookMillis;
        this.dryRun = dryRun;
        this.counts = counts;
        this.clusteredDocuments = clusteredDocuments;
        this.cleared = cleared;
        this.sizeHistogram = sizeHistogram;
        this.largest = List.copyOf(largest);
        this.failures = List.copyOf(failures);
        this.canceled = canceled;
    }

    public NearDupClustersResponse(StreamInput in) throws IOException {
        super(in);
        tookMillis = in.readVLong();
        dryRun = in.readBoolean();
        counts = new NearDupClustersTask.Status(in);
        clusteredDocuments = in.readVLong();
        cleared = in.readVLong();
        sizeHistogram = in.readVLongArray();
        largest = in.readList(Cluster::new);
        failures = in.readList(Failure::new);
        canceled = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVLong(tookMillis);
        out.writeBoolean(dryRun);
        counts.writeTo(out);
        out.writeVLong(clusteredDocuments);
        out.writeVLong(cleared);
        out.writeVLongArray(sizeHistogram);
        out.writeList(largest);
        out.writeList(failures);
        out.writeOptionalString(canceled);
    }

    public NearDupClustersTask.Status counts() {
        return counts;
    }

    public long clusteredDocuments() {
        return clusteredDocuments;
    }

    public long cleared() {
        return cleared;
    }

    public long[] sizeHistogram() {
        return sizeHistogram;
    }

    public List<Cluster> largest() {
        return largest;
    }

    public List<Failure> failures() {
        return failures;
    }

    public String canceled() {
        return canceled;
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject();
        builder.field("took", tookMillis);
        builder.field("timed_out", false);
        builder.field("dry_run", dryRun);
        counts.counts(builder);
        builder.field("clustered_documents", clusteredDocuments);
        builder.field("cleared", cleared);
        builder.startObject("cluster_sizes");
        for (int b = 0; b < sizeHistogram.length; b++) {
            if (sizeHistogram[b] > 0) {
                builder.field(ClusterGraph.bucketLabel(b), sizeHistogram[b]);
            }
        }
        builder.endObject();
        builder.startArray("largest_clusters");
        for (Cluster cluster : largest) {
            builder.startObject().field(ClusterAssignment.CLUSTER, cluster.id());
            if (cluster.index() != null) {
                builder.field(ClusterAssignment.CLUSTER_INDEX, cluster.index());
            }
            builder.field(ClusterAssignment.SIZE, cluster.size()).endObject();
        }
        builder.endArray();
        if (canceled != null) {
            builder.field("canceled", canceled);
        }
        builder.startArray("failures");
        for (Failure failure : failures) {
            builder.startObject().field("index", failure.index());
            if (failure.id() != null) {
                builder.field("id", failure.id());
            }
            builder.field("status", failure.status())
                    .field("reason", failure.reason())
                    .endObject();
        }
        builder.endArray();
        return builder.endObject();
    }
}
