/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * A batch of documents to match against one shard: their {@code _id}s and fingerprint objects
 * (each document's {@code _source} reduced to the object holding the matched field), or bare
 * simhash values of another shard's documents (a step of the shards' self-join, {@link TransportShardJoinAction}).
 */
public final class ShardMatchRequest extends OneShardRequest<ShardMatchRequest> {

    private static final byte DOCUMENTS = 0;
    private static final byte SIMHASHES = 1;
    private static final byte SIGNATURES = 2;
    private static final byte BAND_FILTER = 3;

    private final MatchSpec spec;
    private final List<String> ids;
    private final List<Map<String, Object>> sources;
    /** Instead of ids and sources: simhash values, all of {@link #scheme} (null: not recorded). */
    private final long[] simhashes;

    /** Instead of ids and sources: MinHash signatures in their stored layout, with their shingle sets (null: none). */
    private final byte[][] signatures;

    private final byte[][] shingleSets;
    /** With signatures: the bands of each to look up (those the shard's {@link ShardBandBuckets.KeyFilter} passed). */
    private final int[][] bands;

    /** Instead of documents: asks for the shard's band key filter. */
    private final boolean bandFilter;

    private final String scheme;
    private final int maxMatches;
    private final String clusterField;

    private ShardMatchRequest(
            String index,
            int shard,
            MatchSpec spec,
            List<String> ids,
            List<Map<String, Object>> sources,
            long[] simhashes,
            byte[][] signatures,
            byte[][] shingleSets,
            int[][] bands,
            boolean bandFilter,
            String scheme,
            int maxMatches,
            String clusterField) {
        super(index, shard);
        this.spec = spec;
        this.ids = ids;
        this.sources = sources;
        this.simhashes = simhashes;
        this.signatures = signatures;
        this.shingleSets = shingleSets;
        this.bands = bands;
        this.bandFilter = bandFilter;
        this.scheme = scheme;
        this.maxMatches = maxMatches;
        this.clusterField = clusterField;
    }

    /**
     * @param ids          the documents' {@code _id}s, each excluded from its own matches; "" for a document without one
     * @param maxMatches   the most similar matches kept per document
     * @param clusterField a field of the matched documents to return with each match, or null
     */
    public ShardMatchRequest(
            String index,
            int shard,
            MatchSpec spec,
            List<String> ids,
            List<Map<String, Object>> sources,
            int maxMatches,
            String clusterField) {
        this(index, shard, spec, ids, sources, null, null, null, null, false, null, maxMatches, clusterField);
        if (ids.size() != sources.size()) {
            throw new IllegalArgumentException(
                    "one source per id: " + ids.size() + " ids, " + sources.size() + " sources");
        }
    }

    /**
     * Bare simhash values to match (for a {@code simhash} field); with {@code min_similarity}, each
     * with the signature and shingle set (null where none) of its sibling {@code minhash} field to
     * verify on, else {@code signatures} and {@code shingleSets} are null. No match is excluded as "itself".
     */
    public ShardMatchRequest(
            String index,
            int shard,
            MatchSpec spec,
            long[] simhashes,
            byte[][] signatures,
            byte[][] shingleSets,
            String scheme,
            int maxMatches) {
        this(index, shard, spec, null, null, simhashes, signatures, shingleSets, null, false, scheme, maxMatches, null);
        if (signatures != null && (signatures.length != simhashes.length || shingleSets.length != simhashes.length)) {
            throw new IllegalArgumentException(
                    "one signature and shingle set (or null) per simhash: " + simhashes.length + " simhashes, "
                            + signatures.length + " signatures, " + shingleSets.length + " sets");
        }
    }

    /**
     * MinHash signatures (stored layout), their shingle sets (null where a document has none) and the
     * bands of each to look up, to match by band (for a {@code minhash} field), all of {@code scheme};
     * no match is excluded as "itself".
     */
    public ShardMatchRequest(
            String index,
            int shard,
            MatchSpec spec,
            byte[][] signatures,
            byte[][] shingleSets,
            int[][] bands,
            String scheme,
            int maxMatches) {
        this(index, shard, spec, null, null, null, signatures, shingleSets, bands, false, scheme, maxMatches, null);
        if (signatures.length != shingleSets.length || signatures.length != bands.length) {
            throw new IllegalArgumentException("one shingle set (or null) and one band list per signature: "
                    + signatures.length + " signatures, " + shingleSets.length + " sets, " + bands.length
                    + " band lists");
        }
    }

