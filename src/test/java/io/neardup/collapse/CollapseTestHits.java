/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.search.TotalHits;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.ShardSearchFailure;
import org.opensearch.common.document.DocumentField;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.search.SearchHit;
import org.opensearch.search.SearchHits;
import org.opensearch.search.internal.InternalSearchResponse;

/** Crafted hits and responses for the collapse tests and the benchmark. */
public final class CollapseTestHits {
    private CollapseTestHits() {}

    public static final String SCHEME = "nd1-2586f90f";
    public static final int SCHEME_HASH = 0x2586f90f;

    /** A hit whose {@code _source} holds {@code {"body_fp": {"simhash": {"value": hex, "scheme": scheme}}}} (no scheme if null). */
    public static SearchHit simhashHit(String id, long simhash, String scheme) {
        Map<String, Object> fp = new HashMap<>();
        fp.put("value", hex(simhash));
        if (scheme != null) {
            fp.put("scheme", scheme);
            fp.put("margins", "AAAA");
        }
        return sourceHit(id, Map.of("body_fp", Map.of("simhash", fp), "title", "doc " + id));
    }

    /** A hit whose {@code _source} holds {@code {"body_fp": {"minhash": {"value": signature, "scheme": …}}}}. */
    public static SearchHit minhashHit(String id, int[] signature, int schemeHash) {
        String value = SignatureCodec.encode(signature, schemeHash);
        return sourceHit(
                id,
                Map.of(
                        "body_fp",
                        Map.of("minhash", Map.of("value", value, "scheme", "nd1-" + Integer.toHexString(schemeHash)))));
    }

    public static SearchHit sourceHit(String id, Map<String, Object> source) {
        SearchHit hit = new SearchHit(0, id, new HashMap<>(), new HashMap<>());
        try {
            hit.sourceRef(BytesReference.bytes(XContentFactory.jsonBuilder().map(source)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return hit;
    }

    /** A hit without {@code _source}, its fingerprint in {@code fields} as docvalue_fields render it. */
    public static SearchHit docValueHit(String id, String field, String value) {
        Map<String, DocumentField> fields = new HashMap<>();
        fields.put(field, new DocumentField(field, List.of(value)));
        return new SearchHit(0, id, fields, new HashMap<>());
    }

    public static SearchResponse response(SearchHit... hits) {
        SearchHits searchHits = new SearchHits(hits, new TotalHits(1000, TotalHits.Relation.EQUAL_TO), 1f);
        InternalSearchResponse internal = new InternalSearchResponse(searchHits, null, null, null, false, null, 1);
        return new SearchResponse(
                internal, null, 2, 2, 0, 5, ShardSearchFailure.EMPTY_ARRAY, SearchResponse.Clusters.EMPTY);
    }

    public static String hex(long simhash) {
        String hex = Long.toHexString(simhash);
        return "0".repeat(16 - hex.length()) + hex;
    }

    /** {@code fp} with {@code bits} distinct random bits flipped. */
    public static long flip(long fp, int bits, Random random) {
        long mask = 0;
        while (Long.bitCount(mask) < bits) {
            mask |= 1L << random.nextInt(64);
        }
        return fp ^ mask;
    }

    /** {@code signature} with {@code changes} distinct positions given new values. */
    public static int[] perturb(int[] signature, int changes, Random random) {
        int[] out = signature.clone();
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < out.length; i++) {
            positions.add(i);
        }
        java.util.Collections.shuffle(positions, random);
        for (int c = 0; c < changes; c++) {
            int p = positions.get(c);
            int v;
            do {
                v = random.nextInt();
            } while (v == out[p]);
            out[p] = v;
        }
        return out;
    }

    public static int[] randomSignature(int k, Random random) {
        int[] sig = new int[k];
        for (int i = 0; i < k; i++) {
            sig[i] = random.nextInt();
        }
        return sig;
    }
}
