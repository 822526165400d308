/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupPlugin;
import io.neardup.core.SimhashCodec;
import java.io.IOException;
import java.util.Arrays;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.core.common.io.stream.NamedWriteableAwareStreamInput;
import org.opensearch.core.common.io.stream.NamedWriteableRegistry;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.search.DocValueFormat;
import org.opensearch.test.OpenSearchTestCase;

public class SimhashDocValueFormatTests extends OpenSearchTestCase {
    private static final DocValueFormat FORMAT = SimhashDocValueFormat.INSTANCE;

    public void testRoundTripIncludingTopBit() {
        long[] fps = {0x8000000000000000L, 0xffffffffffffffffL, 0L, 1L, 0x7fffffffffffffffL, 0x9f3a6c0e12b4d871L};
        String[] hex = {
            "8000000000000000",
            "ffffffffffffffff",
            "0000000000000000",
            "0000000000000001",
            "7fffffffffffffff",
            "9f3a6c0e12b4d871"
        };
        for (int i = 0; i < fps.length; i++) {
            long encoded = SimhashFieldMapper.encode(fps[i]);
            assertEquals(fps[i] ^ Long.MIN_VALUE, encoded);
            assertEquals(hex[i], FORMAT.format(encoded));
            assertEquals(encoded, FORMAT.parseLong(hex[i], false, () -> 0L));
            assertEquals(encoded, FORMAT.parseLong(hex[i].toUpperCase(java.util.Locale.ROOT), true, () -> 0L));
        }
        assertEquals(Long.MIN_VALUE, SimhashFieldMapper.encode(0L));
        assertEquals(Long.MAX_VALUE, SimhashFieldMapper.encode(-1L));
        Exception e = expectThrows(IllegalArgumentException.class, () -> FORMAT.parseLong("123", false, () -> 0L));
        assertEquals("simhash must be 16 hex characters, got [123]", e.getMessage());
        // What a search_after on the field is parsed with.
        e = expectThrows(IllegalArgumentException.class, () -> FORMAT.parseLong("not-a-fingerprint", false, () -> 0L));
        assertEquals("simhash must be 16 hex characters, got [not-a-fingerprint]", e.getMessage());
    }

    /** Signed order of the encoded values is unsigned order of the fingerprints, so prefixes are contiguous. */
    public void testSortOrderIsUnsignedOrder() {
        Long[] fps = new Long[1000];
        for (int i = 0; i < fps.length; i++) {
            fps[i] = i < 4 ? new long[] {0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE}[i] : randomLong();
        }
        Long[] bySigned = fps.clone();
        Arrays.sort(bySigned, (a, b) -> Long.compare(SimhashFieldMapper.encode(a), SimhashFieldMapper.encode(b)));
        Long[] byUnsigned = fps.clone();
        Arrays.sort(byUnsigned, Long::compareUnsigned);
        assertArrayEquals(byUnsigned, bySigned);
        assertEquals(0L, (long) bySigned[0]);
        assertEquals(-1L, (long) bySigned[bySigned.length - 1]);
        // Every 4-bit prefix forms one run: the prefixes never decrease along the sorted order.
        for (int i = 1; i < bySigned.length; i++) {
            assertTrue((bySigned[i - 1] >>> 60) <= (bySigned[i] >>> 60));
        }
        // Hex strings sort the same way.
        String[] hex = Arrays.stream(bySigned).map(SimhashCodec::toHex).toArray(String[]::new);
        String[] sortedHex = hex.clone();
        Arrays.sort(sortedHex);
        assertArrayEquals(sortedHex, hex);
    }

    public void testNamedWriteable() throws IOException {
        NamedWriteableRegistry registry = new NamedWriteableRegistry(new NearDupPlugin().getNamedWriteables());
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            out.writeNamedWriteable(FORMAT);
            try (StreamInput in = new NamedWriteableAwareStreamInput(out.bytes().streamInput(), registry)) {
                assertSame(FORMAT, in.readNamedWriteable(DocValueFormat.class));
            }
        }
    }
}
