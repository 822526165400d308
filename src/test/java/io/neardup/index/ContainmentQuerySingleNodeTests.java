/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static org.hamcrest.Matchers.containsString;

import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.search.SearchPhaseExecutionException;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.Strings;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.xcontent.MediaTypeRegistry;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * Containment on a real node: man pages of the demo corpus embedded, lightly edited, in hosts 1.5 to 15 times their
 * length made of other pages. Every hit is checked against the exact containment of shingle sets built without the
 * plugin ({@link ShingleTruth}), in both directions; every pair well above the threshold is found.
 */
public class ContainmentQuerySingleNodeTests extends OpenSearchSingleNodeTestCase {
    private static final String MAPPING = """
        {"properties": {"body": {"type": "text"},
          "body_fp": {"properties": {"simhash": {"type": "simhash"},
                                     "minhash": {"type": "minhash", "containment": true}}}}}""";
    private static final double[] RATIOS = {1.5, 5, 15};

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected boolean resetNodeAfterTest() {
        return true;
    }

    private void putPipeline() {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}"),
                        XContentType.JSON)
                .get();
    }

    private void createIndex(String index, String mapping) {
        client().admin()
                .indices()
                .prepareCreate(index)
                .setSettings(Settings.builder().put("index.number_of_shards", 2).put("index.default_pipeline", "fp"))
                .setMapping(mapping)
                .get();
    }

    /** The planted corpus ({@link EmbeddedTexts}) and short texts that share nothing with it; returns id → text. */
    private Map<String, String> indexCorpus(Random random) throws IOException {
        Map<String, String> docs = new LinkedHashMap<>();
        for (EmbeddedTexts.Doc doc : EmbeddedTexts.build(random, 6, RATIOS, 11)) {
            docs.put(doc.id(), doc.text());
        }
        BulkRequestBuilder bulk = client().prepareBulk("texts");
        docs.forEach(
                (id, text) -> bulk.add(client().prepareIndex("texts").setId(id).setSource(Map.of("body", text))));
        // Short texts that share nothing with the rest: segments where a query's postings are few against the
        // documents, which ContainmentQuery counts as a sorted list rather than an array of the segment's size.
        for (int i = 0; i < 2000; i++) {
            bulk.add(client().prepareIndex("texts")
                    .setId("filler-" + i)
                    .setSource(
                            Map.of("body", "filler" + i + " x" + random.nextInt(1000) + " y" + random.nextInt(1000))));
        }
        BulkResponse indexed = bulk.setRefreshPolicy("true").get();
        assertFalse(indexed.buildFailureMessage(), indexed.hasFailures());
        return docs;
    }

    private SearchResponse search(String index, String query) {
        return client().prepareSearch(index)
                .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": " + query + "}"))
                .setSize(1000)
                .get();
    }

    private static String likeText(String text) throws IOException {
        return Strings.toString(MediaTypeRegistry.JSON, (builder, params) -> builder.field("text", text));
    }

    public void testHitsAreTheExactContainmentsInBothDirections() throws IOException {
        putPipeline();
        createIndex("texts", MAPPING);
        Map<String, String> docs = indexCorpus(new Random(random().nextLong()));
        Map<String, Set<String>> shingles = new HashMap<>();
        docs.forEach((id, text) -> shingles.put(id, ShingleTruth.shingles(text, 3)));
        double min = randomFrom(0.7, 0.8, 0.9);
        int checked = 0, nearThreshold = 0;
        for (String likeId : docs.keySet()) {
            if (likeId.startsWith("article-") == false && likeId.startsWith("host-") == false) {
                continue;
            }
            for (String contained : new String[] {"like", "document"}) {
                SearchResponse response = search(
                        "texts",
                        "{\"field\": \"body_fp.minhash\", \"like\": " + likeText(docs.get(likeId))
                                + ", \"min_containment\": " + min + ", \"contained\": \"" + contained + "\"}");
                Map<String, Float> hits = new HashMap<>();
                for (SearchHit hit : response.getHits().getHits()) {
                    assertFalse(hit.getId(), hit.getId().startsWith("filler-"));
                    hits.put(hit.getId(), hit.getScore());
                }
                for (String id : docs.keySet()) {
                    double truth = contained.equals("like")
                            ? ShingleTruth.containment(shingles.get(likeId), shingles.get(id))
                            : ShingleTruth.containment(shingles.get(id), shingles.get(likeId));
                    Float score = hits.get(id);
                    if (score != null) {
                        assertEquals(likeId + " " + contained + " " + id, truth, score, 1e-6);
                        assertTrue(truth >= min);
                    } else if (truth >= min + 0.1) {
                        fail(likeId + " " + contained + " " + id + ": containment " + truth + " >= " + min
                                + " + 0.1 and not found");
                    } else if (truth >= min) {
                        nearThreshold++;
                    }
                }
                checked++;
            }
            // Each article is found inside every one of its hosts, and each host's article inside it.
            if (likeId.startsWith("article-")) {
                String n = likeId.substring("article-".length());
                for (double ratio : RATIOS) {
                    String host = "host-" + n + "-" + ratio;
                    assertTrue(
                            likeId + " in " + host + ": "
                                    + ShingleTruth.containment(shingles.get(likeId), shingles.get(host)),
                            ShingleTruth.containment(shingles.get(likeId), shingles.get(host)) >= 0.8);
                }
            }
        }
        assertTrue(checked >= 40);
        logger.info(
                "{} containment queries at {} checked against the truth; {} pairs within 0.1 above it missed",
                checked,
                min,
                nearThreshold);
    }

    public void testExplainSaysWhichShareWasFound() throws IOException {
        putPipeline();
        createIndex("texts", MAPPING);
        Map<String, String> docs = indexCorpus(new Random(random().nextLong()));
        String article = docs.get("article-0");
        String query =
                "{\"field\": \"body_fp.minhash\", \"like\": " + likeText(article) + ", \"min_containment\": 0.7}";
        SearchResponse response = client().prepareSearch("texts")
                .setQuery(QueryBuilders.wrapperQuery("{\"near_duplicate\": " + query + "}"))
                .setExplain(true)
                .setSize(100)
                .get();
        Set<String> article0 = ShingleTruth.shingles(article, 3);
        boolean hostFound = false;
        for (SearchHit hit : response.getHits().getHits()) {
            String description = hit.getExplanation().toString();
            int common = (int) Math.round(hit.getScore() * article0.size());
            assertThat(
                    description,
                    containsString(common + " of the " + article0.size()
                            + " shingles of the query's text are in the document (exact containment"));
            hostFound |= hit.getId().startsWith("host-0-");
        }
        assertTrue(hostFound);

        // A deleted host is no hit (the collector drops it; the query's answer itself is cacheable), the others stay.
        client().prepareDelete("texts", "host-0-5.0").setRefreshPolicy("true").get();
        Set<String> after = new java.util.HashSet<>();
        for (SearchHit hit : search("texts", query).getHits().getHits()) {
            after.add(hit.getId());
        }
        assertFalse(after.toString(), after.contains("host-0-5.0"));
        assertTrue(after.toString(), after.contains("host-0-1.5") && after.contains("host-0-15.0"));
    }

    public void testRefusals() throws IOException {
        putPipeline();
        createIndex("texts", MAPPING);
        createIndex("plain", MAPPING.replace(", \"containment\": true", ""));
        client().prepareIndex("plain")
                .setId("1")
                .setSource(Map.of("body", "one two three four five six seven"))
                .setRefreshPolicy("true")
                .get();
        String like = "{\"text\": \"one two three four five six seven\"}";
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(
                "{\"field\": \"body_fp.minhash\", \"like\": " + like
                        + ", \"min_containment\": 0.8, \"min_similarity\": 0.8}",
                "[near_duplicate] [min_similarity] does not apply with [min_containment]");
        refused.put(
                "{\"field\": \"body_fp.minhash\", \"like\": " + like + ", \"min_containment\": 0.3}",
                "[near_duplicate] [min_containment] must be in [0.5, 1], got [0.3]");
        refused.put(
                "{\"field\": \"body_fp.minhash\", \"like\": " + like + ", \"contained\": \"like\"}",
                "[near_duplicate] [contained] goes with [min_containment]");
        refused.put(
                "{\"field\": \"body_fp.minhash\", \"like\": " + like
                        + ", \"min_containment\": 0.8, \"contained\": \"both\"}",
                "[near_duplicate] [contained] must be [like] or [document], got [both]");
        refused.put(
                "{\"field\": \"body_fp.simhash\", \"like\": " + like + ", \"min_containment\": 0.8}",
                "[near_duplicate] [min_containment] applies to [minhash] fields; [body_fp.simhash] is a [simhash] field");
        String signatureOnly = SignatureCodec.encode(new int[128], 0, FingerprintFormat.COMPACT);
        refused.put(
                "{\"field\": \"body_fp.minhash\", \"like\": {\"minhash\": \"" + signatureOnly
                        + "\"}, \"min_containment\": 0.8}",
                "[near_duplicate] [min_containment] compares shingle sets, and the query fingerprint has none");
        for (Map.Entry<String, String> entry : refused.entrySet()) {
            Exception e = expectThrows(Exception.class, () -> search("texts", entry.getKey()));
            assertThat(
                    entry.getKey(),
                    org.opensearch.ExceptionsHelper.unwrapCause(e).getMessage() + " / " + e.getMessage() + detail(e),
                    containsString(entry.getValue()));
        }
        SearchPhaseExecutionException e = expectThrows(
                SearchPhaseExecutionException.class,
                () -> search(
                        "plain", "{\"field\": \"body_fp.minhash\", \"like\": " + like + ", \"min_containment\": 0.8}"));
        assertThat(
                detail(e),
                containsString("[near_duplicate] [min_containment] needs field [body_fp.minhash] mapped with "
                        + "[containment: true], and it is not"));
    }

    private static String detail(Exception e) {
        if (e instanceof SearchPhaseExecutionException phase && phase.shardFailures().length > 0) {
            return phase.shardFailures()[0].reason();
        }
        return String.valueOf(e.getCause());
    }

    public void testMappingRecordsTheSamplingAndRefusesChanges() {
        createIndex("texts", MAPPING);
        Map<String, Object> mapping = client().admin()
                .indices()
                .prepareGetMappings("texts")
                .get()
                .mappings()
                .get("texts")
                .sourceAsMap();
        assertThat(mapping.toString(), containsString("containment=true, containment_sampling=4"));
        MapperParsingException unapplied = expectThrows(
                MapperParsingException.class,
                () -> createIndex("other", MAPPING.replace("\"containment\": true", "\"containment_sampling\": 8")));
        assertThat(
                unapplied.getMessage() + unapplied.getCause(),
                containsString("[containment_sampling] applies with [containment: true]"));
        expectThrows(
                MapperParsingException.class,
                () -> createIndex(
                        "other",
                        MAPPING.replace(
                                "\"containment\": true", "\"containment\": true, \"containment_sampling\": 65")));
        IllegalArgumentException changed = expectThrows(
                IllegalArgumentException.class,
                () -> client().admin()
                        .indices()
                        .preparePutMapping("texts")
                        .setSource(
                                MAPPING.replace("\"containment\": true", "\"containment\": false"), XContentType.JSON)
                        .get());
        assertThat(changed.getMessage(), containsString("Cannot update parameter [containment]"));
    }
}
