/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.neardup.ShingleTruth;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.Test;

public class ShingleSetCodecTests {

    /** A fresh seed per run, named in every failure message so that a failure can be replayed. */
    private static final long SEED = Long.getLong("tests.core.seed", System.nanoTime());

    @Test
    public void testSetIsDistinctHighHalvesInUnsignedOrder() {
        long[] hashes = {
            0xFFFFFFFF00000001L, 0x0000000100000000L, 0x8000000000000000L, 0x00000001FFFFFFFFL, 0x7FFFFFFF12345678L
        };
        int[] set = ShingleSetCodec.of(hashes, hashes.length);
        assertArrayEquals(new int[] {1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF}, set);
        assertArrayEquals(new int[] {0xFFFFFFFF}, ShingleSetCodec.of(hashes, 1));
        assertArrayEquals(new int[0], ShingleSetCodec.of(hashes, 0));
    }

    @Test
    public void testKnownEncoding() {
        // Marker 80 00, count 3, k = 5 (mean distance 257 / 3 - 1 = 84.7, times ln 2 = 58.7, 2^5 <= 58.7 < 2^6), then
        // distances minus one 1, 126, 127: 0|00001, 1110|11110, 1110|11111 = 00000111 10111101 11011111.
        byte[] bytes = Base64.getUrlDecoder().decode(ShingleSetCodec.encode(new int[] {1, 128, 256}, 0x01020304));
        assertArrayEquals(new byte[] {1, 1, 2, 3, 4, (byte) 0x80, 0, 3, 5, 0x07, (byte) 0xbd, (byte) 0xdf}, bytes);
        // The largest value: k = 30 (mean distance 2^31 - 1). 0 is 0|30 zero-bits, 0xFFFFFFFF - 0 - 1 = 2^32 - 2 is
        // 1110|29 one-bits and a zero-bit: 65 bits.
        assertArrayEquals(
                new byte[] {(byte) 0x80, 0, 2, 30, 0, 0, 0, 1, (byte) 0xdf, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0},
                ShingleSetCodec.payload(new int[] {0, 0xFFFFFFFF}));
        // The first layout, which indices written before the second keep: count 3, first value 1, gaps 127, 128.
        byte[] firstLayout = {3, 1, 0x7f, (byte) 0x80, 1};
        assertArrayEquals(new int[] {1, 128, 256}, ShingleSetCodec.values(firstLayout, 0, firstLayout.length));
        assertArrayEquals(
                new int[] {0, 0xFFFFFFFF},
                ShingleSetCodec.values(
                        new byte[] {2, 0, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}, 0, 7));
    }

    @Test
    public void testAPayloadEncodesAsItsSet() {
        int[] set = {1, 128, 256, 0xFFFFFFFF};
        byte[] payload = ShingleSetCodec.payload(set);
        byte[] padded = new byte[payload.length + 3];
        System.arraycopy(payload, 0, padded, 2, payload.length);
        assertEquals(
                ShingleSetCodec.encode(set, 0x01020304),
                ShingleSetCodec.encodePayload(padded, 2, payload.length, 0x01020304));
    }

