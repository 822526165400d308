/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import static org.hamcrest.Matchers.instanceOf;

import io.neardup.NearDupPlugin;
import io.neardup.core.LshBanding;
import io.neardup.core.Margins;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.index.MinhashSimilarityQuery;
import io.neardup.index.NearDupOptions;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.index.SimhashNeighborQuery;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.search.Query;
import org.opensearch.common.compress.CompressedXContent;
import org.opensearch.index.mapper.MapperService;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.AbstractQueryTestCase;

/** The builder under OpenSearch's own query test base: parsing, serialization, equality, rewriting and toQuery, on random builders. */
public class NearDuplicateQueryBuilderQueryTests extends AbstractQueryTestCase<NearDuplicateQueryBuilder> {

    private static final String SIMHASH = "fp.simhash";
    private static final String MINHASH = "fp.minhash";
    private static final int SCHEME_HASH = 0x0123abcd;
    private static final QueryServices SERVICES = new QueryServices(
            new LikeResolver(() -> null, () -> null, () -> null, null), new SegmentFingerprintCache(() -> null));

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class, org.opensearch.test.TestGeoShapeFieldMapperPlugin.class);
    }

    @Override
    protected void initializeAdditionalMappings(MapperService mapperService) throws IOException {
        mapperService.merge("_doc", new CompressedXContent("""
            {"properties": {"fp": {"properties": {"simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}}}}}"""), MapperService.MergeReason.MAPPING_UPDATE);
    }

    @Override
    protected NearDuplicateQueryBuilder doCreateTestQueryBuilder() {
        NearDuplicateQueryBuilder builder;
        if (randomBoolean()) {
            double[] weights = new double[Margins.BITS];
            for (int i = 0; i < weights.length; i++) {
                weights[i] = randomDoubleBetween(-10, 10, true);
            }
            boolean exact = randomBoolean();
            Like like = Like.simhash(
                    SimhashCodec.toHex(randomLong()),
                    exact && randomBoolean()
                            ? null
                            : Margins.of(weights, Margins.BITS).encode(),
                    null);
            builder = new NearDuplicateQueryBuilder(SIMHASH, like, SERVICES)
                    .maxDistance(randomIntBetween(0, 8))
                    .mode(exact ? NearDupOptions.Mode.EXACT : NearDupOptions.Mode.PSM);
            if (exact == false && randomBoolean()) {
                builder.maxFlips(randomIntBetween(1, 500)).firstMatch(randomBoolean());
            }
            if (randomBoolean()) {
                builder.prefixBits(randomBoolean() ? NearDupOptions.AUTO_PREFIX_BITS : randomIntBetween(1, 32));
            }
        } else {
            int[] signature = randomIntArray(128);
            int[] set = Arrays.stream(randomIntArray(between(1, 50)))
                    .distinct()
                    .sorted()
                    .toArray();
            String shingles = randomBoolean() ? ShingleSetCodec.encode(set, SCHEME_HASH) : null;
            double tau = randomDoubleBetween(0.5, 1.0, true);
            builder = new NearDuplicateQueryBuilder(
                            MINHASH,
                            Like.minhash(SignatureCodec.encode(signature, SCHEME_HASH), shingles, null),
                            SERVICES)
                    .minSimilarity(tau);
            // Within what the default banding finds reliably, and verified as the query can: no warning to expect.
            if (randomBoolean()) {
                builder.minBandMatches(
                        randomIntBetween(1, LshBanding.forFloor(0.5, 128).minBandMatchesFor(tau)));
            }
            if (shingles == null || randomBoolean()) {
                builder.verification(
                        shingles == null
                                ? NearDupOptions.Verification.ESTIMATE
                                : randomFrom(NearDupOptions.Verification.values()));
            }
        }
        return builder.ignoreUnmapped(randomBoolean());
    }

    private static int[] randomIntArray(int n) {
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = randomInt() & Integer.MAX_VALUE; // positive: ascending as signed and unsigned
        }
        return values;
    }

    @Override
    protected void doAssertLuceneQuery(NearDuplicateQueryBuilder builder, Query query, QueryShardContext context) {
        if (builder.field().equals(SIMHASH)) {
            assertThat(query, instanceOf(SimhashNeighborQuery.class));
        } else {
            assertThat(query, instanceOf(MinhashSimilarityQuery.class));
        }
    }

    @Override
    protected boolean builderGeneratesCacheableQueries() {
        return true;
    }
}
