/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.opensearch.action.ActionType;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.search.builder.SearchSourceBuilder;

/**
 * Internal: one step of the clustering on the parts a node keeps of a run's graph ({@link TransportPartStepAction},
 * docs/clusters.md section 8). It is addressed to the node through one of the shards whose parts it keeps.
 */
public final class PartStepAction extends ActionType<PartStepAction.Response> {

    public static final String NAME = "indices:data/read/near_dup_clusters/parts/step";
    public static final PartStepAction INSTANCE = new PartStepAction();

    private PartStepAction() {
        super(NAME, Response::new);
    }

    /**
     * The steps, in the order a run takes them (single linkage labels, leader linkage ranks and decides). A run with a
     * {@code query} builds its parts in waves ({@link PartsClustering}): search, links, members read, tell, until a wave
     * does nothing.
     */
    enum Step {
        /**
         * A run with a {@code query}: the next page of one shard's documents the query matches, read on its part's node
         * and matched there against every shard, the pairs kept in the parts ({@link PartQueryScan}); sent again while
         * it answers that there is more.
         */
        SCAN,
        /**
         * A run with a {@code query}: the members of the earlier clusters told, those the query does not match, searched
         * in the shards whose parts are on the node and added to them ({@link RunParts.EarlierClusters}); sent again
         * while a node has more.
         */
        SEARCH_EARLIER_CLUSTERS,
        /** Every edge and kept assignment to another part added since the last links, to the part of its other end. */
        LINK,
        /**
         * The links in; each part reads its documents not read yet and ranks them (with a {@code query}, a member the
         * query does not match keeps its earlier cluster), some chunks a step, sent until none is left.
         */
        READ_MEMBERS,
        /**
         * A run with a {@code query}: the earlier clusters the parts' documents met first since the last, to every other
         * node.
         */
        TELL_EARLIER_CLUSTERS,
        /** A run with writes: the sequence numbers other parts saw each part's documents at, to their parts. */
        SEEN,
        /** A single-linkage round. */
        LABEL,
        /** Leader linkage: the ranks across the edges between parts. */
        RANK,
        /** A leader-linkage round. */
        DECIDE,
        /** Each part's counts by cluster, to the cluster's part. */
        COUNT_SIZES,
        /** The totals of the clusters a part owns, to the parts with members in them. */
        TOTAL_SIZES,
        /** The clusters each part owns: the histogram, the largest, the counts. */
        REPORT,
        /**
         * A run with writes: the next bulk of one shard's assignments, from its part, then of its documents in no
         * cluster ({@link PartWriter}); sent again while it answers that there is more.
         */
        WRITE
    }

    /**
     * The step for the run's parts on the node {@code node}, sent through the shard {@code shard} of {@code index}
     * (a copy of which the node holds). {@code partNodes[p]} is the node of part {@code p} (the run's shard numbers),
     * {@code partIndices[p]} and {@code partShards[p]} its index and shard, {@code partOrdinals[p]} its index's ordinal.
     */
    public static final class Request extends PartRequest<Request> {
        private final Step step;
        /** The step's number in the run, from 1: it takes in the messages of the step before. */
        private final int sequence;

        private final String[] partNodes;
        private final String[] partIndices;
        private final int[] partShards;
        private final int[] partOrdinals;
        /** Whether the run's names can stand for more than one index (its assignments then name the index). */
        private final boolean spansIndices;

        private final NearDupClustersRequest clusters;

        Request(
                String index,
                int shard,
                TaskId run,
                Step step,
                int sequence,
                String node,
                String[] partNodes,
                String[] partIndices,
                int[] partShards,
                int[] partOrdinals,
                boolean spansIndices,
                NearDupClustersRequest clusters) {
            super(index, shard, run, node);
            this.step = step;
            this.sequence = sequence;
            this.partNodes = partNodes;
            this.partIndices = partIndices;
            this.partShards = partShards;
            this.partOrdinals = partOrdinals;
            this.spansIndices = spansIndices;
            this.clusters = clusters;
        }

        public Request(StreamInput in) throws IOException {
            super(in);
            step = in.readEnum(Step.class);
            sequence = in.readVInt();
            partNodes = in.readStringArray();
            partIndices = in.readStringArray();
            partShards = in.readVIntArray();
            partOrdinals = in.readVIntArray();
            spansIndices = in.readBoolean();
            clusters = new NearDupClustersRequest(in);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            out.writeEnum(step);
            out.writeVInt(sequence);
            out.writeStringArray(partNodes);
            out.writeStringArray(partIndices);
            out.writeVIntArray(partShards);
            out.writeVIntArray(partOrdinals);
            out.writeBoolean(spansIndices);
            clusters.writeTo(out);
        }

        Step step() {
            return step;
        }

        int sequence() {
            return sequence;
        }

        String partNode(int part) {
            return partNodes[part];
        }

        String partIndex(int part) {
            return partIndices[part];
        }

        int partShard(int part) {
            return partShards[part];
        }

        int partOrdinal(int part) {
            return partOrdinals[part];
        }

        int parts() {
            return partNodes.length;
        }

        boolean spansIndices() {
            return spansIndices;
        }

        /** Whether the run covers the index {@code index}. */
        boolean coversIndex(String index) {
            for (String covered : partIndices) {
                if (covered.equals(index)) {
                    return true;
                }
            }
            return false;
        }

