package io.neardup.clusters;

import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.support.single.shard.SingleShardRequest;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * A batch of documents to match against one shard: their {@code _id}s and fingerprint objects
 * (each document's {@code _source} reduced to the object holding the matched field).
 */
public final class ShardMatchRequest extends SingleShardRequest<ShardMatchRequest> {

    private final int shard;
    private final MatchSpec spec;
    private final List<String> ids;
    private final List<Map<String, Object>> sources;
    private final int maxMatches;
    private final String clusterField;

    /**
     * @param ids          the documents' {@code _id}s, each excluded from its own matches; "" for a document without one
     * @param maxMatches   the most similar matches kept per document
     * @param clusterField a field of the matched documents to return with each match, or null
     */
    public ShardMatchRequest(String index, int shard, MatchSpec spec, List<String> ids, List<Map<String, Object>> sources, int maxMatches,
        String clusterField) {
        super(index);
        if (ids.size() != sources.size()) {
            throw new IllegalArgumentException("one source per id: " + ids.size() + " ids, " + sources.size() + " sources");
        }
        this.shard = shard;
        this.spec = spec;
        this.ids = ids;
        this.sources = sources;
        this.maxMatches = maxMatches;
        this.clusterField = clusterField;
    }

    public ShardMatchRequest(StreamInput in) throws IOException {
        super(in);
        shard = in.readVInt();
        spec = new MatchSpec(in);
        ids = in.readStringList();
        sources = in.readList(StreamInput::readMap);
        maxMatches = in.readVInt();
        clusterField = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeVInt(shard);
        spec.writeTo(out);
        out.writeStringCollection(ids);
        out.writeCollection(sources, StreamOutput::writeMap);
        out.writeVInt(maxMatches);
        out.writeOptionalString(clusterField);
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateNonNullIndex();
        if (maxMatches < 1 || maxMatches > TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT) {
            e = org.opensearch.action.ValidateActions.addValidationError("maxMatches must be in [1, "
                + TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT + "], got [" + maxMatches + "]", e);
        }
        return e;
    }

    public int shard() {
        return shard;
    }

    public MatchSpec spec() {
        return spec;
    }

    public List<String> ids() {
        return ids;
    }

    public List<Map<String, Object>> sources() {
        return sources;
    }

    public int maxMatches() {
        return maxMatches;
    }

    public String clusterField() {
        return clusterField;
    }
}
