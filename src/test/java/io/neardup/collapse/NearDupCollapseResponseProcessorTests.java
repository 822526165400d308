/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import static io.neardup.collapse.CollapseTestHits.SCHEME;
import static io.neardup.collapse.CollapseTestHits.SCHEME_HASH;
import static io.neardup.collapse.CollapseTestHits.docValueHit;
import static io.neardup.collapse.CollapseTestHits.flip;
import static io.neardup.collapse.CollapseTestHits.hex;
import static io.neardup.collapse.CollapseTestHits.minhashHit;
import static io.neardup.collapse.CollapseTestHits.perturb;
import static io.neardup.collapse.CollapseTestHits.randomSignature;
import static io.neardup.collapse.CollapseTestHits.response;
import static io.neardup.collapse.CollapseTestHits.simhashHit;
import static io.neardup.collapse.CollapseTestHits.sourceHit;

import io.neardup.compat.LuceneApi;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.common.document.DocumentField;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.core.xcontent.MediaTypeRegistry;
import org.opensearch.core.xcontent.ToXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.search.SearchHit;
import org.opensearch.search.SearchShardTarget;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.pipeline.PipelineProcessingContext;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.test.OpenSearchTestCase;

/** The response processor on crafted hits: folding in rank order, paging, ids, missing and mismatched fingerprints. */
public class NearDupCollapseResponseProcessorTests extends OpenSearchTestCase {

    private static final String SIMHASH = "body_fp.simhash";
    private static final String MINHASH = "body_fp.minhash";
    private static final Processor.PipelineContext PIPELINE =
            new Processor.PipelineContext(Processor.PipelineSource.UPDATE_PIPELINE);

    private static NearDupCollapseResponseProcessor processor(Map<String, Object> config) {
        return new NearDupCollapseResponseProcessor.Factory()
                .create(null, null, null, false, new HashMap<>(config), PIPELINE);
    }

    private static List<String> ids(SearchResponse response) {
        List<String> ids = new ArrayList<>();
        for (SearchHit hit : response.getHits().getHits()) {
            ids.add(hit.getId());
        }
        return ids;
    }

    private static int folded(SearchHit hit) {
        DocumentField field = hit.field(NearDupCollapseResponseProcessor.FOLDED_FIELD);
        assertNotNull("hit [" + hit.getId() + "] has no " + NearDupCollapseResponseProcessor.FOLDED_FIELD, field);
        return (Integer) field.getValue();
    }

    private static List<Object> foldedIds(SearchHit hit) {
        DocumentField field = hit.field(NearDupCollapseResponseProcessor.IDS_FIELD);
        return field == null ? List.of() : field.getValues();
    }

