/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * Serializes a MinHash signature for storage in {@code _source}: a {@link PayloadHeader} (format
 * version, the scheme hash of the scheme that made it), then the values as big-endian int32, all in
 * URL-safe base64. A signature's format version is the number of its {@link FingerprintFormat} (1: over the
 * shingle hashes; 2: of the shingle set), so that a signature never meets one of the other format unnoticed.
 * Stateless and thread-safe.
 */
public final class SignatureCodec {
    public static final int FORMAT_VERSION = PayloadHeader.FORMAT_VERSION;
    private static final String WHAT = "minhash signature";

    private SignatureCodec() {}

    /** A signature of format 1 ({@link FingerprintFormat#SIGNATURE}). */
    public static String encode(int[] signature, int schemeHash) {
        return encode(signature, schemeHash, FingerprintFormat.SIGNATURE);
    }

    public static String encode(int[] signature, int schemeHash, FingerprintFormat format) {
        requireValues(signature.length);
        byte[] out = PayloadHeader.allocate(4 * signature.length, schemeHash, format.number());
        ByteBuffer buf = ByteBuffer.wrap(out, PayloadHeader.BYTES, 4 * signature.length);
        for (int v : signature) {
            buf.putInt(v);
        }
        return PayloadHeader.encode(out);
    }

    /**
     * {@link #encode(int[], int)} of the signature given as its values' big-endian bytes (a {@code minhash}
     * field's doc value), without decoding them.
     */
    public static String encode(byte[] values, int offset, int length, int schemeHash) {
        return encode(values, offset, length, schemeHash, FingerprintFormat.SIGNATURE);
    }

    /** {@link #encode(byte[], int, int, int)} of a signature of {@code format}. */
    public static String encode(byte[] values, int offset, int length, int schemeHash, FingerprintFormat format) {
        if (length % 4 != 0) {
            throw new IllegalArgumentException(
                    "minhash signature has " + length + " bytes, not a whole number of 4-byte values");
        }
        requireValues(length / 4);
        byte[] out = PayloadHeader.allocate(length, schemeHash, format.number());
        System.arraycopy(values, offset, out, PayloadHeader.BYTES, length);
        return PayloadHeader.encode(out);
    }

    /**
     * A signature's values as big-endian int32, no header: the layout of a {@code minhash} field's doc
     * values, of which its band keys are taken ({@link LshBanding#bandKey}).
     */
    public static byte[] valueBytes(int[] signature) {
        ByteBuffer buf = ByteBuffer.allocate(4 * signature.length);
        for (int v : signature) {
            buf.putInt(v);
        }
        return buf.array();
    }

    private static void requireValues(int values) {
        if (values < 1 || values > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "minhash signature must have 1 to " + MinHasher.MAX_HASHES + " values, got " + values);
        }
    }

    /**
     * Decodes and checks a signature: format version, scheme hash, then the number of values, each
     * failing with a message that names what was found and what was expected.
     */
    public static int[] decode(String encoded, int expectedValues, int expectedSchemeHash) {
        return decode(encoded, expectedValues, expectedSchemeHash, FingerprintFormat.SIGNATURE);
    }

    /** As {@link #decode(String, int, int)}, for a signature of {@code format}; one of the other format is refused, naming both. */
    public static int[] decode(String encoded, int expectedValues, int expectedSchemeHash, FingerprintFormat format) {
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 0, "");
        checkFormat(bytes, format);
        PayloadHeader.checkScheme(bytes, WHAT, expectedSchemeHash);
        return values(bytes, expectedValues);
    }

    /** Decodes a signature of any length made by the scheme its own header names, of the format its header names. */
    public static int[] decode(String encoded) {
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 0, "");
        checkFormat(bytes, formatOf(bytes));
        return values(bytes, (bytes.length - PayloadHeader.BYTES) / 4);
    }

    /** The format an encoded signature's header names; an unknown one fails, naming it. */
    public static FingerprintFormat formatOf(String encoded) {
        return formatOf(PayloadHeader.decode(encoded, WHAT, 0, ""));
    }

    private static FingerprintFormat formatOf(byte[] bytes) {
        int version = PayloadHeader.version(bytes);
        try {
            return FingerprintFormat.of(version);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(WHAT + " has format version " + version + ": " + e.getMessage(), e);
        }
    }

    private static void checkFormat(byte[] bytes, FingerprintFormat expected) {
        FingerprintFormat format = formatOf(bytes);
        if (format != expected) {
            throw new IllegalArgumentException(
                    WHAT + " is of " + format.describe() + ", expected " + expected.describe());
        }
    }

    /** The values after a checked header: a whole number of them, as many as expected. */
    private static int[] values(byte[] bytes, int expectedValues) {
        int payload = bytes.length - PayloadHeader.BYTES;
        if (payload % 4 != 0) {
            throw new IllegalArgumentException(
                    "minhash signature has a " + payload + "-byte payload, not a whole number of 4-byte values");
        }
        int values = payload / 4;
        if (values != expectedValues) {
            throw new IllegalArgumentException(
                    "minhash signature has " + values + " values, expected " + expectedValues + " (num_hashes)");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes, PayloadHeader.BYTES, payload);
        int[] out = new int[values];
        for (int i = 0; i < values; i++) {
            out[i] = buf.getInt();
        }
        return out;
    }

    /** The scheme hash in an encoded signature's header, for error messages and routing. */
    public static int schemeHashOf(String encoded) {
        return PayloadHeader.schemeHash(PayloadHeader.decode(encoded, WHAT, 0, ""));
    }

    /** A scheme hash as the 8 hex digits of a scheme id. */
    public static String hex(int schemeHash) {
        return String.format(Locale.ROOT, "%08x", schemeHash);
    }
}
