/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.PartitionedClusters;
import io.neardup.core.PartitionedClusters.Decision;
import io.neardup.core.PartitionedClusters.Label;
import io.neardup.core.PartitionedClusters.Link;
import io.neardup.core.PartitionedClusters.NodeRef;
import io.neardup.core.PartitionedClusters.RankOf;
import io.neardup.core.PartitionedClusters.SizeCount;
import io.neardup.core.PartitionedClusters.SizeTotal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;

/**
 * The messages of one step of {@link PartitionedClusters}' protocol that one node's parts send to the parts another
 * node keeps, by the receiving part's number; every message of a step is of the step's one kind. {@code step} numbers
 * the run's steps: the receiving parts take them in at the next one, whatever arrives meanwhile from a node a step ahead. A message names
 * documents by {@code _id} and their part, and ranks them by {@link RankKey}.
 */
record PartMessages(int step, Kind kind, Map<Integer, List<Object>> byPart) implements Writeable {

    /** What a step's messages are. */
    enum Kind {
        LINK,
        LABEL,
        RANK,
        DECISION,
        SIZE_COUNT,
        SIZE_TOTAL,
        SEEN,
        EARLIER_CLUSTER
    }

    /**
     * A run with writes: the document {@code to} of the receiving part was seen at {@code seqNo} by a pair another part
     * keeps ({@link ShardPart#seenMessages}).
     */
    record Seen(String to, long seqNo) {}

    /**
     * A run with a {@code query}: a document of the run belongs to the earlier cluster {@code id}, whose other members
     * the query does not match keep it ({@link RunParts.EarlierClusters}); to every node that keeps parts.
     */
    record EarlierCluster(String id) {}

    /** About what one message holds on the heap, beside its ids: what a part charges while it waits in an inbox. */
    static final int BYTES_PER_MESSAGE = 200;

    static PartMessages read(StreamInput in) throws IOException {
        int step = in.readVInt();
        Kind kind = in.readEnum(Kind.class);
        int parts = in.readVInt();
        Map<Integer, List<Object>> byPart = new LinkedHashMap<>();
        for (int p = 0; p < parts; p++) {
            int part = in.readVInt();
            int count = in.readVInt();
            List<Object> messages = new ArrayList<>(count);
            for (int m = 0; m < count; m++) {
                messages.add(readMessage(kind, in));
            }
            byPart.put(part, messages);
        }
        return new PartMessages(step, kind, byPart);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVInt(step);
        out.writeEnum(kind);
        out.writeVInt(byPart.size());
        for (Map.Entry<Integer, List<Object>> entry : byPart.entrySet()) {
            out.writeVInt(entry.getKey());
            out.writeVInt(entry.getValue().size());
            for (Object message : entry.getValue()) {
                writeMessage(kind, message, out);
            }
        }
    }

    int size() {
        int size = 0;
        for (List<Object> messages : byPart.values()) {
            size += messages.size();
        }
        return size;
    }

    /** The kind of a message of the protocol. */
    static Kind kindOf(Object message) {
        if (message instanceof Link<?>) {
            return Kind.LINK;
        } else if (message instanceof Label<?, ?>) {
            return Kind.LABEL;
        } else if (message instanceof RankOf<?, ?>) {
            return Kind.RANK;
        } else if (message instanceof Decision<?>) {
            return Kind.DECISION;
        } else if (message instanceof SizeCount<?>) {
            return Kind.SIZE_COUNT;
        } else if (message instanceof SizeTotal<?>) {
            return Kind.SIZE_TOTAL;
        } else if (message instanceof Seen) {
            return Kind.SEEN;
        } else if (message instanceof EarlierCluster) {
            return Kind.EARLIER_CLUSTER;
        }
        throw new IllegalArgumentException("not a message of the protocol: " + message);
    }

    private static NodeRef<String> readRef(StreamInput in) throws IOException {
        return new NodeRef<>(in.readVInt(), in.readString());
    }

    private static void writeRef(NodeRef<String> ref, StreamOutput out) throws IOException {
        out.writeVInt(ref.part());
        out.writeString(ref.id());
    }

    private static Object readMessage(Kind kind, StreamInput in) throws IOException {
        return switch (kind) {
            case LINK -> new Link<>(in.readString(), readRef(in), in.readFloat(), in.readBoolean(), in.readBoolean());
            case LABEL -> new Label<>(in.readString(), readRef(in), new RankKey(in), readRef(in));
            case RANK ->
                new RankOf<>(in.readString(), readRef(in), new RankKey(in), in.readBoolean(), in.readBoolean());
            case DECISION -> new Decision<>(in.readString(), readRef(in), in.readBoolean());
            case SIZE_COUNT -> new SizeCount<>(readRef(in), in.readVInt(), in.readVLong());
            case SIZE_TOTAL -> new SizeTotal<>(readRef(in), in.readVLong());
            case SEEN -> new Seen(in.readString(), in.readZLong());
            case EARLIER_CLUSTER -> new EarlierCluster(in.readString());
        };
    }

    @SuppressWarnings("unchecked")
    private static void writeMessage(Kind kind, Object message, StreamOutput out) throws IOException {
        switch (kind) {
            case LINK -> {
                Link<String> link = (Link<String>) message;
                out.writeString(link.to());
                writeRef(link.from(), out);
                out.writeFloat(link.similarity());
                out.writeBoolean(link.fix());
                out.writeBoolean(link.leads());
            }
            case LABEL -> {
                Label<String, RankKey> label = (Label<String, RankKey>) message;
                out.writeString(label.to());
                writeRef(label.from(), out);
                label.key().writeTo(out);
                writeRef(label.owner(), out);
            }
            case RANK -> {
                RankOf<String, RankKey> rank = (RankOf<String, RankKey>) message;
                out.writeString(rank.to());
                writeRef(rank.from(), out);
                rank.key().writeTo(out);
                out.writeBoolean(rank.decided());
                out.writeBoolean(rank.fixedLeader());
            }
            case DECISION -> {
                Decision<String> decision = (Decision<String>) message;
                out.writeString(decision.to());
                writeRef(decision.from(), out);
                out.writeBoolean(decision.leads());
            }
            case SIZE_COUNT -> {
                SizeCount<String> count = (SizeCount<String>) message;
                writeRef(count.cluster(), out);
                out.writeVInt(count.fromPart());
                out.writeVLong(count.count());
            }
            case SIZE_TOTAL -> {
                SizeTotal<String> total = (SizeTotal<String>) message;
                writeRef(total.cluster(), out);
                out.writeVLong(total.total());
            }
            case SEEN -> {
                Seen seen = (Seen) message;
                out.writeString(seen.to());
                out.writeZLong(seen.seqNo());
            }
            case EARLIER_CLUSTER -> out.writeString(((EarlierCluster) message).id());
        }
    }
}
