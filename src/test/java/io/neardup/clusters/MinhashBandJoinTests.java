/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.index.IndexResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/** The band join's look-ups in another shard, more batches than it keeps unanswered. */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 1)
public class MinhashBandJoinTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** A routing value that lands on {@code shard} of the two-shard index. */
    private static String routingTo(String index, int shard) {
        for (int i = 0; ; i++) {
            IndexResponse probe = client().prepareIndex(index)
                    .setId("probe")
                    .setRouting("r" + i)
                    .setPipeline("_none")
                    .setSource(Map.of("probe", true))
                    .get();
            client().prepareDelete(index, "probe").setRouting("r" + i).get();
            if (probe.getShardId().id() == shard) {
                return "r" + i;
            }
        }
    }

    /**
     * Each of {@code pairs} texts in shard 0 has its copy (one word changed) in shard 1, so every document of shard 0
     * is looked up in shard 1: {@link MinhashBandJoin#PROBE_BATCH} at a time, at most
     * {@link MinhashBandJoin#PROBES_IN_FLIGHT} unanswered, the reading stopping and going on from the answers. Every
     * pair is found once, and nothing else.
     */
    public void testLookUpsOfMoreBatchesThanInFlightFindEveryPairOnce() throws Exception {
        int pairs = MinhashBandJoin.PROBE_BATCH * MinhashBandJoin.PROBES_IN_FLIGHT + between(1, 500);
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": "
                                + "{\"field\": \"text\", \"target_field\": \"fp\", \"outputs\": [\"minhash\"]}}]}"),
                        XContentType.JSON)
                .get();
        assertAcked(prepareCreate("pairs")
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", 2)
                        .put("index.number_of_replicas", 0)
                        .put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}}}}}"));
        String[] routing = {routingTo("pairs", 0), routingTo("pairs", 1)};
        Random random = random();
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int p = 0; p < pairs; p++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 40; w++) {
                text.append("w").append(random.nextInt(1_000_000)).append(' ');
            }
            bulk.add(client().prepareIndex("pairs")
                    .setId("a" + p)
                    .setRouting(routing[0])
                    .setSource(Map.of("text", text.toString())));
            bulk.add(client().prepareIndex("pairs")
                    .setId("b" + p)
                    .setRouting(routing[1])
                    .setSource(Map.of("text", text + "changed")));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        NearDupClustersRequest request;
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                NamedXContentRegistry.EMPTY,
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                "{\"field\": \"fp.minhash\", \"min_similarity\": 0.8, \"target_field\": \"dup\"}")) {
            request = NearDupClustersRequest.parse("pairs", parser).dryRun(true);
        }
        NearDupClustersResponse response =
                client().execute(NearDupClustersDryRunAction.INSTANCE, request).get();
        assertEquals(pairs, response.counts().matches());
        assertEquals(pairs, response.counts().clusters());
        assertEquals(2L * pairs, response.clusteredDocuments());
    }
}
