/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class ContentHashTests extends OpenSearchTestCase {

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

    /** The one-pass path's premise: no two of its characters (or their lowercases) compose under NFC. */
    @Test
    public void testNoTwoOnePassCharactersCompose() {
        List<Character> chars = new ArrayList<>();
        for (int c = 0; c <= Character.MAX_VALUE; c++) {
            if (ContentHash.isOnePass((char) c)) {
                chars.add((char) c);
                char lower = Character.toLowerCase((char) c);
                if (lower != c) {
                    chars.add(lower);
                }
            }
        }
        assertTrue("one-pass characters: " + chars.size(), chars.size() > 1000);
        char[] pair = new char[2];
        for (char a : chars) {
            pair[0] = a;
            for (char b : chars) {
                pair[1] = b;
                String s = new String(pair);
                assertTrue(
                        String.format(java.util.Locale.ROOT, "U+%04X U+%04X", (int) a, (int) b),
                        Normalizer.isNormalized(s, Normalizer.Form.NFC));
            }
        }
    }

    /** The one-pass path gives the general path's bytes, and gives up on any text it cannot do. */
    @Test
    public void testOnePassMatchesTheGeneralPath() {
        String interesting =
                "aZ \t\n\u00a0\u00c0\u00df\u00e9\u0130\u0131\u017f\u01c5\u0345\u0301\u0300\u0391\u03a3\u03c2"
                        + "\u03f4\u1e9e\u2010\u2028\u2126\u212b\u2500\u25cf\u2c65\u023a\u3000\ud83d\ude00\ud800";
        for (int i = 0; i < 20_000; i++) {
            StringBuilder text = new StringBuilder();
            int length = random().nextInt(12);
            for (int j = 0; j < length; j++) {
                switch (random().nextInt(3)) {
                    case 0 -> text.append(interesting.charAt(random().nextInt(interesting.length())));
                    case 1 -> text.append((char) random().nextInt(0x2600));
                    default -> text.append((char) random().nextInt(Character.MAX_VALUE + 1));
                }
            }
            String s = text.toString();
            byte[] general = ContentHash.generalNormalizedUtf8(s);
            assertArrayEquals(s, general, ContentHash.normalizedUtf8(s));
            byte[] onePass = ContentHash.onePassNormalizedUtf8(s);
            boolean allOnePass = s.chars().allMatch(c -> ContentHash.isOnePass((char) c));
            assertEquals(s, allOnePass, onePass != null);
            if (onePass != null) {
                assertArrayEquals(s, general, onePass);
            }
        }
    }

    /** Every one-pass character alone and between letters and spaces gives the general path's bytes. */
    @Test
    public void testEachOnePassCharacter() {
        for (int c = 0; c <= Character.MAX_VALUE; c++) {
            if (ContentHash.isOnePass((char) c)) {
                for (String s :
                        new String[] {String.valueOf((char) c), "A" + (char) c + " b", " " + (char) c + (char) c}) {
                    assertArrayEquals(s, ContentHash.generalNormalizedUtf8(s), ContentHash.onePassNormalizedUtf8(s));
                }
            }
        }
    }
}
