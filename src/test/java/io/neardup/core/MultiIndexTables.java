/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Manku et al.'s permuted tables (Sood, "Probabilistic Simhash Matching" (2011), ch. VI-A), the simple pigeonhole layout: split the 64
 * bits into h + 1 blocks; two fingerprints within h bits agree exactly on at least one block. Table
 * j holds every fingerprint rotated so that block j leads, sorted; a query looks up, in each table,
 * the run whose leading block equals its own, and checks the Hamming distance (rotation preserves
 * it). Exact by construction: the second exact method and the speed baseline for PSM, at h + 1
 * times the memory.
 *
 * <p>Blocks are contiguous, widths {@code 64 / (h + 1)} (the first {@code 64 % (h + 1)} one bit
 * wider), so rotating left by a block's offset is the permutation: the other blocks keep their
 * cyclic order. For h = 3: four 16-bit blocks; at n = 2^20 a run holds ~16 fingerprints, so a
 * query checks ~64. A neighbour agreeing on several blocks is reported once: table j reports it
 * only if it differs from the query on every block before j (else an earlier table did).
 *
 * <p>Immutable and thread-safe. Lookups use the first 32 bits of the leading block at most
 * (only h = 0 has a wider block); the distance check covers the rest.
 */
public final class MultiIndexTables {
    private final int maxDistance;
    private final int[] offsets;
    private final int[] widths;
    private final long[] blockMasks;
    private final SortedFingerprintTable[] tables;

    private MultiIndexTables(
            int maxDistance, int[] offsets, int[] widths, long[] blockMasks, SortedFingerprintTable[] tables) {
        this.maxDistance = maxDistance;
        this.offsets = offsets;
        this.widths = widths;
        this.blockMasks = blockMasks;
        this.tables = tables;
    }

    /**
     * Builds h + 1 tables over the first {@code length} pairs (copied).
     *
     * @param maxDistance h in [0, {@value FlipSetGenerator#MAX_DISTANCE}]
     */
    public static MultiIndexTables build(long[] fingerprints, int[] docs, int length, int maxDistance) {
        if (maxDistance < 0 || maxDistance > FlipSetGenerator.MAX_DISTANCE) {
            throw new IllegalArgumentException(
                    "max_distance must be in [0, " + FlipSetGenerator.MAX_DISTANCE + "], got " + maxDistance);
        }
        if (fingerprints == null || docs == null) {
            throw new IllegalArgumentException("fingerprints and docs must not be null");
        }
        if (length < 0 || length > fingerprints.length || length > docs.length) {
            throw new IllegalArgumentException(
                    "length must be in [0, min(" + fingerprints.length + ", " + docs.length + ")], got " + length);
        }
        int blocks = maxDistance + 1;
        int[] offsets = new int[blocks];
        int[] widths = new int[blocks];
        long[] masks = new long[blocks];
        int offset = 0;
        for (int j = 0; j < blocks; j++) {
            int w = 64 / blocks + (j < 64 % blocks ? 1 : 0);
            offsets[j] = offset;
            widths[j] = w;
            // Block j in the original orientation: w bits starting `offset` bits below the MSB.
            masks[j] = w == 64 ? -1L : ((1L << w) - 1) << (64 - offset - w);
            offset += w;
        }
        SortedFingerprintTable[] tables = new SortedFingerprintTable[blocks];
        long[] rotated = new long[length];
        for (int j = 0; j < blocks; j++) {
            for (int i = 0; i < length; i++) {
                rotated[i] = Long.rotateLeft(fingerprints[i], offsets[j]);
            }
            int indexBits = Math.min(
                    SortedFingerprintTable.defaultIndexBits(length),
                    Math.min(widths[j], SortedFingerprintTable.MAX_INDEX_BITS));
            tables[j] = SortedFingerprintTable.build(rotated, docs, length, indexBits);
        }
        return new MultiIndexTables(maxDistance, offsets, widths, masks, tables);
    }

    public int maxDistance() {
        return maxDistance;
    }

    public int tableCount() {
        return tables.length;
    }

    /** Adds every fingerprint within {@link #maxDistance()} bits of {@code query}, each once. */
    public void search(long query, Matches out) {
        if (out == null) {
            throw new IllegalArgumentException("out must not be null");
        }
        int h = maxDistance;
        for (int j = 0; j < tables.length; j++) {
            SortedFingerprintTable table = tables[j];
            long rq = Long.rotateLeft(query, offsets[j]);
            int bits = Math.min(widths[j], SortedFingerprints.MAX_PREFIX_BITS);
            long run = table.run(rq >>> (64 - bits), bits);
            int start = SortedFingerprints.runStart(run);
            int end = SortedFingerprints.runEnd(run);
            out.countLookup();
            out.countCandidates(end - start);
            for (int i = start; i < end; i++) {
                long x = table.fingerprintAt(i) ^ rq;
                int d = Long.bitCount(x);
                if (d <= h && !agreesOnEarlierBlock(Long.rotateRight(x, offsets[j]), j)) {
                    out.add(table.docAt(i), d);
                }
            }
        }
    }

    /** True if {@code diff} (query XOR fingerprint, original orientation) is zero on some block before j. */
    private boolean agreesOnEarlierBlock(long diff, int j) {
        for (int b = 0; b < j; b++) {
            if ((diff & blockMasks[b]) == 0) {
                return true;
            }
        }
        return false;
    }

    public long ramBytesUsed() {
        long total = 64;
        for (SortedFingerprintTable t : tables) {
            total += t.ramBytesUsed();
        }
        return total;
    }
}
