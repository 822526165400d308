/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.opensearch.test.hamcrest.OpenSearchAssertions.assertAcked;

import io.neardup.NearDupPlugin;
import io.neardup.compat.CoordinatorRewrite;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.action.search.CreatePitAction;
import org.opensearch.action.search.CreatePitRequest;
import org.opensearch.action.search.DeletePitAction;
import org.opensearch.action.search.DeletePitRequest;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.ShardSearchFailure;
import org.opensearch.action.support.WriteRequest;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.search.builder.PointInTimeBuilder;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.test.OpenSearchIntegTestCase.ClusterScope;
import org.opensearch.test.OpenSearchIntegTestCase.Scope;

/**
 * {@code like._id} without {@code _index} is the document of the index being searched: read once in each index
 * the request reads, by the query's rewrite on the coordinating node, and each shard takes its own index's
 * answer, on two nodes so that the answers cross the wire.
 */
@ClusterScope(scope = Scope.TEST, numDataNodes = 2, numClientNodes = 0, supportsDedicatedMasters = false)
public class LikeResolverTests extends OpenSearchIntegTestCase {

    private static final String LIKED = "liked";

    @Override
    protected Collection<Class<? extends Plugin>> nodePlugins() {
        return List.of(NearDupPlugin.class);
    }

    private void createIndex(String index, int shards, String refreshInterval) {
        assertAcked(prepareCreate(index)
                .setSettings(Settings.builder()
                        .put("index.number_of_shards", shards)
                        .put("index.number_of_replicas", 0)
                        .put("index.refresh_interval", refreshInterval)
                        .put("index.default_pipeline", "fp"))
                .setMapping("{\"properties\": {\"text_fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}, "
                        + "\"minhash\": {\"type\": \"minhash\"}}}, "
                        + "\"minhash_alias\": {\"type\": \"alias\", \"path\": \"text_fp.minhash\"}}}"));
    }

    private void index(String index, String id, String text, boolean refresh) {
        client().prepareIndex(index)
                .setId(id)
                .setSource(Map.of("text", text))
                .setRefreshPolicy(refresh ? WriteRequest.RefreshPolicy.IMMEDIATE : WriteRequest.RefreshPolicy.NONE)
                .get();
    }

