/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

/**
 * A document's set of distinct MinHash shingles, kept so that candidates can be verified on their
 * <em>exact</em> Jaccard similarity instead of the signature's estimate.
 *
 * <p>Each 64-bit shingle hash is cut to its high 32 bits, and the distinct values are sorted as
 * unsigned numbers. Two different shingles share 32 bits with probability 2^-32, so for sets of n
 * shingles the Jaccard computed here exceeds the true one by about n / 2^32 on average (2e-5 at
 * 100,000 shingles): exact for every threshold a user can ask for, at half the bytes of 64-bit
 * values.
 *
 * <p>Stored layout ({@link #payload}), also the doc-values bytes of a {@code minhash} field:
 * <pre>
 * varint   n, the number of values
 * varint[] the first value, then n - 1 gaps to the next (each at least 1), unsigned LEB128
 * </pre>
 * About 4 bytes a shingle for a thousand shingles, 3 for tens of thousands. In {@code _source} it is
 * URL-safe base64 (no padding) of a header, format version (1 byte) and the scheme hash (int32,
 * big-endian) as in {@link SignatureCodec}, followed by the payload.
 *
 * <p>{@link #jaccard} merges two payloads while decoding them, allocation-free, and checks their
 * structure as it goes: a payload that ends early, overruns, or is not strictly increasing fails
 * with {@link IllegalArgumentException}. Stateless and thread-safe.
 */
public final class ShingleSetCodec {
    public static final int FORMAT_VERSION = 1;
    /** Most values a set may hold: far above any text the ingest processor accepts (10M characters). */
    public static final int MAX_VALUES = 10_000_000;

    private static final int HEADER_BYTES = 5;
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private ShingleSetCodec() {}

