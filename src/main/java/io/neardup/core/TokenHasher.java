/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Hashes one token, given as Lucene's {@code CharTermAttribute} exposes it ({@code char[]},
 * offset, length), to 64 bits: the UTF-8 bytes of the token through {@link Murmur3#hash64}.
 *
 * <p>The result equals {@code Murmur3.hash64(s.getBytes(UTF_8), 0, n, seed)} for the same
 * characters, including for unpaired surrogates, which are encoded as {@code '?'} exactly as
 * {@link String#getBytes(java.nio.charset.Charset)} does, so that the IDF table (hashed from
 * Strings) and the token stream (hashed from char buffers) agree.
 *
 * <p>Not thread-safe: it owns a growing scratch buffer. Use one per thread or per call.
 */
public final class TokenHasher {
    private final long seed;
    private byte[] scratch = new byte[64];

    public TokenHasher(long seed) {
        this.seed = seed;
    }

    public long seed() {
        return seed;
    }

    public long hash(char[] buf, int off, int len) {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new IndexOutOfBoundsException(
                    "range [" + off + ", " + off + " + " + len + ") out of bounds for length " + buf.length);
        }
        // A UTF-16 unit never needs more than 3 UTF-8 bytes (a pair needs 4 for 2 units).
        if (scratch.length < len * 3) {
            scratch = new byte[Math.max(len * 3, scratch.length * 2)];
        }
        final byte[] b = scratch;
        int n = 0;
        final int end = off + len;
        for (int i = off; i < end; i++) {
            char c = buf[i];
            if (c < 0x80) {
                b[n++] = (byte) c;
            } else if (c < 0x800) {
                b[n++] = (byte) (0xC0 | (c >>> 6));
                b[n++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(buf[i + 1])) {
                int cp = Character.toCodePoint(c, buf[++i]);
                b[n++] = (byte) (0xF0 | (cp >>> 18));
                b[n++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
                b[n++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
                b[n++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                b[n++] = (byte) '?';
            } else {
                b[n++] = (byte) (0xE0 | (c >>> 12));
                b[n++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
                b[n++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return Murmur3.hash64(b, 0, n, seed);
    }

    /** Off the hot path (IDF tables, tests): hashes a String the same way. */
    public long hash(CharSequence token) {
        char[] chars = token.toString().toCharArray();
        return hash(chars, 0, chars.length);
    }
}
