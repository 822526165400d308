/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

public class ContentHashTests {

    @Test
    public void testNormalize() {
        assertEquals("hello world", ContentHash.normalize("  Hello \t\n  WORLD\u00a0 "));
        assertEquals("", ContentHash.normalize(" \u2003\n"));
        // NFC: e + combining acute becomes one code point.
        assertEquals("caf\u00e9", ContentHash.normalize("CAFE\u0301"));
        assertEquals("stra\u00dfe", ContentHash.normalize("STRA\u00dfE"));
    }

    @Test
    public void testNormalizeIsIdempotent() {
        String[] samples = {"\u0130stanbul  \u0049", "A\u030a\u212b \u00c5", "\u1E9B\u0323 x", "\uD83D\uDE00  Ok"};
        for (String s : samples) {
            String once = ContentHash.normalize(s);
            assertEquals(s, once, ContentHash.normalize(once));
        }
    }

    @Test
    public void testKnownAnswers() {
        // "hello world" hashes as the reference murmur3 x64_128, seed 0, printed h1 then h2.
        assertEquals(GOLDEN_HELLO_WORLD, ContentHash.of("  Hello\n\nWORLD "));
        assertEquals("00000000000000000000000000000000", ContentHash.of("  \t "));
        assertEquals(32, ContentHash.of("x").length());
    }

    // Checked with the reference C implementation on the bytes "hello world".
    private static final String GOLDEN_HELLO_WORLD = "533f6046eb7f610eab97467d60eb63b1";

    @Test
    public void testEquivalentTextsShareAHash() {
        assertEquals(ContentHash.of("Caf\u00e9 au lait"), ContentHash.of("CAFE\u0301   AU\tLAIT\n"));
        assertNotEquals(ContentHash.of("cafe au lait"), ContentHash.of("caf\u00e9 au lait"));
    }

    @Test
    public void testRejectsNull() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ContentHash.of(null));
        assertEquals("text must not be null", e.getMessage());
    }
}
