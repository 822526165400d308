/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.text.Normalizer;
import java.util.Locale;

/**
 * An exact-duplicate key that ignores case, Unicode composition and whitespace layout:
 * 128-bit MurmurHash3 (seed 0) of the UTF-8 bytes of {@link #normalize(String)}, as 32 lowercase
 * hex characters ({@code h1} then {@code h2}, each big-endian). Independent of the fingerprint
 * scheme on purpose: exact duplicates stay comparable across schemes. Stateless and thread-safe.
 */
public final class ContentHash {
    /**
     * Blocks whose characters are candidates for the one-pass path: Latin and IPA (below the
     * combining diacritics at U+0300), Greek, general punctuation, box drawing, block elements and
     * geometric shapes. None holds a combining mark; the table below keeps only the characters that
     * are their own NFC and lowercase to one character of these blocks, also its own NFC.
     */
    private static final int[][] ONE_PASS_BLOCKS = {
        {0x0000, 0x02FF}, {0x0370, 0x03FF}, {0x2000, 0x206F}, {0x2500, 0x25FF}
    };
    /** Characters the one-pass path handles: bit c of this set. */
    private static final long[] ONE_PASS = new long[1 << 10];
    /** Characters the whitespace folding treats as space (after lowercasing): bit c of this set. */
    private static final long[] SPACE = new long[1 << 10];
    /** ASCII folded: the lowercase byte of each ASCII character, -1 for a space. */
    private static final byte[] ASCII_FOLDED = new byte[0x80];

    static {
        for (int c = 0; c <= Character.MAX_VALUE; c++) {
            if (Character.isWhitespace(c) || Character.isSpaceChar(c)) {
                SPACE[c >>> 6] |= 1L << c;
            }
            if (inOnePassBlock(c) && oneToOneLowercase((char) c)) {
                ONE_PASS[c >>> 6] |= 1L << c;
            }
        }
        for (char c = 0; c < 0x80; c++) {
            ASCII_FOLDED[c] = (SPACE[c >>> 6] & (1L << c)) != 0 ? -1 : (byte) Character.toLowerCase(c);
        }
    }

    private ContentHash() {}

