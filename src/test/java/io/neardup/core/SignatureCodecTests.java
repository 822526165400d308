/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class SignatureCodecTests extends OpenSearchTestCase {

    private static String raw(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    @Test
    public void testRoundTrip() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int n : new int[] {1, 7, 128, 1024}) {
            int[] sig = random.ints(n).toArray();
            int scheme = random.nextInt();
            String s = SignatureCodec.encode(sig, scheme);
            assertTrue(s.matches("[A-Za-z0-9_-]+"));
            assertArrayEquals(sig, SignatureCodec.decode(s, n, scheme));
            assertEquals(scheme, SignatureCodec.schemeHashOf(s));
        }
    }

    @Test
    public void testValueBytesEncodeAsTheirValues() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int n : new int[] {1, 7, 128, 1024}) {
            int[] sig = random.ints(n).toArray();
            ByteBuffer bytes = ByteBuffer.allocate(3 + 4 * n).position(3);
            for (int v : sig) {
                bytes.putInt(v);
            }
            assertEquals(SignatureCodec.encode(sig, 77), SignatureCodec.encode(bytes.array(), 3, 4 * n, 77));
        }
        assertEquals(
                "minhash signature has 6 bytes, not a whole number of 4-byte values",
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.encode(new byte[6], 0, 6, 1))
                        .getMessage());
        assertEquals(
                "minhash signature must have 1 to 1024 values, got 0",
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.encode(new byte[0], 0, 0, 1))
                        .getMessage());
    }

    @Test
    public void testKnownEncoding() {
        // version 1, scheme hash 0x01020304, values 0 and -1, big-endian: 01 01020304 00000000 ffffffff.
        assertEquals("AQECAwQAAAAA_____w", SignatureCodec.encode(new int[] {0, -1}, 0x01020304));
    }

    @Test
    public void testRejectsWrongNumberOfValues() {
        String s = SignatureCodec.encode(new int[64], 5);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode(s, 128, 5));
        assertEquals("minhash signature has 64 values, expected 128 (num_hashes)", e.getMessage());
    }

    @Test
    public void testRejectsOtherScheme() {
        String s = SignatureCodec.encode(new int[4], 0xcafe);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode(s, 4, 0xbeef));
        assertEquals(
                "minhash signature was made by another fingerprint scheme: scheme hash 0000cafe, expected 0000beef",
                e.getMessage());
    }

    @Test
    public void testRejectsOtherVersion() {
        byte[] b = ByteBuffer.allocate(9).put((byte) 2).putInt(0).putInt(7).array();
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode(raw(b), 1, 0));
        assertEquals(
                "minhash signature is of fingerprint format 2 (compact), expected fingerprint format 1 (stored signature)",
                e.getMessage());
        byte[] unknown =
                ByteBuffer.allocate(9).put((byte) 3).putInt(0).putInt(7).array();
        e = assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode(raw(unknown), 1, 0));
        assertEquals(
                "minhash signature has format version 3: unknown fingerprint format [3], expected one of [1, 2]",
                e.getMessage());
    }

    @Test
    public void testRejectsTruncated() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> SignatureCodec.decode(raw(new byte[] {1, 0, 0}), 1, 0));
        assertEquals("minhash signature has 3 bytes, shorter than its 5-byte header", e.getMessage());
        byte[] b = ByteBuffer.allocate(8).put((byte) 1).putInt(0).array();
        e = assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode(raw(b), 1, 0));
        assertEquals("minhash signature has a 3-byte payload, not a whole number of 4-byte values", e.getMessage());
    }

    @Test
    public void testRejectsBadBase64() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> SignatureCodec.decode("AQ*=", 1, 0));
        assertTrue(e.getMessage(), e.getMessage().startsWith("minhash signature is not valid URL-safe base64: "));
        e = assertThrows(IllegalArgumentException.class, () -> SignatureCodec.encode(new int[0], 0));
        assertEquals("minhash signature must have 1 to 1024 values, got 0", e.getMessage());
    }
}