    @Test
    public void testRoundTripAndJaccardAgainstHashSets() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 200; round++) {
            int universe = 1 + random.nextInt(2_000);
            long[] a = randomSubset(random, universe), b = randomSubset(random, universe);
            int[] setA = ShingleSetCodec.of(a, a.length), setB = ShingleSetCodec.of(b, b.length);
            byte[] pa = ShingleSetCodec.payload(setA), pb = ShingleSetCodec.payload(setB);
            String message = "seed " + SEED + " round " + round;
            assertArrayEquals(message, setA, ShingleSetCodec.values(pa, 0, pa.length));
            assertArrayEquals(
                    message,
                    setA,
                    ShingleSetCodec.values(
                            ShingleSetCodec.decodePayload(ShingleSetCodec.encode(setA, 42), 42), 0, pa.length));
            double truth = ShingleTruth.storedJaccard(a, b);
            assertEquals(message, truth, ShingleSetCodec.jaccard(pa, 0, pa.length, pb, 0, pb.length), 1e-12);
            // Payloads of both layouts read alike, and mix.
            byte[] oldA = ShingleSetFirstLayout.of(setA), oldB = ShingleSetFirstLayout.of(setB);
            assertArrayEquals(message, setA, ShingleSetCodec.values(oldA, 0, oldA.length));
            assertEquals(message, truth, ShingleSetCodec.jaccard(oldA, 0, oldA.length, pb, 0, pb.length), 1e-12);
            assertEquals(message, truth, ShingleSetCodec.jaccard(pa, 0, pa.length, oldB, 0, oldB.length), 1e-12);
            // Payloads inside larger arrays are read at their offsets.
            byte[] padded = new byte[pb.length + 7];
            System.arraycopy(pb, 0, padded, 3, pb.length);
            assertEquals(message, truth, ShingleSetCodec.jaccard(pa, 0, pa.length, padded, 3, pb.length), 1e-12);
            // The sets' values compare as their payloads do: one Jaccard.
            assertEquals(message, truth, ShingleSetCodec.jaccard(setA, setB), 1e-12);
        }
    }

    /** The containment of A in B, |A ∩ B| / |A|: known answers, from counts and from payloads. */
    @Test
    public void testContainmentKnownAnswers() {
        assertEquals(0.75, ShingleSetCodec.containment(3, 4), 0.0);
        assertEquals(1.0, ShingleSetCodec.containment(4, 4), 0.0);
        assertEquals(0.0, ShingleSetCodec.containment(0, 0), 0.0);
        byte[] a = ShingleSetCodec.payload(new int[] {1, 2, 3, 0xFFFFFFFF});
        byte[] b = ShingleSetCodec.payload(new int[] {2, 3, 5, 9, 11, 0xFFFFFFFF});
        // 3 of A's 4 values are in B; 3 of B's 6 are in A.
        assertEquals(0.75, ShingleSetCodec.containmentIfAtLeast(a, 0, a.length, b, 0, b.length, 0.75), 0.0);
        assertEquals(0.75, ShingleSetCodec.containmentIfAtLeast(a, 0, a.length, b, 0, b.length, 0.1), 0.0);
        assertEquals(-1.0, ShingleSetCodec.containmentIfAtLeast(a, 0, a.length, b, 0, b.length, 0.76), 0.0);
        assertEquals(0.5, ShingleSetCodec.containmentIfAtLeast(b, 0, b.length, a, 0, a.length, 0.5), 0.0);
        assertEquals(-1.0, ShingleSetCodec.containmentIfAtLeast(b, 0, b.length, a, 0, a.length, 0.51), 0.0);
        // An empty contained side reaches nothing.
        byte[] empty = ShingleSetCodec.payload(new int[0]);
        assertEquals(-1.0, ShingleSetCodec.containmentIfAtLeast(empty, 0, 1, a, 0, a.length, 0.5), 0.0);
    }

    @Test
    public void testContainmentIfAtLeastAgainstHashSets() {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 300; round++) {
            int universe = 1 + random.nextInt(1_000);
            long[] a = randomSubset(random, universe), b = randomSubset(random, universe);
            int[] setA = ShingleSetCodec.of(a, a.length), setB = ShingleSetCodec.of(b, b.length);
            Set<Integer> inB = new HashSet<>();
            for (int value : setB) {
                inB.add(value);
            }
            int common = 0;
            for (int value : setA) {
                common += inB.contains(value) ? 1 : 0;
            }
            double truth = setA.length == 0 ? 0 : (double) common / setA.length;
            byte[] pa = ShingleSetCodec.payload(setA), pb = ShingleSetCodec.payload(setB);
            double min = 0.01 + 0.99 * random.nextDouble();
            double expected = setA.length > 0 && truth >= min ? truth : -1;
            assertEquals(
                    "seed " + SEED + " round " + round + " min " + min,
                    expected,
                    ShingleSetCodec.containmentIfAtLeast(pa, 0, pa.length, pb, 0, pb.length, min),
                    0.0);
        }
    }

    @Test
    public void testIntersectionSizeIfAtLeastIsTheIntersectionOrMinusOne() {
        SplittableRandom random = new SplittableRandom(SEED);
        int early = 0;
        for (int round = 0; round < 500; round++) {
            int universe = 1 + random.nextInt(2_000);
            long[] a = randomSubset(random, universe), b = randomSubset(random, universe);
            int[] setA = ShingleSetCodec.of(a, a.length), setB = ShingleSetCodec.of(b, b.length);
            Set<Integer> inB = new HashSet<>();
            for (int value : setB) {
                inB.add(value);
            }
            int truth = 0;
            for (int value : setA) {
                truth += inB.contains(value) ? 1 : 0;
            }
            byte[] pa = ShingleSetCodec.payload(setA), pb = ShingleSetCodec.payload(setB);
            for (int needed : new int[] {0, 1, truth - 1, truth, truth + 1, random.nextInt(setA.length + 2)}) {
                int expected = truth >= needed ? truth : -1;
                String message = "seed " + SEED + " round " + round + " needed " + needed;
                assertEquals(
                        message,
                        expected,
                        ShingleSetCodec.intersectionSizeIfAtLeast(pa, 0, pa.length, pb, 0, pb.length, needed));
                early += expected < 0 ? 1 : 0;
            }
        }
        assertTrue("pairs refused: " + early, early > 100);
    }

    /** Shingle hashes whose high halves are a random subset of {@code universe} values, each repeated at random. */
    private static long[] randomSubset(SplittableRandom random, int universe) {
        double keep = random.nextDouble();
        long[] out = new long[universe * 2];
        int n = 0;
        for (int i = 0; i < universe; i++) {
            if (random.nextDouble() < keep) {
                long high = (long) (i * 2_654_435_761L) << 32; // distinct high halves spread over the 32-bit range
                out[n++] = high | (random.nextInt() & 0xFFFFFFFFL);
                if (random.nextBoolean()) {
                    out[n++] = high | (random.nextInt() & 0xFFFFFFFFL);
                }
            }
        }
        return Arrays.copyOf(out, n);
    }

    @Test
    public void testCompactForRealisticSets() {
        SplittableRandom random = new SplittableRandom(SEED);
        long[] hashes = random.longs(1_000).toArray();
        int[] set = ShingleSetCodec.of(hashes, hashes.length);
        byte[] payload = ShingleSetCodec.payload(set);
        // Distances of mean 2^32 / 1000 are about geometric, of entropy log2(e 2^32 / 1000) = 23.5 bits: 2,935 bytes
        // for 1,000; Rice codes take 23.6 bits on average (k = 21: 22 bits and a quotient of mean 1.55), with a
        // standard deviation of about 8 bytes over 1,000. The first layout took 4 bytes for most distances.
        assertTrue("seed " + SEED + ": " + payload.length, payload.length > 2_935 && payload.length < 3_000);
        assertTrue(ShingleSetFirstLayout.of(set).length > 3_500);
    }

    @Test
    public void testCorruptPayloadsFailWithTheReason() {
        byte[] good = ShingleSetCodec.payload(new int[] {5, 9, 300});
        assertEquals(
                "shingle set is corrupt: it ends inside a value",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ShingleSetCodec.jaccard(good, 0, good.length - 1, good, 0, good.length))
                        .getMessage());
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertEquals(
                "shingle set is corrupt: 1 bytes after its last value",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ShingleSetCodec.jaccard(good, 0, good.length, trailing, 0, trailing.length))
                        .getMessage());
        byte[] zeroGap = {2, 5, 0};
        assertEquals(
                "shingle set is corrupt: value 5 after 5 is not ascending within 32 bits",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.size(zeroGap, 0, 3))
                        .getMessage());
        byte[] past32Bits = {2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 1};
        assertEquals(
                "shingle set is corrupt: value 4294967296 after 4294967295 is not ascending within 32 bits",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ShingleSetCodec.size(past32Bits, 0, past32Bits.length))
                        .getMessage());
        byte[] padded = ShingleSetCodec.payload(new int[] {5, 9, 300});
        padded[padded.length - 1] |= 1;
        assertEquals(
                "shingle set is corrupt: its last byte ends in one-bits",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.size(padded, 0, padded.length))
                        .getMessage());
        byte[] riceParameter = {(byte) 0x80, 0, 1, 40, 0};
        assertEquals(
                "shingle set is corrupt: Rice parameter 40 is not in [0, 31]",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.size(riceParameter, 0, 5))
                        .getMessage());
        byte[] last = ShingleSetCodec.payload(new int[] {0xFFFFFFFF});
        byte[] beyond = Arrays.copyOf(last, last.length + 5);
        beyond[2] = 2; // a second value after the largest
        assertEquals(
                "shingle set is corrupt: a value after 4294967295 is not within 32 bits",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.size(beyond, 0, beyond.length))
                        .getMessage());
        byte[] hugeCount = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};
        assertEquals(
                "shingle set claims 4294967295 values, more than 10000000",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.size(hugeCount, 0, hugeCount.length))
                        .getMessage());
        assertEquals(
                "shingle set values must be distinct and ascending (unsigned)",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.payload(new int[] {-1, 1}))
                        .getMessage());
    }

    /** A compact fingerprint's set (header version 2) says the length of the signature it stands for. */
    @Test
    public void testCompactHeaderCarriesTheSignatureLength() {
        int[] values = {3, 9, 27, 81};
        String compact = ShingleSetCodec.encode(values, 0x0a0b0c0d, 64);
        String plain = ShingleSetCodec.encode(values, 0x0a0b0c0d);
        assertEquals(64, ShingleSetCodec.signatureLengthOf(compact));
        assertEquals(0, ShingleSetCodec.signatureLengthOf(plain));
        assertArrayEquals(
                ShingleSetCodec.decodePayload(plain, 0x0a0b0c0d), ShingleSetCodec.decodePayload(compact, 0x0a0b0c0d));
        byte[] payload = ShingleSetCodec.decodePayload(compact, 0x0a0b0c0d);
        assertEquals(compact, ShingleSetCodec.encodePayload(payload, 0, payload.length, 0x0a0b0c0d, 64));
        assertEquals(0x0a0b0c0d, ShingleSetCodec.schemeHashOf(compact));
        assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.encode(values, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.encode(values, 1, 1025));
    }

    @Test
    public void testSourceFormChecksVersionAndScheme() {
        String encoded = ShingleSetCodec.encode(new int[] {1, 2}, 0x0a0b0c0d);
        assertEquals(
                "shingle set was made by another fingerprint scheme: scheme hash 0a0b0c0d, expected 00000001",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.decodePayload(encoded, 1))
                        .getMessage());
        byte[] bytes = Base64.getUrlDecoder().decode(encoded);
        bytes[0] = 3;
        String otherVersion = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        assertEquals(
                "shingle set has format version 3, expected 1 or 2",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> ShingleSetCodec.decodePayload(otherVersion, 0x0a0b0c0d))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.decodePayload("not base64!", 1))
                .getMessage()
                .startsWith("shingle set is not valid URL-safe base64"));
        assertEquals(
                "shingle set has 3 bytes, shorter than its 5-byte header and a count",
                assertThrows(IllegalArgumentException.class, () -> ShingleSetCodec.decodePayload("AQID", 1))
                        .getMessage());
    }

    @Test
    public void testEmptySets() {
        byte[] empty = ShingleSetCodec.payload(new int[0]);
        byte[] one = ShingleSetCodec.payload(new int[] {7});
        assertEquals(1.0, ShingleSetCodec.jaccard(empty, 0, 1, empty, 0, 1), 0.0);
        assertEquals(0.0, ShingleSetCodec.jaccard(empty, 0, 1, one, 0, one.length), 0.0);
        assertEquals(0.0, ShingleSetCodec.jaccard(one, 0, one.length, empty, 0, 1), 0.0);
        assertEquals(1.0, ShingleSetCodec.jaccard(new int[0], new int[0]), 0.0);
        assertEquals(0.0, ShingleSetCodec.jaccard(new int[0], new int[] {7}), 0.0);
    }
}
