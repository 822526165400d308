/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.LshBanding;
import io.neardup.index.Containment;
import io.neardup.index.FingerprintFields;
import io.neardup.index.FingerprintKind;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.NearDupOption;
import io.neardup.index.NearDupOptions;
import io.neardup.query.Like;
import io.neardup.query.NearDuplicateQueryBuilder;
import io.neardup.query.QueryServices;
import java.io.IOException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.query.QueryShardContext;

/**
 * When two documents of a {@code _near_dup_clusters} run are near-duplicates: the fingerprint
 * {@code field} and the {@code near_duplicate} options that apply to it, the same validated
 * {@link NearDupOptions} the query takes. Each document is matched by exactly the query a user
 * would send for it, so the clusters and the query agree. Unset options take the query's defaults.
 * A run takes {@code max_distance}, {@code mode}, {@code max_flips}, {@code min_similarity} and
 * {@code verification}; on the wire, only those. {@code near_dup_lookup} may instead match by
 * {@link Containment} ({@code min_containment}, {@code contained}), which takes none of the options.
 *
 * @param containment a containment match, or null for a similarity match
 */
public record MatchSpec(String field, NearDupOptions options, Containment containment)
        implements Writeable, ToXContentFragment {

    /** The options a {@code _near_dup_clusters} run matches with. */
    public static final Set<NearDupOption> RUN_OPTIONS = EnumSet.of(
            NearDupOption.MAX_DISTANCE,
            NearDupOption.MODE,
            NearDupOption.MAX_FLIPS,
            NearDupOption.MIN_SIMILARITY,
            NearDupOption.VERIFICATION);

    /** Why a run refuses the other options. */
    public static final String NOT_A_RUN_OPTION =
            "does not apply to a run, which matches with " + NearDupOption.names(RUN_OPTIONS);

    /** @throws NearDupOption.Invalid naming an option the match cannot take */
    public MatchSpec {
        if (field == null || field.isBlank()) {
            throw new IllegalArgumentException("[field] is required: the [simhash] or [minhash] field to cluster on");
        }
        Objects.requireNonNull(options);
        if (containment != null) {
            Containment.requireNoSimilarityOption(options);
        } else {
            for (NearDupOption set : options.set().keySet()) {
                if (RUN_OPTIONS.contains(set) == false) {
                    throw new NearDupOption.Invalid(set, NOT_A_RUN_OPTION);
                }
            }
        }
    }

    /** A similarity match. */
    public MatchSpec(String field, NearDupOptions options) {
        this(field, options, null);
    }

    /** A containment match on {@code field}, a {@code minhash} field mapped with {@code containment: true}. */
    public MatchSpec(String field, Containment containment) {
        this(field, NearDupOptions.DEFAULTS, Objects.requireNonNull(containment));
    }

    /** A similarity match with the options a run takes. */
    public MatchSpec(
            String field,
            Integer maxDistance,
            NearDupOptions.Mode mode,
            Integer maxFlips,
            Double minSimilarity,
            NearDupOptions.Verification verification) {
        this(field, new NearDupOptions(maxDistance, mode, maxFlips, null, null, minSimilarity, null, verification));
    }

    public MatchSpec(StreamInput in) throws IOException {
        this(in.readString(), new NearDupOptions(in), in.readOptionalWriteable(Containment::new));
    }

    /** The options' one wire form ({@link NearDupOptions#writeTo}). */
    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeString(field);
        options.writeTo(out);
        out.writeOptionalWriteable(containment);
    }

    public Double minSimilarity() {
        return options.minSimilarity();
    }

    /**
     * The query that finds the near-duplicates of {@code like} (itself excluded), or with {@link #containment} the
     * documents containing it or contained in it: the builder asks the field type for the Lucene query
     * ({@code containmentQuery}), which refuses a field that cannot answer it.
     */
    public NearDuplicateQueryBuilder query(Like like, QueryServices services) {
        return new NearDuplicateQueryBuilder(field, like, services)
                .options(options)
                .containment(containment);
    }

    /**
     * A 400 naming the first option that does not apply to a field of {@code kind}, as the query refuses
     * them; and on a {@code simhash} field without {@code min_similarity}, where the block tables find every
     * pair within {@code max_distance} exactly, {@code mode} and {@code max_flips} too, which would change nothing.
     */
    public void requireOptionsApplyTo(FingerprintKind kind) {
        try {
            options.requireApplicableTo(kind, field);
        } catch (NearDupOption.Invalid e) {
            throw new IllegalArgumentException("[_near_dup_clusters] " + e.getMessage(), e);
        }
        if (kind == FingerprintKind.SIMHASH && options.minSimilarity() == null) {
            String misplaced = options.mode() != null ? "mode" : options.maxFlips() != null ? "max_flips" : null;
            if (misplaced != null) {
                throw new IllegalArgumentException("[_near_dup_clusters] [" + misplaced + "] on [simhash] field ["
                        + field + "] goes with [min_similarity]: without it every pair within [max_distance] is found"
                        + " exactly");
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
        return options.minSimilarity() == null ? field : fingerprintObject();
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        builder.field("field", field);
        options.toXContent(builder, params);
        return containment == null ? builder : containment.toXContent(builder, params);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "field [%s]", field);
    }

    /** How a {@code minhash} spec matches by band: the field's banding, τ, the query's automatic {@code min_band_matches}, and whether shingle sets verify. */
    public record BandMatching(
            MinhashFieldMapper.MinhashFieldType fieldType, double minSimilarity, int minBandMatches, boolean exact) {
        public LshBanding banding() {
            return fieldType.banding();
        }
    }

    /** This spec's {@link BandMatching} on a shard whose mapping is {@code context}'s; a 400 if the field is not a {@code minhash} field there. */
    public BandMatching bandMatching(QueryShardContext context, ShardId shardId) {
        MinhashFieldMapper.MinhashFieldType minhash =
                MinhashFieldMapper.MinhashFieldType.of(context.fieldMapper(field));
        if (minhash == null) {
            throw new IllegalArgumentException("[field] [" + field + "] is not a [minhash] field in " + shardId);
        }
        LshBanding banding = minhash.banding();
        double tau = options.effectiveMinSimilarity();
        return new BandMatching(minhash, tau, banding.minBandMatchesFor(tau), options.exactVerification());
    }

    /** How a {@code simhash} spec with {@code min_similarity} verifies its neighbours: on the sibling {@code minhash} field. */
    public record SiblingVerification(
            MinhashFieldMapper.MinhashFieldType minhash, double minSimilarity, boolean exact) {}

    /**
     * This spec's {@link SiblingVerification}, or null without {@code min_similarity}; a 400 if the
     * {@code minhash} field beside the {@code simhash} one ({@code body_fp.simhash} →
     * {@code body_fp.minhash}) is not mapped as {@code minhash}, as the query says.
     */
    public SiblingVerification siblingVerification(QueryShardContext context, ShardId shardId) {
        if (options.minSimilarity() == null) {
            return null;
        }
        String sibling = FingerprintFields.siblingMinhashField(field);
        MinhashFieldMapper.MinhashFieldType minhash =
                MinhashFieldMapper.MinhashFieldType.of(context.fieldMapper(sibling));
        if (minhash == null) {
            throw new IllegalArgumentException("[min_similarity] on [simhash] field [" + field + "] verifies candidates"
                    + " on the [minhash] field [" + sibling + "] of the same fingerprint object, which is not mapped"
                    + " as [minhash] in " + shardId);
        }
        return new SiblingVerification(minhash, options.minSimilarity(), options.exactVerification());
    }
}
