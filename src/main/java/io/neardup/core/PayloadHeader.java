/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Base64;

/**
 * The header before every binary fingerprint payload in {@code _source} (a MinHash signature, a
 * shingle set), its one owner, as DataSketches' {@code PreambleUtil} owns a sketch's preamble:
 * <pre>
 * byte    format version: {@value #FORMAT_VERSION}; a signature's is its {@link FingerprintFormat#number()}
 * int32   scheme hash, big-endian: {@link FingerprintScheme#schemeHash()} of the scheme that made it
 * </pre>
 * The whole is URL-safe base64 without padding. The scheme hash makes mixing schemes fail loudly
 * instead of comparing unrelated values. Stateless and thread-safe.
 */
public final class PayloadHeader {
    /** The header's format version; a payload's own layout is the codec's to say. */
    public static final int FORMAT_VERSION = 1;
    /** The header's length in bytes. */
    public static final int BYTES = 5;

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private PayloadHeader() {}

    /** A new array of the header and {@code payloadBytes} bytes after it, the header written. */
    static byte[] allocate(int payloadBytes, int schemeHash) {
        return allocate(payloadBytes, schemeHash, FORMAT_VERSION);
    }

    /** As {@link #allocate(int, int)}, with the format version {@code version}. */
    static byte[] allocate(int payloadBytes, int schemeHash, int version) {
        byte[] out = new byte[BYTES + payloadBytes];
        out[0] = (byte) version;
        out[1] = (byte) (schemeHash >>> 24);
        out[2] = (byte) (schemeHash >>> 16);
        out[3] = (byte) (schemeHash >>> 8);
        out[4] = (byte) schemeHash;
        return out;
    }

    /** The {@code _source} form of a header and its payload. */
    static String encode(byte[] headerAndPayload) {
        return ENCODER.encodeToString(headerAndPayload);
    }

    /**
     * The bytes of {@code encoded}, after checking that they are base64 and hold a header and at
     * least {@code minPayloadBytes} more; each failure names {@code what} was read.
     *
     * @param beyondHeader what the {@code minPayloadBytes} are, for the message ("" when none)
     */
    static byte[] decode(String encoded, String what, int minPayloadBytes, String beyondHeader) {
        if (encoded == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not valid URL-safe base64: " + e.getMessage(), e);
        }
        if (bytes.length < BYTES + minPayloadBytes) {
            throw new IllegalArgumentException(what + " has " + bytes.length + " bytes, shorter than its " + BYTES
                    + "-byte header" + beyondHeader);
        }
        return bytes;
    }

    /** The scheme hash of a header read by {@link #decode}. */
    static int schemeHash(byte[] bytes) {
        return (bytes[1] & 0xFF) << 24 | (bytes[2] & 0xFF) << 16 | (bytes[3] & 0xFF) << 8 | (bytes[4] & 0xFF);
    }

    /** The format version of a header read by {@link #decode}. */
    static int version(byte[] bytes) {
        return bytes[0] & 0xFF;
    }

    /** Checks the format version, then that the scheme that made the payload is the expected one. */
    static void check(byte[] bytes, String what, int expectedSchemeHash) {
        int version = version(bytes);
        if (version != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    what + " has format version " + version + ", expected " + FORMAT_VERSION);
        }
        checkScheme(bytes, what, expectedSchemeHash);
    }

    /** Checks that the scheme that made the payload is the expected one (the caller checked the version). */
    static void checkScheme(byte[] bytes, String what, int expectedSchemeHash) {
        int schemeHash = schemeHash(bytes);
        if (schemeHash != expectedSchemeHash) {
            throw new IllegalArgumentException(what + " was made by another fingerprint scheme: scheme hash "
                    + SignatureCodec.hex(schemeHash) + ", expected " + SignatureCodec.hex(expectedSchemeHash));
        }
    }
}