    /**
     * {@code left} and {@code right} each hold a document {@value #LIKED} (texts a and b) and a copy of it with one
     * word changed; {@code right} also holds a copy of a, which only a query comparing with left's document finds.
     */
    private void setUpIndices() {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"text\"}}]}"),
                        XContentType.JSON)
                .get();
        Random random = random();
        String a = NearDuplicateClusterTests.text(random, 150);
        String b = NearDuplicateClusterTests.text(random, 150);
        createIndex("left", 3, "1s");
        createIndex("right", 2, "1s");
        createIndex("other", 2, "1s");
        index("left", LIKED, a, true);
        index("left", "a-copy", a.replaceFirst("w\\d+ ", "changed "), true);
        index("left", "unrelated", NearDuplicateClusterTests.text(random, 150), true);
        index("right", LIKED, b, true);
        index("right", "b-copy", b.replaceFirst("w\\d+ ", "changed "), true);
        index("right", "a-copy", a.replaceFirst("w\\d+ ", "altered "), true);
        index("other", "a-copy", a.replaceFirst("w\\d+ ", "changed "), true);
    }

    private static QueryBuilder likeQuery(String field, String id, String index) {
        return QueryBuilders.wrapperQuery(
                "{\"near_duplicate\": {\"field\": \"" + field + "\", \"like\": {\"_id\": \"" + id + "\""
                        + (index == null ? "" : ", \"_index\": \"" + index + "\"") + "}, \"min_similarity\": 0.5}}");
    }

    private static Set<String> hits(SearchResponse response) {
        Set<String> hits = new HashSet<>();
        for (SearchHit hit : response.getHits().getHits()) {
            hits.add(hit.getIndex() + "/" + hit.getId());
        }
        return hits;
    }

    private static SearchResponse search(QueryBuilder query, String... indices) {
        return client().prepareSearch(indices).setSize(100).setQuery(query).get();
    }

    private static long gets(String index) {
        return client().admin()
                .indices()
                .prepareStats(index)
                .setGet(true)
                .get()
                .getIndex(index)
                .getTotal()
                .getGet()
                .getCount();
    }

    /** Each index's shards compare with that index's own document: the same answers as naming each index in _index. */
    public void testEachIndexComparesWithItsOwnDocument() {
        setUpIndices();
        for (String field : List.of("text_fp.minhash", "text_fp.simhash")) {
            Set<String> named = new HashSet<>(hits(search(likeQuery(field, LIKED, "left"), "left")));
            named.addAll(hits(search(likeQuery(field, LIKED, "right"), "right")));
            SearchResponse response = search(likeQuery(field, LIKED, null), "left", "right");
            assertEquals(field + ": " + Arrays.toString(response.getShardFailures()), 0, response.getFailedShards());
            assertEquals(field, named, hits(response));
            assertEquals(field, hits(response), hits(search(likeQuery(field, LIKED, null), "le*", "-other", "r*")));
        }
        // Jaccard 0.5 and up: the copy of each index's own document, never the liked document itself.
        assertEquals(
                Set.of("left/a-copy", "right/b-copy"),
                hits(search(likeQuery("text_fp.minhash", LIKED, null), "left", "right")));
        // A field alias is compared as the field it names, read from the document at that field's path.
        assertEquals(
                Set.of("left/a-copy", "right/b-copy"),
                hits(search(likeQuery("minhash_alias", LIKED, null), "left", "right")));
        assertAcked(client().admin().indices().prepareAliases().addAlias(new String[] {"left", "right"}, "both"));
        assertEquals(
                Set.of("left/a-copy", "right/b-copy"), hits(search(likeQuery("text_fp.minhash", LIKED, null), "both")));
    }

    /** One GET per index searched, on the coordinating node; no shard reads it in the query or the fetch phase. */
    public void testOneReadPerIndexWhateverTheShards() {
        setUpIndices();
        long left = gets("left");
        long right = gets("right");
        long other = gets("other");
        search(likeQuery("text_fp.minhash", LIKED, null), "left", "right");
        if (CoordinatorRewrite.available() == false) {
            // OpenSearch 2.19 and 3.0.x: the rewrite cannot tell the indices searched, each shard reads it itself
            assertThat(gets("left") - left, greaterThanOrEqualTo(3L));
            assertThat(gets("right") - right, greaterThanOrEqualTo(2L));
            assertEquals("an index not searched is not read", 0, gets("other") - other);
            return;
        }
        assertEquals(1, gets("left") - left);
        assertEquals(1, gets("right") - right);
        assertEquals("an index not searched is not read", 0, gets("other") - other);
    }

    /**
     * An index without the document fails its own shards with a 400 naming the document and that index, as each
     * shard's own GET did; the other indices answer.
     */
    public void testAnIndexWithoutTheDocumentFailsItsOwnShards() {
        setUpIndices();
        SearchResponse response = search(likeQuery("text_fp.minhash", LIKED, null), "left", "other");
        assertEquals(3, response.getSuccessfulShards());
        assertEquals(2, response.getFailedShards());
        for (ShardSearchFailure failure : response.getShardFailures()) {
            assertEquals("other", failure.index());
            assertEquals(RestStatus.BAD_REQUEST, failure.status());
            assertTrue(
                    failure.reason(),
                    failure.reason().contains("[like._id] document [liked] not found in index [other]"));
        }
        assertEquals(Set.of("left/a-copy"), hits(response));
    }

    /** The read is a realtime GET: a document not yet refreshed is liked by its fingerprint. */
    public void testTheReadIsRealtime() {
        setUpIndices();
        createIndex("unrefreshed", 2, "-1");
        String text = NearDuplicateClusterTests.text(random(), 150);
        index("unrefreshed", "copy", text.replaceFirst("w\\d+ ", "changed "), true);
        index("unrefreshed", "fresh", text, false);
        assertEquals(
                Set.of("unrefreshed/copy"), hits(search(likeQuery("text_fp.minhash", "fresh", null), "unrefreshed")));
    }

    /** A point in time's indices are the ones read; explain and validate read the index they name. */
    public void testPointInTimeExplainAndValidateReadTheirIndices() throws Exception {
        setUpIndices();
        String pit = client().execute(
                        CreatePitAction.INSTANCE,
                        new CreatePitRequest(TimeValue.timeValueMinutes(1), false, "left", "right"))
                .get()
                .getId();
        SearchResponse inPit;
        try {
            inPit = client().search(new SearchRequest()
                            .source(new SearchSourceBuilder()
                                    .size(100)
                                    .query(likeQuery("text_fp.minhash", LIKED, null))
                                    .pointInTimeBuilder(new PointInTimeBuilder(pit))))
                    .get();
        } finally {
            client().execute(DeletePitAction.INSTANCE, new DeletePitRequest(pit))
                    .get();
        }
        assertEquals(Arrays.toString(inPit.getShardFailures()), 0, inPit.getFailedShards());
        assertEquals(Set.of("left/a-copy", "right/b-copy"), hits(inPit));

        assertTrue(client().prepareExplain("right", "b-copy")
                .setQuery(likeQuery("text_fp.minhash", LIKED, null))
                .get()
                .isMatch());
        assertFalse(client().prepareExplain("right", "a-copy")
                .setQuery(likeQuery("text_fp.minhash", LIKED, null))
                .get()
                .isMatch());
        assertTrue(client().admin()
                .indices()
                .prepareValidateQuery("left", "right")
                .setQuery(likeQuery("text_fp.minhash", LIKED, null))
                .get()
                .isValid());
        assertFalse(client().admin()
                .indices()
                .prepareValidateQuery("other")
                .setQuery(likeQuery("text_fp.minhash", LIKED, null))
                .get()
                .isValid());
    }

    private static QueryBuilder textQuery(String field, String text, String pipeline) {
        return QueryBuilders.wrapperQuery("{\"near_duplicate\": {\"field\": \"" + field + "\", \"like\": {\"text\": \""
                + text + "\"" + (pipeline == null ? "" : ", \"pipeline\": \"" + pipeline + "\"") + "}, "
                + "\"min_similarity\": 0.5}}");
    }

    /**
     * {@code like.text} with a named pipeline: read by the rewrite (asynchronously, as the caller) and carried to the
     * shards, so a search, an explain and a validate, whose shards rewrite nothing of their own, answer as with the
     * index's default pipeline, the same one here.
     */
    public void testANamedPipelineIsReadByTheRewrite() {
        setUpIndices();
        String text = client().prepareGet("left", LIKED)
                .get()
                .getSourceAsMap()
                .get("text")
                .toString();
        for (String field : List.of("text_fp.minhash", "text_fp.simhash")) {
            SearchResponse named = search(textQuery(field, text, "fp"), "left", "right");
            assertEquals(field + ": " + Arrays.toString(named.getShardFailures()), 0, named.getFailedShards());
            Set<String> expected = hits(search(textQuery(field, text, null), "left", "right"));
            assertTrue(field + ": " + expected, expected.contains("left/" + LIKED));
            assertEquals(field, expected, hits(named));
        }
        assertTrue(client().prepareExplain("left", "a-copy")
                .setQuery(textQuery("text_fp.minhash", text, "fp"))
                .get()
                .isMatch());
        assertTrue(client().admin()
                .indices()
                .prepareValidateQuery("left", "right")
                .setQuery(textQuery("text_fp.minhash", text, "fp"))
                .get()
                .isValid());
    }

    /** A pipeline that does not exist is a 400 naming it, from the rewrite, before any shard runs. */
    public void testANamedPipelineThatDoesNotExistIsA400NamingIt() {
        setUpIndices();
        for (String field : List.of("text_fp.minhash", "text_fp.simhash")) {
            Exception e = expectThrows(Exception.class, () -> search(textQuery(field, "some text", "missing"), "left"));
            assertEquals(field, RestStatus.BAD_REQUEST, org.opensearch.ExceptionsHelper.status(e));
            assertTrue(
                    field + ": " + e,
                    org.opensearch.ExceptionsHelper.unwrapCause(e)
                            .getMessage()
                            .contains("[like.text] pipeline [missing] does not exist"));
        }
    }

    /**
     * An alias filter is checked at its creation by a shard's rewrite that may wait for nothing: a named pipeline,
     * which is read as the caller, is refused there with a 400 saying what to do, not read on a blocked thread.
     */
    public void testAnAliasFilterNamingAPipelineIsRefused() {
        setUpIndices();
        Exception e = expectThrows(
                Exception.class,
                () -> client().admin()
                        .indices()
                        .prepareAliases()
                        .addAlias("left", "filtered", textQuery("text_fp.minhash", "some text", "fp"))
                        .get());
        assertEquals(RestStatus.BAD_REQUEST, org.opensearch.ExceptionsHelper.status(e));
        assertTrue(
                e.toString(),
                org.opensearch.ExceptionsHelper.stackTrace(e).contains("leave [like.pipeline] out there"));
    }
}
