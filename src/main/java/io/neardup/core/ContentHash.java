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
    private ContentHash() {}

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
            if (cp < 0x800) {
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
        }
        return java.util.Arrays.copyOf(out, len);
    }
}
