package io.neardup.core;

import java.nio.charset.StandardCharsets;
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
        byte[] bytes = normalize(text).getBytes(StandardCharsets.UTF_8);
        long[] h = Murmur3.hash128(bytes, 0, bytes.length, 0);
        return String.format("%016x%016x", h[0], h[1]);
    }
}
