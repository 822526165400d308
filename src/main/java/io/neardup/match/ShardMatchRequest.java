/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * A batch to match against one shard ({@link TransportShardMatchAction}), one of the {@link Batch} kinds: documents
 * with their fingerprint objects, bare simhash values or MinHash signatures of another shard's documents (steps of
 * the shards' self-joins), or the question for the shard's band key filter.
 */
public final class ShardMatchRequest extends OneShardRequest<ShardMatchRequest> {

    private static final byte DOCUMENTS = 0;
    private static final byte SIMHASHES = 1;
    private static final byte SIGNATURES = 2;
    private static final byte BAND_FILTER = 3;

    /** What a request carries to match; the wire writes its kind, then its fields. */
    public sealed interface Batch permits Documents, Simhashes, Signatures, BandFilter {}

    /**
     * Documents: their {@code _id}s ("" for a document without one), each excluded from its own matches, and their
     * fingerprint objects (each document's {@code _source} reduced to the object holding the matched field); and the
     * queries built for them, shared by the requests of the same documents on this node (not sent).
     */
    public record Documents(List<String> ids, List<Map<String, Object>> sources, DocumentQueries queries)
            implements Batch {
        public Documents {
            if (ids.size() != sources.size()) {
                throw new IllegalArgumentException(
                        "one source per id: " + ids.size() + " ids, " + sources.size() + " sources");
            }
            Objects.requireNonNull(queries, "queries");
        }

        /** Documents whose queries no other request shares. */
        public Documents(List<String> ids, List<Map<String, Object>> sources) {
            this(ids, sources, new DocumentQueries());
        }
    }

    /**
     * Bare simhash values, all of {@code scheme} (null: not recorded), for a {@code simhash} field; with
     * {@code min_similarity}, each with the signature and shingle set (null where none) of its sibling
     * {@code minhash} field to verify on, else {@code signatures} and {@code shingleSets} are null. No match is
     * excluded as "itself".
     */
    public record Simhashes(long[] values, byte[][] signatures, byte[][] shingleSets, String scheme) implements Batch {
        public Simhashes {
            if (signatures != null && (signatures.length != values.length || shingleSets.length != values.length)) {
                throw new IllegalArgumentException(
                        "one signature and shingle set (or null) per simhash: " + values.length + " simhashes, "
                                + signatures.length + " signatures, " + shingleSets.length + " sets");
            }
        }
    }

    /**
     * MinHash signatures (stored layout), their shingle sets (null where a document has none) and the bands of each to
     * look up (those the shard's {@link ShardBandBuckets.KeyFilter} passed), all of {@code scheme}, for a
     * {@code minhash} field; no match is excluded as "itself".
     */
    public record Signatures(byte[][] signatures, byte[][] shingleSets, int[][] bands, String scheme) implements Batch {
        public Signatures {
            if (signatures.length != shingleSets.length || signatures.length != bands.length) {
                throw new IllegalArgumentException("one shingle set (or null) and one band list per signature: "
                        + signatures.length + " signatures, " + shingleSets.length + " sets, " + bands.length
                        + " band lists");
            }
        }
    }

    /** Asks the shard for its band key filter (a {@code minhash} field's band join, {@link ShardBandBuckets#keyFilter}). */
    public record BandFilter() implements Batch {}

    private final MatchSpec spec;
    private final Batch batch;
    private final int maxMatches;
    private final String clusterField;

    /**
     * @param maxMatches   the most similar matches kept per document
     * @param clusterField a field of the matched documents to return with each match, or null
     */
    public ShardMatchRequest(
            String index, int shard, MatchSpec spec, Batch batch, int maxMatches, String clusterField) {
        super(index, shard);
        this.spec = spec;
        this.batch = batch;
        this.maxMatches = maxMatches;
        this.clusterField = clusterField;
    }

    /** Asks the shard for its band key filter. */
    public static ShardMatchRequest bandFilter(String index, int shard, MatchSpec spec) {
        return new ShardMatchRequest(index, shard, spec, new BandFilter(), 1, null);
    }

    public ShardMatchRequest(StreamInput in) throws IOException {
        super(in);
        spec = new MatchSpec(in);
        byte kind = in.readByte();
        batch = switch (kind) {
            case SIMHASHES -> {
                long[] values = in.readLongArray();
                boolean verified = in.readBoolean();
                byte[][] signatures =
                        verified ? in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new) : null;
                byte[][] shingleSets =
                        verified ? in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new) : null;
                yield new Simhashes(values, signatures, shingleSets, in.readOptionalString());
            }
            case SIGNATURES ->
                new Signatures(
                        in.readArray(StreamInput::readByteArray, byte[][]::new),
                        in.readArray(ShardMatchRequest::readOptionalBytes, byte[][]::new),
                        in.readArray(StreamInput::readVIntArray, int[][]::new),
                        in.readOptionalString());
            case BAND_FILTER -> new BandFilter();
            case DOCUMENTS -> new Documents(in.readStringList(), in.readList(StreamInput::readMap));
            default -> throw new IllegalStateException("unknown shard match batch kind [" + kind + "]");
        };
        maxMatches = in.readVInt();
        clusterField = in.readOptionalString();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        spec.writeTo(out);
        if (batch instanceof Simhashes simhashes) {
            out.writeByte(SIMHASHES);
            out.writeLongArray(simhashes.values());
            out.writeBoolean(simhashes.signatures() != null);
            if (simhashes.signatures() != null) {
                out.writeArray(ShardMatchRequest::writeOptionalBytes, simhashes.signatures());
                out.writeArray(ShardMatchRequest::writeOptionalBytes, simhashes.shingleSets());
            }
            out.writeOptionalString(simhashes.scheme());
        } else if (batch instanceof Signatures signatures) {
            out.writeByte(SIGNATURES);
            out.writeArray(StreamOutput::writeByteArray, signatures.signatures());
            out.writeArray(ShardMatchRequest::writeOptionalBytes, signatures.shingleSets());
            out.writeArray(StreamOutput::writeVIntArray, signatures.bands());
            out.writeOptionalString(signatures.scheme());
        } else if (batch instanceof BandFilter) {
            out.writeByte(BAND_FILTER);
        } else if (batch instanceof Documents documents) {
            out.writeByte(DOCUMENTS);
            out.writeStringCollection(documents.ids());
            out.writeCollection(documents.sources(), StreamOutput::writeMap);
        } else {
            throw new IllegalStateException("no such batch: " + batch.getClass().getName()); // sealed: see Like.unknown
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

    public Batch batch() {
        return batch;
    }

    public int maxMatches() {
        return maxMatches;
    }

    public String clusterField() {
        return clusterField;
    }
}
