/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.BandKeyFilter;
import io.neardup.core.FingerprintFormat;
import java.io.IOException;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * The near-duplicates one shard holds of a batch: match {@code i} pairs the batch's document
 * {@code query[i]} with the shard's document {@code matchedId[i]} (read at sequence number
 * {@code matchedSeqNo[i]}) at {@code similarity[i]}, as the {@code near_duplicate} query scores it;
 * or, asked for it, the shard's band key filter ({@link ShardBandBuckets.KeyFilter}).
 */
public final class ShardMatchResponse extends ActionResponse {

    private final int[] query;
    private final String[] matchedId;
    private final long[] matchedSeqNo;
    private final float[] similarity;
    /** The requested field of each matched document, null where it has none or none was asked for. */
    private final String[] matchedCluster;
    /** The index each matched document's assignment names for its cluster, null where it names none. */
    private final String[] matchedClusterIndex;
    /** Instead of matches: the shard's band key filter. */
    private final ShardBandBuckets.KeyFilter keyFilter;
    /** Set by the answering node for a request of a run: the most the run held there at once ({@link NodeRunBreakers}). */
    private long nodeBytes;

    public ShardMatchResponse(
            int[] query,
            String[] matchedId,
            long[] matchedSeqNo,
            float[] similarity,
            String[] matchedCluster,
            String[] matchedClusterIndex) {
        this.query = query;
        this.matchedId = matchedId;
        this.matchedSeqNo = matchedSeqNo;
        this.similarity = similarity;
        this.matchedCluster = matchedCluster;
        this.matchedClusterIndex = matchedClusterIndex;
        this.keyFilter = null;
    }

    ShardMatchResponse(ShardBandBuckets.KeyFilter keyFilter) {
        this.query = new int[0];
        this.matchedId = new String[0];
        this.matchedSeqNo = new long[0];
        this.similarity = new float[0];
        this.matchedCluster = new String[0];
        this.matchedClusterIndex = new String[0];
        this.keyFilter = keyFilter;
    }

    public ShardMatchResponse(StreamInput in) throws IOException {
        super(in);
        query = in.readVIntArray();
        matchedId = in.readStringArray();
        matchedSeqNo = in.readLongArray();
        similarity = in.readFloatArray();
        matchedCluster = new String[query.length];
        for (int i = 0; i < matchedCluster.length; i++) {
            matchedCluster[i] = in.readOptionalString();
        }
        keyFilter = in.readBoolean()
                ? new ShardBandBuckets.KeyFilter(
                        BandKeyFilter.ofWords(in.readLongArray()),
                        in.readVLong(),
                        in.readLongArray(),
                        in.readOptionalString(),
                        FingerprintFormat.of(in.readVInt()))
                : null;
        matchedClusterIndex = new String[query.length];
        for (int i = 0; i < matchedClusterIndex.length; i++) {
            matchedClusterIndex[i] = in.readOptionalString();
        }
        nodeBytes = AddedWireFields.read(in) ? in.readVLong() : 0;
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeVIntArray(query);
        out.writeStringArray(matchedId);
        out.writeLongArray(matchedSeqNo);
        out.writeFloatArray(similarity);
        for (String cluster : matchedCluster) {
            out.writeOptionalString(cluster);
        }
        out.writeBoolean(keyFilter != null);
        if (keyFilter != null) {
            out.writeLongArray(keyFilter.filter().words());
            out.writeVLong(keyFilter.keys());
            out.writeLongArray(keyFilter.oversizedKeys());
            out.writeOptionalString(keyFilter.scheme());
            out.writeVInt(keyFilter.format().number());
        }
        for (String clusterIndex : matchedClusterIndex) {
            out.writeOptionalString(clusterIndex);
        }
        if (AddedWireFields.written(out)) {
            out.writeVLong(nodeBytes);
        }
    }

    /** The most the request's run held at once on the node that answered, so far; 0 from a node that does not say. */
    public long nodeBytes() {
        return nodeBytes;
    }

    /** Set where the answer is made, from the request's {@link NodeRunBreakers.Request#nodeBytes}. */
    public ShardMatchResponse nodeBytes(long bytes) {
        nodeBytes = bytes;
        return this;
    }

    /** The shard's band key filter, if the request asked for it (else null). */
    public ShardBandBuckets.KeyFilter keyFilter() {
        return keyFilter;
    }

    public int size() {
        return query.length;
    }

    public int query(int i) {
        return query[i];
    }

    public String matchedId(int i) {
        return matchedId[i];
    }

    public long matchedSeqNo(int i) {
        return matchedSeqNo[i];
    }

    public float similarity(int i) {
        return similarity[i];
    }

    public String matchedCluster(int i) {
        return matchedCluster[i];
    }

    /** The index the matched document's assignment names for its cluster ({@code cluster_index}), or null. */
    public String matchedClusterIndex(int i) {
        return matchedClusterIndex[i];
    }
}
