/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class SimhashCodecTests extends OpenSearchTestCase {

    @Test
    public void testRoundTripAndKnownValues() {
        assertEquals("0000000000000000", SimhashCodec.toHex(0));
        assertEquals("ffffffffffffffff", SimhashCodec.toHex(-1));
        assertEquals("00000000000000ff", SimhashCodec.toHex(255));
        assertEquals(0x8000000000000000L, SimhashCodec.parseHex("8000000000000000"));
        assertEquals(0xABCDEF0123456789L, SimhashCodec.parseHex("ABCdef0123456789"));
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int i = 0; i < 1000; i++) {
            long value = random.nextLong();
            assertEquals(String.format(java.util.Locale.ROOT, "%016x", value), SimhashCodec.toHex(value));
            assertEquals(value, SimhashCodec.parseHex(SimhashCodec.toHex(value)));
        }
    }

    /** Only ASCII hex digits: full-width and Arabic-Indic digits are digits to Java, not to a fingerprint. */
    @Test
    public void testRejectsWhatIsNotSixteenAsciiHexDigits() {
        assertTrue(SimhashCodec.isHex("0123456789abcdef"));
        assertFalse(SimhashCodec.isHex("０１２３４５６７８９０１２３４５"));
        assertFalse(SimhashCodec.isHex("٠١٢٣٤٥٦٧٨٩٠١٢٣٤٥"));
        assertFalse(SimhashCodec.isHex("0123456789abcdeg"));
        assertFalse(SimhashCodec.isHex("0123456789abcde"));
        assertFalse(SimhashCodec.isHex(null));
        assertEquals(
                "simhash must be 16 hex characters, got [０１２３４５６７８９０１２３４５]",
                assertThrows(IllegalArgumentException.class, () -> SimhashCodec.parseHex("０１２３４５６７８９０１２３４５"))
                        .getMessage());
        assertEquals(
                "simhash must be 16 hex characters, got [null]",
                assertThrows(IllegalArgumentException.class, () -> SimhashCodec.parseHex(null))
                        .getMessage());
    }
}