    static boolean inOnePassBlock(int c) {
        for (int[] block : ONE_PASS_BLOCKS) {
            if (c >= block[0] && c <= block[1]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code c} is its own NFC and {@link String#toLowerCase(Locale)} (root) maps it alone to
     * {@link Character#toLowerCase(char)}, one character of the one-pass blocks that is its own NFC too.
     * That excludes U+0130 (lowercased to two characters) and U+03A3 (sigma: its lowercase depends on
     * the next character).
     */
    private static boolean oneToOneLowercase(char c) {
        if (Character.isSurrogate(c) || c == '\u0130' || c == '\u03a3') {
            return false;
        }
        String alone = String.valueOf(c);
        char lower = Character.toLowerCase(c);
        String lowered = String.valueOf(lower);
        return Normalizer.isNormalized(alone, Normalizer.Form.NFC)
                && alone.toLowerCase(Locale.ROOT).equals(lowered)
                && inOnePassBlock(lower)
                && Normalizer.isNormalized(lowered, Normalizer.Form.NFC);
    }

    /** Whether the one-pass path handles {@code c} (tests check the set against the general path). */
    static boolean isOnePass(char c) {
        return (ONE_PASS[c >>> 6] & (1L << c)) != 0;
    }

    /**
     * Unicode NFC, lowercase with {@link Locale#ROOT}, NFC again (lowercasing can produce
     * sequences that NFC would compose), runs of whitespace (including no-break spaces) to one space,
     * trimmed.
     */
    public static String normalize(String text) {
        String s = Normalizer.normalize(text, Normalizer.Form.NFC).toLowerCase(Locale.ROOT);
        if (!Normalizer.isNormalized(s, Normalizer.Form.NFC)) {
            s = Normalizer.normalize(s, Normalizer.Form.NFC);
        }
        StringBuilder out = new StringBuilder(s.length());
        boolean pendingSpace = false;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                pendingSpace = out.length() > 0;
            } else {
                if (pendingSpace) {
                    out.append(' ');
                    pendingSpace = false;
                }
                out.appendCodePoint(cp);
            }
        }
        return out.toString();
    }

    public static String of(String text) {
        if (text == null) {
            throw new IllegalArgumentException("text must not be null");
        }
        long[] h = new long[2];
        byte[] bytes = normalizedUtf8(text);
        Murmur3.hash128(bytes, 0, bytes.length, 0, h);
        return String.format(Locale.ROOT, "%016x%016x", h[0], h[1]);
    }

    /**
     * {@code normalize(text).getBytes(UTF_8)} in fewer passes (this runs on every ingested
     * document): NFC only when the quick check says the text is not NFC already (NFC is
     * idempotent, so the result is the same), and the whitespace folding writes UTF-8 directly,
     * encoding an unpaired surrogate as '?' exactly as {@code getBytes} does.
     */
    static byte[] normalizedUtf8(String text) {
        byte[] onePass = onePassNormalizedUtf8(text);
        return onePass != null ? onePass : generalNormalizedUtf8(text);
    }

    /**
     * {@link #normalizedUtf8} in one pass over a text made only of {@link #isOnePass} characters, or
     * null at the first other character. Such a text is NFC already and stays NFC once lowercased:
     * no character of the one-pass blocks is a combining mark, so NFC could only compose two adjacent
     * characters, and no two of them compose (the tests check every pair). Lowercasing is then
     * {@link Character#toLowerCase(char)} character by character. Most texts take this path (in the
     * development corpora, 99.8% of the Debian descriptions and 97.3% of the man pages): it
     * skips both NFC checks, the lowercased copy and one pass.
     */
    static byte[] onePassNormalizedUtf8(String text) {
        final int n = text.length();
        byte[] out = new byte[n * 3];
        int len = 0;
        boolean pendingSpace = false;
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c < 0x80) { // most characters of most texts: one table look-up
                byte folded = ASCII_FOLDED[c];
                if (folded < 0) {
                    pendingSpace = len > 0;
                    continue;
                }
                if (pendingSpace) {
                    out[len++] = ' ';
                    pendingSpace = false;
                }
                out[len++] = folded;
                continue;
            }
            if ((ONE_PASS[c >>> 6] & (1L << c)) == 0) {
                return null;
            }
            char lower = Character.toLowerCase(c);
            if ((SPACE[lower >>> 6] & (1L << lower)) != 0) {
                pendingSpace = len > 0;
                continue;
            }
            if (pendingSpace) {
                out[len++] = ' ';
                pendingSpace = false;
            }
            len = putUtf8(out, len, lower);
        }
        return java.util.Arrays.copyOf(out, len);
    }

    /** {@link #normalizedUtf8} for any text. */
    static byte[] generalNormalizedUtf8(String text) {
        String s = Normalizer.isNormalized(text, Normalizer.Form.NFC)
                ? text
                : Normalizer.normalize(text, Normalizer.Form.NFC);
        s = s.toLowerCase(Locale.ROOT);
        if (!Normalizer.isNormalized(s, Normalizer.Form.NFC)) {
            s = Normalizer.normalize(s, Normalizer.Form.NFC);
        }
        final int n = s.length();
        byte[] out = new byte[n * 3];
        int len = 0;
        boolean pendingSpace = false;
        for (int i = 0; i < n; ) {
            char c = s.charAt(i);
            if (c < 0x80) {
                i++;
                if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) {
                    pendingSpace = len > 0;
                    continue;
                }
                if (pendingSpace) {
                    out[len++] = ' ';
                    pendingSpace = false;
                }
                out[len++] = (byte) c;
                continue;
            }
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
                pendingSpace = len > 0;
                continue;
            }
            if (pendingSpace) {
                out[len++] = ' ';
                pendingSpace = false;
            }
            len = putUtf8(out, len, cp);
        }
        return java.util.Arrays.copyOf(out, len);
    }

    /** Writes one code point as UTF-8 at {@code len}; an unpaired surrogate as '?', as {@code getBytes} does. */
    private static int putUtf8(byte[] out, int len, int cp) {
        if (cp < 0x80) {
            out[len++] = (byte) cp;
        } else if (cp < 0x800) {
            out[len++] = (byte) (0xC0 | (cp >>> 6));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp >= 0x10000) {
            out[len++] = (byte) (0xF0 | (cp >>> 18));
            out[len++] = (byte) (0x80 | ((cp >>> 12) & 0x3F));
            out[len++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        } else if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
            out[len++] = (byte) '?';
        } else {
            out[len++] = (byte) (0xE0 | (cp >>> 12));
            out[len++] = (byte) (0x80 | ((cp >>> 6) & 0x3F));
            out[len++] = (byte) (0x80 | (cp & 0x3F));
        }
        return len;
    }
}
