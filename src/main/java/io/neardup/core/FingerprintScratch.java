/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * The per-document working memory of a {@link Fingerprinter}: the simhash features with their idf
 * and the distinct MinHash shingles. It grows to the largest document it has served and is reused
 * across documents and schemes, so one per thread serves every pipeline on that thread. Every
 * allocation is reserved from its {@link MemoryBudget} first.
 *
 * <p>Not thread-safe: one document at a time.
 */
public final class FingerprintScratch {
    private static final int INITIAL_ENTRIES = 256;

    private final MemoryBudget budget;
    /** Simhash features: hash -> count, in first-seen order; idf per feature alongside. */
    final LongIndexMap features;

    float[] featureIdf;
    /** Distinct MinHash shingles. */
    final LongIndexMap shingles;

    public FingerprintScratch(MemoryBudget budget) {
        this.budget = budget;
        this.features = new LongIndexMap(INITIAL_ENTRIES, budget);
        try {
            budget.reserve(idfBytes(INITIAL_ENTRIES));
        } catch (RuntimeException e) {
            features.release();
            throw e;
        }
        this.featureIdf = new float[INITIAL_ENTRIES];
        LongIndexMap shingleMap;
        try {
            shingleMap = new LongIndexMap(INITIAL_ENTRIES, budget);
        } catch (RuntimeException e) {
            features.release();
            budget.release(idfBytes(INITIAL_ENTRIES));
            throw e;
        }
        this.shingles = shingleMap;
    }

    private static long idfBytes(int entries) {
        return LongIndexMap.ARRAY_OVERHEAD + 4L * entries;
    }

    /** Makes room for the idf of feature {@code index}. */
    void ensureIdfCapacity(int index) {
        if (index == featureIdf.length) {
            long before = idfBytes(featureIdf.length);
            budget.reserve(idfBytes(featureIdf.length * 2)); // old and new live together while copying
            featureIdf = Arrays.copyOf(featureIdf, featureIdf.length * 2);
            budget.release(before);
        }
    }

    /** Entries it can hold before it grows again: it grows to the largest document served. */
    public int capacity() {
        return Math.max(features.capacity(), shingles.capacity());
    }

    /** The heap it holds, as reserved from its budget. */
    public long ramBytesUsed() {
        return features.ramBytesUsed() + idfBytes(featureIdf.length) + shingles.ramBytesUsed();
    }

    /** The most a scratch holds while its {@link #capacity()} is at most {@code capacity} (a power of two, at least 256). */
    public static long bytesAtCapacity(int capacity) {
        return 2 * LongIndexMap.bytesAtCapacity(capacity) + idfBytes(capacity);
    }

    void clear() {
        features.clear();
        shingles.clear();
    }

    /** Gives everything back to the budget; the scratch must not be used afterwards. */
    public void release() {
        long idf = idfBytes(featureIdf.length);
        features.release();
        shingles.release();
        featureIdf = null;
        budget.release(idf);
    }
}