    private static SearchHit hit(SearchResponse response, String id) {
        for (SearchHit hit : response.getHits().getHits()) {
            if (hit.getId().equals(id)) {
                return hit;
            }
        }
        throw new AssertionError("no hit [" + id + "] in " + ids(response));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> ext(SearchResponse response) throws Exception {
        XContentBuilder builder = JsonXContent.contentBuilder();
        response.toXContent(builder, ToXContent.EMPTY_PARAMS);
        Map<String, Object> map = XContentHelper.convertToMap(
                        BytesReference.bytes(builder), false, MediaTypeRegistry.JSON)
                .v2();
        return (Map<String, Object>) ((Map<String, Object>) map.get("ext")).get("near_dup_collapse");
    }

    /**
     * Planted copies at several ranks: a0 (rank 0) with copies at ranks 2, 5, 9; b0 (rank 1) with a copy at
     * rank 7; the others unrelated (>= 20 bits from everything). Leaders stay in rank order, copies fold into
     * the best-ranked one, unrelated hits are never folded.
     */
    public void testGreedyFoldingInRankOrder() throws Exception {
        Random random = random();
        long a = random.nextLong();
        long b = a ^ 0xFFFFFFFF00000000L; // 32 bits away from a
        long[] unrelated = {
            a ^ 0x00000000FFFFFFFFL,
            a ^ 0x0000FFFFFFFF0000L,
            a ^ 0xFFFF00000000FFFFL,
            a ^ 0x00FFFF0000FFFF00L,
            a ^ 0xF0F0F0F0F0F0F0F0L
        };
        SearchHit[] hits = {
            simhashHit("a0", a, SCHEME),
            simhashHit("b0", b, SCHEME),
            simhashHit("a1", flip(a, 1, random), SCHEME),
            simhashHit("u0", unrelated[0], SCHEME),
            simhashHit("u1", unrelated[1], SCHEME),
            simhashHit("a2", flip(a, 3, random), SCHEME),
            simhashHit("u2", unrelated[2], SCHEME),
            simhashHit("b1", flip(b, 2, random), SCHEME),
            simhashHit("u3", unrelated[3], SCHEME),
            simhashHit("a3", a, SCHEME),
            simhashHit("u4", unrelated[4], SCHEME)
        };
        SearchResponse out = processor(Map.of("field", SIMHASH, "max_distance", 3))
                .processResponse(new SearchRequest(), response(hits), new PipelineProcessingContext());
        assertEquals(List.of("a0", "b0", "u0", "u1", "u2", "u3", "u4"), ids(out));
        assertEquals(3, folded(hit(out, "a0")));
        assertEquals(List.of("a1", "a2", "a3"), foldedIds(hit(out, "a0")));
        assertEquals(1, folded(hit(out, "b0")));
        assertEquals(List.of("b1"), foldedIds(hit(out, "b0")));
        for (String u : List.of("u0", "u1", "u2", "u3", "u4")) {
            assertEquals(u, 0, folded(hit(out, u)));
            assertEquals(u, List.of(), foldedIds(hit(out, u)));
        }
        assertEquals(
                "hits.total is the engine's count",
                1000,
                LuceneApi.count(out.getHits().getTotalHits()));
        Map<String, Object> ext = ext(out);
        assertEquals(SIMHASH, ext.get("field"));
        assertEquals("simhash", ext.get("fingerprint"));
        assertEquals(11, ext.get("hits"));
        assertEquals(7, ext.get("groups"));
        assertEquals(4, ext.get("folded"));
        assertEquals(0, ext.get("without_fingerprint"));
        assertFalse("no window processor, no window", ext.containsKey("window"));
    }

    /** The threshold is inclusive, and one bit past it is not folded. */
    public void testThresholdIsInclusive() {
        long a = randomLong();
        long[] masks = {0b111L, 0b1111L};
        SearchResponse out = processor(Map.of("field", SIMHASH, "max_distance", 3))
                .processResponse(
                        new SearchRequest(),
                        response(
                                simhashHit("a", a, SCHEME),
                                simhashHit("d3", a ^ masks[0], SCHEME),
                                simhashHit("d4", a ^ masks[1], SCHEME)),
                        new PipelineProcessingContext());
        assertEquals(List.of("a", "d4"), ids(out));
        assertEquals(List.of("d3"), foldedIds(hit(out, "a")));
    }

    /**
     * A ~ B (2 bits), B ~ C (2 bits), A and C 4 bits apart: B folds into A; C is compared with the leader A
     * only, not with the folded B, so it stays a leader. D, 3 bits from A and 1 from C, folds into A: the
     * best-ranked leader within the threshold wins.
     */
    public void testChainsDoNotPropagateAndBestRankedLeaderWins() {
        long a = 0x0123456789abcdefL;
        long b = a ^ 0b0011L;
        long c = a ^ 0b1111L;
        long d = a ^ 0b0111L;
        SearchResponse out = processor(Map.of("field", SIMHASH, "max_distance", 3))
                .processResponse(
                        new SearchRequest(),
                        response(
                                simhashHit("A", a, SCHEME),
                                simhashHit("B", b, SCHEME),
                                simhashHit("C", c, SCHEME),
                                simhashHit("D", d, SCHEME)),
                        new PipelineProcessingContext());
        assertEquals(List.of("A", "C"), ids(out));
        assertEquals(List.of("B", "D"), foldedIds(hit(out, "A")));
        assertEquals(0, folded(hit(out, "C")));
    }

    /** Hits without the field (no _source, _source without it, an empty array) are kept as groups of their own. */
    public void testHitsWithoutFingerprintAreKept() throws Exception {
        long a = randomLong();
        SearchResponse out = processor(Map.of("field", SIMHASH))
                .processResponse(
                        new SearchRequest(),
                        response(
                                new SearchHit(0, "nosource", new HashMap<>(), new HashMap<>()),
                                simhashHit("a", a, SCHEME),
                                sourceHit("other", Map.of("title", "no fingerprint")),
                                simhashHit("a-copy", a, SCHEME),
                                sourceHit("empty", Map.of("body_fp", Map.of("simhash", List.of()))),
                                sourceHit("nosource2", Map.of())),
                        new PipelineProcessingContext());
        assertEquals(List.of("nosource", "a", "other", "empty", "nosource2"), ids(out));
        assertEquals(0, folded(hit(out, "nosource")));
        assertEquals(1, folded(hit(out, "a")));
        Map<String, Object> ext = ext(out);
        assertEquals(4, ext.get("without_fingerprint"));
        assertEquals(5, ext.get("groups"));
        assertEquals(1, ext.get("folded"));
    }

    /**
     * Fingerprints of different schemes are never compared: an identical value of another scheme, or
     * without a scheme (a bare hex value), is not folded, but can lead its own scheme's group.
     */
    public void testSchemesAreNeverMixed() {
        long a = randomLong();
        SearchResponse out = processor(Map.of("field", SIMHASH, "max_distance", 3))
                .processResponse(
                        new SearchRequest(),
                        response(
                                simhashHit("a", a, SCHEME),
                                simhashHit("other-scheme", a, "nd1-deadbeef"),
                                simhashHit("bare", a, null),
                                simhashHit("a-copy", flip(a, 1, random()), SCHEME),
                                simhashHit("other-copy", a, "nd1-deadbeef"),
                                simhashHit("bare-copy", flip(a, 2, random()), null)),
                        new PipelineProcessingContext());
        assertEquals(List.of("a", "other-scheme", "bare"), ids(out));
        assertEquals(List.of("a-copy"), foldedIds(hit(out, "a")));
        assertEquals(List.of("other-copy"), foldedIds(hit(out, "other-scheme")));
        assertEquals(List.of("bare-copy"), foldedIds(hit(out, "bare")));
    }

    public void testMinhashSchemesAreNeverMixed() {
        int[] sig = randomSignature(128, random());
        SearchResponse out = processor(Map.of("field", MINHASH, "min_similarity", 0.9))
                .processResponse(
                        new SearchRequest(),
                        response(
                                minhashHit("a", sig, SCHEME_HASH),
                                minhashHit("other", sig, 0x12345678),
                                minhashHit("a-copy", sig, SCHEME_HASH)),
                        new PipelineProcessingContext());
        assertEquals(List.of("a", "other"), ids(out));
        assertEquals(List.of("a-copy"), foldedIds(hit(out, "a")));
    }

    /** min_similarity on MinHash signatures: 13 of 128 positions changed is 0.898 (not folded at 0.9), 12 is 0.906 (folded). */
    public void testMinhashFolding() throws Exception {
        Random random = random();
        int[] a = randomSignature(128, random);
        int[] b = randomSignature(128, random);
        SearchResponse out = processor(Map.of("field", MINHASH, "min_similarity", 0.9))
                .processResponse(
                        new SearchRequest(),
                        response(
                                minhashHit("a", a, SCHEME_HASH),
                                minhashHit("b", b, SCHEME_HASH),
                                minhashHit("a12", perturb(a, 12, random), SCHEME_HASH),
                                minhashHit("a13", perturb(a, 13, random), SCHEME_HASH),
                                minhashHit("b0", b, SCHEME_HASH)),
                        new PipelineProcessingContext());
        assertEquals(List.of("a", "b", "a13"), ids(out));
        assertEquals(List.of("a12"), foldedIds(hit(out, "a")));
        assertEquals(List.of("b0"), foldedIds(hit(out, "b")));
        assertEquals("minhash", ext(out).get("fingerprint"));
    }

    /** Without max_distance or min_similarity the kind is told by the values: signatures get min_similarity 0.8. */
    public void testKindFromValues() {
        Random random = random();
        int[] a = randomSignature(64, random);
        SearchResponse out = processor(Map.of("field", MINHASH))
                .processResponse(
                        new SearchRequest(),
                        response(
                                minhashHit("a", a, SCHEME_HASH),
                                minhashHit("a12", perturb(a, 12, random), SCHEME_HASH),
                                minhashHit("a13", perturb(a, 13, random), SCHEME_HASH)),
                        new PipelineProcessingContext());
        assertEquals("12/64 changed is 0.8125, 13/64 is 0.797", List.of("a", "a13"), ids(out));
    }

    public void testKindMismatchFails() {
        int[] sig = randomSignature(128, random());
        SearchHit minhash = minhashHit("m1", sig, SCHEME_HASH);
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "body_fp.minhash", "max_distance", 3))
                        .processResponse(new SearchRequest(), response(minhash), new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [body_fp.minhash] of hit [m1] holds a minhash, but the processor was configured for "
                        + "simhash fingerprints with [max_distance]",
                e.getMessage());

