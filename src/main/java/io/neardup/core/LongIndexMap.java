/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.Arrays;

/**
 * Open-addressing map from distinct {@code long} keys to dense indices 0..size-1 in first-seen
 * order, each with an {@code int} value. No boxing.
 *
 * <p>Iteration is by index, so it follows insertion order whatever the table's capacity: a
 * reused instance (grown by an earlier, larger document) iterates exactly like a fresh one,
 * which keeps floating-point sums over the entries, and hence fingerprints, reproducible.
 *
 * <p>Not thread-safe while mutated. Once filled and safely published (final field of an
 * immutable owner) it may be read by many threads.
 */
public final class LongIndexMap {
    /** Heap of an array besides its elements (header, length, alignment). */
    static final int ARRAY_OVERHEAD = 16;

    private final MemoryBudget budget;
    private long[] keys;
    private int[] values;
    private int size;
    /** Dense index + 1 per slot; 0 marks an empty slot. */
    private int[] slots;

    private int mask;

    public LongIndexMap(int expectedSize) {
        this(expectedSize, MemoryBudget.NONE);
    }

    /** A map whose every allocation is first reserved from {@code budget}; {@link #release()} gives it all back. */
    public LongIndexMap(int expectedSize, MemoryBudget budget) {
        if (expectedSize < 0) {
            throw new IllegalArgumentException("expectedSize must be >= 0, got " + expectedSize);
        }
        this.budget = budget;
        int capacity = slotCountFor(expectedSize);
        int entries = Math.max(4, expectedSize);
        budget.reserve(slotBytes(capacity) + entryBytes(entries));
        slots = new int[capacity];
        mask = capacity - 1;
        keys = new long[entries];
        values = new int[keys.length];
    }

    private static int slotCountFor(int expectedSize) {
        return Integer.highestOneBit(Math.max(8, expectedSize * 2 - 1)) << 1;
    }

    /**
     * The most heap a map holds while its capacity is {@code capacity} entries: full, its slot
     * table is twice that (load factor 1/2).
     */
    static long bytesAtCapacity(int capacity) {
        return slotBytes(2 * capacity) + entryBytes(capacity);
    }

    private static long slotBytes(int slotCount) {
        return ARRAY_OVERHEAD + 4L * slotCount;
    }

    private static long entryBytes(int entries) {
        return 2 * ARRAY_OVERHEAD + 12L * entries;
    }

    /** The heap its arrays take, as reserved from its budget. */
    public long ramBytesUsed() {
        return slotBytes(slots.length) + entryBytes(keys.length);
    }

    /** Gives everything this map reserved back to its budget; the map must not be used afterwards. */
    public void release() {
        budget.release(ramBytesUsed());
        keys = null;
        values = null;
        slots = null;
    }

    public int size() {
        return size;
    }

    /** Entries the map can hold before it grows again: what its arrays occupy. */
    public int capacity() {
        return keys.length;
    }

    /** The dense index of {@code key}, or -1 if absent. */
    public int indexOf(long key) {
        int slot = slotOf(key);
        int s;
        while ((s = slots[slot]) != 0) {
            if (keys[s - 1] == key) {
                return s - 1;
            }
            slot = (slot + 1) & mask;
        }
        return -1;
    }

    /** The dense index of {@code key}, inserting it with value 0 if absent. */
    public int add(long key) {
        int slot = slotOf(key);
        int s;
        while ((s = slots[slot]) != 0) {
            if (keys[s - 1] == key) {
                return s - 1;
            }
            slot = (slot + 1) & mask;
        }
        // Grown before anything changes, so that a refused reservation leaves the map as it was.
        if (size == keys.length) {
            growEntries();
        }
        if ((size + 1) * 2 > slots.length) {
            // Keep the load factor at most 1/2 so probe runs stay short.
            rehash(slots.length * 2);
            slot = slotOf(key);
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
        }
        int index = size++;
        keys[index] = key;
        values[index] = 0;
        slots[slot] = index + 1;
        return index;
    }

    /** The live key array, valid in [0, size()); for bulk reads by trusted callers, never to mutate. */
    long[] keysArray() {
        return keys;
    }

    public long keyAt(int index) {
        return keys[index];
    }

    public int valueAt(int index) {
        return values[index];
    }

    public void setValueAt(int index, int value) {
        values[index] = value;
    }

    /** Empties the map, keeping its capacity; costs O(size), not O(capacity). */
    public void clear() {
        if (size * 8 < slots.length) {
            for (int i = 0; i < size; i++) {
                int slot = slotOf(keys[i]);
                while (slots[slot] != i + 1) {
                    slot = (slot + 1) & mask;
                }
                slots[slot] = 0;
            }
        } else {
            Arrays.fill(slots, 0);
        }
        size = 0;
    }

    private void growEntries() {
        long before = entryBytes(keys.length);
        budget.reserve(entryBytes(keys.length * 2)); // old and new arrays live together while copying
        keys = Arrays.copyOf(keys, keys.length * 2);
        values = Arrays.copyOf(values, keys.length);
        budget.release(before);
    }

    private void rehash(int capacity) {
        long before = slotBytes(slots.length);
        budget.reserve(slotBytes(capacity));
        slots = new int[capacity];
        mask = capacity - 1;
        for (int i = 0; i < size; i++) {
            int slot = slotOf(keys[i]);
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = i + 1;
        }
        budget.release(before);
    }

    private int slotOf(long key) {
        // Keys are usually hashes already, but mixing costs little and guards structured keys.
        return (int) Murmur3.fmix64(key) & mask;
    }
}
