/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import io.neardup.DataStreamTemplates;
import io.neardup.NearDupPlugin;
import io.neardup.compat.LuceneApi;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.admin.indices.rollover.RolloverResponse;
import org.opensearch.action.bulk.BulkItemResponse;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/**
 * Issue 41, "rollover during a bulk through the lookup": bulks of documents with planted copies sent through
 * {@code near_dup_lookup} into a data stream while the core {@code _rollover} API rolls it over from another thread,
 * each rollover started while a bulk is in flight. Nothing may be lost, doubled or failed, and every planted copy must
 * be flagged with its original and the backing index that really holds it.
 */
@ClusterScope(scope = Scope.SUITE, numDataNodes = 1, numClientNodes = 0, supportsDedicatedMasters = false)
public class NearDupLookupRolloverTests extends OpenSearchIntegTestCase {

    private static final int BULKS = 16;
    private static final int DOCS_PER_BULK = 30;
    private static final int ROLLOVERS = 4;

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** What a racing run left: each document's hit (its backing index, its source), by {@code _id}. */
    private record Raced(Map<String, PlantedSimhashes.Doc> docs, Map<String, SearchHit> hitOf) {
        @SuppressWarnings("unchecked")
        Map<String, Object> dup(String id) {
            return (Map<String, Object>) hitOf.get(id).getSourceAsMap().get("dup");
        }

        String indexOf(String id) {
            return hitOf.get(id).getIndex();
        }
    }

    /**
     * Every item of every bulk succeeds, every document is in the stream once, in the backing index its item named;
     * every copy names its original ({@code duplicate_of}, {@code cluster}, the similarity of the two simhashes) and a
     * backing index of the stream, and every original is its own cluster.
     */
    public void testRolloversDuringBulksFailNoDocumentAndMissNoCopy() throws Exception {
        Raced raced = race("racing");
        Set<String> backingIndices = new HashSet<>();
        raced.hitOf().values().forEach(hit -> backingIndices.add(hit.getIndex()));
        PlantedSimhashes.assertEveryCopyNamesItsOriginal(raced.docs().values(), raced::dup, backingIndices, BULKS);
    }

    /**
     * The indices a copy names are those that hold its original, and an original names its own, though a rollover
     * that lands between a bulk's ingest and its write (the write index is resolved again then) sends the whole bulk to
     * the next generation: the names its lookups assumed are corrected as the write begins ({@link
     * LookupWriteIndices}). Without that correction about one document in eight was named wrong here.
     */
    public void testRolloversDuringBulksNameTheBackingIndexThatHoldsTheOriginal() throws Exception {
        Raced raced = race("racing-indices");
        List<String> wrong = new ArrayList<>();
        for (PlantedSimhashes.Doc doc : raced.docs().values()) {
            Map<String, Object> dup = raced.dup(doc.id());
            String index = raced.indexOf(doc.originalOf() == null ? doc.id() : doc.originalOf());
            List<Object> expected = doc.originalOf() == null ? List.of(index) : List.of(index, index);
            List<Object> found = doc.originalOf() == null
                    ? Arrays.asList(dup.get("cluster_index"))
                    : Arrays.asList(dup.get("cluster_index"), dup.get("duplicate_of_index"));
            if (expected.equals(found) == false) {
                wrong.add(doc.id() + " in [" + raced.indexOf(doc.id()) + "]: " + dup + ", expected " + expected);
            }
        }
        assertTrue(wrong.size() + " wrong:\n" + String.join("\n", wrong), wrong.isEmpty());
    }

