/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.LshBanding;
import io.neardup.mapper.MinhashFieldMapper;
import io.neardup.query.Like;
import io.neardup.query.NearDuplicateQueryBuilder;
import io.neardup.query.QueryServices;
import java.io.IOException;
import java.util.Locale;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.query.QueryShardContext;

/**
 * When two documents of a {@code _near_dup_clusters} run are near-duplicates: the fingerprint
 * {@code field} and the {@code near_duplicate} query options that apply to it. Each document is
 * matched by exactly the query a user would send for it, so the clusters and the query agree.
 * Null options take the query's defaults.
 */
public record MatchSpec(
        String field,
        Integer maxDistance,
        NearDuplicateQueryBuilder.Mode mode,
        Integer maxFlips,
        Double minSimilarity,
        NearDuplicateQueryBuilder.Verification verification)
        implements Writeable, ToXContentFragment {

    public MatchSpec {
        if (field == null || field.isBlank()) {
            throw new IllegalArgumentException("[field] is required: the [simhash] or [minhash] field to cluster on");
        }
        // The query's own setters check every range against its caps; fail here, before any work, not on a shard.
        build(
                field,
                maxDistance,
                mode,
                maxFlips,
                minSimilarity,
                verification,
                Like.simhash("0000000000000000", null, null),
                null);
    }

    public MatchSpec(StreamInput in) throws IOException {
        this(
                in.readString(),
                in.readOptionalVInt(),
                in.readBoolean() ? in.readEnum(NearDuplicateQueryBuilder.Mode.class) : null,
                in.readOptionalVInt(),
                in.readOptionalDouble(),
                in.readBoolean() ? in.readEnum(NearDuplicateQueryBuilder.Verification.class) : null);
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(field);
        out.writeOptionalVInt(maxDistance);
        out.writeBoolean(mode != null);
        if (mode != null) {
            out.writeEnum(mode);
        }
        out.writeOptionalVInt(maxFlips);
        out.writeOptionalDouble(minSimilarity);
        out.writeBoolean(verification != null);
        if (verification != null) {
            out.writeEnum(verification);
        }
    }

    /** The query that finds the near-duplicates of {@code like} (itself excluded). */
    public NearDuplicateQueryBuilder query(Like like, QueryServices services) {
        return build(field, maxDistance, mode, maxFlips, minSimilarity, verification, like, services);
    }

    private static NearDuplicateQueryBuilder build(
            String field,
            Integer maxDistance,
            NearDuplicateQueryBuilder.Mode mode,
            Integer maxFlips,
            Double minSimilarity,
            NearDuplicateQueryBuilder.Verification verification,
            Like like,
            QueryServices services) {
        NearDuplicateQueryBuilder query = new NearDuplicateQueryBuilder(field, like, services);
        if (maxDistance != null) {
            query.maxDistance(maxDistance);
        }
        if (mode != null) {
            query.mode(mode);
        }
        if (maxFlips != null) {
            query.maxFlips(maxFlips);
        }
        if (minSimilarity != null) {
            query.minSimilarity(minSimilarity);
        }
        if (verification != null) {
            query.verification(verification);
        }
        return query;
    }

    /**
     * A 400 naming the first option that does not apply to a field of this kind, as the query refuses
     * them: a {@code minhash} run takes no simhash option, and a {@code simhash} run without
     * {@code min_similarity} finds every pair within {@code max_distance} exactly, so {@code mode},
     * {@code max_flips} and {@code verification} would change nothing.
     */
    public void requireOptionsApplyTo(boolean simhash) {
        String misplaced = null;
        if (simhash == false) {
            misplaced = maxDistance != null
                    ? "max_distance"
                    : mode != null ? "mode" : maxFlips != null ? "max_flips" : null;
            if (misplaced != null) {
                throw new IllegalArgumentException("[" + misplaced + "] applies to [simhash] fields; [" + field
                        + "] is a [minhash] field: use [min_similarity]");
            }
        } else if (minSimilarity == null) {
            misplaced = mode != null
                    ? "mode"
                    : maxFlips != null ? "max_flips" : verification != null ? "verification" : null;
            if (misplaced != null) {
                throw new IllegalArgumentException("[" + misplaced + "] on [simhash] field [" + field + "] goes with"
                        + " [min_similarity]: without it every pair within [max_distance] is found exactly");
            }
        }
    }

    /** The object holding {@link #field} and its siblings, as the processor writes it ({@code body_fp} for {@code body_fp.simhash}). */
    public String fingerprintObject() {
        int dot = field.lastIndexOf('.');
        return dot < 0 ? field : field.substring(0, dot);
    }

    /**
     * The part of a document's {@code _source} its matching reads: the field alone, or with
     * {@code min_similarity} the whole fingerprint object (a simhash field is then verified on its
     * sibling minhash). A minhash object's shingle set is most of a document's fingerprints.
     */
    public String sourceToMatch() {
        return minSimilarity == null ? field : fingerprintObject();
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.field("field", field);
        if (maxDistance != null) {
            builder.field("max_distance", maxDistance);
        }
        if (mode != null) {
            builder.field("mode", mode.paramName());
        }
        if (maxFlips != null) {
            builder.field("max_flips", maxFlips);
        }
        if (minSimilarity != null) {
            builder.field("min_similarity", minSimilarity);
        }
        if (verification != null) {
            builder.field("verification", verification.paramName());
        }
        return builder;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "field [%s]", field);
    }

    /** How a {@code minhash} spec matches by band: the field's banding, τ, the query's automatic {@code min_band_matches}, and whether shingle sets verify. */
    record BandMatching(LshBanding banding, double minSimilarity, int minBandMatches, boolean exact) {}

    /** This spec's {@link BandMatching} on a shard whose mapping is {@code context}'s; a 400 if the field is not a {@code minhash} field there. */
    BandMatching bandMatching(QueryShardContext context, ShardId shardId) {
        if (context.fieldMapper(field) instanceof MinhashFieldMapper.MinhashFieldType == false) {
            throw new IllegalArgumentException("[field] [" + field + "] is not a [minhash] field in " + shardId);
        }
        LshBanding banding = ((MinhashFieldMapper.MinhashFieldType) context.fieldMapper(field)).banding();
        double tau = minSimilarity == null ? NearDuplicateQueryBuilder.DEFAULT_MIN_SIMILARITY : minSimilarity;
        return new BandMatching(
                banding,
                tau,
                banding.minBandMatchesFor(tau),
                verification != NearDuplicateQueryBuilder.Verification.ESTIMATE);
    }

    /** How a {@code simhash} spec with {@code min_similarity} verifies its neighbours: on the sibling {@code minhash} field. */
    record SiblingVerification(String minhashField, double minSimilarity, boolean exact) {}

    /**
     * This spec's {@link SiblingVerification}, or null without {@code min_similarity}; a 400 if the
     * {@code minhash} field beside the {@code simhash} one ({@code body_fp.simhash} →
     * {@code body_fp.minhash}) is not mapped as {@code minhash}, as the query says.
     */
    SiblingVerification siblingVerification(QueryShardContext context, ShardId shardId) {
        if (minSimilarity == null) {
            return null;
        }
        int dot = field.lastIndexOf('.');
        String sibling = (dot < 0 ? "" : field.substring(0, dot + 1)) + "minhash";
        if (context.fieldMapper(sibling) instanceof MinhashFieldMapper.MinhashFieldType == false) {
            throw new IllegalArgumentException("[min_similarity] on [simhash] field [" + field + "] verifies candidates"
                    + " on the [minhash] field [" + sibling + "] of the same fingerprint object, which is not mapped"
                    + " as [minhash] in " + shardId);
        }
        return new SiblingVerification(
                sibling, minSimilarity, verification != NearDuplicateQueryBuilder.Verification.ESTIMATE);
    }
}
