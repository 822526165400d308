/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.LshBanding;
import java.util.Locale;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.Query;
import org.opensearch.common.logging.HeaderWarning;
import org.opensearch.index.mapper.Uid;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.index.query.QueryShardException;

/**
 * The {@code near_duplicate} Lucene query of each fingerprint field type, from the validated options and
 * the resolved {@code like}: what {@link FingerprintFieldType#nearDuplicateQuery} of {@code simhash} and
 * {@code minhash} fields calls. Errors are {@link IllegalArgumentException}s (the query entry point makes
 * them a 400 naming the shard), except where noted.
 */
final class NearDuplicateQueries {

    private static final String NAME = NearDupOptions.QUERY;

    private NearDuplicateQueries() {}

    /** The neighbours of the query's simhash in {@code field}; with {@code min_similarity}, verified on the sibling {@code minhash} field. */
    static Query simhash(
            String field,
            NearDupOptions options,
            LikeFingerprints like,
            String excludedId,
            QueryShardContext context,
            SegmentFingerprintCache cache) {
        LikeFingerprints.Simhash target = like.simhash(field, context);
        NearDupOptions.Mode effectiveMode = options.effectiveMode();
        if (effectiveMode == NearDupOptions.Mode.PSM && target.margins() == null) {
            throw new QueryShardException(
                    context,
                    "[" + NAME + "] mode [psm] ranks the query's weak bits by its margins, and this "
                            + "fingerprint has none (a bare hex value); pass [like.margins], query by [_id] or [text], or use mode [exact]");
        }
        Query query = new SimhashNeighborQuery(
                field,
                target.value(),
                target.margins(),
                target.scheme(),
                options.effectiveMaxDistance(),
                effectiveMode == NearDupOptions.Mode.EXACT,
                options.effectiveMaxFlips(),
                options.effectivePrefixBits(),
                options.effectiveFirstMatch(),
                excludedId == null ? null : Uid.encodeId(excludedId),
                cache);
        return options.minSimilarity() == null ? query : jaccardVerified(field, options, like, context, cache, query);
    }

    /**
     * Simhash neighbours verified on their Jaccard similarity, read from the {@code minhash} field
     * beside the {@code simhash} one in the same fingerprint object ({@code body_fp.simhash} →
     * {@code body_fp.minhash}), as the processor writes them.
     */
    private static Query jaccardVerified(
            String field,
            NearDupOptions options,
            LikeFingerprints like,
            QueryShardContext context,
            SegmentFingerprintCache cache,
            Query candidates) {
        String sibling = FingerprintFields.siblingMinhashField(field);
        MinhashFieldMapper.MinhashFieldType minhash =
                MinhashFieldMapper.MinhashFieldType.of(context.fieldMapper(sibling));
        if (minhash != null) {
            if (like.bareSimhash()) {
                throw new IllegalArgumentException("[" + NAME + "] [min_similarity] on [simhash] field [" + field
                        + "] needs the query " + "document's MinHash signature: query by [_id] or [text]");
            }
            LikeFingerprints.Minhash target = like.minhash(minhash, context);
            return new JaccardVerifiedQuery(
                    candidates,
                    minhash,
                    target.signature(),
                    exactSet(options, target, sibling),
                    target.schemeHash(),
                    options.minSimilarity(),
                    cache.queryStats());
        }
        throw new IllegalArgumentException(
                "[" + NAME + "] [min_similarity] on [simhash] field [" + field + "] verifies candidates on "
                        + "the [minhash] field [" + sibling
                        + "] of the same fingerprint object, which is not mapped as [minhash] in index ["
                        + context.index().getName() + "]");
    }

    /** The documents of the {@code minhash} field {@code fieldType} similar enough to the query's signature. */
    static Query minhash(
            MinhashFieldMapper.MinhashFieldType fieldType,
            NearDupOptions options,
            LikeFingerprints like,
            QueryShardContext context,
            SegmentFingerprintCache cache) {
        String field = fieldType.name();
        LikeFingerprints.Minhash target = like.minhash(fieldType, context);
        double tau = options.effectiveMinSimilarity();
        if (target.signature() == null) {
            // A shingle set of the other format (a data stream's new generations beside an old format 1 one): its
            // signature of this format cannot be had, so no band finds candidates; every document of the field is
            // verified on the exact Jaccard of the sets, those without a set never match. Linear in the documents.
            return new JaccardVerifiedQuery(
                    new FieldExistsQuery(field),
                    fieldType,
                    null,
                    target.shingleSet(),
                    target.schemeHash(),
                    tau,
                    cache.queryStats());
        }
        LshBanding banding = fieldType.banding();
        // By default as many bands must agree as still find a pair at tau with probability 0.99: few
        // candidates at high thresholds, all of them at the field's floor.
        int m = options.minBandMatches() == null ? banding.minBandMatchesFor(tau) : options.minBandMatches();
        if (m > banding.bands()) {
            throw new IllegalArgumentException("[" + NAME + "] [min_band_matches] is " + m + " but field [" + field
                    + "] has only " + banding.bands() + " bands");
        }
        double reach = banding.candidateProbability(m, tau);
        if (reach < LshBanding.CANDIDATE_RECALL) {
            int reliable = banding.minBandMatchesFor(tau);
            String remedy = banding.candidateProbability(reliable, tau) >= LshBanding.CANDIDATE_RECALL
                    ? String.format(Locale.ROOT, "ask for at most %d matching bands (min_band_matches)", reliable)
                    : String.format(
                            Locale.ROOT,
                            "this field serves min_similarity >= %.2f (map it with a lower [min_similarity_floor] for less)",
                            banding.floor());
            HeaderWarning.addWarning(String.format(
                    Locale.ROOT,
                    "[%s] min_similarity [%s] with min_band_matches %d on [%s] (%d bands of %d "
                            + "rows) misses documents: one at that similarity becomes a candidate with probability %.2f; %s",
                    NAME,
                    tau,
                    m,
                    field,
                    banding.bands(),
                    banding.rows(),
                    reach,
                    remedy));
        }
        return new MinhashSimilarityQuery(
                fieldType,
                target.signature(),
                exactSet(options, target, field),
                target.schemeHash(),
                target.scheme(),
                m,
                tau,
                cache);
    }

    /** The shingle set to verify with, or null for the estimate; warns when exact verification was wanted but the query has none. */
    private static byte[] exactSet(NearDupOptions options, LikeFingerprints.Minhash target, String minhashField) {
        if (options.exactVerification() == false) {
            return null;
        }
        if (target.shingleSet() == null) {
            HeaderWarning.addWarning(String.format(
                    Locale.ROOT,
                    "[%s] the query fingerprint has no shingle set, so candidates are "
                            + "verified on [%s] by the MinHash estimate, not the exact Jaccard similarity",
                    NAME,
                    minhashField));
        }
        return target.shingleSet();
    }
}
