/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.SplittableRandom;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class MultiIndexTablesTests extends OpenSearchTestCase {

    @Test
    public void testEqualsLinearScanWithPlantedNeighboursForEveryH() {
        SplittableRandom random = new SplittableRandom(randomLong());
        for (int h = 0; h <= FlipSetGenerator.MAX_DISTANCE; h++) {
            PsmSearchTests.Planted data = new PsmSearchTests.Planted(random, 5000, 30, h, 16);
            MultiIndexTables tables = MultiIndexTables.build(data.fps, data.docs, data.fps.length, h);
            assertEquals(h + 1, tables.tableCount());
            Matches out = new Matches();
            Matches expected = new Matches();
            for (long query : data.queries) {
                expected.clear();
                LinearScan.search(data.fps, data.docs, data.fps.length, query, h, expected);
                out.clear();
                tables.search(query, out);
                String where = "h=" + h + " query " + Long.toHexString(query);
                // sortedDocs keeps duplicates: equality also proves each neighbour is reported once.
                assertArrayEquals(where, expected.sortedDocs(), out.sortedDocs());
                assertTrue(where, out.size() >= 2 * (h + 1));
                assertEquals(where, h + 1, out.lookups());
            }
        }
    }

    @Test
    public void testNeighbourAgreeingOnEveryBlockIsReportedOnce() {
        long[] fps = {0x0123456789abcdefL, 0x0123456789abcdefL ^ 1L, 0x0123456789abcdefL ^ (1L << 63)};
        int[] docs = {10, 11, 12};
        MultiIndexTables tables = MultiIndexTables.build(fps, docs, 3, 3);
        Matches out = new Matches();
        tables.search(fps[0], out);
        assertArrayEquals(new int[] {10, 11, 12}, out.sortedDocs());
        assertTrue(tables.ramBytesUsed() > 4 * 3 * 12);
    }

    @Test
    public void testValidationMessages() {
        assertEquals(
                "max_distance must be in [0, 8], got 9",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> MultiIndexTables.build(new long[1], new int[1], 1, 9))
                        .getMessage());
        assertEquals(
                "length must be in [0, min(1, 1)], got 2",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> MultiIndexTables.build(new long[1], new int[1], 2, 3))
                        .getMessage());
    }
}
