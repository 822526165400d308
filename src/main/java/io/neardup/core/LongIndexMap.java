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
    private long[] keys;
    private int[] values;
    private int size;
    /** Dense index + 1 per slot; 0 marks an empty slot. */
    private int[] slots;
    private int mask;

    public LongIndexMap(int expectedSize) {
        if (expectedSize < 0) {
            throw new IllegalArgumentException("expectedSize must be >= 0, got " + expectedSize);
        }
        int capacity = Integer.highestOneBit(Math.max(8, expectedSize * 2 - 1)) << 1;
        slots = new int[capacity];
        mask = capacity - 1;
        keys = new long[Math.max(4, expectedSize)];
        values = new int[keys.length];
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
        int index = size++;
        if (index == keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2);
            values = Arrays.copyOf(values, keys.length);
        }
        keys[index] = key;
        values[index] = 0;
        slots[slot] = index + 1;
        // Keep the load factor at most 1/2 so probe runs stay short.
        if (size * 2 > slots.length) {
            rehash(slots.length * 2);
        }
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

    private void rehash(int capacity) {
        slots = new int[capacity];
        mask = capacity - 1;
        for (int i = 0; i < size; i++) {
            int slot = slotOf(keys[i]);
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = i + 1;
        }
    }

    private int slotOf(long key) {
        // Keys are usually hashes already, but mixing costs little and guards structured keys.
        return (int) Murmur3.fmix64(key) & mask;
    }
}
