/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * The one text form of a 64-bit simhash: 16 hex digits, written lowercase, read in either case.
 * Only ASCII digits and letters count (Java's {@code Character.digit} would also take full-width
 * and other scripts' digits, which no fingerprint is written with). Stateless.
 */
public final class SimhashCodec {
    public static final int HEX_LENGTH = 16;

    private SimhashCodec() {}

    /** 16 lowercase hex digits. */
    public static String toHex(long simhash) {
        char[] out = new char[HEX_LENGTH];
        for (int i = HEX_LENGTH - 1; i >= 0; i--) {
            out[i] = Character.forDigit((int) (simhash & 0xF), 16);
            simhash >>>= 4;
        }
        return new String(out);
    }

    /** Whether {@code value} is 16 ASCII hex digits. */
    public static boolean isHex(CharSequence value) {
        if (value == null || value.length() != HEX_LENGTH) {
            return false;
        }
        for (int i = 0; i < HEX_LENGTH; i++) {
            char c = value.charAt(i);
            if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
                continue;
            }
            return false;
        }
        return true;
    }

    /** Parses exactly 16 ASCII hex digits (either case). */
    public static long parseHex(String hex) {
        if (isHex(hex) == false) {
            throw new IllegalArgumentException("simhash must be 16 hex characters, got [" + abbreviate(hex) + "]");
        }
        return Long.parseUnsignedLong(hex, 16);
    }

    private static String abbreviate(String s) {
        return s == null || s.length() <= 40 ? s : s.substring(0, 37) + "...";
    }
}
