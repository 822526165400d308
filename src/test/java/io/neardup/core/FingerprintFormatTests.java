/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import org.opensearch.test.OpenSearchTestCase;

public class FingerprintFormatTests extends OpenSearchTestCase {

    private static int[] sortedDistinct(SplittableRandom random, int n) {
        long[] hashes = random.longs(n).toArray();
        return ShingleSetCodec.of(hashes, hashes.length);
    }

    public void testNumbersAndNames() {
        assertEquals(FingerprintFormat.SIGNATURE, FingerprintFormat.of(1));
        assertEquals(FingerprintFormat.COMPACT, FingerprintFormat.of(2));
        assertEquals(FingerprintFormat.SIGNATURE, FingerprintFormat.UNRECORDED);
        IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> FingerprintFormat.of(3));
        assertEquals("unknown fingerprint format [3], expected one of [1, 2]", e.getMessage());
        assertEquals("fingerprint format 2 (compact)", FingerprintFormat.COMPACT.describe());
    }

    /** A pure function of the set: the same from its values and from its payload, whatever the order of its making. */
    public void testSetSignatureIsAFunctionOfTheSet() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int[] set = sortedDistinct(random, 1 + random.nextInt(2000));
        int[] signature = FingerprintFormat.signatureOfSet(set, 128);
        assertArrayEquals(signature, FingerprintFormat.signatureOfSet(set.clone(), 128));
        byte[] payload = ShingleSetCodec.payload(set);
        assertArrayEquals(
                SignatureCodec.valueBytes(signature),
                FingerprintFormat.signatureBytesOfSet(payload, 0, payload.length, 128));
        assertEquals(64, FingerprintFormat.signatureOfSet(set, 64).length);
        expectThrows(IllegalArgumentException.class, () -> FingerprintFormat.signatureOfSet(set, 0));
        expectThrows(IllegalArgumentException.class, () -> FingerprintFormat.signatureOfSet(set, 1025));
    }

    /**
     * The set's signature estimates the sets' Jaccard as well as MinHash does: over pairs at J from 0.1 to 0.9, the
     * mean error is within the sampling error sqrt(J (1 - J) / k), and the mean bias is near zero.
     */
    public void testSetSignatureEstimatesJaccard() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int k = 128;
        double sumError = 0;
        double sumBias = 0;
        int pairs = 0;
        for (int trial = 0; trial < 400; trial++) {
            int shared = 50 + random.nextInt(400);
            int own = random.nextInt(2 * shared);
            long[] a = new long[shared + own];
            long[] b = new long[shared + own];
            for (int i = 0; i < shared; i++) {
                a[i] = b[i] = random.nextLong();
            }
            for (int i = shared; i < a.length; i++) {
                a[i] = random.nextLong();
                b[i] = random.nextLong();
            }
            int[] setA = ShingleSetCodec.of(a, a.length);
            int[] setB = ShingleSetCodec.of(b, b.length);
            double exact = ShingleSetCodec.jaccard(
                    ShingleSetCodec.payload(setA),
                    0,
                    ShingleSetCodec.payload(setA).length,
                    ShingleSetCodec.payload(setB),
                    0,
                    ShingleSetCodec.payload(setB).length);
            double estimate = MinHasher.jaccard(
                    FingerprintFormat.signatureOfSet(setA, k), FingerprintFormat.signatureOfSet(setB, k));
            sumError += Math.abs(estimate - exact);
            sumBias += estimate - exact;
            pairs++;
        }
        double meanError = sumError / pairs;
        assertTrue("mean |error| " + meanError, meanError < Math.sqrt(0.25 / k));
        assertTrue("mean bias " + sumBias / pairs, Math.abs(sumBias / pairs) < 0.01);
    }

    /** Format 2's band key is the high half of format 1's, so that it stays a hash of the band. */
    public void testBandKeys() {
        SplittableRandom random = new SplittableRandom(randomLong());
        byte[] signature = SignatureCodec.valueBytes(random.ints(128).toArray());
        for (int band = 0; band < 42; band++) {
            long wide = FingerprintFormat.SIGNATURE.bandKey(signature, 0, band, 3);
            assertEquals(LshBanding.bandKey(signature, band, 3), wide);
            assertEquals(wide >>> 32, FingerprintFormat.COMPACT.bandKey(signature, 0, band, 3));
        }
        assertEquals(8, FingerprintFormat.SIGNATURE.bandKeyBytes());
        assertEquals(4, FingerprintFormat.COMPACT.bandKeyBytes());
    }

    /** The compact object: the set and no value where there is a set; a value, saying its format, where there is none. */
    public void testCompactObjects() {
        SplittableRandom random = new SplittableRandom(randomLong());
        int[] set = sortedDistinct(random, 100);
        int[] signature = FingerprintFormat.signatureOfSet(set, 128);
        Map<String, Object> withSet =
                FingerprintObject.minhash(signature, set, 7, "nd1-00000007", FingerprintFormat.COMPACT);
        assertEquals(
                Arrays.asList("shingles", "scheme"),
                Arrays.asList(withSet.keySet().toArray()));
        FingerprintObject.Parts parts = FingerprintObject.read(withSet, FingerprintObject.MINHASH_KEYS);
        assertNull(parts.value());
        assertEquals(withSet, FingerprintObject.write(parts, true));
        Map<String, Object> withoutSet =
                FingerprintObject.minhash(signature, null, 7, "nd1-00000007", FingerprintFormat.COMPACT);
        String value = (String) withoutSet.get("value");
        assertEquals(FingerprintFormat.COMPACT, SignatureCodec.formatOf(value));
        assertArrayEquals(signature, SignatureCodec.decode(value, 128, 7, FingerprintFormat.COMPACT));
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> SignatureCodec.decode(value, 128, 7, FingerprintFormat.SIGNATURE));
        assertEquals(
                "minhash signature is of fingerprint format 2 (compact), expected fingerprint format 1 (stored signature)",
                e.getMessage());
        // A simhash object still needs its value.
        e = expectThrows(
                IllegalArgumentException.class,
                () -> FingerprintObject.read(Map.of("scheme", "x"), FingerprintObject.SIMHASH_KEYS));
        assertEquals("object has no [value]", e.getMessage());
        e = expectThrows(
                IllegalArgumentException.class,
                () -> FingerprintObject.read(Map.of("scheme", "x"), FingerprintObject.MINHASH_KEYS));
        assertEquals("object has no [value] and no [shingles]", e.getMessage());
    }

    /** The fingerprinter of the compact format gives the set's signature, and refuses a method it cannot honour. */
    public void testFingerprinterOfTheCompactFormat() {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        Fingerprinter compact = new Fingerprinter(
                scheme, null, new FingerprintScratch(MemoryBudget.NONE), true, true, FingerprintFormat.COMPACT);
        for (String token : "the quick brown fox jumps over the lazy dog again and again".split(" ")) {
            compact.token(token);
        }
        Fingerprint fingerprint = compact.finish(true);
        assertArrayEquals(FingerprintFormat.signatureOfSet(fingerprint.shingleSet(), 128), fingerprint.minhash());
        FingerprintScheme classic = new FingerprintScheme(
                1,
                "standard",
                1,
                FeatureWeighting.LOG_TF,
                FingerprintScheme.NO_IDF,
                3,
                128,
                MinHasher.Method.CLASSIC,
                0L);
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> new Fingerprinter(
                        classic,
                        null,
                        new FingerprintScratch(MemoryBudget.NONE),
                        true,
                        true,
                        FingerprintFormat.COMPACT));
        assertEquals(
                "[minhash_method] [classic] does not apply to fingerprint format 2 (compact), whose signatures are"
                        + " one-permutation MinHash of the shingle set: leave [minhash_method] out",
                e.getMessage());
    }
}
