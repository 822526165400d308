package io.neardup.core;

import org.opensearch.test.OpenSearchTestCase;

/** The recent-fingerprints window: what it finds, what it forgets, and that schemes never mix. */
public class RecentFingerprintsTests extends OpenSearchTestCase {

    public void testClosestSimhashWithinTheDistanceOfTheSameScheme() {
        RecentFingerprints recent = new RecentFingerprints(10, Long.MAX_VALUE);
        long base = randomLong();
        recent.addSimhash("far", 1, base ^ 0xFFL, 0);
        recent.addSimhash("near", 1, base ^ 1L, 0);
        recent.addSimhash("other-scheme", 2, base, 0);
        RecentFingerprints.Match match = recent.closestSimhash(1, base, 3, null, 0);
        assertEquals("near", match.entry().id());
        assertEquals(1 - 1 / 64.0, match.similarity(), 0);
        assertNull("8 bits is beyond 3", recent.closestSimhash(1, base ^ 0xFF00L, 3, null, 0));
        assertNull("only its own scheme", recent.closestSimhash(3, base, 3, null, 0));
    }

    public void testCapacityAndTtlBoundWhatIsKept() {
        RecentFingerprints recent = new RecentFingerprints(3, 100);
        for (int i = 0; i < 5; i++) {
            recent.addSimhash("d" + i, 0, i, i);
        }
        assertEquals(3, recent.size());
        assertNull("the oldest went first", recent.closestSimhash(0, 0, 0, null, 5));
        assertEquals("d4", recent.closestSimhash(0, 4, 0, null, 5).entry().id());
        assertNull("expired after the ttl", recent.closestSimhash(0, 4, 0, null, 5 + 101));
        assertEquals(0, recent.size());
        RecentFingerprints none = new RecentFingerprints(0, 100);
        none.addSimhash("x", 0, 0, 0);
        assertNull(none.closestSimhash(0, 0, 8, null, 0));
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
        recent.addSignature("ninety", 7, ninety, null, 0);
        RecentFingerprints.Match byEstimate = recent.mostSimilarSignature(7, signature, null, 0.8, null, 0);
        assertEquals("ninety", byEstimate.entry().id());
        assertEquals(1 - 13 / 128.0, byEstimate.similarity(), 1e-12);
        assertNull(recent.mostSimilarSignature(7, signature, null, 0.95, null, 0));

        // With shingle sets on both sides the exact Jaccard decides: {1..10} against {1..8}: 0.8.
        byte[] ten = ShingleSetCodec.payload(new int[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 });
        byte[] eight = ShingleSetCodec.payload(new int[] { 1, 2, 3, 4, 5, 6, 7, 8 });
        RecentFingerprints exact = new RecentFingerprints(10, Long.MAX_VALUE);
        RecentFingerprints.Entry stored = exact.addSignature("eight", 7, ninety, eight, 0);
        assertEquals(0.8, exact.mostSimilarSignature(7, signature, ten, 0.75, null, 0).similarity(), 1e-12);
        assertNull("exact 0.8 is below 0.85 even though the estimate (0.90) is above", exact.mostSimilarSignature(7, signature, ten, 0.85,
            null, 0));
        assertNull("never itself", exact.mostSimilarSignature(7, ninety, eight, 0.5, stored, 0));
        assertEquals("its own id until its lookup decides", "eight", stored.cluster());
        stored.decide("c1");
        assertEquals("c1", stored.cluster());
    }
}
