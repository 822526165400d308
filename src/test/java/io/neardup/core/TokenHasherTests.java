/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class TokenHasherTests extends OpenSearchTestCase {

    private static long viaString(String s, long seed) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return Murmur3.hash64(b, 0, b.length, seed);
    }

    @Test
    public void testKnownAnswer() {
        // h1 of the reference murmur3 of "hello" (see Murmur3Tests).
        assertEquals(0xcbd8a7b341bd9b02L, new TokenHasher(0).hash("hello"));
    }

    @Test
    public void testEqualsHashingTheStringsUtf8Bytes() {
        String[] tokens = {
            "",
            "a",
            "caf\u00e9",
            "\u00df",
            "\u65e5\u672c\u8a9e",
            "\uD83D\uDE00",
            "a\uD83D\uDE00b",
            "\uD800",
            "\uDC00",
            "x\uD800y",
            "\uD800\uD800\uDC00",
            "\uDC00\uD800",
            "end\uD83D",
            "\u0800\u07ff\u007f\u0080\uffff",
        };
        for (long seed : new long[] {0, 42, -7}) {
            TokenHasher hasher = new TokenHasher(seed);
            for (String t : tokens) {
                assertEquals("token [" + t + "] seed " + seed, viaString(t, seed), hasher.hash(t));
            }
        }
    }

    @Test
    public void testRandomUtf16EqualsStringEncoding() {
        SplittableRandom random = new SplittableRandom(randomLong());
        TokenHasher hasher = new TokenHasher(3);
        for (int iter = 0; iter < 5000; iter++) {
            char[] buf = new char[random.nextInt(40)];
            for (int i = 0; i < buf.length; i++) {
                // Bias towards surrogates and multi-byte ranges, where encoders go wrong.
                buf[i] = switch (random.nextInt(4)) {
                    case 0 -> (char) random.nextInt(0x80);
                    case 1 -> (char) (0xD800 + random.nextInt(0x800));
                    default -> (char) random.nextInt(0x10000);
                };
            }
            int off = buf.length == 0 ? 0 : random.nextInt(buf.length);
            int len = random.nextInt(buf.length - off + 1);
            String s = new String(buf, off, len);
            assertEquals("iteration " + iter, viaString(s, 3), hasher.hash(buf, off, len));
        }
    }

    @Test
    public void testScratchGrowsAndIsReused() {
        TokenHasher hasher = new TokenHasher(0);
        String longToken = "\u20ac".repeat(1000);
        assertEquals(viaString("ab", 0), hasher.hash("ab"));
        assertEquals(viaString(longToken, 0), hasher.hash(longToken));
        // A short token after a long one must not see the long one's leftover bytes.
        assertEquals(viaString("ab", 0), hasher.hash("ab"));
    }

    @Test
    public void testSeedMatters() {
        assertNotEquals(new TokenHasher(0).hash("cat"), new TokenHasher(1).hash("cat"));
    }

    @Test
    public void testRejectsBadRange() {
        IndexOutOfBoundsException e =
                assertThrows(IndexOutOfBoundsException.class, () -> new TokenHasher(0).hash(new char[3], 1, 3));
        assertEquals("range [1, 1 + 3) out of bounds for length 3", e.getMessage());
    }
}
