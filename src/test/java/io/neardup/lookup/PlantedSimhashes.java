/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * Simhashes planted for the lookup tests, the truth known by construction: originals far apart, each copied at most
 * once, a copy a few bits from its original; and the check of what the lookup wrote against it.
 */
final class PlantedSimhashes {

    /** What the lookups of these tests take: a copy is within it of its original. */
    static final int DISTANCE = 3;

    /**
     * Originals lie further apart than this: a copy (at most 2 bits from its original) is then within {@link #DISTANCE}
     * of its original and of nothing else, so the truth is known by construction.
     */
    private static final int ORIGINALS_APART = 2 * DISTANCE + 4;

    /** A {@code @timestamp} and a simhash field at {@code fp.simhash}: the lookup tests give simhashes, not texts. */
    static final String MAPPING = "{\"properties\": {\"@timestamp\": {\"type\": \"date\"}, \"fp\": "
            + "{\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}";

    private PlantedSimhashes() {}

    /** A planted document: an original ({@code originalOf} null) or a near copy of the original it names. */
    record Doc(String id, long simhash, String originalOf) {
        String hex() {
            return String.format(Locale.ROOT, "%016x", simhash);
        }
    }

    /**
     * The documents in arrival order, in bulks: each bulk has new originals, copies of originals of the same bulk (after
     * them) and copies of originals of earlier bulks, each original copied at most once.
     */
    static List<List<Doc>> plant(Random random, int bulkCount, int docsPerBulk) {
        List<Long> originals = new ArrayList<>();
        List<Doc> uncopied = new ArrayList<>();
        List<List<Doc>> bulks = new ArrayList<>();
        int next = 0;
        for (int b = 0; b < bulkCount; b++) {
            List<Doc> bulk = new ArrayList<>();
            while (bulk.size() < docsPerBulk) {
                int kind = random.nextInt(3);
                if (kind == 0 || uncopied.isEmpty()) {
                    long simhash = farFrom(random, originals);
                    originals.add(simhash);
                    Doc original = new Doc("o" + next++, simhash, null);
                    bulk.add(original);
                    uncopied.add(original);
                } else {
                    // kind 1: the newest uncopied original (often of this bulk); kind 2: any, often of an earlier bulk
                    Doc original = uncopied.remove(kind == 1 ? uncopied.size() - 1 : random.nextInt(uncopied.size()));
                    bulk.add(new Doc(
                            "c" + next++, flipBits(random, original.simhash(), random.nextInt(3)), original.id()));
                }
            }
            bulks.add(bulk);
        }
        return bulks;
    }

    private static long farFrom(Random random, List<Long> others) {
        while (true) {
            long candidate = random.nextLong();
            if (others.stream().allMatch(other -> Long.bitCount(other ^ candidate) > ORIGINALS_APART)) {
                return candidate;
            }
        }
    }

    /** {@code value} with {@code bits} of its bits flipped, chosen at random. */
    static long flipBits(Random random, long value, int bits) {
        long flipped = value;
        while (Long.bitCount(flipped ^ value) < bits) {
            flipped ^= 1L << random.nextInt(64);
        }
        return flipped;
    }

    /**
     * Every copy's flag ({@code dupOf}) names its original ({@code duplicate_of}, {@code cluster}, the similarity of the
     * two simhashes) and one of {@code indices}; every original is its own cluster. More than {@code minCopies} copies.
     */
    static void assertEveryCopyNamesItsOriginal(
            Collection<Doc> docs, Function<String, Map<String, Object>> dupOf, Set<String> indices, int minCopies) {
        Map<String, Doc> byId = new HashMap<>();
        docs.forEach(doc -> byId.put(doc.id(), doc));
        List<String> wrong = new ArrayList<>();
        int copies = 0;
        for (Doc doc : docs) {
            Map<String, Object> dup = dupOf.apply(doc.id());
            List<Object> expected;
            List<Object> found;
            if (doc.originalOf() == null) {
                expected = List.of(doc.id(), true);
                found = Arrays.asList(dup.get("cluster"), dup.get("representative"));
            } else {
                copies++;
                Doc original = byId.get(doc.originalOf());
                expected = List.of(
                        original.id(),
                        original.id(),
                        1 - Long.bitCount(doc.simhash() ^ original.simhash()) / 64.0,
                        false,
                        true);
                found = Arrays.asList(
                        dup.get("duplicate_of"),
                        dup.get("cluster"),
                        dup.get("similarity"),
                        dup.get("representative"),
                        indices.contains(dup.get("duplicate_of_index")));
            }
            if (expected.equals(found) == false) {
                wrong.add(doc.id() + ": " + dup + ", expected " + expected);
            }
        }
        assertTrue("planted copies: " + copies, copies > minCopies);
        assertTrue(wrong.size() + " wrong:\n" + String.join("\n", wrong), wrong.isEmpty());
    }
}
