/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class HammingTests {

    @Test
    public void testDistance() {
        assertEquals(0, Hamming.distance(0x1234L, 0x1234L));
        assertEquals(64, Hamming.distance(0L, -1L));
        assertEquals(2, Hamming.distance(0L, (1L << 63) | 1L));
        assertEquals(1, Hamming.distance(0b0101L, 0b0100L));
    }

    @Test
    public void testWithin() {
        assertTrue(Hamming.within(0L, 0b111L, 3));
        assertFalse(Hamming.within(0L, 0b1111L, 3));
    }
}
