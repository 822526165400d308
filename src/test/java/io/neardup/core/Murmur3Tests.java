/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.apache.lucene.util.StringHelper;
import org.junit.Test;
import org.opensearch.test.OpenSearchTestCase;

public class Murmur3Tests extends OpenSearchTestCase {

    // Known answers from Austin Appleby's reference MurmurHash3_x64_128 (smhasher, compiled with
    // g++ on x86-64), confirmed equal to Lucene 10.5's StringHelper.murmurhash3_x64_128.
    private static final Object[][] STRINGS = {
        {"", 0L, 0x0000000000000000L, 0x0000000000000000L},
        {"", 42L, 0xf02aa77dfa1b8523L, 0xd1016610da11cbb9L},
        {"", 0xFFFFFFFFL, 0x6af1df4d9d3bc9ecL, 0x857421121ee6446bL},
        {"hello", 0L, 0xcbd8a7b341bd9b02L, 0x5b1e906a48ae1d19L},
        {"hello", 42L, 0xc4b8b3c960af6f08L, 0x2334b875b0efbc7aL},
        {"hello", 0xFFFFFFFFL, 0x347bad75d7575e14L, 0xd940b3d7b5fb075cL},
        {"The quick brown fox jumps over the lazy dog", 0L, 0xe34bbc7bbc071b6cL, 0x7a433ca9c49a9347L},
        {"The quick brown fox jumps over the lazy dog", 42L, 0x740dcf93fe0bd5d7L, 0xc4546cf4ec705c8fL},
        {"The quick brown fox jumps over the lazy dog", 0xFFFFFFFFL, 0x691c1d73a800a18aL, 0x647d67096440b412L},
        {"h\u00e9llo w\u00f6rld \uD83D\uDE00", 0L, 0x42fcd5db5121f3b0L, 0xe33e456b561d78a5L},
        {"h\u00e9llo w\u00f6rld \uD83D\uDE00", 42L, 0xb862ee1c8022227dL, 0xb839c4a5e192db0aL},
    };

    // Reference outputs for bytes b[i] = (i * 31 + 7) & 0xff, length 0..40 (every tail case and
    // one to two full blocks), seed = length * 1000003.
    private static final long[][] BY_LENGTH = {
        {0x0000000000000000L, 0x0000000000000000L}, {0x383a318cbe408a52L, 0x5c1c91898893a3ffL},
        {0xed6044fbe29ed46bL, 0x7f9287efaa59749aL}, {0x7d3358d9186adb03L, 0x4838c643f0b8d468L},
        {0x44bfb71e530cbc4bL, 0x3a2c503fd9aa5fdbL}, {0xbce21992dda8ee2eL, 0xf85e422da9ddd4e0L},
        {0xd0e3f0c091b87c63L, 0x7d96e9b31581478bL}, {0xd08ee76922a6361bL, 0x3a8e6ce103c5fa67L},
        {0x09f8bde471c17c03L, 0xb43ba00b45893249L}, {0x9b09d70b06d82d90L, 0x1aa91d315920daf1L},
        {0x09beb561e4a6d038L, 0x938a72afed962078L}, {0x83bec034e25b27a0L, 0x7c45efac3676dcebL},
        {0xf0f37ae20b16c53cL, 0x6a7a056b6cfd2096L}, {0x83c4046f84490460L, 0x8189b8ef6bdb39b4L},
        {0xdb3422f2b840b5a1L, 0x052f917a2722fae6L}, {0x2f0e4c44e483cd20L, 0xdab746eb46050ce0L},
        {0x25e843a7ac0c56aaL, 0x5eb16fa2ea1223deL}, {0x2f9a888cc528c5f5L, 0xddca3653a2b26fd8L},
        {0xbec04ff4b2350713L, 0xcfa212722561619aL}, {0x982dc55d4c66a0abL, 0x915366a62c251fcfL},
        {0xc069d064693c1a49L, 0x3858f471ad5f3787L}, {0xe32f82dd3224cc56L, 0x59c6dac7800fc849L},
        {0x80a7a4fcc58cc680L, 0x69ac5c38eb3f0eb1L}, {0x776e4ccd74c9ba47L, 0x6ce513b07bedf407L},
        {0x34429b644fa2381aL, 0x526084b9a3d6424cL}, {0x47780dfbb9ba07c0L, 0x1c31585c2494d56aL},
        {0xff447e8b8c4a075dL, 0x260bc9ba5eaf54c2L}, {0x890bc3a34df3f6aaL, 0x3e365334b35fa6edL},
        {0xd9cdfd28e68eea59L, 0xeca1182f178ebe18L}, {0x8aa56f7baa40ebe2L, 0x15c4d6f734a2b385L},
        {0xeb33b532ded726bfL, 0x351d4e563376bfbaL}, {0x33016a9ce45d2615L, 0xd9a1469caf96434bL},
        {0xcf73399732adeb01L, 0x8998e6bd3751d52aL}, {0x9b59f222a39a9536L, 0x010e71bd44aaa115L},
        {0x3f16f0dedfed9bcaL, 0xaae4f0e11525f6f3L}, {0x82f37962dda4f1dbL, 0xa902491be7e438b9L},
        {0x8a87e1c513475f8dL, 0x5c3bf524a789d0c3L}, {0xa9a392b010c8a29cL, 0x973b381c11049390L},
        {0x2d2d6027e2a199adL, 0x44b61e1821af9909L}, {0xe7a31493e48ad97bL, 0xd383131276318b15L},
        {0xc6329e589e4d4d56L, 0x98243a953e69c413L},
    };