    /**
     * Sends the planted bulks through the lookup into data stream {@code stream} while {@value #ROLLOVERS} rollovers
     * run from another thread, each started once a given bulk has been sent and racing it (and whichever bulks follow
     * while it runs; the last bulk waits for the first rollover, so that at least one bulk meets a new generation); checks that no item failed, every rollover happened and every document is in the stream once, in
     * the backing index its item named.
     */
    private Raced race(String stream) throws Exception {
        String pipeline = stream + "-lookup";
        LookupIndicesTests.putPipeline(
                client(),
                pipeline,
                "{\"field\": \"fp.simhash\", \"max_distance\": " + PlantedSimhashes.DISTANCE
                        + ", \"target_field\": \"dup\", " + "\"recent_ttl\": \"10m\", \"recent_size\": 100000}");
        LookupIndicesTests.putStreamTemplate(client(), stream, pipeline, between(1, 3), Settings.EMPTY);
        try {
            List<List<PlantedSimhashes.Doc>> bulks = PlantedSimhashes.plant(random(), BULKS, DOCS_PER_BULK);
            // Bulk k (k in rolloverDuring) releases one rollover as it is sent; the first generation takes a bulk
            // first.
            List<Integer> rolloverDuring = new ArrayList<>();
            List<CountDownLatch> released = new ArrayList<>();
            for (int i = 0; i < ROLLOVERS; i++) {
                rolloverDuring.add(1 + i * (BULKS - 2) / ROLLOVERS);
                released.add(new CountDownLatch(1));
            }
            AtomicReference<Throwable> rolloverFailure = new AtomicReference<>();
            List<String> rolledOver = new ArrayList<>();
            // The last bulk waits for the first rollover: the others race the rollovers freely, and bulks that all end
            // before the first rollover does (a fast lookup, a slow cluster state update) would test no race at all.
            CountDownLatch firstRolledOver = new CountDownLatch(1);
            Thread roller = new Thread(
                    () -> {
                        try {
                            for (CountDownLatch latch : released) {
                                assertTrue(latch.await(30, TimeUnit.SECONDS));
                                RolloverResponse response = client().admin()
                                        .indices()
                                        .prepareRolloverIndex(stream)
                                        .get();
                                assertTrue(response.isRolledOver());
                                rolledOver.add(response.getNewIndex());
                                firstRolledOver.countDown();
                            }
                        } catch (Exception | AssertionError e) {
                            rolloverFailure.set(e);
                        }
                    },
                    "rollover-racing-bulks");

            Map<String, PlantedSimhashes.Doc> docs = new HashMap<>();
            Map<String, String> writtenTo = new HashMap<>();
            roller.start();
            try {
                for (int k = 0; k < bulks.size(); k++) {
                    if (k == bulks.size() - 1) {
                        assertTrue(
                                "the first rollover did not end: " + rolloverFailure.get(),
                                firstRolledOver.await(30, TimeUnit.SECONDS));
                    }
                    BulkRequestBuilder bulk = client().prepareBulk();
                    for (PlantedSimhashes.Doc doc : bulks.get(k)) {
                        docs.put(doc.id(), doc);
                        bulk.add(client().prepareIndex(stream)
                                .setId(doc.id())
                                .setOpType(DocWriteRequest.OpType.CREATE)
                                .setSource(Map.of(
                                        "@timestamp", "2026-11-27T00:00:00Z", "fp", Map.of("simhash", doc.hex()))));
                    }
                    var sent = bulk.execute();
                    int rollover = rolloverDuring.indexOf(k);
                    if (rollover >= 0) {
                        released.get(rollover).countDown();
                    }
                    BulkResponse response = sent.actionGet();
                    assertFalse("bulk " + k + ": " + response.buildFailureMessage(), response.hasFailures());
                    for (BulkItemResponse item : response.getItems()) {
                        writtenTo.put(item.getId(), item.getIndex());
                    }
                }
            } finally {
                released.forEach(CountDownLatch::countDown);
                roller.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertNull("rollovers: " + rolloverFailure.get(), rolloverFailure.get());
            assertEquals(ROLLOVERS, rolledOver.size());

            client().admin().indices().prepareRefresh(stream).get();
            SearchResponse all = client().prepareSearch(stream)
                    .setQuery(QueryBuilders.matchAllQuery())
                    .setSize(docs.size() + 1)
                    .get();
            assertEquals(docs.size(), LuceneApi.count(all.getHits().getTotalHits()));
            Map<String, SearchHit> hitOf = new HashMap<>();
            for (SearchHit hit : all.getHits().getHits()) {
                assertNull("twice: " + hit.getId(), hitOf.put(hit.getId(), hit));
                assertEquals(hit.getId(), writtenTo.get(hit.getId()), hit.getIndex());
            }
            assertEquals(docs.keySet(), hitOf.keySet());
            assertTrue(
                    "the generations took documents: "
                            + writtenTo.values().stream().distinct().toList(),
                    writtenTo.values().stream().distinct().count() > 1);
            return new Raced(docs, hitOf);
        } finally {
            DataStreamTemplates.delete(client(), stream);
        }
    }
}
