/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import org.opensearch.test.OpenSearchTestCase;

/** The recent-fingerprints window: what it finds, what it forgets, and that schemes never mix. */
public class RecentFingerprintsTests extends OpenSearchTestCase {

    /**
     * A lookup over many indices: the same {@code _id} written to another index of the lookup (a data stream's next
     * generation) is another document, matched from the window; in the same index it is the document itself.
     */
    public void testTheSameIdInAnotherIndexIsAnotherDocument() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        long base = randomLong();
        recent.addSimhash("logs", "page", ".ds-logs-000001", 1, base, 0);
        assertEquals(
                ".ds-logs-000001",
                recent.closestSimhash("logs", "page", ".ds-logs-000002", 1, base, 3, Long.MAX_VALUE, 0)
                        .entry()
                        .home());
        assertNull(recent.closestSimhash("logs", "page", ".ds-logs-000001", 1, base, 3, Long.MAX_VALUE, 0));
        recent.addSimhash("i", "page", null, 1, base, 0);
        assertNull(
                "a lookup into one index: itself by its _id",
                recent.closestSimhash("i", "page", null, 1, base, 3, Long.MAX_VALUE, 0));
    }

    public void testClosestSimhashWithinTheDistanceOfTheSameScheme() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        long base = randomLong();
        recent.addSimhash("i", "far", null, 1, base ^ 0xFFL, 0);
        recent.addSimhash("i", "near", null, 1, base ^ 1L, 0);
        recent.addSimhash("i", "other-scheme", null, 2, base, 0);
        RecentFingerprints.Match match = recent.closestSimhash("i", "q", null, 1, base, 3, Long.MAX_VALUE, 0);
        assertEquals("near", match.entry().id());
        assertEquals(1 - 1 / 64.0, match.similarity(), 0);
        assertNull(
                "8 bits is beyond 3", recent.closestSimhash("i", "q", null, 1, base ^ 0xFF00L, 3, Long.MAX_VALUE, 0));
        assertNull("only its own scheme", recent.closestSimhash("i", "q", null, 3, base, 3, Long.MAX_VALUE, 0));
        assertNull(
                "only its own index", recent.closestSimhash("other-index", "q", null, 1, base, 3, Long.MAX_VALUE, 0));
        assertEquals(
                "never the document itself",
                "far",
                recent.closestSimhash("i", "near", null, 1, base ^ 1L, 8, Long.MAX_VALUE, 0)
                        .entry()
                        .id());
    }

    public void testCapacityAndTtlBoundWhatIsKept() {
        RecentFingerprints recent = new RecentFingerprints(3, 100);
        for (int i = 0; i < 5; i++) {
            recent.addSimhash("i", "d" + i, null, 0, i, i);
        }
        assertEquals(3, recent.size());
        assertNull("the oldest went first", recent.closestSimhash("i", "q", null, 0, 0, 0, Long.MAX_VALUE, 5));
        assertEquals(
                "d4",
                recent.closestSimhash("i", "q", null, 0, 4, 0, Long.MAX_VALUE, 5)
                        .entry()
                        .id());
        assertNull("expired after the ttl", recent.closestSimhash("i", "q", null, 0, 4, 0, Long.MAX_VALUE, 5 + 101));
        assertEquals(0, recent.size());
        RecentFingerprints none = new RecentFingerprints(0, 100);
        none.addSimhash("i", "x", null, 0, 0, 0);
        assertNull(none.closestSimhash("i", "q", null, 0, 0, 8, Long.MAX_VALUE, 0));
    }

    public void testSignaturesByEstimateAndByExactJaccard() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        int[] signature = new int[128];
        for (int i = 0; i < signature.length; i++) {
            signature[i] = randomInt();
        }
        int[] ninety = signature.clone();
        for (int i = 0; i < 13; i++) {
            ninety[i] = ~ninety[i];
        }
        recent.addSignature("i", "ninety", null, 7, ninety, null, 0);
        RecentFingerprints.Match byEstimate =
                recent.mostSimilarSignature("i", "q", null, 7, signature, null, 0.8, Long.MAX_VALUE, 0);
        assertEquals("ninety", byEstimate.entry().id());
        assertEquals(1 - 13 / 128.0, byEstimate.similarity(), 1e-12);
        assertNull(recent.mostSimilarSignature("i", "q", null, 7, signature, null, 0.95, Long.MAX_VALUE, 0));

        // With shingle sets on both sides the exact Jaccard decides: {1..10} against {1..8}: 0.8.
        byte[] ten = ShingleSetCodec.payload(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
        byte[] eight = ShingleSetCodec.payload(new int[] {1, 2, 3, 4, 5, 6, 7, 8});
        RecentFingerprints exact = new RecentFingerprints(10, Long.MAX_VALUE);
        RecentFingerprints.Entry stored = exact.addSignature("i", "eight", null, 7, ninety, eight, 0);
        assertEquals(
                0.8,
                exact.mostSimilarSignature("i", "q", null, 7, signature, ten, 0.75, Long.MAX_VALUE, 0)
                        .similarity(),
                1e-12);
        assertNull(
                "exact 0.8 is below 0.85 even though the estimate (0.90) is above",
                exact.mostSimilarSignature("i", "q", null, 7, signature, ten, 0.85, Long.MAX_VALUE, 0));
        assertNull(
                "never itself",
                exact.mostSimilarSignature("i", "eight", null, 7, ninety, eight, 0.5, Long.MAX_VALUE, 0));
        assertNull(
                "only its own index",
                exact.mostSimilarSignature("other-index", "q", null, 7, ninety, eight, 0.5, Long.MAX_VALUE, 0));
        assertEquals("its own id until its lookup decides", "eight", stored.cluster());
        exact.accept(stored, "c1");
        assertEquals("c1", stored.cluster());
    }

    /** A document is only matched with entries that arrived before it: the arrival order, not the order lookups finish. */
    public void testOnlyEarlierArrivalsAreMatched() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        RecentFingerprints.Entry first = recent.addSimhash("i", "first", null, 0, 42L, 0);
        RecentFingerprints.Entry second = recent.addSimhash("i", "second", null, 0, 43L, 0);
        assertEquals(
                "first",
                recent.closestSimhash("i", "second", null, 0, 43L, 3, second.arrival(), 0)
                        .entry()
                        .id());
        assertNull(
                "the later one is never a match for the earlier",
                recent.closestSimhash("i", "first", null, 0, 42L, 3, first.arrival(), 0));
        assertEquals(second.arrival() + 1, recent.nextArrival());
    }

    /**
     * A refused document must never be named: a withdrawn entry leaves the window and is matched no
     * more, and whoever waited on it hears of the decision; an accepted one gives its cluster.
     */
    public void testWithdrawnEntriesAreGoneAndWaitersHearTheDecision() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        RecentFingerprints.Entry refused = recent.addSimhash("i", "refused", null, 0, 42L, 0);
        RecentFingerprints.Entry later = recent.addSimhash("i", "later", null, 0, 42L, 0);
        RecentFingerprints.Match match = recent.closestSimhash("i", "later", null, 0, 42L, 3, later.arrival(), 0);
        assertSame(refused, match.entry());
        assertFalse("pending until its lookup decides", refused.accepted());
        java.util.concurrent.atomic.AtomicInteger heard = new java.util.concurrent.atomic.AtomicInteger();
        refused.whenDecided(heard::incrementAndGet);
        assertEquals(0, heard.get());
        recent.withdraw(refused);
        assertEquals(1, heard.get());
        assertFalse(refused.accepted());
        assertEquals(1, recent.size());
        assertNull(recent.closestSimhash("i", "later", null, 0, 42L, 3, later.arrival(), 0));
        recent.accept(later, "c-later");
        assertTrue(later.accepted());
        later.whenDecided(heard::incrementAndGet);
        assertEquals("runs at once once decided", 2, heard.get());
        expectThrows(IllegalStateException.class, () -> recent.accept(later, "again"));
    }

    /** Scopes never mix, whatever the fingerprints: the processor makes one per index and user. */
    public void testScopesAreSeparate() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        recent.addSimhash("i\u0000alice", "a", null, 0, 42L, 0);
        assertNull(recent.closestSimhash("i\u0000bob", "b", null, 0, 42L, 3, Long.MAX_VALUE, 0));
        assertNull(recent.closestSimhash("i", "b", null, 0, 42L, 3, Long.MAX_VALUE, 0));
        assertEquals(
                "a",
                recent.closestSimhash("i\u0000alice", "b", null, 0, 42L, 3, Long.MAX_VALUE, 0)
                        .entry()
                        .id());
    }

    /** A payload of these shingle values, as {@link ShingleSetCodec#of} would store them. */
    private static byte[] setOf(java.util.Set<Integer> values) {
        long[] hashes = values.stream().mapToLong(v -> (long) v << 32).toArray();
        return ShingleSetCodec.payload(ShingleSetCodec.of(hashes, hashes.length));
    }

    private static double containment(java.util.Set<Integer> a, java.util.Set<Integer> b) {
        return a.isEmpty() ? 0 : a.stream().filter(b::contains).count() / (double) a.size();
    }

    /**
     * Containment, both ways, against Java's own sets: texts embedded in hosts, hosts holding texts, and strangers;
     * the best is the highest exact containment at or above the threshold, ties to the smallest id, else none.
     */
    public void testMostContainingIsTheExactBestInEitherDirection() {
        java.util.Random random = random();
        for (int round = 0; round < 50; round++) {
            RecentFingerprints recent = new RecentFingerprints(100, Long.MAX_VALUE);
            java.util.Set<Integer> query = new java.util.HashSet<>();
            while (query.size() < between(1, 200)) {
                query.add(random.nextInt());
            }
            java.util.Map<String, java.util.Set<Integer>> entries = new java.util.LinkedHashMap<>();
            for (int e = 0; e < between(1, 20); e++) {
                java.util.Set<Integer> entry = new java.util.HashSet<>();
                // A share of the query's values, and others: hosts (many others) and embedded texts (few).
                double share = randomFrom(0.0, 0.4, 0.69, 0.7, 0.85, 1.0);
                for (int v : query) {
                    if (random.nextDouble() < share) {
                        entry.add(v);
                    }
                }
                for (int extra = between(0, randomFrom(0, 5, 400)); extra > 0; extra--) {
                    entry.add(random.nextInt());
                }
                if (entry.isEmpty()) {
                    entry.add(random.nextInt());
                }
                String id = "e" + between(0, 5) + "-" + e;
                entries.put(id, entry);
                recent.addShingleSet("i", id, null, 0, setOf(entry), 0);
            }
            double min = randomFrom(0.5, 0.7, 0.9, 1.0);
            for (boolean documentInsideRecent : new boolean[] {true, false}) {
                String expected = null;
                double expectedContainment = -1;
                for (var entry : entries.entrySet()) {
                    double c = documentInsideRecent
                            ? containment(query, entry.getValue())
                            : containment(entry.getValue(), query);
                    if (c >= min
                            && (c > expectedContainment
                                    || (c == expectedContainment
                                            && entry.getKey().compareTo(expected) < 0))) {
                        expected = entry.getKey();
                        expectedContainment = c;
                    }
                }
                RecentFingerprints.Match match = recent.mostContaining(
                        "i", "q", null, 0, setOf(query), documentInsideRecent, min, Long.MAX_VALUE, 0);
                if (expected == null) {
                    assertNull(match);
                } else {
                    assertEquals(expected, match.entry().id());
                    assertEquals(expectedContainment, match.similarity(), 1e-12);
                }
            }
        }
    }

    /** Shingle-set entries are for containment only: a simhash or signature search never meets them. */
    public void testShingleSetEntriesStayOutOfTheOtherSearches() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        recent.addShingleSet("i", "set", null, 0, setOf(java.util.Set.of(1, 2, 3)), 0);
        assertNull(recent.closestSimhash("i", "q", null, 0, 0L, 64, Long.MAX_VALUE, 0));
        RecentFingerprints.Match self = recent.mostContaining(
                "i", "q", null, 0, setOf(java.util.Set.of(1, 2, 3)), true, 1.0, Long.MAX_VALUE, 0);
        assertEquals("set", self.entry().id());
        assertNull(
                "never the document itself",
                recent.mostContaining(
                        "i", "set", null, 0, setOf(java.util.Set.of(1, 2, 3)), true, 0.5, Long.MAX_VALUE, 0));
    }
}
