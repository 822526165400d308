/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Why two texts are near-duplicates: the measures their shingle sets give (exact Jaccard, containment both ways, as
 * {@link ShingleSetCodec} computes them for a query) and where their shared shingles are: runs of consecutive shingles
 * both texts hold in the same order, as character ranges on each side, and the ranges of tokens that are in no shared
 * shingle (what only one side has).
 *
 * <p>The shingles are the MinHash side's ({@code minhashShingleSize} tokens, {@link ShingleHasher} with the scheme's
 * seed, one shingle of all tokens for a text shorter than that), so they are the shingles of the stored set: the
 * measures are those of the two sets {@link ShingleSetCodec#of} makes (32-bit values), the runs are found on the full
 * 64-bit hashes, so that a run holds the same words on both sides (two different shingles share 64 bits with
 * probability 2^-64).
 *
 * <p>The runs: each text is read once from its start; at a shingle the other text also holds, the occurrence there
 * (of the first {@value #CANDIDATES}) that continues the longest is taken and the run extended as long as both sides
 * agree. Read from A, this covers every shared shingle of A; read again from B for the shingles of B no run covers yet,
 * every shared shingle of B. The work is at most {@value #CANDIDATES} times the shingles of both texts, whatever their
 * repetitions. A reported run is a true common run; runs may overlap on one side (a passage repeated on the other).
 *
 * <p>Bounded: passages are given only for the tokens ending within the first {@code maxChars} characters of each text
 * (the measures are always of the whole texts); where a text is longer, the result says so ({@link
 * Result#truncated()}). The scratch is reserved from a {@link MemoryBudget} and released before returning.
 */
public final class ShingleAlignment {
    /** Occurrences on the other side tried at the start of a run. */
    static final int CANDIDATES = 16;

    private ShingleAlignment() {}

    /** Characters {@code [start, end)} of a text. */
    public record Range(int start, int end) {}

    /** The same words at {@code a} in text A and at {@code b} in text B. */
    public record Passage(Range a, Range b) {}

    /**
     * @param shinglesA       distinct shingle values of A (its stored set's size)
     * @param sharedShingles  distinct values both sets hold
     * @param containmentAInB |A ∩ B| / |A|
     * @param truncated       whether a text is longer than the characters explained: passages cover only its start
     */
    public record Result(
            int shinglesA,
            int shinglesB,
            int sharedShingles,
            double jaccard,
            double containmentAInB,
            double containmentBInA,
            List<Passage> shared,
            List<Range> onlyA,
            List<Range> onlyB,
            boolean truncated) {}

    /** A common run: {@code length} shingles from shingle {@code a} of A and shingle {@code b} of B. */
    private record Run(int a, int b, int length) {}

    /**
     * Aligns {@code a} and {@code b}, tokens of the same scheme (hashed with its seed).
     *
     * @param shingleSize the scheme's MinHash shingle size
     * @param seed        the scheme's seed
     * @param maxChars    passages only for tokens ending within the first {@code maxChars} characters of each text
     */
    public static Result align(
            TextTokens a, TextTokens b, int shingleSize, long seed, int maxChars, MemoryBudget budget) {
        if (maxChars < 0) {
            throw new IllegalArgumentException("maxChars must be >= 0, got " + maxChars);
        }
        long[] hashesA = shingles(a, shingleSize, seed, budget);
        try {
            long[] hashesB = shingles(b, shingleSize, seed, budget);
            try {
                int[] setA = ShingleSetCodec.of(hashesA, hashesA.length);
                int[] setB = ShingleSetCodec.of(hashesB, hashesB.length);
                int common = ShingleSetCodec.intersectionSize(setA, setB);
                int tokensA = explainedTokens(a, maxChars), tokensB = explainedTokens(b, maxChars);
                Sides sides = new Sides(
                        a,
                        b,
                        hashesA,
                        hashesB,
                        shingleSize,
                        explainedShingles(a.size(), tokensA, shingleSize),
                        explainedShingles(b.size(), tokensB, shingleSize));
                List<Run> runs = sides.runs(budget);
                return new Result(
                        setA.length,
                        setB.length,
                        common,
                        ShingleSetCodec.jaccard(common, setA.length, setB.length),
                        ShingleSetCodec.containment(common, setA.length),
                        ShingleSetCodec.containment(common, setB.length),
                        sides.passages(runs),
                        sides.unshared(runs, true, tokensA),
                        sides.unshared(runs, false, tokensB),
                        tokensA < a.size() || tokensB < b.size());
            } finally {
                budget.release(arrayBytes(hashesB.length, Long.BYTES));
            }
        } finally {
            budget.release(arrayBytes(hashesA.length, Long.BYTES));
        }
    }

    /** The 64-bit hash of each shingle of a text in order, exactly as {@link Fingerprinter} makes its MinHash side's. */
    static long[] shingles(TextTokens text, int shingleSize, long seed, MemoryBudget budget) {
        int n = text.size();
        int count = n == 0 ? 0 : Math.max(1, n - shingleSize + 1);
        budget.reserve(arrayBytes(count, Long.BYTES));
        long[] out = new long[count];
        ShingleHasher hasher = new ShingleHasher(shingleSize, seed);
        int k = 0;
        for (int i = 0; i < n; i++) {
            if (hasher.add(text.hash(i))) {
                out[k++] = hasher.shingle();
            }
        }
        if (hasher.finish()) {
            out[k++] = hasher.shingle();
        }
        assert k == count : k + " shingles, expected " + count;
        return out;
    }

    private static long arrayBytes(int length, int elementBytes) {
        return LongIndexMap.ARRAY_OVERHEAD + (long) length * elementBytes;
    }

    /** Tokens from the start that end within the first {@code maxChars} characters. */
    private static int explainedTokens(TextTokens text, int maxChars) {
        int t = 0;
        while (t < text.size() && text.end(t) <= maxChars) {
            t++;
        }
        return t;
    }

    /** Shingles from the start whose tokens are all among the first {@code tokens} explained. */
    private static int explainedShingles(int size, int tokens, int shingleSize) {
        if (tokens == size) {
            return size == 0 ? 0 : Math.max(1, size - shingleSize + 1);
        }
        return Math.max(0, tokens - shingleSize + 1);
    }

    /** Both texts' explained shingles and the lookups between them. */
    private static final class Sides {
        private final TextTokens a, b;
        private final long[] hashesA, hashesB;
        private final int shingleSize, shinglesA, shinglesB;

        Sides(
                TextTokens a,
                TextTokens b,
                long[] hashesA,
                long[] hashesB,
                int shingleSize,
                int shinglesA,
                int shinglesB) {
            this.a = a;
            this.b = b;
            this.hashesA = hashesA;
            this.hashesB = hashesB;
            this.shingleSize = shingleSize;
            this.shinglesA = shinglesA;
            this.shinglesB = shinglesB;
        }

        List<Run> runs(MemoryBudget budget) {
            List<Run> runs = new ArrayList<>();
            Occurrences inB = new Occurrences(hashesB, shinglesB, budget);
            try {
                // Shingles of B the runs found from A cover.
                budget.reserve(arrayBytes(shinglesB, 1));
                boolean[] coveredB = new boolean[shinglesB];
                try {
                    for (int i = 0; i < shinglesA; ) {
                        Run run = longestFrom(i, hashesA, shinglesA, inB, hashesB, shinglesB, true);
                        if (run == null) {
                            i++;
                            continue;
                        }
                        runs.add(run);
                        for (int t = 0; t < run.length; t++) {
                            coveredB[run.b + t] = true;
                        }
                        i += run.length;
                    }
                    Occurrences inA = new Occurrences(hashesA, shinglesA, budget);
                    try {
                        for (int j = 0; j < shinglesB; ) {
                            if (coveredB[j]) {
                                j++;
                                continue;
                            }
                            Run run = longestFrom(j, hashesB, shinglesB, inA, hashesA, shinglesA, false);
                            if (run == null) {
                                j++;
                                continue;
                            }
                            runs.add(run);
                            j += run.length;
                        }
                    } finally {
                        inA.release();
                    }
                } finally {
                    budget.release(arrayBytes(shinglesB, 1));
                }
            } finally {
                inB.release();
            }
            runs.sort(Comparator.comparingInt(Run::a).thenComparingInt(Run::b));
            return runs;
        }

        /**
         * The longest common run starting at shingle {@code from} of one side and at one of the first {@link
         * #CANDIDATES} occurrences of its hash on the other; null if the other side does not hold it.
         */
        private static Run longestFrom(
                int from,
                long[] hashes,
                int size,
                Occurrences inOther,
                long[] otherHashes,
                int otherSize,
                boolean fromA) {
            int id = inOther.idOf(hashes[from]);
            if (id < 0) {
                return null;
            }
            int best = -1, bestLength = 0;
            for (int c = inOther.first(id), end = Math.min(inOther.end(id), c + CANDIDATES); c < end; c++) {
                int other = inOther.position(c);
                int length = 0;
                while (from + length < size
                        && other + length < otherSize
                        && hashes[from + length] == otherHashes[other + length]) {
                    length++;
                }
                if (length > bestLength) {
                    best = other;
                    bestLength = length;
                }
            }
            return fromA ? new Run(from, best, bestLength) : new Run(best, from, bestLength);
        }

        List<Passage> passages(List<Run> runs) {
            List<Passage> passages = new ArrayList<>(runs.size());
            for (Run run : runs) {
                passages.add(new Passage(
                        range(a, run.a, lastToken(a, run.a + run.length - 1)),
                        range(b, run.b, lastToken(b, run.b + run.length - 1))));
            }
            return passages;
        }

        /** The last token of shingle {@code shingle}: a short text's one shingle ends at its last token. */
        private int lastToken(TextTokens text, int shingle) {
            return Math.min(shingle + shingleSize, text.size()) - 1;
        }

        /** Characters from the first token's start to the furthest end of its tokens up to {@code last}. */
        private static Range range(TextTokens text, int first, int last) {
            int start = text.start(first), end = text.end(first);
            for (int t = first + 1; t <= last; t++) {
                start = Math.min(start, text.start(t));
                end = Math.max(end, text.end(t));
            }
            return new Range(start, end);
        }

        /** The ranges of the first {@code tokens} tokens of a side that lie in no run. */
        List<Range> unshared(List<Run> runs, boolean sideA, int tokens) {
            TextTokens text = sideA ? a : b;
            boolean[] covered = new boolean[tokens];
            for (Run run : runs) {
                int first = sideA ? run.a : run.b;
                int last = Math.min(lastToken(text, first + run.length - 1), tokens - 1);
                for (int t = first; t <= last; t++) {
                    covered[t] = true;
                }
            }
            List<Range> ranges = new ArrayList<>();
            for (int t = 0; t < tokens; ) {
                if (covered[t]) {
                    t++;
                    continue;
                }
                int first = t;
                while (t + 1 < tokens && covered[t + 1] == false) {
                    t++;
                }
                ranges.add(range(text, first, t));
                t++;
            }
            return ranges;
        }
    }

    /** The positions of each distinct hash among a side's first {@code size} shingles, in order: one counting sort. */
    private static final class Occurrences {
        private final MemoryBudget budget;
        private final LongIndexMap ids;
        private final int[] starts;
        private final int[] positions;
        private final long bytes;

        Occurrences(long[] hashes, int size, MemoryBudget budget) {
            this.budget = budget;
            this.ids = new LongIndexMap(Math.min(size, 1 << 16), budget);
            int[] idOf = null;
            // idOf, positions, fill and starts
            long reserved = arrayBytes(size, Integer.BYTES) * 3 + arrayBytes(size + 1, Integer.BYTES);
            try {
                budget.reserve(reserved);
            } catch (RuntimeException e) {
                ids.release();
                throw e;
            }
            try {
                idOf = new int[size];
                for (int p = 0; p < size; p++) {
                    idOf[p] = ids.add(hashes[p]);
                }
                starts = new int[ids.size() + 1];
                for (int p = 0; p < size; p++) {
                    starts[idOf[p] + 1]++;
                }
                for (int id = 0; id < ids.size(); id++) {
                    starts[id + 1] += starts[id];
                }
                positions = new int[size];
                int[] next = idOf; // reused: the fill position of each id, once each position's id is read
                int[] fill = new int[ids.size()];
                System.arraycopy(starts, 0, fill, 0, ids.size());
                for (int p = 0; p < size; p++) {
                    positions[fill[next[p]]++] = p;
                }
            } catch (RuntimeException e) {
                ids.release();
                budget.release(reserved);
                throw e;
            }
            this.bytes = reserved;
        }

        int idOf(long hash) {
            return ids.indexOf(hash);
        }

        int first(int id) {
            return starts[id];
        }

        int end(int id) {
            return starts[id + 1];
        }

        int position(int occurrence) {
            return positions[occurrence];
        }

        void release() {
            ids.release();
            budget.release(bytes);
        }
    }
}
