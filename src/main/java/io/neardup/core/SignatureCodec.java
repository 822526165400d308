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
 * URL-safe base64. Stateless and thread-safe.
 */
public final class SignatureCodec {
    public static final int FORMAT_VERSION = PayloadHeader.FORMAT_VERSION;
    private static final String WHAT = "minhash signature";

    private SignatureCodec() {}

    public static String encode(int[] signature, int schemeHash) {
        requireValues(signature.length);
        byte[] out = PayloadHeader.allocate(4 * signature.length, schemeHash);
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
        if (length % 4 != 0) {
            throw new IllegalArgumentException(
                    "minhash signature has " + length + " bytes, not a whole number of 4-byte values");
        }
        requireValues(length / 4);
        byte[] out = PayloadHeader.allocate(length, schemeHash);
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
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 0, "");
        PayloadHeader.check(bytes, WHAT, expectedSchemeHash);
        return values(bytes, expectedValues);
    }

    /** Decodes a signature of any length made by the scheme its own header names (after checking the format). */
    public static int[] decode(String encoded) {
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 0, "");
        PayloadHeader.check(bytes, WHAT, PayloadHeader.schemeHash(bytes));
        return values(bytes, (bytes.length - PayloadHeader.BYTES) / 4);
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
