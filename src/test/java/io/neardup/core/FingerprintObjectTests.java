/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import java.util.List;
import java.util.Map;
import org.junit.Test;

public class FingerprintObjectTests {
    private static final FingerprintScheme SCHEME = FingerprintScheme.defaults("standard");

    @Test
    public void testWhatTheProcessorWritesReadsBack() {
        double[] weights = new double[64];
        weights[0] = 3;
        weights[5] = -1;
        weights[63] = 0.5;
        Margins margins = Margins.of(weights, 64);
        Map<String, Object> simhash = FingerprintObject.simhash(0x00ff00ff00ff00ffL, margins, SCHEME.id());
        assertEquals(List.of("value", "margins", "scheme"), List.copyOf(simhash.keySet()));
        FingerprintObject.Parts parts = FingerprintObject.read(simhash, FingerprintObject.SIMHASH_KEYS);
        assertEquals(0x00ff00ff00ff00ffL, SimhashCodec.parseHex(parts.value()));
        assertEquals(margins, Margins.decode(parts.margins()));
        assertEquals(SCHEME.id(), parts.scheme());

        int[] signature = {1, 2, 3};
        int[] set = {5, 9};
        FingerprintScheme small = new FingerprintScheme(
                1, "standard", 1, FeatureWeighting.LOG_TF, "none", 3, 3, MinHasher.Method.ONE_PERMUTATION, 0);
        Map<String, Object> minhash = FingerprintObject.minhash(signature, set, small.schemeHash(), small.id());
        assertEquals(List.of("value", "shingles", "scheme"), List.copyOf(minhash.keySet()));
        parts = FingerprintObject.read(minhash, FingerprintObject.MINHASH_KEYS);
        assertArrayEquals(signature, SignatureCodec.decode(parts.value(), 3, small.schemeHash()));
        byte[] payload = ShingleSetCodec.decodePayload(parts.shingles(), small.schemeHash());
        assertArrayEquals(set, ShingleSetCodec.values(payload, 0, payload.length));
        assertEquals(
                List.of("value", "scheme"),
                List.copyOf(FingerprintObject.minhash(signature, null, small.schemeHash(), small.id())
                        .keySet()));
    }

    @Test
    public void testWriteIsTheInverseOfRead() {
        Map<String, Object> simhash =
                FingerprintObject.simhash(0x00ff00ff00ff00ffL, Margins.of(new double[64], 64), SCHEME.id());
        FingerprintObject.Parts parts = FingerprintObject.read(simhash, FingerprintObject.SIMHASH_KEYS);
        Object written = FingerprintObject.write(parts, true);
        assertEquals(simhash, written);
        assertEquals(List.copyOf(simhash.keySet()), List.copyOf(((Map<?, ?>) written).keySet()));
        Map<String, Object> minhash = FingerprintObject.minhash(new int[] {1, 2}, new int[] {7}, 42, SCHEME.id());
        written = FingerprintObject.write(FingerprintObject.read(minhash, FingerprintObject.MINHASH_KEYS), true);
        assertEquals(List.copyOf(minhash.keySet()), List.copyOf(((Map<?, ?>) written).keySet()));
        assertEquals(minhash, written);
        FingerprintObject.Parts valueOnly = new FingerprintObject.Parts("0123456789abcdef", null, null, null);
        assertEquals("0123456789abcdef", FingerprintObject.write(valueOnly, false));
        assertEquals(Map.of("value", "0123456789abcdef"), FingerprintObject.write(valueOnly, true));
    }

    @Test
    public void testBareValuesAndNull() {
        assertEquals(
                new FingerprintObject.Parts("0123456789abcdef", null, null, null),
                FingerprintObject.read("0123456789abcdef", FingerprintObject.SIMHASH_KEYS));
        assertNull(FingerprintObject.read(null, FingerprintObject.SIMHASH_KEYS));
        assertEquals("x", FingerprintObject.valueOf(Map.of("value", "x")));
        assertEquals("y", FingerprintObject.valueOf("y"));
    }

    @Test
    public void testMalformedObjectsSayWhatIsWrong() {
        List<String> keys = FingerprintObject.SIMHASH_KEYS;
        assertEquals(
                "has unknown key [shingles], expected one of [value, margins, scheme]",
                error(Map.of("value", "v", "shingles", "s"), keys));
        assertEquals("key [value] must be a string, got integer [3]", error(Map.of("value", 3), keys));
        assertEquals("object has no [value]", error(Map.of("scheme", "s"), keys));
        assertEquals("[scheme] must have 1 to 512 characters, got 0", error(Map.of("value", "v", "scheme", ""), keys));
        assertEquals(
                "expects a string or an object with [value, margins, scheme], got an array", error(List.of("v"), keys));
    }

    private static String error(Object stored, List<String> keys) {
        return assertThrows(IllegalArgumentException.class, () -> FingerprintObject.read(stored, keys))
                .getMessage();
    }
}
