/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Turns a stream of token hashes into hashes of word n-grams ("shingles"), without building
 * strings, in O(n) = O(1) work per token (n is at most {@value #MAX_SIZE}).
 *
 * <p>Hash of the window {@code t_1..t_m} (oldest first): {@code h = h0; h = fmix64(h * C + t_i)}
 * for i = 1..m, where {@code h0} is derived from the seed. The chain makes the hash
 * order-sensitive ("a b" differs from "b a"), and fmix64's avalanche makes it uniform.
 *
 * <p>Emission contract:
 * <ul>
 *   <li>each token from the n-th on completes one shingle of the last n tokens: {@link #add}
 *       returns true and {@link #shingle()} holds its hash;</li>
 *   <li>a stream of 1..n-1 tokens emits exactly one shingle, of all its tokens, from
 *       {@link #finish()}, so that short texts (a one-word title) still have a feature;</li>
 *   <li>an empty stream emits nothing.</li>
 * </ul>
 *
 * <p>Each token may carry a float weight (its IDF); {@link #maxWeight()} is the maximum over the
 * tokens of the current shingle.
 *
 * <p>Not thread-safe: one instance per stream; {@link #reset()} between streams.
 */
public final class ShingleHasher {
    public static final int MAX_SIZE = 8;
    private static final long C = 0x9E3779B97F4A7C15L;
    private static final long SEED_SALT = 0x7368696e676c6573L; // "shingles"

    private final int size;
    private final long h0;
    private final long[] hashes;
    private final float[] weights;
    private long tokens;
    /** The slot the next token goes to: tokens % size, kept without a division. */
    private int next;

    private long shingle;
    private float maxWeight;

    public ShingleHasher(int size, long seed) {
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("shingle_size must be in [1, " + MAX_SIZE + "], got " + size);
        }
        this.size = size;
        this.h0 = Murmur3.fmix64(seed ^ SEED_SALT);
        this.hashes = new long[size];
        this.weights = new float[size];
    }

    public int size() {
        return size;
    }

    /** Adds a token of weight 1. */
    public boolean add(long tokenHash) {
        return add(tokenHash, 1f);
    }

    /** Adds a token; returns true if it completed a shingle, now in {@link #shingle()}. */
    public boolean add(long tokenHash, float weight) {
        int slot = next;
        hashes[slot] = tokenHash;
        weights[slot] = weight;
        next = slot + 1 == size ? 0 : slot + 1;
        tokens++;
        if (tokens < size) {
            return false;
        }
        // The oldest token of the window sits right after the newest one.
        computeWindow(next, size);
        return true;
    }

    /**
     * Ends the stream. Returns true, with the hash in {@link #shingle()}, only for a stream of
     * 1..size-1 tokens: its one shingle of all tokens. Call {@link #reset()} before reuse.
     */
    public boolean finish() {
        if (tokens == 0 || tokens >= size) {
            return false;
        }
        computeWindow(0, (int) tokens);
        return true;
    }

    private void computeWindow(int start, int length) {
        long h = h0;
        float max = Float.NEGATIVE_INFINITY;
        int s = start;
        for (int i = 0; i < length; i++) {
            h = Murmur3.fmix64(h * C + hashes[s]);
            max = Math.max(max, weights[s]);
            s = s + 1 == size ? 0 : s + 1;
        }
        shingle = h;
        maxWeight = max;
    }

    /** The hash of the shingle completed by the last successful {@link #add} or {@link #finish}. */
    public long shingle() {
        return shingle;
    }

    /** The largest token weight in the shingle of {@link #shingle()}. */
    public float maxWeight() {
        return maxWeight;
    }

    /** Tokens added since construction or the last {@link #reset()}. */
    public long tokens() {
        return tokens;
    }

    public void reset() {
        tokens = 0;
        next = 0;
        shingle = 0;
        maxWeight = 0;
    }

    /** Off the hot path (tests, tools): the hash of exactly these token hashes, oldest first. */
    public long hashOf(long... tokenHashes) {
        if (tokenHashes.length < 1 || tokenHashes.length > size) {
            throw new IllegalArgumentException("a shingle has 1 to " + size + " tokens, got " + tokenHashes.length);
        }
        long h = h0;
        for (long t : tokenHashes) {
            h = Murmur3.fmix64(h * C + t);
        }
        return h;
    }
}