        SearchHit a = sourceHit("s1", Map.of("fp", hex(42)));
        SearchHit b = sourceHit("m2", Map.of("fp", io.neardup.core.SignatureCodec.encode(sig, SCHEME_HASH)));
        e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "fp"))
                        .processResponse(new SearchRequest(), response(a, b), new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [fp] of hit [m2] holds a minhash, but hit [s1] holds a simhash",
                e.getMessage());
    }

    public void testNotAFingerprintFails() {
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "text"))
                        .processResponse(
                                new SearchRequest(),
                                response(sourceHit("d1", Map.of("text", "cp - copy files and directories"))),
                                new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [text] of hit [d1] is neither a simhash (16 hex characters) nor a minhash signature: "
                        + "[cp - copy files and directories]",
                e.getMessage());
        e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "n"))
                        .processResponse(
                                new SearchRequest(),
                                response(sourceHit("d2", Map.of("n", 42))),
                                new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [n] of hit [d2] is neither a simhash (16 hex characters) nor a minhash signature: [42]",
                e.getMessage());
        e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "n"))
                        .processResponse(
                                new SearchRequest(),
                                response(sourceHit("d3", Map.of("n", List.of(hex(1), hex(2))))),
                                new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [n] of hit [d3] has 2 values; a fingerprint field holds one per document",
                e.getMessage());
    }

    /**
     * A MinHash object is read as the field reads it (issue 40): compact objects (a set, no value) fold by their sets;
     * a [scheme] that disagrees with the header, or a compact signature beside a set, is refused naming the hit.
     */
    public void testMinhashObjectsAreReadAsTheFieldReadsThem() {
        int[] set = {1, 5, 9, 0x80000000};
        int[] setSignature = FingerprintFormat.signatureOfSet(set, 128);
        Map<String, Object> compact =
                FingerprintObject.minhash(setSignature, set, SCHEME_HASH, SCHEME, FingerprintFormat.COMPACT);
        SearchResponse out = processor(Map.of("field", "fp", "min_similarity", 0.9))
                .processResponse(
                        new SearchRequest(),
                        response(sourceHit("c1", Map.of("fp", compact)), sourceHit("c2", Map.of("fp", compact))),
                        new PipelineProcessingContext());
        assertEquals(List.of("c1"), ids(out));
        assertEquals(List.of("c2"), foldedIds(hit(out, "c1")));

        String value = SignatureCodec.encode(randomSignature(128, random()), SCHEME_HASH);
        SearchHit wrongScheme = sourceHit("w", Map.of("fp", Map.of("value", value, "scheme", "nd1-12345678")));
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "fp"))
                        .processResponse(new SearchRequest(), response(wrongScheme), new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [fp] of hit [w] is not a valid minhash fingerprint: signature header has"
                        + " scheme hash 2586f90f but [scheme] is [nd1-12345678]",
                e.getMessage());
        SearchHit both = sourceHit(
                "b",
                Map.of(
                        "fp",
                        Map.of(
                                "value",
                                SignatureCodec.encode(setSignature, SCHEME_HASH, FingerprintFormat.COMPACT),
                                "shingles",
                                ShingleSetCodec.encode(set, SCHEME_HASH, 128))));
        e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(Map.of("field", "fp"))
                        .processResponse(new SearchRequest(), response(both), new PipelineProcessingContext()));
        assertEquals(
                "[near_dup_collapse] field [fp] of hit [b] is not a valid minhash fingerprint: the value has [shingles]"
                        + " and a [value]: in fingerprint format 2 (compact) a document with a shingle set stores no"
                        + " signature",
                e.getMessage());
    }

    /**
     * Issue 41: a data stream upgraded in place holds format 1 generations (a signature and the set) beside format 2
     * ones (the set alone). Shingle sets are the same in both formats, so hits of one scheme that bring their sets fold
     * across formats (and signature lengths) by exact Jaccard; another scheme's never do.
     */
    public void testShingleSetsFoldAcrossFingerprintFormats() {
        int[] set = {1, 5, 9, 17, 0x80000000};
        int[] nearSet = {1, 5, 9, 17, 33, 0x80000000};
        Map<String, Object> formatOne = FingerprintObject.minhash(
                randomSignature(128, random()), set, SCHEME_HASH, SCHEME, FingerprintFormat.SIGNATURE);
        Map<String, Object> formatTwo = FingerprintObject.minhash(
                FingerprintFormat.signatureOfSet(nearSet, 64), nearSet, SCHEME_HASH, SCHEME, FingerprintFormat.COMPACT);
        Map<String, Object> otherScheme = FingerprintObject.minhash(
                FingerprintFormat.signatureOfSet(set, 128), set, 0x12345678, "nd1-12345678", FingerprintFormat.COMPACT);
        SearchResponse out = processor(Map.of("field", "fp", "min_similarity", 0.8))
                .processResponse(
                        new SearchRequest(),
                        response(
                                sourceHit("old", Map.of("fp", formatOne)),
                                sourceHit("other", Map.of("fp", otherScheme)),
                                sourceHit("new", Map.of("fp", formatTwo))),
                        new PipelineProcessingContext());
        assertEquals(List.of("old", "other"), ids(out));
        assertEquals("5 of 6 shingles shared: 0.83", List.of("new"), foldedIds(hit(out, "old")));
    }

    /** docvalue_fields / fields (16 hex, no scheme) are read when _source is off. */
    public void testReadsDocValueFields() {
        long a = randomLong();
        SearchResponse out = processor(Map.of("field", SIMHASH, "max_distance", 2))
                .processResponse(
                        new SearchRequest(),
                        response(
                                docValueHit("a", SIMHASH, hex(a)),
                                docValueHit("b", SIMHASH, hex(~a)),
                                docValueHit("a1", SIMHASH, hex(a ^ 3))),
                        new PipelineProcessingContext());
        assertEquals(List.of("a", "b"), ids(out));
        assertEquals(List.of("a1"), foldedIds(hit(out, "a")));
    }

    public void testFoldedIdsCap() {
        long a = randomLong();
        SearchHit[] hits = new SearchHit[16];
        hits[0] = simhashHit("leader", a, SCHEME);
        for (int i = 1; i < hits.length; i++) {
            hits[i] = simhashHit("copy" + i, a, SCHEME);
        }
        SearchResponse out = processor(Map.of("field", SIMHASH))
                .processResponse(new SearchRequest(), response(hits.clone()), new PipelineProcessingContext());
        assertEquals(List.of("leader"), ids(out));
        assertEquals(15, folded(out.getHits().getHits()[0]));
        assertEquals(
                List.of("copy1", "copy2", "copy3", "copy4", "copy5", "copy6", "copy7", "copy8", "copy9", "copy10"),
                foldedIds(out.getHits().getHits()[0]));

        for (int i = 0; i < hits.length; i++) {
            hits[i] = simhashHit(i == 0 ? "leader" : "copy" + i, a, SCHEME);
        }
        out = processor(Map.of("field", SIMHASH, "max_folded_ids", 0))
                .processResponse(new SearchRequest(), response(hits), new PipelineProcessingContext());
        assertEquals(15, folded(out.getHits().getHits()[0]));
        assertEquals(List.of(), foldedIds(out.getHits().getHits()[0]));
    }

    /**
     * Hits of a data stream's generations: where they come from more than one index, each folded {@code _id} has its
     * index beside it (the same {@code _id} in two indices is two documents); from one index, only the ids, as before.
     */
    public void testFoldedHitsOfManyIndicesNameTheirIndex() {
        long a = randomLong();
        SearchHit[] hits = {
            inIndex(simhashHit("x", a, SCHEME), ".ds-logs-000002"),
            inIndex(simhashHit("x", a, SCHEME), ".ds-logs-000001"),
            inIndex(simhashHit("y", a ^ 1, SCHEME), ".ds-logs-000002")
        };
        SearchResponse out = processor(Map.of("field", SIMHASH))
                .processResponse(new SearchRequest(), response(hits), new PipelineProcessingContext());
        SearchHit leader = out.getHits().getHits()[0];
        assertEquals(List.of("x", "y"), foldedIds(leader));
        assertEquals(
                List.of(".ds-logs-000001", ".ds-logs-000002"),
                leader.field(NearDupCollapseResponseProcessor.INDICES_FIELD).getValues());

        SearchHit[] oneIndex = {
            inIndex(simhashHit("x", a, SCHEME), "logs"), inIndex(simhashHit("y", a ^ 1, SCHEME), "logs")
        };
        out = processor(Map.of("field", SIMHASH))
                .processResponse(new SearchRequest(), response(oneIndex), new PipelineProcessingContext());
        assertEquals(List.of("y"), foldedIds(out.getHits().getHits()[0]));
        assertNull(out.getHits().getHits()[0].field(NearDupCollapseResponseProcessor.INDICES_FIELD));
    }

    private static SearchHit inIndex(SearchHit hit, String index) {
        hit.shard(new SearchShardTarget("node", new ShardId(index, "_na_", 0), null, null));
        return hit;
    }

    /**
     * The window request processor asks for from 0, size window; the collapse cuts from/size out of the
     * collapsed list: consecutive pages are disjoint and together are the collapsed window.
     */
    public void testPagingAfterCollapsing() throws Exception {
        Random random = random();
        int groups = 23;
        List<SearchHit> window = new ArrayList<>();
        List<String> leaders = new ArrayList<>();
        long[] bases = new long[groups];
        for (int g = 0; g < groups; g++) {
            boolean far;
            do {
                bases[g] = random.nextLong();
                far = true;
                for (int h = 0; h < g; h++) {
                    far &= Long.bitCount(bases[g] ^ bases[h]) > 12;
                }
            } while (far == false);
        }
        // rank order: each group's leader, then copies of earlier groups interleaved
        int copy = 0;
        for (int g = 0; g < groups; g++) {
            window.add(simhashHit("g" + g, bases[g], SCHEME));
            leaders.add("g" + g);
            if (g > 0 && g % 2 == 0) {
                window.add(simhashHit("copy" + (copy++), flip(bases[random.nextInt(g)], 2, random), SCHEME));
            }
        }
        for (int i = 0; i < groups; i++) {
            for (int j = 0; j < i; j++) {
                assertTrue(
                        "test setup: groups " + i + " and " + j + " too close", Long.bitCount(bases[i] ^ bases[j]) > 8);
            }
        }
        NearDupCollapseResponseProcessor collapse = processor(Map.of("field", SIMHASH));
        NearDupWindowRequestProcessor windowProcessor = new NearDupWindowRequestProcessor.Factory()
                .create(null, null, null, false, new HashMap<>(Map.of("window", 50)), PIPELINE);
        List<String> seen = new ArrayList<>();
        int size = 10;
        for (int page = 0; page < 4; page++) {
            SearchRequest request = new SearchRequest()
                    .source(new SearchSourceBuilder().from(page * size).size(size));
            PipelineProcessingContext context = new PipelineProcessingContext();
            windowProcessor.processRequest(request, context);
            assertEquals(0, request.source().from());
            assertEquals(50, request.source().size());
            SearchHit[] hits = new SearchHit[window.size()];
            for (int i = 0; i < hits.length; i++) {
                SearchHit original = window.get(i);
                hits[i] = sourceHit(original.getId(), original.getSourceAsMap());
            }
            SearchResponse out = collapse.processResponse(request, response(hits), context);
            List<String> pageIds = ids(out);
            int expected = Math.max(0, Math.min(size, groups - page * size));
            assertEquals("page " + page + ": " + pageIds, expected, pageIds.size());
            for (String id : pageIds) {
                assertFalse("page " + page + " repeats " + id, seen.contains(id));
            }
            seen.addAll(pageIds);
            Map<String, Object> ext = ext(out);
            assertEquals(50, ext.get("window"));
            assertEquals(page * size, ext.get("from"));
            assertEquals(size, ext.get("size"));
            assertEquals(window.size(), ext.get("hits"));
            assertEquals(groups, ext.get("groups"));
        }
        assertEquals("pages together are the collapsed window, in rank order", leaders, seen);
    }

    /** A window smaller than the page: the page shows what the window holds; pages past it are empty. */
    public void testPageBeyondWindow() {
        long a = randomLong();
        SearchRequest request =
                new SearchRequest().source(new SearchSourceBuilder().from(5).size(10));
        PipelineProcessingContext context = new PipelineProcessingContext();
        new NearDupWindowRequestProcessor(null, null, false, 3).processRequest(request, context);
        assertEquals(3, request.source().size());
        SearchResponse out = processor(Map.of("field", SIMHASH))
                .processResponse(
                        request,
                        response(simhashHit("a", a, SCHEME), simhashHit("b", ~a, SCHEME), simhashHit("a1", a, SCHEME)),
                        context);
        assertEquals(List.of(), ids(out));
        assertEquals(1000, LuceneApi.count(out.getHits().getTotalHits()));
    }

    public void testWindowRequestProcessor() {
        NearDupWindowRequestProcessor window = new NearDupWindowRequestProcessor(null, null, false, 200);
        // no body: from 0, size 10
        SearchRequest request = new SearchRequest();
        PipelineProcessingContext context = new PipelineProcessingContext();
        window.processRequest(request, context);
        assertEquals(200, request.source().size());
        CollapseWindow stored = (CollapseWindow) context.getAttribute(CollapseWindow.ATTRIBUTE);
        assertEquals(0, stored.from());
        assertEquals(10, stored.size());
        assertEquals(200, stored.window());
        // size 0 (aggregations only): untouched
        request = new SearchRequest().source(new SearchSourceBuilder().size(0));
        context = new PipelineProcessingContext();
        window.processRequest(request, context);
        assertEquals(0, request.source().size());
        assertNull(context.getAttribute(CollapseWindow.ATTRIBUTE));
        // scroll: untouched, and the collapse leaves scroll responses alone
        request = new SearchRequest().source(new SearchSourceBuilder().size(5)).scroll(TimeValue.timeValueMinutes(1));
        context = new PipelineProcessingContext();
        window.processRequest(request, context);
        assertEquals(5, request.source().size());
        assertNull(context.getAttribute(CollapseWindow.ATTRIBUTE));
        long a = randomLong();
        SearchResponse in = response(simhashHit("a", a, SCHEME), simhashHit("a1", a, SCHEME));
        assertSame(in, processor(Map.of("field", SIMHASH)).processResponse(request, in, context));
        // size 0 without the window: the response is left as it is, no ext added
        SearchRequest counting = new SearchRequest().source(new SearchSourceBuilder().size(0));
        SearchResponse empty = response();
        assertSame(
                empty,
                processor(Map.of("field", SIMHASH)).processResponse(counting, empty, new PipelineProcessingContext()));
        // a collapsed response gains no empty profile section
        SearchResponse collapsed = processor(Map.of("field", SIMHASH))
                .processResponse(new SearchRequest(), in, new PipelineProcessingContext());
        String json = org.opensearch.core.common.Strings.toString(
                org.opensearch.core.xcontent.MediaTypeRegistry.JSON, collapsed);
        assertFalse(json, json.contains("\"profile\""));
        assertTrue(json, json.contains("near_dup_collapse"));
    }

    /** A second collapse processor in the pipeline collapses the page it is given without paging again. */
    public void testSecondCollapseDoesNotPageAgain() {
        long a = randomLong();
        long b = ~a;
        SearchRequest request =
                new SearchRequest().source(new SearchSourceBuilder().from(1).size(2));
        PipelineProcessingContext context = new PipelineProcessingContext();
        new NearDupWindowRequestProcessor(null, null, false, 10).processRequest(request, context);
        SearchResponse first = processor(Map.of("field", SIMHASH))
                .processResponse(
                        request,
                        response(
                                simhashHit("a", a, SCHEME),
                                simhashHit("a1", a, SCHEME),
                                simhashHit("b", b, SCHEME),
                                simhashHit("c", a ^ 0xFFFF0000L, SCHEME)),
                        context);
        assertEquals(List.of("b", "c"), ids(first));
        SearchResponse second =
                processor(Map.of("field", SIMHASH, "max_distance", 16)).processResponse(request, first, context);
        assertEquals(List.of("b", "c"), ids(second));
    }
}