        /** The run's number of shard {@code shard} of {@code index}; -1 if the run does not cover it. */
        int partOf(String index, int shard) {
            for (int part = 0; part < partIndices.length; part++) {
                if (partShards[part] == shard && partIndices[part].equals(index)) {
                    return part;
                }
            }
            return -1;
        }

        /**
         * A search of part {@code part}'s shard on the copy of the node that runs the step (which keeps the part), as
         * the run's user: a child of the run.
         */
        SearchRequest searchOfPart(int part, SearchSourceBuilder source) {
            SearchRequest search = new SearchRequest(partIndices[part])
                    .preference("_shards:" + partShards[part] + "|_only_local")
                    .source(source);
            search.setParentTask(run());
            return search;
        }

        NearDupClustersRequest clusters() {
            return clusters;
        }

        @Override
        public String getDescription() {
            return "step [" + step + "] of the parts on node [" + node() + "]";
        }
    }

    /** A cluster a part owns, by its representative (or leader). */
    record OwnedCluster(int part, String id, long size) {}

    /**
     * What a {@link Step#SCAN} read: the shard's documents the query matched in its page, those without the field, and
     * the pairs their part kept.
     */
    record ScanCounts(long scanned, long noFingerprint, long pairs) implements Writeable {
        static ScanCounts read(StreamInput in) throws IOException {
            return new ScanCounts(in.readVLong(), in.readVLong(), in.readVLong());
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeVLong(scanned);
            out.writeVLong(noFingerprint);
            out.writeVLong(pairs);
        }
    }

    /**
     * What the step sent (messages to parts; for {@link Step#READ_MEMBERS} the documents it read, for
     * {@link Step#SEARCH_EARLIER_CLUSTERS} those it added), the most the run held on the node, for {@link Step#REPORT}
     * its parts' clusters: their histogram, the largest, how many and how many documents; for {@link Step#SCAN} what it
     * read; and for {@link Step#WRITE} what the bulk did and whether the shard has more to write.
     */
    public static final class Response extends ActionResponse {
        private final long sent;
        private final long nodeBytes;
        private final long[] histogram;
        private final List<OwnedCluster> largest;
        private final long clusters;
        private final long clusteredDocuments;
        private final WriteOutcome written;
        private final ScanCounts scanned;
        private final boolean more;

        Response(
                long sent,
                long nodeBytes,
                long[] histogram,
                List<OwnedCluster> largest,
                long clusters,
                long clusteredDocuments) {
            this.sent = sent;
            this.nodeBytes = nodeBytes;
            this.histogram = histogram;
            this.largest = largest;
            this.clusters = clusters;
            this.clusteredDocuments = clusteredDocuments;
            this.written = null;
            this.scanned = null;
            this.more = false;
        }

        /**
         * The answer of a step the run sends again while a node has more to do: {@link Step#READ_MEMBERS} and
         * {@link Step#SEARCH_EARLIER_CLUSTERS} (how many documents, and whether its parts have more), {@link Step#SCAN}
         * (what its page read), {@link Step#WRITE} (what its bulk did).
         */
        Response(long sent, long nodeBytes, ScanCounts scanned, WriteOutcome written, boolean more) {
            this.sent = sent;
            this.nodeBytes = nodeBytes;
            this.histogram = new long[0];
            this.largest = List.of();
            this.clusters = 0;
            this.clusteredDocuments = 0;
            this.scanned = scanned;
            this.written = written;
            this.more = more;
        }

        public Response(StreamInput in) throws IOException {
            super(in);
            sent = in.readVLong();
            nodeBytes = in.readVLong();
            histogram = in.readVLongArray();
            int count = in.readVInt();
            largest = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                largest.add(new OwnedCluster(in.readVInt(), in.readString(), in.readVLong()));
            }
            clusters = in.readVLong();
            clusteredDocuments = in.readVLong();
            written = in.readOptionalWriteable(WriteOutcome::new);
            scanned = in.readOptionalWriteable(ScanCounts::read);
            more = in.readBoolean();
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeVLong(sent);
            out.writeVLong(nodeBytes);
            out.writeVLongArray(histogram);
            out.writeVInt(largest.size());
            for (OwnedCluster cluster : largest) {
                out.writeVInt(cluster.part());
                out.writeString(cluster.id());
                out.writeVLong(cluster.size());
            }
            out.writeVLong(clusters);
            out.writeVLong(clusteredDocuments);
            out.writeOptionalWriteable(written);
            out.writeOptionalWriteable(scanned);
            out.writeBoolean(more);
        }

        long sent() {
            return sent;
        }

        long nodeBytes() {
            return nodeBytes;
        }

        long[] histogram() {
            return histogram;
        }

        List<OwnedCluster> largest() {
            return largest;
        }

        long clusters() {
            return clusters;
        }

        long clusteredDocuments() {
            return clusteredDocuments;
        }

        /** What a {@link Step#SCAN}'s page read; null for other steps. */
        ScanCounts scanned() {
            return scanned;
        }

        /** What a {@link Step#WRITE}'s bulk did; null for other steps. */
        WriteOutcome written() {
            return written;
        }

        /**
         * Whether the node's parts have more to read or search ({@link Step#READ_MEMBERS},
         * {@link Step#SEARCH_EARLIER_CLUSTERS}), or the shard to scan or write ({@link Step#SCAN}, {@link Step#WRITE}).
         */
        boolean more() {
            return more;
        }
    }
}
