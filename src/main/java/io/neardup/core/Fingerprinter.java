/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Computes a document's simhash (with margins) and MinHash signature from its tokens, one token at
 * a time, as a Lucene TokenStream delivers them.
 *
 * <p>Simhash features are the shingles of {@code simhashShingleSize} tokens (see
 * {@link ShingleHasher} for short documents), each counted per document and weighted
 * {@code weighting(count) * idf}, where idf is 1 without a table and otherwise the maximum
 * {@link IdfTable} idf of the shingle's tokens. Features are added to W in first-seen order, so
 * the floating-point sums, and hence the output, depend only on the token sequence. MinHash runs
 * over the distinct shingles of {@code minhashShingleSize} tokens.
 *
 * <p>Not thread-safe: it works in a per-document scratch ({@link FingerprintScratch}: maps, buffers, W),
 * reused across documents so the per-token path allocates nothing once warm. Use one per thread or per call;
 * the scheme, the {@link IdfTable} and the {@link MinHasher} it reads are immutable and shared.
 *
 * <p>Lifecycle: {@link #token} ... {@link #finish()}, then {@link #reset()} before the next document.
 */
public final class Fingerprinter {
    private final FingerprintScheme scheme;
    private final IdfTable idfTable;
    private final TokenHasher tokenHasher;
    private final ShingleHasher simhashShingles;
    private final ShingleHasher minhashShingles;
    private final MinHasher minHasher;
    private final SimhashAccumulator accumulator = new SimhashAccumulator(Margins.BITS);
    private final double[] weights = new double[Margins.BITS];

    private final FingerprintScratch scratch;
    private final LongIndexMap features;
    private final LongIndexMap shingles;
    private final boolean withSimhash;
    private final boolean withMinhash;
    private final FingerprintFormat format;
    private boolean finished;

    /**
     * @param idfTable the table named by {@code scheme.idf()}, or null iff it is
     *                 {@value FingerprintScheme#NO_IDF}
     */
    public Fingerprinter(FingerprintScheme scheme, IdfTable idfTable) {
        this(scheme, idfTable, new FingerprintScratch(MemoryBudget.NONE));
    }

    /**
     * As {@link #Fingerprinter(FingerprintScheme, IdfTable)}, working in {@code scratch}, which it
     * does not own: a caller may keep one scratch per thread for fingerprinters of any scheme, and
     * a token that would grow it past its budget fails. Starts a document ({@link #reset()}).
     */
    public Fingerprinter(FingerprintScheme scheme, IdfTable idfTable, FingerprintScratch scratch) {
        this(scheme, idfTable, scratch, true, true);
    }

    /**
     * As {@link #Fingerprinter(FingerprintScheme, IdfTable, FingerprintScratch)}, computing the simhash only
     * {@code withSimhash} and the MinHash signature only {@code withMinhash}: a caller that writes one of them
     * skips the other's per-token hashing and its finish (on short texts the unused signature was ~4% of an
     * indexing node's CPU). What is computed is the same either way.
     */
    public Fingerprinter(
            FingerprintScheme scheme,
            IdfTable idfTable,
            FingerprintScratch scratch,
            boolean withSimhash,
            boolean withMinhash) {
        this(scheme, idfTable, scratch, withSimhash, withMinhash, FingerprintFormat.SIGNATURE);
    }

    /**
     * As {@link #Fingerprinter(FingerprintScheme, IdfTable, FingerprintScratch, boolean, boolean)}, with the MinHash
     * signature of {@code format}: in {@link FingerprintFormat#COMPACT} the set's ({@link
     * FingerprintFormat#signatureOfSet}), which has no {@code minhash_method} of its own.
     */
    public Fingerprinter(
            FingerprintScheme scheme,
            IdfTable idfTable,
            FingerprintScratch scratch,
            boolean withSimhash,
            boolean withMinhash,
            FingerprintFormat format) {
        if (scheme == null) {
            throw new IllegalArgumentException("scheme must not be null");
        }
        if (withMinhash
                && format.derivesSignatureFromSet()
                && scheme.minhashMethod() != MinHasher.Method.ONE_PERMUTATION) {
            throw new IllegalArgumentException(
                    "[minhash_method] [" + scheme.minhashMethod().paramName()
                            + "] does not apply to " + format.describe()
                            + ", whose signatures are one-permutation MinHash of the shingle set: leave [minhash_method] out");
        }
        if (withSimhash == false && withMinhash == false) {
            throw new IllegalArgumentException("a fingerprinter computes the simhash, the MinHash signature or both");
        }
        if (idfTable == null) {
            if (!scheme.idf().equals(FingerprintScheme.NO_IDF)) {
                throw new IllegalArgumentException(
                        "scheme [" + scheme.id() + "] needs idf table [" + scheme.idf() + "], got none");
            }
        } else {
            if (!idfTable.identity().equals(scheme.idf())) {
                throw new IllegalArgumentException("scheme [" + scheme.id() + "] needs idf table [" + scheme.idf()
                        + "], got [" + idfTable.identity() + "]");
            }
            if (idfTable.seed() != scheme.seed()) {
                throw new IllegalArgumentException("idf table [" + idfTable.identity() + "] was hashed with seed "
                        + idfTable.seed() + ", scheme [" + scheme.id() + "] uses seed " + scheme.seed());
            }
        }
        this.scheme = scheme;
        this.idfTable = idfTable;
        this.tokenHasher = new TokenHasher(scheme.seed());
        this.simhashShingles = new ShingleHasher(scheme.simhashShingleSize(), scheme.seed());
        this.minhashShingles = new ShingleHasher(scheme.minhashShingleSize(), scheme.seed());
        this.minHasher = MinHasher.of(scheme.numHashes(), scheme.seed(), scheme.minhashMethod());
        this.scratch = scratch;
        this.features = scratch.features;
        this.shingles = scratch.shingles;
        this.withSimhash = withSimhash;
        this.withMinhash = withMinhash;
        this.format = format;
        reset();
    }

    public FingerprintScheme scheme() {
        return scheme;
    }

    /** Adds the token {@code buf[off, off + len)}. */
    public void token(char[] buf, int off, int len) {
        if (finished) {
            throw new IllegalStateException("finish() was called: call reset() before adding tokens");
        }
        tokenHash(tokenHasher.hash(buf, off, len));
    }

    /**
     * Adds a token by its hash, as {@link TokenHasher} with the scheme's seed gives it ({@link TextTokens#hash}): a text
     * already analyzed is fingerprinted without analyzing it again.
     */
    public void tokenHash(long h) {
        if (finished) {
            throw new IllegalStateException("finish() was called: call reset() before adding tokens");
        }
        if (withSimhash) {
            float idf = idfTable == null ? 1f : idfTable.idf(h);
            if (simhashShingles.add(h, idf)) {
                addFeature(simhashShingles.shingle(), simhashShingles.maxWeight());
            }
        }
        if (withMinhash && minhashShingles.add(h)) {
            shingles.add(minhashShingles.shingle());
        }
    }

    /** Convenience for tests and tools; allocates. */
    public void token(CharSequence token) {
        char[] chars = token.toString().toCharArray();
        token(chars, 0, chars.length);
    }

    private void addFeature(long featureHash, float idf) {
        int index = features.add(featureHash);
        int count = features.valueAt(index);
        if (count == 0) {
            scratch.ensureIdfCapacity(index);
            scratch.featureIdf[index] = idf;
        }
        features.setValueAt(index, count + 1);
    }

    /** Ends the document and computes its fingerprints. Call {@link #reset()} before the next one. */
    public Fingerprint finish() {
        return finish(false);
    }

    /**
     * As {@link #finish()}, with the document's shingle set ({@link ShingleSetCodec#of}) when {@code withShingleSet}
     * (which needs the MinHash side).
     */
    public Fingerprint finish(boolean withShingleSet) {
        if (finished) {
            throw new IllegalStateException("finish() was already called: call reset() first");
        }
        if (withShingleSet && withMinhash == false) {
            throw new IllegalStateException("a shingle set is the MinHash side's: this fingerprinter computes none");
        }
        finished = true;
        long simhash = 0;
        Margins margins = null;
        if (withSimhash) {
            if (simhashShingles.finish()) {
                addFeature(simhashShingles.shingle(), simhashShingles.maxWeight());
            }
            FeatureWeighting weighting = scheme.weighting();
            for (int i = 0; i < features.size(); i++) {
                accumulator.add(features.keyAt(i), weighting.weight(features.valueAt(i)) * scratch.featureIdf[i]);
            }
            simhash = accumulator.fingerprint();
            margins = Margins.of(accumulator.weights(weights), Margins.BITS);
        }
        int[] minhash = null;
        int[] shingleSet = null;
        if (withMinhash) {
            if (minhashShingles.finish()) {
                shingles.add(minhashShingles.shingle());
            }
            if (format.derivesSignatureFromSet()) {
                int[] set = ShingleSetCodec.of(shingles.keysArray(), shingles.size());
                minhash = FingerprintFormat.signatureOfSet(set, scheme.numHashes());
                shingleSet = withShingleSet ? set : null;
            } else {
                minhash = minHasher.signature(shingles.keysArray(), shingles.size());
                shingleSet = withShingleSet ? ShingleSetCodec.of(shingles.keysArray(), shingles.size()) : null;
            }
        }
        // Each side's hasher counts every token it is given; a fingerprinter computes at least one side.
        long tokens = withSimhash ? simhashShingles.tokens() : minhashShingles.tokens();
        return new Fingerprint(simhash, margins, minhash, tokens, features.size(), shingleSet);
    }

    /**
     * Entries the reusable scratch (features, shingles) can hold: it grows to the largest document
     * seen. A caller that keeps instances per thread drops one whose scratch grew past what typical
     * documents need, so that one outsized text does not pin its memory for good.
     */
    public int scratchCapacity() {
        return scratch.capacity();
    }

    /** Forgets the current document, keeping the grown buffers. */
    public void reset() {
        simhashShingles.reset();
        minhashShingles.reset();
        scratch.clear();
        accumulator.reset();
        finished = false;
    }

    /** Fingerprints a whole token sequence: reset, every token, finish. */
    public Fingerprint fingerprint(Iterable<? extends CharSequence> tokens) {
        reset();
        for (CharSequence t : tokens) {
            token(t);
        }
        return finish();
    }
}
