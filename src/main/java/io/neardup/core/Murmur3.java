/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * MurmurHash3 x64_128, bit-for-bit Austin Appleby's reference {@code MurmurHash3_x64_128}
 * (smhasher, public domain) on a little-endian machine.
 *
 * <p>The reference takes an unsigned 32-bit seed; here the seed is a {@code long} and seeds both
 * 64-bit lanes directly. For seeds in {@code [0, 2^32)} the output equals the reference's (and
 * Lucene's {@code StringHelper.murmurhash3_x64_128}); larger seeds are an extension of it.
 *
 * <p>Outputs are persisted (simhash features, MinHash signatures, content hashes): any change here
 * changes stored fingerprints, which is why {@code Murmur3Tests} pins known answers.
 */
public final class Murmur3 {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;
    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Murmur3() {}

    /** Writes h1 into {@code out[0]} and h2 into {@code out[1]}; allocates nothing. */
    public static void hash128(byte[] data, int off, int len, long seed, long[] out) {
        if (out.length < 2) {
            throw new IllegalArgumentException("out must have length >= 2, got " + out.length);
        }
        out[0] = hash(data, off, len, seed, out);
    }

    /** Convenience form of {@link #hash128(byte[], int, int, long, long[])}; allocates the result. */
    public static long[] hash128(byte[] data, int off, int len, long seed) {
        long[] out = new long[2];
        hash128(data, off, len, seed, out);
        return out;
    }

    /** The first 64 bits (h1) of {@link #hash128}; allocates nothing. */
    public static long hash64(byte[] data, int off, int len, long seed) {
        return hash(data, off, len, seed, null);
    }

    /** Returns h1; stores h2 into {@code h2Out[1]} unless it is null. */
    @SuppressWarnings("fallthrough") // the reference's tail switch falls through on purpose
    private static long hash(byte[] data, int off, int len, long seed, long[] h2Out) {
        checkRange(data, off, len);
        long h1 = seed;
        long h2 = seed;
        final int nblocks = len >>> 4;
        int p = off;
        for (int i = 0; i < nblocks; i++, p += 16) {
            long k1 = getLongLE(data, p);
            long k2 = getLongLE(data, p + 8);

            k1 *= C1;
            k1 = Long.rotateLeft(k1, 31);
            k1 *= C2;
            h1 ^= k1;
            h1 = Long.rotateLeft(h1, 27);
            h1 += h2;
            h1 = h1 * 5 + 0x52dce729;

            k2 *= C2;
            k2 = Long.rotateLeft(k2, 33);
            k2 *= C1;
            h2 ^= k2;
            h2 = Long.rotateLeft(h2, 31);
            h2 += h1;
            h2 = h2 * 5 + 0x38495ab5;
        }

        long k1 = 0;
        long k2 = 0;
        final int tail = p;
        // Reference switch fall-through, byte by byte.
        switch (len & 15) {
            case 15:
                k2 ^= (data[tail + 14] & 0xffL) << 48;
            case 14:
                k2 ^= (data[tail + 13] & 0xffL) << 40;
            case 13:
                k2 ^= (data[tail + 12] & 0xffL) << 32;
            case 12:
                k2 ^= (data[tail + 11] & 0xffL) << 24;
            case 11:
                k2 ^= (data[tail + 10] & 0xffL) << 16;
            case 10:
                k2 ^= (data[tail + 9] & 0xffL) << 8;
            case 9:
                k2 ^= (data[tail + 8] & 0xffL);
                k2 *= C2;
                k2 = Long.rotateLeft(k2, 33);
                k2 *= C1;
                h2 ^= k2;
            case 8:
                k1 ^= (data[tail + 7] & 0xffL) << 56;
            case 7:
                k1 ^= (data[tail + 6] & 0xffL) << 48;
            case 6:
                k1 ^= (data[tail + 5] & 0xffL) << 40;
            case 5:
                k1 ^= (data[tail + 4] & 0xffL) << 32;
            case 4:
                k1 ^= (data[tail + 3] & 0xffL) << 24;
            case 3:
                k1 ^= (data[tail + 2] & 0xffL) << 16;
            case 2:
                k1 ^= (data[tail + 1] & 0xffL) << 8;
            case 1:
                k1 ^= (data[tail] & 0xffL);
                k1 *= C1;
                k1 = Long.rotateLeft(k1, 31);
                k1 *= C2;
                h1 ^= k1;
            default:
                break;
        }

        h1 ^= len;
        h2 ^= len;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        h2 += h1;
        if (h2Out != null) {
            h2Out[1] = h2;
        }
        return h1;
    }

    /** The reference finalization mix: a bijection on 64-bit values with full avalanche. */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    private static long getLongLE(byte[] b, int i) {
        return (long) LONG_LE.get(b, i);
    }

    private static void checkRange(byte[] data, int off, int len) {
        if (off < 0 || len < 0 || off > data.length - len) {
            throw new IndexOutOfBoundsException(
                    "range [" + off + ", " + off + " + " + len + ") out of bounds for length " + data.length);
        }
    }
}
