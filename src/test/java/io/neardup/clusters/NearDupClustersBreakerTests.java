/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.compat.LuceneApi;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.match.MatchSpec;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.core.indices.breaker.CircuitBreakerService;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/** The near-duplicate graph is charged to the {@code neardup} breaker before it grows: past the limit, a 429 and nothing written. */
@ClusterScope(scope = Scope.TEST, numDataNodes = 1)
public class NearDupClustersBreakerTests extends OpenSearchIntegTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected Settings nodeSettings(int nodeOrdinal) {
        // Room for the segment structures of the index below (~260 KB while built), not for them and its graph (~360
        // KB) together.
        return Settings.builder()
                .put(super.nodeSettings(nodeOrdinal))
                .put(NearDupPlugin.BREAKER_LIMIT.getKey(), "400kb")
                .build();
    }

    public void testAGraphPastTheBreakerFailsBeforeAnyWrite() throws Exception {
        assertAcked(prepareCreate("big")
                .setSettings(Settings.builder().put("index.number_of_shards", 1).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int i = 0; i < 1_000; i++) {
            // 500 pairs of twins: every document has a near-duplicate.
            long fp = (long) (i / 2) * 0x9E3779B97F4A7C15L;
            bulk.add(client().prepareIndex("big")
                    .setId(String.format(java.util.Locale.ROOT, "%0100d", i))
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(fp ^ (i % 2))))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        NearDupClustersRequest request =
                ClusterRequests.fullRun("big", new MatchSpec("fp.simhash", 1, null, null, null, null));
        CircuitBreakingException e = expectThrows(
                CircuitBreakingException.class,
                () -> client().execute(NearDupClustersAction.INSTANCE, request).actionGet());
        assertEquals(RestStatus.TOO_MANY_REQUESTS, e.status());
        assertTrue(
                "the graph tripped it, not the segment structures: " + e.getMessage(),
                e.getMessage().contains("[near_dup_clusters]"));
        assertNothingWritten("big");
        // A step still in flight when the run failed gives its memory back when it ends.
        assertBusy(() -> assertEquals(
                "the failed run gave its memory back; what is left is the segment structures",
                segmentStructureBytes(),
                breakerUsed()));
        NearDupClustersRunBytesTests.assertNoRunLeftOnTheNodes();
    }

    public void testMatchesOfAWindowArePastTheBreakerBeforeTheyAreKept() throws Exception {
        assertAcked(prepareCreate("copies")
                .setSettings(Settings.builder().put("index.number_of_shards", 1).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}"));
        BulkRequestBuilder bulk = client().prepareBulk();
        // 400 copies of one text: ~80,000 pairs, one window; their matches need megabytes on the shard's node.
        for (int i = 0; i < 400; i++) {
            bulk.add(client().prepareIndex("copies")
                    .setId("c" + i)
                    .setSource(Map.of("fp", Map.of("simhash", SimhashCodec.toHex(0x0123456789abcdefL)))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
        NearDupClustersRequest request = ClusterRequests.fullRun(
                        "copies", new MatchSpec("fp.simhash", 0, null, null, null, null))
                .scrollSize(1_000);
        CircuitBreakingException tripped = tripped(request);
        // The pairs found by doc id trip it as they grow, before their _ids are read into the shard's match list.
        assertTrue(tripped.getMessage(), tripped.getMessage().contains("[near_dup_clusters matched documents]"));
        assertNothingWritten("copies");
        // A step still in flight when the run failed gives its memory back when it ends.
        assertBusy(() -> assertEquals(
                "the shard gave back what its matches took; left: the segment structures",
                segmentStructureBytes(),
                breakerUsed()));
        NearDupClustersRunBytesTests.assertNoRunLeftOnTheNodes();
    }

    /**
     * The band join of a {@code minhash} run reserves its buckets and counters before it takes them:
     * 1,000 copies in one shard (42 buckets of 1,000) need more than the limit; a 429 naming the
     * join, nothing written, nothing left held.
     */
    public void testBandJoinPastTheBreakerFailsBeforeAnyWrite() throws Exception {
        indexCopiesOfOneSignature("copies-mh", 1_000);
        long before = breakerUsed();
        NearDupClustersRequest request =
                ClusterRequests.fullRun("copies-mh", new MatchSpec("fp.minhash", null, null, null, 0.8, null));
        CircuitBreakingException tripped = tripped(request);
        assertEquals(RestStatus.TOO_MANY_REQUESTS, tripped.status());
        assertTrue(tripped.getMessage(), tripped.getMessage().contains("band join of [fp.minhash]"));
        assertNothingWritten("copies-mh");
        assertEquals("the join gave back everything it reserved", before, breakerUsed());
        NearDupClustersRunBytesTests.assertNoRunLeftOnTheNodes();
    }

    /**
     * With {@code leader} linkage the band join keeps every verified pair: 300 copies in one shard are ~45,000
     * pairs (~0.9 MB by doc id), reserved as they are found; a 429 naming them, nothing written, nothing held.
     */
    public void testEveryPairOfLeaderLinkagePastTheBreakerFailsBeforeAnyWrite() throws Exception {
        indexCopiesOfOneSignature("copies-leader", 300);
        long before = breakerUsed();
        NearDupClustersRequest request = new NearDupClustersRequest(
                "copies-leader",
                new MatchSpec("fp.minhash", null, null, null, 0.8, null),
                "dup",
                NearDupClustersRequest.Linkage.LEADER,
                List.of(),
                true,
                null,
                false);
        CircuitBreakingException tripped = tripped(request);
        assertEquals(RestStatus.TOO_MANY_REQUESTS, tripped.status());
        assertTrue(tripped.getMessage(), tripped.getMessage().contains("[near_dup_clusters matched documents]"));
        assertNothingWritten("copies-leader");
        assertEquals("the shard gave back everything it reserved", before, breakerUsed());
    }

    /** A new index of one shard holding {@code copies} documents with one and the same MinHash signature. */
    private void indexCopiesOfOneSignature(String index, int copies) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder().put("index.number_of_shards", 1).put("index.number_of_replicas", 0))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"minhash\": {\"type\": \"minhash\"}}}}}"));
        String signature =
                SignatureCodec.encode(random().ints(128).toArray(), 0x5eed, FingerprintFormat.NEW_INDEX_DEFAULT);
        BulkRequestBuilder bulk = client().prepareBulk();
        for (int i = 0; i < copies; i++) {
            bulk.add(client().prepareIndex(index)
                    .setId("c" + i)
                    .setSource(Map.of("fp", Map.of("minhash", Map.of("value", signature)))));
        }
        assertFalse(bulk.setRefreshPolicy("true").get().hasFailures());
    }

    /** The breaker exception that failed {@code request}'s run, wherever in the causes it is. */
    private static CircuitBreakingException tripped(NearDupClustersRequest request) {
        Exception e = expectThrows(
                Exception.class,
                () -> client().execute(NearDupClustersAction.INSTANCE, request).actionGet());
        CircuitBreakingException tripped =
                (CircuitBreakingException) org.opensearch.ExceptionsHelper.unwrap(e, CircuitBreakingException.class);
        assertNotNull("a breaker tripped: " + e, tripped);
        return tripped;
    }

    private static void assertNothingWritten(String index) {
        assertEquals(
                "nothing written",
                0,
                LuceneApi.count(client().prepareSearch(index)
                        .setQuery(QueryBuilders.existsQuery("dup.cluster"))
                        .get()
                        .getHits()
                        .getTotalHits()));
    }

    /**
     * What the nodes' cached segment structures hold of the breaker (built by the runs' window joins), summed over the
     * nodes as {@link #breakerUsed} is: {@code getInstance} answers for one node drawn at random, which with some seeds
     * is a node without the shard (0 bytes) beside a breaker holding the shard node's structures.
     */
    static long segmentStructureBytes() {
        long bytes = 0;
        for (SegmentFingerprintCache cache : internalCluster().getInstances(SegmentFingerprintCache.class)) {
            bytes += cache.stats().bytes();
        }
        return bytes;
    }

    /** The breaker's use, summed over the nodes (as the structures are). */
    static long breakerUsed() {
        long used = 0;
        for (CircuitBreakerService service : internalCluster().getInstances(CircuitBreakerService.class)) {
            used += service.getBreaker(NearDupPlugin.BREAKER_NAME).getUsed();
        }
        return used;
    }
}
