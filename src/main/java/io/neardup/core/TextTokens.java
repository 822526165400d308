/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * A text's tokens as a fingerprint scheme's analysis gives them, in order: each token's hash ({@link TokenHasher}, with
 * the scheme's seed, as {@link Fingerprinter} hashes it) and its character offsets in the text (Lucene's
 * {@code OffsetAttribute}), so that what a {@link ShingleAlignment} shows is what the fingerprints compared.
 *
 * <p>Its arrays grow by doubling, each growth reserved from its {@link MemoryBudget} first (a node's {@code neardup}
 * breaker); {@link #close} gives it all back. Not thread-safe: one text, one caller.
 */
public final class TextTokens implements AutoCloseable {
    private static final int INITIAL = 64;
    /** Bytes a token takes: its hash and two offsets. */
    static final int BYTES_PER_TOKEN = Long.BYTES + 2 * Integer.BYTES;

    private final TokenHasher hasher;
    private final MemoryBudget budget;
    private long[] hashes;
    private int[] starts;
    private int[] ends;
    private int size;
    private long reserved;

    public TextTokens(long seed, MemoryBudget budget) {
        this.hasher = new TokenHasher(seed);
        this.budget = budget;
        budget.reserve((long) INITIAL * BYTES_PER_TOKEN);
        reserved = (long) INITIAL * BYTES_PER_TOKEN;
        hashes = new long[INITIAL];
        starts = new int[INITIAL];
        ends = new int[INITIAL];
    }

    /** Adds the token {@code buf[off, off + len)}, found at characters {@code [start, end)} of the text. */
    public void add(char[] buf, int off, int len, int start, int end) {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException(
                    "token offsets must satisfy 0 <= start <= end, got [" + start + ", " + end + "]");
        }
        if (size == hashes.length) {
            grow();
        }
        hashes[size] = hasher.hash(buf, off, len);
        starts[size] = start;
        ends[size] = end;
        size++;
    }

    /** Convenience for tests and tools; allocates. */
    public void add(CharSequence token, int start, int end) {
        char[] chars = token.toString().toCharArray();
        add(chars, 0, chars.length, start, end);
    }

    private void grow() {
        int capacity = hashes.length * 2;
        long bytes = (long) capacity * BYTES_PER_TOKEN;
        // old and new arrays live together while copying
        budget.reserve(bytes);
        hashes = Arrays.copyOf(hashes, capacity);
        starts = Arrays.copyOf(starts, capacity);
        ends = Arrays.copyOf(ends, capacity);
        budget.release(reserved);
        reserved = bytes;
    }

    public int size() {
        return size;
    }

    public long hash(int token) {
        return hashes[token];
    }

    public int start(int token) {
        return starts[token];
    }

    public int end(int token) {
        return ends[token];
    }

    /** Heap held, as reserved from the budget. */
    public long bytes() {
        return reserved;
    }

    @Override
    public void close() {
        budget.release(reserved);
        reserved = 0;
    }
}
