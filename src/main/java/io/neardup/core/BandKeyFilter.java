/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * The band keys one shard holds, as a Bloom filter, so that another shard looks up in it only the
 * documents that can share {@code min_band_matches} bands with one of its documents, and only those
 * bands: most documents have no near-duplicate in another shard, and a look-up in a terms dictionary
 * (~0.6 µs a band term, docs/clusters.md) costs far more than a probe of this filter.
 *
 * <p>A split block Bloom filter (Putze, Sanders, Singler, "Cache-, Hash- and Space-Efficient Bloom
 * Filters"; the layout of Apache Parquet's bloom filter): a key sets one bit in each of the eight
 * 64-bit words of one 512-bit block chosen by its high half, so that a probe reads one cache line.
 * At {@link #BITS_PER_KEY} bits a key, about 0.5% of absent keys pass (measured in the tests; docs/clusters.md). A key
 * present is never missed. Keys are {@link #keyOf} a band and its key.
 */
public final class BandKeyFilter {

    /** Filter bits a key: the false-positive rate is about 0.5% (BandKeyFilterTests). */
    public static final int BITS_PER_KEY = 12;

    private static final int WORDS_PER_BLOCK = 8;
    private static final int[] SALT = {
        0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
    };
    /** The most blocks: 2^28 (16 GiB); far beyond what a breaker lets anyone reserve. */
    private static final long MAX_BLOCKS = 1L << 28;

    private final long[] words;
    private final int blocks;

    private BandKeyFilter(long[] words) {
        if (words.length == 0 || words.length % WORDS_PER_BLOCK != 0) {
            throw new IllegalArgumentException(
                    "a band key filter has a positive multiple of " + WORDS_PER_BLOCK + " words, got " + words.length);
        }
        this.words = words;
        this.blocks = words.length / WORDS_PER_BLOCK;
    }

    /** The filter's key for band {@code band}'s key {@code bandKey} ({@link LshBanding#bandKey}). */
    public static long keyOf(int band, long bandKey) {
        return Murmur3.fmix64(bandKey + band * 0x9E3779B97F4A7C15L);
    }

    /** The bytes of a filter for at most {@code keys} keys; reserve them before {@link #forKeys}. */
    public static long bytesFor(long keys) {
        return 8L * WORDS_PER_BLOCK * blocksFor(keys);
    }

    private static long blocksFor(long keys) {
        if (keys < 0) {
            throw new IllegalArgumentException("keys must be >= 0, got " + keys);
        }
        long blocks = Math.max(1, (keys * BITS_PER_KEY + 511) / 512);
        if (blocks > MAX_BLOCKS) {
            throw new IllegalArgumentException(
                    "a band key filter holds at most " + MAX_BLOCKS * 512 / BITS_PER_KEY + " keys, got " + keys);
        }
        return blocks;
    }

    /** An empty filter sized for {@code keys} keys ({@link #bytesFor} bytes). */
    public static BandKeyFilter forKeys(long keys) {
        return new BandKeyFilter(new long[(int) (WORDS_PER_BLOCK * blocksFor(keys))]);
    }

    /** A filter from its {@link #words} (as sent between shards). */
    public static BandKeyFilter ofWords(long[] words) {
        return new BandKeyFilter(words);
    }

    /** The filter's bits, for sending; not a copy. */
    public long[] words() {
        return words;
    }

    public void add(long key) {
        int base = block(key) * WORDS_PER_BLOCK;
        int low = (int) key;
        for (int i = 0; i < WORDS_PER_BLOCK; i++) {
            words[base + i] |= 1L << ((low * SALT[i]) >>> 26);
        }
    }

    /** Adds {@code keys[0..count)}; the same as adding each, faster for many (their cache misses overlap). */
    public void addAll(long[] keys, int count) {
        for (int k = 0; k < count; k++) {
            add(keys[k]);
        }
    }

    /** False if {@code key} was never {@link #add}ed; true if it was, and for a small share of the others. */
    public boolean mightContain(long key) {
        int base = block(key) * WORDS_PER_BLOCK;
        int low = (int) key;
        for (int i = 0; i < WORDS_PER_BLOCK; i++) {
            if ((words[base + i] & (1L << ((low * SALT[i]) >>> 26))) == 0) {
                return false;
            }
        }
        return true;
    }

    private int block(long key) {
        return (int) (((key >>> 32) * blocks) >>> 32);
    }
}
