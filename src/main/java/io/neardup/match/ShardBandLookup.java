/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import java.io.IOException;
import java.util.Arrays;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * Another shard's documents (signatures in the stored layout, their shingle sets, the bands of each
 * that this shard's {@link ShardBandBuckets.KeyFilter} passed) looked up by band in this shard's band
 * terms, for the cross-shard half of the band self-join: the documents sharing at least
 * {@code min_band_matches} bands with one of them are verified as the query verifies them
 * ({@link ShardJaccard}), at most {@code maxMatches} kept a document.
 *
 * <p>A term that more than {@code maxBucket} of a segment's documents carry (boilerplate) is not
 * counted: the document is verified against the first {@code maxLeaders} live documents of its
 * postings instead, as {@link io.neardup.core.BandJoin} joins an oversized bucket by leaders within a
 * shard; at most {@code maxLeaders} verifications a document and term. The counters are charged to
 * the budget first; the checkpoint is called every {@link #CHECK_EVERY} documents (a cancelled task
 * throws there).
 */
final class ShardBandLookup {

    /** Receives a verified match: the batch's document {@code query} and this reader's document {@code doc}. */
    @FunctionalInterface
    interface Found {
        void match(int query, int doc, double similarity) throws IOException;
    }

    private ShardBandLookup() {}

    static void lookUp(
            IndexReader reader,
            String field,
            MatchSpec.BandMatching matching,
            String scheme,
            byte[][] signatures,
            byte[][] shingleSets,
            int[][] bands,
            int maxMatches,
            int maxBucket,
            int maxLeaders,
            MemoryBudget budget,
            Runnable checkpoint,
            Found found)
            throws IOException {
        LshBanding banding = matching.banding();
        int n = signatures.length;
        ShardJaccard verifier = new ShardJaccard(reader, matching.fieldType(), matching.exact());
        // A document's shared bands, counted in a short (at most MinHasher.MAX_HASHES = 1,024 bands); the documents
        // touched by one
        // looked-up document in one segment: at most its bands' postings, each of at most maxBucket documents.
        int touchedCapacity = (int) Math.min(reader.maxDoc(), (long) banding.bands() * maxBucket);
        long bytes = 2L * reader.maxDoc() + 4L * touchedCapacity + 8L * n;
        budget.reserve(bytes);
        Candidates candidates = new Candidates(budget);
        try {
            short[] counts = new short[reader.maxDoc()];
            int[] touched = new int[touchedCapacity];
            int[] candidatesOf = new int[n];
            int[] kept = new int[n];
            int candidateCap = CANDIDATES_PER_MATCH * maxMatches;
            BytesRef term = new BytesRef(new byte[matching.fieldType().bandTermBytes()]);
            PostingsEnum postings = null;
            for (LeafReaderContext leaf : reader.leaves()) {
                Terms terms = ShardBandBuckets.exposedTerms(leaf.reader(), field);
                if (terms == null) {
                    continue;
                }
                scheme = ShardBandBuckets.sameScheme(field, scheme, leaf.reader());
                TermsEnum termsEnum = terms.iterator();
                Bits live = leaf.reader().getLiveDocs();
                for (int q = 0; q < n; q++) {
                    if ((q + 1) % CHECK_EVERY == 0) {
                        checkpoint.run();
                    }
                    int touchedCount = 0;
                    for (int i = 0; i < bands[q].length && candidatesOf[q] < candidateCap; i++) {
                        int band = bands[q][i];
                        if (band < 0 || band >= banding.bands()) {
                            throw new IllegalArgumentException(
                                    "band " + band + " out of [0, " + banding.bands() + ") for [" + field + "]");
                        }
                        matching.fieldType().bandTerm(band, matching.fieldType().bandKey(signatures[q], 0, band), term);
                        if (termsEnum.seekExact(term) == false) {
                            continue;
                        }
                        boolean oversized = termsEnum.docFreq() > maxBucket;
                        postings = termsEnum.postings(postings, PostingsEnum.NONE);
                        int leaders = 0;
                        for (int doc = postings.nextDoc();
                                doc != DocIdSetIterator.NO_MORE_DOCS;
                                doc = postings.nextDoc()) {
                            if (live != null && live.get(doc) == false) {
                                continue;
                            }
                            int readerDoc = leaf.docBase + doc;
                            if (oversized) {
                                candidates.add(readerDoc, q);
                                candidatesOf[q]++;
                                if (++leaders == maxLeaders) {
                                    break;
                                }
                            } else if (counts[readerDoc]++ == 0) {
                                touched[touchedCount++] = readerDoc;
                            }
                        }
                    }
                    for (int t = 0; t < touchedCount; t++) {
                        int doc = touched[t];
                        if (counts[doc] >= matching.minBandMatches() && candidatesOf[q] < candidateCap) {
                            candidates.add(doc, q);
                            candidatesOf[q]++;
                        }
                        counts[doc] = 0;
                    }
                }
            }
            // In doc order, so that the verifier reads this shard's values forwards; a pair found twice (through an
            // oversized bucket and by count) is verified once.
            candidates.sort();
            for (int c = 0; c < candidates.size(); c++) {
                long candidate = candidates.get(c);
                if (c > 0 && candidate == candidates.get(c - 1)) {
                    continue;
                }
                int doc = (int) (candidate >>> 32);
                int q = (int) candidate;
                if (kept[q] == maxMatches) {
                    continue;
                }
                double similarity = verifier.similarity(signatures[q], shingleSets[q], doc);
                if (similarity >= matching.minSimilarity()) {
                    found.match(q, doc, similarity);
                    kept[q]++;
                }
            }
        } finally {
            candidates.release();
            budget.release(bytes);
        }
    }

    /** Documents looked up between two calls of the checkpoint (a cancelled task throws there). */
    static final int CHECK_EVERY = 64;

    /** Candidates verified a document at most, per match kept: room for those that fail verification. */
    static final int CANDIDATES_PER_MATCH = 2;

    /** The batch's candidate pairs, as (doc &lt;&lt; 32 | query), grown within the budget. */
    private static final class Candidates {
        private final MemoryBudget budget;
        private long[] pairs = new long[0];
        private int size;

        Candidates(MemoryBudget budget) {
            this.budget = budget;
        }

        void add(int doc, int query) {
            if (size == pairs.length) {
                int length = Math.max(1024, pairs.length * 2);
                budget.reserve(8L * length);
                long[] grown = Arrays.copyOf(pairs, length);
                budget.release(8L * pairs.length);
                pairs = grown;
            }
            pairs[size++] = ((long) doc << 32) | query;
        }

        void sort() {
            Arrays.sort(pairs, 0, size);
        }

        int size() {
            return size;
        }

        long get(int i) {
            return pairs[i];
        }

        void release() {
            budget.release(8L * pairs.length);
            pairs = new long[0];
        }
    }
}
