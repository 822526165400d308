/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 * <p>Stored layout ({@link #payload}), also the doc-values bytes of a {@code minhash} field: each value
 * is written as its distance d to the previous one minus one (the first: the value itself), Golomb-Rice
 * coded (Golomb, "Run-length encodings", 1966; Rice, "Some practical universal noiseless coding
 * techniques", 1979): d &gt;&gt;&gt; k in unary, then the k low bits of d. The sorted hashes of a set are
 * about uniform, so the distances are about geometric, for which this code is within a few percent of
 * the entropy: about 3 bytes a shingle for a thousand shingles, 3.5 for a hundred.
 * <pre>
 * 0x80 0x00  marker: a varint 0 in two bytes, which the first layout never wrote
 * varint     n, the number of values
 * byte       k, in [0, 31]
 * bits       n codes, most significant bit first: d &gt;&gt;&gt; k one-bits, a zero-bit, the k low bits of d;
 *            zero-bits to the byte's end
 * </pre>
 * The first layout, which indices written before it keep and which is read as well (each payload says
 * which it is):
 * <pre>
 * varint   n, the number of values
 * varint[] the first value, then n - 1 gaps to the next (each at least 1), unsigned LEB128
 * </pre>
 * It took about 4 bytes a shingle for a thousand shingles. An empty set is written in it (one byte).
 * In {@code _source} the payload follows a {@link PayloadHeader} (format version, scheme hash); in fingerprint format
 * 2 ({@link FingerprintFormat#COMPACT}, where the set stands for the signature) the header's version is 2 and two
 * more bytes, big-endian, give the length of the signature the set stands for (the processor's {@code num_hashes}),
 * so that a field of another length refuses it as it refuses such a signature; all in
 * URL-safe base64.
 *
 * <p>{@link #jaccard} merges two payloads while decoding them, allocation-free, and checks their
 * structure as it goes: a payload that ends early, overruns, or is not strictly increasing fails
 * with {@link IllegalArgumentException}. Stateless and thread-safe.
 */
public final class ShingleSetCodec {
    /** The version of the {@code _source} header ({@link PayloadHeader}); the payload after it says which layout it has. */
    public static final int FORMAT_VERSION = PayloadHeader.FORMAT_VERSION;
    /** Most values a set may hold: far above any text the ingest processor accepts (10M characters). */
    public static final int MAX_VALUES = 10_000_000;

    private static final String WHAT = "shingle set";

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
        byte[] out = new byte[payloadBytes(sortedValues)];
        putPayload(sortedValues, out, 0);
        return out;
    }

    /** The {@code _source} form: header (format version, scheme hash) and payload, URL-safe base64. */
    public static String encode(int[] sortedValues, int schemeHash) {
        // Header and payload written into one array: no payload copy on the way to base64.
        byte[] out = PayloadHeader.allocate(payloadBytes(sortedValues), schemeHash);
        putPayload(sortedValues, out, PayloadHeader.BYTES);
        return PayloadHeader.encode(out);
    }

    /**
     * The {@code _source} form of a compact fingerprint's set (header version 2): it stands for a signature of
     * {@code signatureLength} values.
     */
    public static String encode(int[] sortedValues, int schemeHash, int signatureLength) {
        byte[] out = allocateCompact(payloadBytes(sortedValues), schemeHash, signatureLength);
        putPayload(sortedValues, out, COMPACT_HEADER_BYTES);
        return PayloadHeader.encode(out);
    }

    /** The {@code _source} form of a payload ({@link #payload}, or as {@link #decodePayload} returned it). */
    public static String encodePayload(byte[] payload, int offset, int length, int schemeHash) {
        byte[] out = PayloadHeader.allocate(length, schemeHash);
        System.arraycopy(payload, offset, out, PayloadHeader.BYTES, length);
        return PayloadHeader.encode(out);
    }

    /** {@link #encodePayload(byte[], int, int, int)} with a compact fingerprint's header ({@link #encode(int[], int, int)}). */
    public static String encodePayload(byte[] payload, int offset, int length, int schemeHash, int signatureLength) {
        byte[] out = allocateCompact(length, schemeHash, signatureLength);
        System.arraycopy(payload, offset, out, COMPACT_HEADER_BYTES, length);
        return PayloadHeader.encode(out);
    }

    private static final int COMPACT_HEADER_BYTES = PayloadHeader.BYTES + 2;

    private static byte[] allocateCompact(int payloadBytes, int schemeHash, int signatureLength) {
        if (signatureLength < 1 || signatureLength > MinHasher.MAX_HASHES) {
            throw new IllegalArgumentException(
                    "signature length must be in [1, " + MinHasher.MAX_HASHES + "], got " + signatureLength);
        }
        byte[] out = PayloadHeader.allocate(payloadBytes + 2, schemeHash, FingerprintFormat.COMPACT.number());
        out[PayloadHeader.BYTES] = (byte) (signatureLength >>> 8);
        out[PayloadHeader.BYTES + 1] = (byte) signatureLength;
        return out;
    }

    /**
     * The length of the signature an encoded set stands for (a compact fingerprint's, header version 2), or 0 for a
     * set of format 1 (header version 1), which stands for none.
     */
    public static int signatureLengthOf(String encoded) {
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 1, " and a count");
        return headerBytes(bytes) == COMPACT_HEADER_BYTES
                ? (bytes[PayloadHeader.BYTES] & 0xFF) << 8 | (bytes[PayloadHeader.BYTES + 1] & 0xFF)
                : 0;
    }

    /** The header's length by its version (1: the plain header; 2: with the signature length); another fails. */
    private static int headerBytes(byte[] bytes) {
        int version = PayloadHeader.version(bytes);
        if (version == PayloadHeader.FORMAT_VERSION) {
            return PayloadHeader.BYTES;
        }
        if (version == FingerprintFormat.COMPACT.number() && bytes.length >= COMPACT_HEADER_BYTES + 1) {
            return COMPACT_HEADER_BYTES;
        }
        throw new IllegalArgumentException(WHAT + " has format version " + version + ", expected "
                + PayloadHeader.FORMAT_VERSION + " or " + FingerprintFormat.COMPACT.number());
    }

    /** The exact payload size, after checking that the values are distinct and ascending. */
    private static int payloadBytes(int[] sortedValues) {
        int n = sortedValues.length;
        if (n > MAX_VALUES) {
            throw new IllegalArgumentException("a shingle set holds at most " + MAX_VALUES + " values, got " + n);
        }
        if (n == 0) {
            return 1;
        }
        int k = riceParameter(sortedValues);
        long bits = 0;
        long previous = -1;
        for (int value : sortedValues) {
            long unsigned = Integer.toUnsignedLong(value);
            if (unsigned <= previous) {
                throw new IllegalArgumentException("shingle set values must be distinct and ascending (unsigned)");
            }
            bits += 1 + k + ((unsigned - previous - 1) >>> k);
            previous = unsigned;
        }
        return MARKER_BYTES + varintBytes(n) + 1 + (int) ((bits + 7) >>> 3);
    }

    private static final int MARKER_BYTES = 2;
    private static final VarHandle BIG_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * The Rice parameter for distances of mean m: the largest k with 2^k &lt;= m ln 2, which is within one of the
     * best k for a geometric distribution (Gallager and van Voorhis, "Optimal source codes for geometrically
     * distributed integer alphabets", 1975).
     */
    private static int riceParameter(int[] sortedValues) {
        long last = Integer.toUnsignedLong(sortedValues[sortedValues.length - 1]);
        double meanDistance = (double) (last + 1) / sortedValues.length - 1;
        long scaled = (long) (meanDistance * Math.log(2));
        return scaled < 1 ? 0 : Math.min(31, 63 - Long.numberOfLeadingZeros(scaled));
    }

    /** The payload of {@code sortedValues} (checked by {@link #payloadBytes}) at {@code pos}; returns its end. */
    private static int putPayload(int[] sortedValues, byte[] out, int pos) {
        int n = sortedValues.length;
        if (n == 0) {
            out[pos] = 0;
            return pos + 1;
        }
        out[pos++] = (byte) 0x80;
        out[pos++] = 0;
        pos = putVarint(out, pos, n);
        int k = riceParameter(sortedValues);
        out[pos++] = (byte) k;
        BitWriter writer = new BitWriter(out, pos);
        long previous = -1;
        for (int value : sortedValues) {
            long unsigned = Integer.toUnsignedLong(value);
            long distance = unsigned - previous - 1;
            previous = unsigned;
            for (long ones = distance >>> k; ones > 0; ones -= 32) {
                int run = (int) Math.min(ones, 32);
                writer.put((1L << run) - 1, run);
            }
            writer.put(0, 1);
            writer.put(distance & ((1L << k) - 1), k);
        }
        return writer.finish();
    }

    /** Bits into bytes, most significant first; a short-lived local (escape analysis keeps it off the heap). */
    private static final class BitWriter {
        private final byte[] out;
        private int pos;
        /** Pending bits, left-aligned, fewer than 8 between calls. */
        private long buffer;

        private int pending;

        BitWriter(byte[] out, int pos) {
            this.out = out;
            this.pos = pos;
        }

        /** The low {@code count} bits of {@code value}, {@code count} in [0, 32]. */
        void put(long value, int count) {
            if (count == 0) {
                return;
            }
            buffer |= (value & ((1L << count) - 1)) << (64 - pending - count);
            pending += count;
            while (pending >= 8) {
                out[pos++] = (byte) (buffer >>> 56);
                buffer <<= 8;
                pending -= 8;
            }
        }

        int finish() {
            if (pending > 0) {
                out[pos++] = (byte) (buffer >>> 56);
            }
            return pos;
        }
    }

    private static int varintBytes(long value) {
        int bytes = 1;
        while ((value & ~0x7FL) != 0) {
            value >>>= 7;
            bytes++;
        }
        return bytes;
    }

    /**
     * Decodes the {@code _source} form to its payload, checking the format version, that the scheme
     * hash is {@code expectedSchemeHash}, and the payload's structure; each failure names what was
     * found and what was expected.
     */
    public static byte[] decodePayload(String encoded, int expectedSchemeHash) {
        byte[] bytes = PayloadHeader.decode(encoded, WHAT, 1, " and a count");
        int header = headerBytes(bytes);
        PayloadHeader.checkScheme(bytes, WHAT, expectedSchemeHash);
        byte[] payload = Arrays.copyOfRange(bytes, header, bytes.length);
        size(payload, 0, payload.length);
        return payload;
    }

    /** The scheme hash in an encoded set's header. */
    public static int schemeHashOf(String encoded) {
        return PayloadHeader.schemeHash(PayloadHeader.decode(encoded, WHAT, 1, " and a count"));
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
        int common = intersectionSize(a, aOffset, aLength, b, bOffset, bLength);
        return jaccard(common, count(a, aOffset, aLength), count(b, bOffset, bLength));
    }

    /** As {@link #jaccard(byte[], int, int, byte[], int, int)}, of two sets' values (ascending unsigned, {@link #of}). */
    public static double jaccard(int[] a, int[] b) {
        return jaccard(intersectionSize(a, b), a.length, b.length);
    }

    /** |A ∩ B| of two sets' values (ascending unsigned, {@link #of}), by one merge. */
    public static int intersectionSize(int[] a, int[] b) {
        int i = 0, j = 0, common = 0;
        while (i < a.length && j < b.length) {
            int c = Integer.compareUnsigned(a[i], b[j]);
            if (c == 0) {
                common++;
                i++;
                j++;
            } else if (c < 0) {
                i++;
            } else {
                j++;
            }
        }
        return common;
    }

    /** The one Jaccard of sets of {@code n} and {@code m} values sharing {@code common}: two empty sets are equal. */
    public static double jaccard(int common, int n, int m) {
        return n == 0 && m == 0 ? 1.0 : (double) common / (n + m - common);
    }

    /**
     * The containment of A in B, |A ∩ B| / |A| (Broder, "On the resemblance and containment of documents", 1997), of
     * {@code common} shared values and A of {@code containedSize}: the one computation of the value, 0 for an empty A
     * (there is nothing of it to find).
     */
    public static double containment(int common, int containedSize) {
        return containedSize == 0 ? 0 : (double) common / containedSize;
    }

    /**
     * The containment of payload A in payload B ({@link #containment}) if it reaches {@code minContainment}, else -1
     * (also for an empty A), found by {@link #intersectionSizeIfAtLeast}: a B that cannot hold enough of A's values is
     * not read further.
     */
    public static double containmentIfAtLeast(
            byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength, double minContainment) {
        int containedSize = count(a, aOffset, aLength);
        int needed = (int) ContainmentSampling.sharedShinglesFor(minContainment, containedSize);
        int common = intersectionSizeIfAtLeast(a, aOffset, aLength, b, bOffset, bLength, needed);
        return common < 0 || containedSize == 0 ? -1 : containment(common, containedSize);
    }

    /** The number of values a payload says it holds, from its first bytes alone (the values are not checked). */
    public static int count(byte[] bytes, int offset, int length) {
        return new Reader(bytes, offset, length).count();
    }

    /**
     * |A ∩ B| of two payloads, by one merge over both, without allocating; each payload's structure is checked to
     * its end.
     */
    public static int intersectionSize(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        return intersectionSizeIfAtLeast(a, aOffset, aLength, b, bOffset, bLength, 0);
    }

    /**
     * |A ∩ B| of two payloads if it is at least {@code needed}, else -1: the merge stops as soon as fewer of A's
     * values remain than the intersection still lacks. A pair that reaches {@code needed} is merged and checked to
     * both ends, as by {@link #intersectionSize}; one that cannot is not read further (its payload was checked whole
     * when it was indexed). The containment of A in B, |A ∩ B| / |A| (Broder, "On the resemblance and containment of
     * documents", 1997), reaches c when this reaches ⌈c·|A|⌉. Containment queries verify most candidates to refuse
     * them: this reads a refused host's set only as far as the query's values show it cannot hold enough of them.
     */
    public static int intersectionSizeIfAtLeast(
            byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength, int needed) {
        // Readers are small and short-lived: escape analysis keeps them off the heap.
        Reader left = new Reader(a, aOffset, aLength);
        Reader right = new Reader(b, bOffset, bLength);
        int n = left.count();
        int m = right.count();
        if (Math.min(n, m) < needed) {
            return -1;
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
                // A's value x is not in B: at most common + (n - i - 1) can still be shared.
                if (common + (n - i - 1) < needed) {
                    return -1;
                }
                if (++i < n) {
                    x = left.next();
                }
            } else if (++j < m) {
                y = right.next();
            }
        }
        if (common < needed) {
            return -1;
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
        return common;
    }

    private static int putVarint(byte[] out, int pos, long value) {
        while ((value & ~0x7FL) != 0) {
            out[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[pos++] = (byte) value;
        return pos;
    }

    /** Sequential reader of one payload, of either layout: the count, then the values as unsigned longs. */
    private static final class Reader {
        private final byte[] bytes;
        private final int end;
        private int pos;
        private long previous = -1;
        /** The Rice parameter, or -1 for the first layout. */
        private int k = -1;
        /** Bits read ahead, left-aligned, and how many. */
        private long window;

        private int bits;

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
            boolean rice = end - pos >= MARKER_BYTES && bytes[pos] == (byte) 0x80 && bytes[pos + 1] == 0;
            if (rice) {
                pos += MARKER_BYTES;
            }
            long n = varint();
            if (n > MAX_VALUES) {
                throw new IllegalArgumentException("shingle set claims " + n + " values, more than " + MAX_VALUES);
            }
            if (rice) {
                if (pos >= end) {
                    throw new IllegalArgumentException("shingle set is corrupt: it ends before its Rice parameter");
                }
                k = bytes[pos++];
                if (k < 0 || k > 31) {
                    throw new IllegalArgumentException(
                            "shingle set is corrupt: Rice parameter " + k + " is not in [0, 31]");
                }
            }
            return (int) n;
        }

        long next() {
            if (k >= 0) {
                return nextRice();
            }
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

        private long nextRice() {
            refill();
            int leadingOnes = Long.numberOfLeadingZeros(~window);
            if (leadingOnes + 1 + k <= bits) {
                // The whole code is in the window: the common case, one refill a value.
                long remainder = k == 0 ? 0 : (window << (leadingOnes + 1)) >>> (64 - k);
                consume(leadingOnes + 1 + k);
                return accept(leadingOnes, remainder);
            }
            long quotient = 0;
            while (true) {
                refill();
                if (bits == 0) {
                    throw new IllegalArgumentException("shingle set is corrupt: it ends inside a value");
                }
                int ones = Long.numberOfLeadingZeros(~window);
                if (ones < bits) {
                    quotient += ones;
                    consume(ones + 1);
                    break;
                }
                quotient += bits;
                consume(bits);
                if (quotient > 0xFFFFFFFFL) {
                    break; // past 32 bits whatever follows: reported below
                }
            }
            long remainder = 0;
            if (k > 0) {
                refill();
                if (bits < k) {
                    throw new IllegalArgumentException("shingle set is corrupt: it ends inside a value");
                }
                remainder = window >>> (64 - k);
                consume(k);
            }
            return accept(quotient, remainder);
        }

        /** The value after {@code previous} at the distance a Rice code gives, checked to fit in 32 bits. */
        private long accept(long quotient, long remainder) {
            long value = previous + 1 + ((quotient << k) | remainder);
            if (quotient > 0xFFFFFFFFL || value > 0xFFFFFFFFL) {
                throw new IllegalArgumentException(String.format(
                        Locale.ROOT, "shingle set is corrupt: a value after %d is not within 32 bits", previous));
            }
            previous = value;
            return value;
        }

        private void refill() {
            if (bits > 56) {
                return;
            }
            if (end - pos >= 8) {
                // Eight bytes at once; bits past the counted ones are the stream's next bits, so ORing them in
                // again at the next refill changes nothing.
                window |= (long) BIG_ENDIAN_LONG.get(bytes, pos) >>> bits;
                int taken = (64 - bits) >>> 3;
                pos += taken;
                bits += taken << 3;
                return;
            }
            while (bits <= 56 && pos < end) {
                window |= (bytes[pos++] & 0xFFL) << (56 - bits);
                bits += 8;
            }
        }

        private void consume(int n) {
            window = n == 64 ? 0 : window << n;
            bits -= n;
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
            if (k >= 0) {
                refill();
                if (bits >= 8) {
                    throw new IllegalArgumentException(
                            "shingle set is corrupt: " + (bits / 8) + " bytes after its last value");
                }
                if (window != 0) {
                    throw new IllegalArgumentException("shingle set is corrupt: its last byte ends in one-bits");
                }
                return;
            }
            if (pos != end) {
                throw new IllegalArgumentException(
                        "shingle set is corrupt: " + (end - pos) + " bytes after its last value");
            }
        }
    }
}