    /** Asks the shard for its band key filter (a {@code minhash} field's band join, {@link ShardBandBuckets#keyFilter}). */
    static ShardMatchRequest bandFilter(String index, int shard, MatchSpec spec) {
        return new ShardMatchRequest(index, shard, spec, null, null, null, null, null, null, true, null, 1, null);
    }

    public ShardMatchRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        byte kind = in.readByte();
        bandFilter = kind == BAND_FILTER;
        if (kind == SIMHASHES) {
            simhashes = in.readLongArray();
            boolean verified = in.readBoolean();
            signatures = verified ? in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new) : null;
            shingleSets = verified ? in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new) : null;
            bands = null;
            scheme = in.readOptionalString();
            ids = null;
            sources = null;
        } else if (kind == SIGNATURES) {
            simhashes = null;
            signatures = in.readArray(StreamInput::readByteArray, byte[][]::new);
            shingleSets = in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new);
            bands = in.readArray(StreamInput::readVIntArray, int[][]::new);
            scheme = in.readOptionalString();
            ids = null;
            sources = null;
        } else if (kind == BAND_FILTER) {
            simhashes = null;
            signatures = null;
            shingleSets = null;
            bands = null;
            scheme = null;
            ids = null;
            sources = null;
        } else {
            simhashes = null;
            signatures = null;
            shingleSets = null;
            bands = null;
            scheme = null;
            ids = in.readStringList();
            sources = in.readList(StreamInput::readMap);
        }
        maxMatches = in.readVInt();
        clusterField = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        if (simhashes != null) {
            out.writeByte(SIMHASHES);
            out.writeLongArray(simhashes);
            out.writeBoolean(signatures != null);
            if (signatures != null) {
                out.writeArray(ShardMatchRequest::writeOptionalBytes, signatures);
                out.writeArray(ShardMatchRequest::writeOptionalBytes, shingleSets);
            }
            out.writeOptionalString(scheme);
        } else if (signatures != null) {
            out.writeByte(SIGNATURES);
            out.writeArray(StreamOutput::writeByteArray, signatures);
            out.writeArray(ShardMatchRequest::writeOptionalBytes, shingleSets);
            out.writeArray(StreamOutput::writeVIntArray, bands);
            out.writeOptionalString(scheme);
        } else if (bandFilter) {
            out.writeByte(BAND_FILTER);
        } else {
            out.writeByte(DOCUMENTS);
            out.writeStringCollection(ids);
            out.writeCollection(sources, StreamOutput::writeMap);
        }
        out.writeVInt(maxMatches);
        out.writeOptionalString(clusterField);
    }

    private static byte[] readOptionalBytes(StreamInput in) throws IOException {
        return in.readBoolean() ? in.readByteArray() : null;
    }

    private static void writeOptionalBytes(StreamOutput out, byte[] bytes) throws IOException {
        out.writeBoolean(bytes != null);
        if (bytes != null) {
            out.writeByteArray(bytes);
        }
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = validateNonNullIndex();
        if (maxMatches < 1 || maxMatches > TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT) {
            e = org.opensearch.action.ValidateActions.addValidationError(
                    "maxMatches must be in [1, " + TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT + "], got ["
                            + maxMatches + "]",
                    e);
        }
        return e;
    }

    public MatchSpec spec() {
        return spec;
    }

    /** The simhash values to match, or null if the request carries documents. */
    public long[] simhashes() {
        return simhashes;
    }

    /** The MinHash signatures to match (stored layout), or with {@link #simhashes} those to verify on; else null. */
    public byte[][] signatures() {
        return signatures;
    }

    /** The signatures' shingle sets, null where a document has none. */
    public byte[][] shingleSets() {
        return shingleSets;
    }

    /** With {@link #signatures}: the bands of each to look up. */
    public int[][] bands() {
        return bands;
    }

    /** Whether the request asks for the shard's band key filter instead of matches. */
    public boolean bandFilter() {
        return bandFilter;
    }

    public String scheme() {
        return scheme;
    }

    /** The documents' ids, or null if the request carries {@link #simhashes}. */
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
