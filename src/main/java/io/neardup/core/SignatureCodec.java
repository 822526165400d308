/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;

/**
 * Serializes a MinHash signature for storage in {@code _source}: URL-safe base64 (no padding) of
 * <pre>
 * byte    format version (1)
 * int32   scheme hash: {@link FingerprintScheme#schemeHash()} of the scheme that made it
 * int32[] the values, big-endian
 * </pre>
 * The header makes mixing schemes fail loudly instead of comparing unrelated values, like the
 * seed hash in a DataSketches preamble. Stateless and thread-safe.
 */
public final class SignatureCodec {
    public static final int FORMAT_VERSION = 1;
    private static final int HEADER_BYTES = 5;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private SignatureCodec() {}

    public static String encode(int[] signature, int schemeHash) {
        requireValues(signature.length);
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + 4 * signature.length);
        buf.put((byte) FORMAT_VERSION).putInt(schemeHash);
        for (int v : signature) {
            buf.putInt(v);
        }
        return ENCODER.encodeToString(buf.array());
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
        ByteBuffer buf = ByteBuffer.allocate(HEADER_BYTES + length);
        buf.put((byte) FORMAT_VERSION).putInt(schemeHash).put(values, offset, length);
        return ENCODER.encodeToString(buf.array());
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
        ByteBuffer buf = ByteBuffer.wrap(bytes(encoded));
        int version = buf.get() & 0xFF;
        if (version != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    "minhash signature has format version " + version + ", expected " + FORMAT_VERSION);
        }
        int schemeHash = buf.getInt();
        if (schemeHash != expectedSchemeHash) {
            throw new IllegalArgumentException("minhash signature was made by another fingerprint scheme: scheme hash "
                    + hex(schemeHash) + ", expected " + hex(expectedSchemeHash));
        }
        int payload = buf.remaining();
        if (payload % 4 != 0) {
            throw new IllegalArgumentException(
                    "minhash signature has a " + payload + "-byte payload, not a whole number of 4-byte values");
        }
        int values = payload / 4;
        if (values != expectedValues) {
            throw new IllegalArgumentException(
                    "minhash signature has " + values + " values, expected " + expectedValues + " (num_hashes)");
        }
        int[] out = new int[values];
        for (int i = 0; i < values; i++) {
            out[i] = buf.getInt();
        }
        return out;
    }

    /** Decodes a signature of any length made by the scheme its own header names (after checking the format). */
    public static int[] decode(String encoded) {
        int valueBytes = bytes(encoded).length - HEADER_BYTES;
        return decode(encoded, Math.max(0, valueBytes) / 4, schemeHashOf(encoded));
    }

    /** The scheme hash in an encoded signature's header, for error messages and routing. */
    public static int schemeHashOf(String encoded) {
        ByteBuffer buf = ByteBuffer.wrap(bytes(encoded));
        buf.get();
        return buf.getInt();
    }

    private static byte[] bytes(String encoded) {
        if (encoded == null) {
            throw new IllegalArgumentException("minhash signature must not be null");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("minhash signature is not valid URL-safe base64: " + e.getMessage(), e);
        }
        if (bytes.length < HEADER_BYTES) {
            throw new IllegalArgumentException("minhash signature has " + bytes.length + " bytes, shorter than its "
                    + HEADER_BYTES + "-byte header");
        }
        return bytes;
    }

    /** A scheme hash as the 8 hex digits of a scheme id. */
    public static String hex(int schemeHash) {
        return String.format(Locale.ROOT, "%08x", schemeHash);
    }
}
