/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

public class IdfTableTests {

    private static IdfTable load(String text) throws IOException {
        return IdfTable.load("test", 0, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static String loadError(String text) {
        return assertThrows(IllegalArgumentException.class, () -> load(text)).getMessage();
    }

    @Test
    public void testFormula() {
        assertEquals((float) (Math.log(101.0 / 11.0) + 1), IdfTable.idf(100, 10), 0f);
        assertEquals("a term in every document keeps weight 1", 1f, IdfTable.idf(100, 100), 1e-6f);
        assertEquals((float) (Math.log(101.0) + 1), IdfTable.idf(100, 0), 0f);
    }

    @Test
    public void testLoadAndLookupByTokenHash() throws IOException {
        IdfTable t = load("#docs\t100\nthe\t100\r\ncat\t10\n\ncaf\u00e9\t1\n");
        TokenHasher hasher = new TokenHasher(0);
        assertEquals(3, t.size());
        assertEquals(100, t.docCount());
        assertEquals(IdfTable.idf(100, 100), t.idf(hasher.hash("the")), 0f);
        assertEquals(IdfTable.idf(100, 10), t.idf(hasher.hash("cat")), 0f);
        assertEquals(IdfTable.idf(100, 1), t.idf(hasher.hash("caf\u00e9")), 0f);
        assertEquals("unknown terms count as df = 0", IdfTable.idf(100, 0), t.idf(hasher.hash("dog")), 0f);
        assertEquals(t.defaultIdf(), t.idf(hasher.hash("dog")), 0f);
        assertTrue(t.identity(), t.identity().matches("test@[0-9a-f]{16}"));
    }

    @Test
    public void testKeysDependOnTheSeed() throws IOException {
        IdfTable t =
                IdfTable.load("s", 5, new ByteArrayInputStream("#docs\t10\ncat\t1\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals(IdfTable.idf(10, 1), t.idf(new TokenHasher(5).hash("cat")), 0f);
        assertEquals(t.defaultIdf(), t.idf(new TokenHasher(0).hash("cat")), 0f);
        assertEquals(5, t.seed());
    }

    @Test
    public void testIdentity() throws IOException {
        String a = load("#docs\t100\nthe\t100\ncat\t10\n").identity();
        assertEquals(
                "line order does not matter",
                a,
                load("#docs\t100\ncat\t10\nthe\t100\n").identity());
        assertEquals(
                "of() and load() agree",
                a,
                IdfTable.of("test", 0, 100, new String[] {"cat", "the"}, new long[] {10, 100})
                        .identity());
        assertNotEquals(
                "a df matters", a, load("#docs\t100\nthe\t100\ncat\t11\n").identity());
        assertNotEquals("N matters", a, load("#docs\t101\nthe\t100\ncat\t10\n").identity());
        assertEquals("pinned: the identity is recorded in every fingerprint scheme", GOLDEN_IDENTITY, a);
    }

    private static final String GOLDEN_IDENTITY = "test@3f80c2e2a888b93f";

    @Test
    public void testLoadErrors() {
        assertEquals("idf table [test] line 1 must be [#docs<TAB>N], got [the\t1]", loadError("the\t1\n"));
        assertEquals("idf table [test] line 1: N must be an integer, got [x]", loadError("#docs\tx\n"));
        assertEquals("idf table #docs must be >= 1, got 0", loadError("#docs\t0\n"));
        assertEquals(
                "idf table [test] line 3 must be [term<TAB>df], got [dog 1]", loadError("#docs\t10\ncat\t1\ndog 1\n"));
        assertEquals("idf table [test] line 2 must be [term<TAB>df], got [a\tb\t1]", loadError("#docs\t10\na\tb\t1\n"));
        assertEquals("idf table [test] line 2: df must be an integer, got [one]", loadError("#docs\t10\ncat\tone\n"));
        assertEquals(
                "idf table [test] line 2: df of [cat] must be in [0, 10], got 11", loadError("#docs\t10\ncat\t11\n"));
        assertEquals("idf table [test] line 3: duplicate term [cat]", loadError("#docs\t10\ncat\t1\ncat\t2\n"));
    }

    @Test
    public void testRejectsInvalidUtf8AndBadNames() {
        byte[] bad = {'#', 'd', 'o', 'c', 's', '\t', '1', '\n', (byte) 0xC3, '\t', '1'};
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> IdfTable.load("x", 0, new ByteArrayInputStream(bad)));
        assertEquals("idf table [x] is not valid UTF-8", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdfTable.of("a b", 0, 1, new String[0], new long[0]));
        assertEquals("idf table name must match [A-Za-z0-9._-]{1,128}, got [a b]", e.getMessage());
    }
}
