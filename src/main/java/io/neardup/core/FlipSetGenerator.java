/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * The top-k weakest bit combinations of Sood, "Probabilistic Simhash Matching" (2011), ch. IV-B (Alg. 2 and eq. 4.6): lazily emits flip
 * sets (sets of positions within the leading p bits of a 64-bit fingerprint, of sizes 0..h) in
 * decreasing probability, the probability of a set being the product of its bits' flip
 * probabilities (compared as sums of logs). The empty set comes first.
 *
 * <p>How (the thesis' procedure): the p prefix bits are sorted weakest first; a combination is an
 * index vector into that list. A max-heap starts with the most probable combination of every size
 * 0..h, i.e. the first i weakest bits {@code (0, 1, .., i-1)}; each extract pushes the at most two
 * successors the thesis' function {@code next} gives ({@link #successors}). Every combination of
 * a size has exactly one predecessor under {@code next}, and a predecessor never has a lower
 * probability (its indices are componentwise no larger), so extraction order is exact and no
 * combination repeats. The heap never holds more than {@code h + 1 + k} entries.
 *
 * <p>Representation: a combination is a long bit set over ranks in the weakest-first list (bit r
 * set = the r-th weakest bit is flipped). For sorted ranks that is the same index vector, and
 * {@code next} becomes a few bit operations; {@link #successors} is the literal index-vector
 * version, which the tests check against it.
 *
 * <p>Reading of Alg. 2: its loop condition is printed {@code p_{l-j} - p_{l-j+1} <= 2}, which is
 * always true for increasing vectors; the intended (and Fig. 3's) quantity is the gap
 * {@code p_{l-j+1} - p_{l-j}}: walk back over the trailing run of consecutive indices, and if the
 * gap before it is exactly 2, the second successor increments the index before the gap.
 *
 * <p>Not thread-safe. Reusable: {@link #reset} allocates only when a larger k or h than before
 * needs a larger heap; {@link #next()} never allocates.
 *
 * <p>Caps: {@code h <= } {@value #MAX_DISTANCE} (see {@link PsmSearch}: past that, exhaustive
 * flips and multi-index tables both blow up and simhash stops being a near-duplicate signal) and
 * {@code k <= } {@value #MAX_K} (each emitted set costs a heap operation and a table lookup; at
 * about 50 ns + 15 ns each, 10,000 sets take ~0.7 ms, the price of a linear scan of 2^20
 * fingerprints: any more and a scan is cheaper).
 */
public final class FlipSetGenerator {
    /** Largest supported maximum distance h. */
    public static final int MAX_DISTANCE = 8;
    /** Largest supported number of flip sets k. */
    public static final int MAX_K = 10_000;
    /** Prefix bits the generator can rank (the whole fingerprint). */
    public static final int MAX_PREFIX_BITS = 64;

    private static final double LOG_ONE = 0.0;

    private final double[] logProbability = new double[MAX_PREFIX_BITS];
    /** order[r] = prefix index (MSB first) of the r-th weakest bit. */
    private final int[] order = new int[MAX_PREFIX_BITS];
    /** rankLog[r] = logProbability[order[r]]. */
    private final double[] rankLog = new double[MAX_PREFIX_BITS];

    // Binary max-heap of (score, rank set), in parallel arrays so nothing is boxed.
    private double[] heapScore = new double[16];
    private long[] heapRanks = new long[16];
    private int heapSize;

    private int prefixBits;
    private int maxSize;
    private int k;
    private int emitted;

    private long currentRanks;
    private double currentScore;
    private long currentMask;

    /** The heap of the flip-set heap once it serves {@code maxDistance} and {@code k}: 16 bytes an entry, h + 1 + k entries. */
    public static long heapBytesFor(int maxDistance, int k) {
        return 2 * 16 + 16L * (maxDistance + 1 + k);
    }

    /** The heap its flip-set heap holds now: it grows to the largest h + 1 + k served, and stays. */
    public long heapBytes() {
        return 2 * 16 + 16L * heapScore.length;
    }

    /**
     * Starts a new sequence.
     *
     * @param logFlipProbabilities {@code ln P(bit differs)} of prefix index i (fingerprint bit
     *                             {@code 63 - i}) for i in [0, prefixBits); each {@code <= 0}, not NaN
     * @param prefixBits           p in [1, 64]: flips are confined to the leading p bits
     * @param maxDistance          h in [0, {@value #MAX_DISTANCE}]: the largest set size
     * @param k                    in [1, {@value #MAX_K}]: the number of sets to emit at most
     */
    public void reset(double[] logFlipProbabilities, int prefixBits, int maxDistance, int k) {
        if (prefixBits < 1 || prefixBits > MAX_PREFIX_BITS) {
            throw new IllegalArgumentException(
                    "prefix_bits must be in [1, " + MAX_PREFIX_BITS + "], got " + prefixBits);
        }
        if (maxDistance < 0 || maxDistance > MAX_DISTANCE) {
            throw new IllegalArgumentException("max_distance must be in [0, " + MAX_DISTANCE + "], got " + maxDistance);
        }
        if (k < 1 || k > MAX_K) {
            throw new IllegalArgumentException("k must be in [1, " + MAX_K + "], got " + k);
        }
        if (logFlipProbabilities == null || logFlipProbabilities.length < prefixBits) {
            throw new IllegalArgumentException("log_flip_probabilities must have length >= " + prefixBits + ", got "
                    + (logFlipProbabilities == null ? "null" : logFlipProbabilities.length));
        }
        for (int i = 0; i < prefixBits; i++) {
            double v = logFlipProbabilities[i];
            if (!(v <= 0)) {
                throw new IllegalArgumentException(
                        "log_flip_probabilities[" + i + "] must be <= 0 (a log-probability), got " + v);
            }
            logProbability[i] = v;
        }
        this.prefixBits = prefixBits;
        this.maxSize = Math.min(maxDistance, prefixBits);
        this.k = k;
        this.emitted = 0;
        sortWeakestFirst();

        int capacity = maxSize + 1 + k;
        if (heapScore.length < capacity) {
            heapScore = new double[capacity];
            heapRanks = new long[capacity];
        }
        heapSize = 0;
        for (int size = 0; size <= maxSize; size++) {
            long ranks = size == 64 ? -1L : (1L << size) - 1;
            push(score(ranks), ranks);
        }
    }

    /** Insertion sort of p <= 64 indices by descending log-probability, ties by index: no allocation. */
    private void sortWeakestFirst() {
        for (int i = 0; i < prefixBits; i++) {
            int idx = i;
            double v = logProbability[i];
            int j = i - 1;
            while (j >= 0 && logProbability[order[j]] < v) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = idx;
        }
        for (int r = 0; r < prefixBits; r++) {
            rankLog[r] = logProbability[order[r]];
        }
    }

    /** Sum of the logs, always in ascending rank order so equal sets get bit-identical scores. */
    private double score(long ranks) {
        double s = LOG_ONE;
        for (long m = ranks; m != 0; m &= m - 1) {
            s += rankLog[Long.numberOfTrailingZeros(m)];
        }
        return s;
    }

    /**
     * Advances to the next most probable flip set. Returns false once k sets were emitted or every
     * set of size <= h within the prefix was.
     */
    public boolean next() {
        if (emitted >= k || heapSize == 0) {
            return false;
        }
        currentScore = heapScore[0];
        currentRanks = heapRanks[0];
        popTop();
        emitted++;
        pushSuccessors(currentRanks);
        long mask = 0;
        for (long m = currentRanks; m != 0; m &= m - 1) {
            mask |= 1L << (63 - order[Long.numberOfTrailingZeros(m)]);
        }
        currentMask = mask;
        return true;
    }

    /**
     * Alg. 2's {@code next} on a rank set: B1 moves the largest rank up by one (if still inside the
     * prefix); B2 exists iff the trailing run of consecutive ranks is preceded by a gap of exactly
     * 2, and moves the rank before the gap up by one.
     */
    private void pushSuccessors(long ranks) {
        long b1 = successor1(ranks, prefixBits);
        if (b1 != 0) {
            push(score(b1), b1);
        }
        long b2 = successor2(ranks);
        if (b2 != 0) {
            push(score(b2), b2);
        }
    }

    /** B1 of Alg. 2 on a rank set: the largest rank moved up by one, or 0 if that leaves the prefix (or the set is empty). */
    static long successor1(long ranks, int prefixBits) {
        if (ranks == 0) {
            return 0; // the empty set is its own size's only member
        }
        int top = 63 - Long.numberOfLeadingZeros(ranks);
        return top + 1 < prefixBits ? ranks ^ (1L << top) ^ (1L << (top + 1)) : 0;
    }

    /**
     * B2 of Alg. 2 on a rank set, or 0: exists iff the trailing run of consecutive ranks is
     * preceded by a gap of exactly 2, and moves the rank before the gap up by one.
     */
    static long successor2(long ranks) {
        if (ranks == 0) {
            return 0;
        }
        int top = 63 - Long.numberOfLeadingZeros(ranks);
        // Start of the trailing run: one above the highest unset rank below top (0 if none).
        long zerosBelowTop = ~ranks & ((1L << top) - 1);
        int runStart = zerosBelowTop == 0 ? 0 : 64 - Long.numberOfLeadingZeros(zerosBelowTop);
        if (runStart >= 2 && (ranks & (1L << (runStart - 2))) != 0) {
            return ranks ^ (1L << (runStart - 2)) ^ (1L << (runStart - 1));
        }
        return 0;
    }

    /** Heap order: higher score first; ties by smaller set, then smaller rank set (deterministic). */
    private boolean before(double sa, long ra, double sb, long rb) {
        if (sa != sb) {
            return sa > sb;
        }
        int ca = Long.bitCount(ra);
        int cb = Long.bitCount(rb);
        if (ca != cb) {
            return ca < cb;
        }
        return Long.compareUnsigned(ra, rb) < 0;
    }

    private void push(double score, long ranks) {
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(score, ranks, heapScore[parent], heapRanks[parent])) {
                break;
            }
            heapScore[i] = heapScore[parent];
            heapRanks[i] = heapRanks[parent];
            i = parent;
        }
        heapScore[i] = score;
        heapRanks[i] = ranks;
    }

    private void popTop() {
        int last = --heapSize;
        if (last == 0) {
            return;
        }
        double score = heapScore[last];
        long ranks = heapRanks[last];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= last) {
                break;
            }
            if (child + 1 < last
                    && before(heapScore[child + 1], heapRanks[child + 1], heapScore[child], heapRanks[child])) {
                child++;
            }
            if (!before(heapScore[child], heapRanks[child], score, ranks)) {
                break;
            }
            heapScore[i] = heapScore[child];
            heapRanks[i] = heapRanks[child];
            i = child;
        }
        heapScore[i] = score;
        heapRanks[i] = ranks;
    }

    /** The current flip set as a mask over fingerprint bits: {@code query ^ mask()} is the flipped query. */
    public long mask() {
        return currentMask;
    }

    /** The number of bits in the current flip set. */
    public int size() {
        return Long.bitCount(currentRanks);
    }

    /** The current set as ranks in the weakest-first list (bit r = the r-th weakest bit). */
    public long ranks() {
        return currentRanks;
    }

    /** ln of the current set's probability (sum of its bits' log-probabilities; 0 for the empty set). */
    public double logProbability() {
        return currentScore;
    }

    /** The number of sets emitted since {@link #reset}. */
    public int emitted() {
        return emitted;
    }

    /** Prefix index (MSB first) of the r-th weakest bit, for r in [0, prefixBits). */
    public int weakest(int rank) {
        if (rank < 0 || rank >= prefixBits) {
            throw new IndexOutOfBoundsException("rank must be in [0, " + prefixBits + "), got " + rank);
        }
        return order[rank];
    }

    /**
     * The literal Alg. 2 on an index vector {@code b[0, l)} (0-based, strictly increasing): writes
     * B1 to {@code b1} and B2 to {@code b2}. Returns a bit set: 1 if B1 exists (its last index is
     * below {@code limit}), 2 if B2 exists. Kept for the tests and as the specification the bit-set
     * version above implements.
     */
    static int successors(int[] b, int l, int limit, int[] b1, int[] b2) {
        int result = 0;
        if (l == 0) {
            return 0;
        }
        System.arraycopy(b, 0, b1, 0, l);
        b1[l - 1] = b[l - 1] + 1;
        if (b1[l - 1] < limit) {
            result |= 1;
        }
        // Thesis, 1-based: j <- 1; while p_{l-j+1} - p_{l-j} <= 2 and j < l: if the gap is 2, B2 = ...
        // 0-based: the pair is (b[l-1-j], b[l-j]).
        int j = 1;
        while (j < l && b[l - j] - b[l - 1 - j] <= 2) {
            if (b[l - j] - b[l - 1 - j] == 2) {
                System.arraycopy(b, 0, b2, 0, l);
                b2[l - 1 - j] = b[l - 1 - j] + 1;
                result |= 2;
                break;
            }
            j++;
        }
        return result;
    }

    /** Helper for callers holding probabilities: fills {@code out[i] = ln p[i]} after range checks. */
    public static double[] logOf(double[] probabilities, double[] out) {
        if (out.length < probabilities.length) {
            throw new IllegalArgumentException(
                    "out must have length >= " + probabilities.length + ", got " + out.length);
        }
        for (int i = 0; i < probabilities.length; i++) {
            double p = probabilities[i];
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("probabilities[" + i + "] must be in [0, 1], got " + p);
            }
            out[i] = Math.log(p);
        }
        return out;
    }
}