    @Test
    public void testKnownAnswersForStrings() {
        for (Object[] row : STRINGS) {
            byte[] b = ((String) row[0]).getBytes(StandardCharsets.UTF_8);
            long seed = (Long) row[1];
            long[] expected = {(Long) row[2], (Long) row[3]};
            String what = "[" + row[0] + "] seed " + seed;
            assertArrayEquals(what, expected, Murmur3.hash128(b, 0, b.length, seed));
            assertEquals(what, expected[0], Murmur3.hash64(b, 0, b.length, seed));
        }
    }

    @Test
    public void testKnownAnswersForEveryTailLength() {
        byte[] b = new byte[64];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) ((i * 31 + 7) & 0xff);
        }
        long[] out = new long[2];
        for (int len = 0; len < BY_LENGTH.length; len++) {
            long seed = len * 1000003L;
            Murmur3.hash128(b, 0, len, seed, out);
            assertArrayEquals("length " + len, BY_LENGTH[len], out);
            assertEquals("length " + len, BY_LENGTH[len][0], Murmur3.hash64(b, 0, len, seed));
        }
    }

    @Test
    public void testOffsetHashesOnlyTheRange() {
        byte[] b = "xxhelloyy".getBytes(StandardCharsets.UTF_8);
        assertEquals(0xcbd8a7b341bd9b02L, Murmur3.hash64(b, 2, 5, 0));
    }

    @Test
    public void testLongSeedsExtendTheReference() {
        // Above 2^32 the seed is no longer the reference's; pin it so it cannot drift either.
        byte[] b = "hello".getBytes(StandardCharsets.UTF_8);
        long[] h = Murmur3.hash128(b, 0, b.length, 0x123456789abcdef0L);
        assertArrayEquals(new long[] {GOLDEN_LONG_SEED_H1, GOLDEN_LONG_SEED_H2}, h);
    }

    // From the reference C code with its seed widened to uint64_t (h1 = h2 = seed).
    private static final long GOLDEN_LONG_SEED_H1 = 0x854f23c1af39a84cL;
    private static final long GOLDEN_LONG_SEED_H2 = 0x02fd573fd15bb171L;

    @Test
    public void testFmix64() {
        assertEquals(0L, Murmur3.fmix64(0L));
        assertEquals(GOLDEN_FMIX_1, Murmur3.fmix64(1L));
        assertEquals(GOLDEN_FMIX_MINUS_1, Murmur3.fmix64(-1L));
    }

    // From the reference's fmix64, compiled.
    private static final long GOLDEN_FMIX_1 = 0xb456bcfc34c2cb2cL;
    private static final long GOLDEN_FMIX_MINUS_1 = 0x64b5720b4b825f21L;

    @Test
    public void testMatchesLuceneOnRandomInputs() {
        SplittableRandom random = new SplittableRandom(randomLong());
        long[] out = new long[2];
        for (int iter = 0; iter < 2000; iter++) {
            byte[] b = new byte[random.nextInt(100)];
            random.nextBytes(b);
            int off = b.length == 0 ? 0 : random.nextInt(b.length);
            int len = random.nextInt(b.length - off + 1);
            int seed = random.nextInt();
            long[] lucene = StringHelper.murmurhash3_x64_128(b, off, len, seed);
            // Lucene's int seed is the reference's uint32.
            Murmur3.hash128(b, off, len, seed & 0xFFFFFFFFL, out);
            assertArrayEquals("iteration " + iter, lucene, out);
        }
    }

    @Test
    public void testRejectsBadRanges() {
        byte[] b = new byte[4];
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> Murmur3.hash64(b, 2, 3, 0));
        assertEquals("range [2, 2 + 3) out of bounds for length 4", e.getMessage());
        IllegalArgumentException e2 =
                assertThrows(IllegalArgumentException.class, () -> Murmur3.hash128(b, 0, 4, 0, new long[1]));
        assertEquals("out must have length >= 2, got 1", e2.getMessage());
    }
}
