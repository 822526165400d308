/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Base64;
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

    /** The two formats' objects read back as written: signature, set, scheme hash, format and comparison key. */
    @Test
    public void testReadMinhashKnownAnswers() {
        int hash = SCHEME.schemeHash();
        int[] set = {5, 9, 1000, 0x80000000, 0xFFFFFFFF};
        int[] signature = new int[128];
        for (int i = 0; i < signature.length; i++) {
            signature[i] = i * 31 - 7;
        }
        String hex = SignatureCodec.hex(hash);

        FingerprintObject.Parts stored = FingerprintObject.read(
                FingerprintObject.minhash(signature, set, hash, SCHEME.id(), FingerprintFormat.SIGNATURE),
                FingerprintObject.MINHASH_KEYS);
        for (FingerprintObject.Minhash read : List.of(
                FingerprintObject.readMinhash(stored, 128, FingerprintFormat.SIGNATURE),
                FingerprintObject.readMinhash(stored, 0, null))) {
            assertArrayEquals(signature, read.signature());
            assertTrue(read.signatureStored());
            assertEquals(128, read.signatureLength());
            assertArrayEquals(ShingleSetCodec.payload(set), read.shingleSet());
            assertArrayEquals(set, read.shingleValues());
            assertEquals(hash, read.schemeHash());
            assertEquals(FingerprintFormat.SIGNATURE, read.format());
            assertEquals(hex + "/128", read.comparableKey());
        }

        FingerprintObject.Parts compact = FingerprintObject.read(
                FingerprintObject.minhash(
                        FingerprintFormat.signatureOfSet(set, 128), set, hash, SCHEME.id(), FingerprintFormat.COMPACT),
                FingerprintObject.MINHASH_KEYS);
        assertNull(compact.value());
        for (FingerprintObject.Minhash read : List.of(
                FingerprintObject.readMinhash(compact, 128, FingerprintFormat.COMPACT),
                FingerprintObject.readMinhash(compact, 0, null))) {
            assertArrayEquals(FingerprintFormat.signatureOfSet(set, 128), read.signature());
            assertFalse(read.signatureStored());
            assertEquals(128, read.signatureLength());
            assertArrayEquals(set, read.shingleValues());
            assertEquals(FingerprintFormat.COMPACT, read.format());
            assertEquals(hex + "/128/2", read.comparableKey());
        }

        // Without a set a compact document stores its signature, of format 2; read at the length it gives.
        int[] short64 = Arrays.copyOf(signature, 64);
        FingerprintObject.Minhash bare = FingerprintObject.readMinhash(
                new FingerprintObject.Parts(
                        SignatureCodec.encode(short64, hash, FingerprintFormat.COMPACT), null, null, null),
                0,
                null);
        assertArrayEquals(short64, bare.signature());
        assertTrue(bare.signatureStored());
        assertNull(bare.shingleSet());
        assertNull(bare.shingleValues());
        assertEquals(hex + "/64/2", bare.comparableKey());
        // A scheme that is not a scheme id is not compared with the header.
        assertEquals(
                hash,
                FingerprintObject.readMinhash(
                                new FingerprintObject.Parts(SignatureCodec.encode(short64, hash), null, null, "mine"),
                                64,
                                FingerprintFormat.SIGNATURE)
                        .schemeHash());
    }

    /** Every refusal of the reader, each naming what is wrong; the format refusals as {@link FingerprintObject.OtherFormatException}. */
    @Test
    public void testReadMinhashRefusals() {
        int hash = SCHEME.schemeHash();
        int other = hash + 1;
        int[] set = {5, 9, 1000};
        int[] signature = new int[128];
        String value = SignatureCodec.encode(signature, hash);
        String compactValue = SignatureCodec.encode(signature, hash, FingerprintFormat.COMPACT);
        String formatOneSet = ShingleSetCodec.encode(set, hash);
        String compactSet = ShingleSetCodec.encode(set, hash, 128);
        FingerprintFormat one = FingerprintFormat.SIGNATURE;
        FingerprintFormat two = FingerprintFormat.COMPACT;
        byte[] unknownVersion = Base64.getUrlDecoder().decode(value);
        unknownVersion[0] = 9;
        byte[] unknownSetVersion = Base64.getUrlDecoder().decode(compactSet);
        unknownSetVersion[0] = 9;
        byte[] corruptSet = Base64.getUrlDecoder().decode(formatOneSet);
        corruptSet[corruptSet.length - 1] = (byte) 0xFF;
        Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();

        assertEquals(
                "the value has [shingles] and no [value]: that is fingerprint format 2 (compact), and this index has"
                        + " fingerprint format 1 (stored signature)",
                otherFormat(parts(null, compactSet, null), 128, one));
        assertEquals(
                "the value has [shingles] of fingerprint format 1 (stored signature) and no [value]",
                otherFormat(parts(null, formatOneSet, null), 128, two));
        assertEquals(
                "the value has [shingles] of fingerprint format 1 (stored signature) and no [value]",
                otherFormat(parts(null, formatOneSet, null), 0, null));
        assertEquals(
                "minhash signature is of fingerprint format 2 (compact), expected fingerprint format 1 (stored"
                        + " signature), the format of this index",
                otherFormat(parts(compactValue, null, null), 128, one));
        assertEquals(
                "minhash signature is of fingerprint format 1 (stored signature), expected fingerprint format 2"
                        + " (compact), the format of this index",
                otherFormat(parts(value, formatOneSet, null), 128, two));

        assertEquals(
                "minhash signature is not valid URL-safe base64: Illegal base64 character 20",
                refusal(parts("not base64", null, null), 128, one));
        assertEquals(
                "minhash signature has 2 bytes, shorter than its 5-byte header",
                refusal(parts("AAA", null, null), 0, null));
        assertEquals(
                "shingle set has 3 bytes, shorter than its 5-byte header and a count",
                refusal(parts(null, "AQID", null), 128, two));
        assertEquals(
                "signature header has scheme hash " + SignatureCodec.hex(hash) + " but [scheme] is ["
                        + schemeIdOf(other) + "]",
                refusal(parts(value, null, schemeIdOf(other)), 128, one));
        assertEquals(
                "shingle set header has scheme hash " + SignatureCodec.hex(hash) + " but [scheme] is ["
                        + schemeIdOf(other) + "]",
                refusal(parts(null, compactSet, schemeIdOf(other)), 0, null));
        assertEquals(
                "shingle set was made by another fingerprint scheme: scheme hash " + SignatureCodec.hex(other)
                        + ", expected " + SignatureCodec.hex(hash),
                refusal(parts(value, ShingleSetCodec.encode(set, other), null), 128, one));
        assertEquals(
                "shingle set has format version 9, expected 1 or 2",
                refusal(parts(null, base64.encodeToString(unknownSetVersion), null), 128, two));
        assertTrue(refusal(parts(value, base64.encodeToString(corruptSet), null), 128, one)
                .startsWith("shingle set is corrupt: "));
        assertEquals(
                "minhash signature has 64 values, expected 128 (num_hashes)",
                refusal(parts(null, ShingleSetCodec.encode(set, hash, 64), null), 128, two));
        assertEquals(
                "minhash signature has format version 9: unknown fingerprint format [9], expected one of [1, 2]",
                refusal(parts(base64.encodeToString(unknownVersion), null, null), 0, null));
        assertEquals(
                "minhash signature has 64 values, expected 128 (num_hashes)",
                refusal(parts(SignatureCodec.encode(new int[64], hash), null, null), 128, one));
        byte[] ragged = Arrays.copyOf(Base64.getUrlDecoder().decode(value), 5 + 7);
        assertEquals(
                "minhash signature has a 7-byte payload, not a whole number of 4-byte values",
                refusal(parts(base64.encodeToString(ragged), null, null), 0, null));
        byte[] headerOnly = Arrays.copyOf(Base64.getUrlDecoder().decode(value), 5);
        assertEquals(
                "minhash signature must have 1 to 1024 values, got 0",
                refusal(parts(base64.encodeToString(headerOnly), null, null), 0, null));
        String both = "the value has [shingles] and a [value]: in fingerprint format 2 (compact) a document with a"
                + " shingle set stores no signature";
        assertEquals(both, refusal(parts(compactValue, formatOneSet, null), 128, two));
        assertEquals(both, refusal(parts(compactValue, compactSet, null), 0, null));
    }

    private static FingerprintObject.Parts parts(String value, String shingles, String scheme) {
        return new FingerprintObject.Parts(value, null, shingles, scheme);
    }

    /** A scheme id whose hash is {@code schemeHash} ({@link FingerprintScheme#schemeHashOfId}). */
    private static String schemeIdOf(int schemeHash) {
        String id = SCHEME.id().substring(0, SCHEME.id().length() - 8) + SignatureCodec.hex(schemeHash);
        assertEquals(Integer.valueOf(schemeHash), FingerprintScheme.schemeHashOfId(id));
        return id;
    }

    private static String refusal(FingerprintObject.Parts parts, int numHashes, FingerprintFormat format) {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> FingerprintObject.readMinhash(parts, numHashes, format));
        assertFalse(e.getMessage(), e instanceof FingerprintObject.OtherFormatException);
        return e.getMessage();
    }

    private static String otherFormat(FingerprintObject.Parts parts, int numHashes, FingerprintFormat format) {
        return assertThrows(
                        FingerprintObject.OtherFormatException.class,
                        () -> FingerprintObject.readMinhash(parts, numHashes, format))
                .getMessage();
    }

    private static String error(Object stored, List<String> keys) {
        return assertThrows(IllegalArgumentException.class, () -> FingerprintObject.read(stored, keys))
                .getMessage();
    }
}