    /** The set of the first {@code count} 64-bit shingle hashes: distinct high 32 bits, sorted unsigned. */
    public static int[] of(long[] shingleHashes, int count) {
        if (count < 0 || count > shingleHashes.length) {
            throw new IllegalArgumentException("count must be in [0, " + shingleHashes.length + "], got " + count);
        }
        // Flipping the sign bit makes signed order the unsigned order of the original values.
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = (int) (shingleHashes[i] >>> 32) ^ Integer.MIN_VALUE;
        }
        Arrays.sort(values);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (distinct == 0 || values[i] != values[distinct - 1]) {
                values[distinct++] = values[i];
            }
        }
        for (int i = 0; i < distinct; i++) {
            values[i] ^= Integer.MIN_VALUE;
        }
        return distinct == count ? values : Arrays.copyOf(values, distinct);
    }

    /** The stored bytes of a set given as distinct values in ascending unsigned order. */
    public static byte[] payload(int[] sortedValues) {
        byte[] out = new byte[maxPayloadBytes(sortedValues)];
        return Arrays.copyOf(out, putPayload(sortedValues, out, 0));
    }

    /** The {@code _source} form: header (format version, scheme hash) and payload, URL-safe base64. */
    public static String encode(int[] sortedValues, int schemeHash) {
        // Header and payload written into one array: no payload copy on the way to base64.
        byte[] out = new byte[HEADER_BYTES + maxPayloadBytes(sortedValues)];
        putHeader(out, schemeHash);
        int end = putPayload(sortedValues, out, HEADER_BYTES);
        return ENCODER.encodeToString(end == out.length ? out : Arrays.copyOf(out, end));
    }

    /** The {@code _source} form of a payload ({@link #payload}, or as {@link #decodePayload} returned it). */
    public static String encodePayload(byte[] payload, int offset, int length, int schemeHash) {
        byte[] out = new byte[HEADER_BYTES + length];
        putHeader(out, schemeHash);
        System.arraycopy(payload, offset, out, HEADER_BYTES, length);
        return ENCODER.encodeToString(out);
    }

    private static void putHeader(byte[] out, int schemeHash) {
        out[0] = FORMAT_VERSION;
        out[1] = (byte) (schemeHash >>> 24);
        out[2] = (byte) (schemeHash >>> 16);
        out[3] = (byte) (schemeHash >>> 8);
        out[4] = (byte) schemeHash;
    }

    private static int maxPayloadBytes(int[] sortedValues) {
        if (sortedValues.length > MAX_VALUES) {
            throw new IllegalArgumentException(
                    "a shingle set holds at most " + MAX_VALUES + " values, got " + sortedValues.length);
        }
        return 5 + 5 * sortedValues.length;
    }

    /** Writes the payload of {@code sortedValues} at {@code pos}; returns the position after it. */
    private static int putPayload(int[] sortedValues, byte[] out, int pos) {
        pos = putVarint(out, pos, sortedValues.length);
        long previous = -1;
        for (int value : sortedValues) {
            long unsigned = Integer.toUnsignedLong(value);
            if (unsigned <= previous) {
                throw new IllegalArgumentException("shingle set values must be distinct and ascending (unsigned)");
            }
            pos = putVarint(out, pos, previous < 0 ? unsigned : unsigned - previous);
            previous = unsigned;
        }
        return pos;
    }

    /**
     * Decodes the {@code _source} form to its payload, checking the format version, that the scheme
     * hash is {@code expectedSchemeHash}, and the payload's structure; each failure names what was
     * found and what was expected.
     */
    public static byte[] decodePayload(String encoded, int expectedSchemeHash) {
        if (encoded == null) {
            throw new IllegalArgumentException("shingle set must not be null");
        }
        byte[] bytes;
        try {
            bytes = DECODER.decode(encoded);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("shingle set is not valid URL-safe base64: " + e.getMessage(), e);
        }
        if (bytes.length < HEADER_BYTES + 1) {
            throw new IllegalArgumentException("shingle set has " + bytes.length + " bytes, shorter than its "
                    + HEADER_BYTES + "-byte header and a count");
        }
        int version = bytes[0] & 0xFF;
        if (version != FORMAT_VERSION) {
            throw new IllegalArgumentException(
                    "shingle set has format version " + version + ", expected " + FORMAT_VERSION);
        }
        int schemeHash = (bytes[1] & 0xFF) << 24 | (bytes[2] & 0xFF) << 16 | (bytes[3] & 0xFF) << 8 | (bytes[4] & 0xFF);
        if (schemeHash != expectedSchemeHash) {
            throw new IllegalArgumentException("shingle set was made by another fingerprint scheme: scheme hash "
                    + SignatureCodec.hex(schemeHash) + ", expected " + SignatureCodec.hex(expectedSchemeHash));
        }
        byte[] payload = Arrays.copyOfRange(bytes, HEADER_BYTES, bytes.length);
        size(payload, 0, payload.length);
        return payload;
    }

    /** The number of values in a payload, after checking all of it. */
    public static int size(byte[] bytes, int offset, int length) {
        Reader reader = new Reader(bytes, offset, length);
        int n = reader.count();
        for (int i = 0; i < n; i++) {
            reader.next();
        }
        reader.requireEnd();
        return n;
    }

    /** The values of a payload, ascending unsigned (off the hot path: tests, tools). */
    public static int[] values(byte[] bytes, int offset, int length) {
        Reader reader = new Reader(bytes, offset, length);
        int[] out = new int[reader.count()];
        for (int i = 0; i < out.length; i++) {
            out[i] = (int) reader.next();
        }
        reader.requireEnd();
        return out;
    }

    /**
     * The Jaccard similarity |A ∩ B| / |A ∪ B| of two payloads, by one merge over both, without
     * allocating. Two empty sets are equal (1.0).
     */
    public static double jaccard(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        // Readers are small and short-lived: escape analysis keeps them off the heap.
        Reader left = new Reader(a, aOffset, aLength);
        Reader right = new Reader(b, bOffset, bLength);
        int n = left.count();
        int m = right.count();
        if (n == 0 && m == 0) {
            left.requireEnd();
            right.requireEnd();
            return 1.0;
        }
        int i = 0, j = 0, common = 0;
        long x = n > 0 ? left.next() : 0;
        long y = m > 0 ? right.next() : 0;
        while (i < n && j < m) {
            if (x == y) {
                common++;
                if (++i < n) {
                    x = left.next();
                }
                if (++j < m) {
                    y = right.next();
                }
            } else if (x < y) {
                if (++i < n) {
                    x = left.next();
                }
            } else if (++j < m) {
                y = right.next();
            }
        }
        // The unread tail is skipped but still checked, so a corrupt value is never silently ignored.
        while (++i < n) {
            left.next();
        }
        while (++j < m) {
            right.next();
        }
        left.requireEnd();
        right.requireEnd();
        return (double) common / (n + m - common);
    }

    private static int putVarint(byte[] out, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            out[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[pos++] = (byte) value;
        return pos;
    }

    /** Sequential reader of one payload: the count, then the values as unsigned longs. */
    private static final class Reader {
        private final byte[] bytes;
        private final int end;
        private int pos;
        private long previous = -1;

        Reader(byte[] bytes, int offset, int length) {
            if (offset < 0 || length < 0 || offset + length > bytes.length) {
                throw new IllegalArgumentException("shingle set slice [" + offset + ", " + (offset + length)
                        + ") is outside its " + bytes.length + " bytes");
            }
            this.bytes = bytes;
            this.pos = offset;
            this.end = offset + length;
        }

        int count() {
            long n = varint();
            if (n > MAX_VALUES) {
                throw new IllegalArgumentException("shingle set claims " + n + " values, more than " + MAX_VALUES);
            }
            return (int) n;
        }

        long next() {
            long value = previous < 0 ? varint() : previous + varint();
            if (value <= previous || value > 0xFFFFFFFFL) {
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT,
                        "shingle set is corrupt: value %d after %d is not ascending within 32 bits",
                        value,
                        previous));
            }
            previous = value;
            return value;
        }

        private long varint() {
            long value = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                if (pos >= end) {
                    throw new IllegalArgumentException("shingle set is corrupt: it ends inside a value");
                }
                byte b = bytes[pos++];
                value |= (long) (b & 0x7F) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("shingle set is corrupt: a value is longer than 5 bytes");
        }

        void requireEnd() {
            if (pos != end) {
                throw new IllegalArgumentException(
                        "shingle set is corrupt: " + (end - pos) + " bytes after its last value");
            }
        }
    }
}
