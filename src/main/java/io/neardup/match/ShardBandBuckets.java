/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.compat.LuceneApi;
import io.neardup.core.BandJoin;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.MemoryBudget;
import io.neardup.index.FieldExposure;
import io.neardup.index.FingerprintFields;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.SegmentScheme;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.ReaderSlice;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * A shard's band buckets for {@link BandJoin}, read from a {@code minhash} field's band terms: the
 * terms dictionary already is the bucket table, each term that two or more documents carry being a
 * bucket. Documents are the reader's doc ids (segment doc base + doc). Only segments whose reader
 * shows the field to the caller ({@link FieldExposure}) are read, and only the caller's live
 * documents (deletes, and the Security plugin's document-level security: each segment's own live
 * docs) are members.
 */
public final class ShardBandBuckets implements BandJoin.Buckets {
    private final IndexReader reader;
    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;
    private final MemoryBudget budget;

    /** Called every {@link #CHECK_EVERY} terms read: it throws to stop (a cancelled task). */
    private final Runnable checkpoint;

    public static final int CHECK_EVERY = 4096;

    /** Most documents of a bucket whose pairs are all counted; a larger one (boilerplate) is joined by leaders. */
    public static final int MAX_BUCKET = 1_000;
    /** Leaders of an oversized bucket: at most this many verifications a document in it. */
    public static final int MAX_LEADERS = 64;

    /** Keys buffered before they are added to a {@link BandKeyFilter}. */
    private static final int ADD_BATCH = 1024;

    public ShardBandBuckets(IndexReader reader, MinhashFieldMapper.MinhashFieldType fieldType, MemoryBudget budget) {
        this(reader, fieldType, budget, () -> {});
    }

    public ShardBandBuckets(
            IndexReader reader,
            MinhashFieldMapper.MinhashFieldType fieldType,
            MemoryBudget budget,
            Runnable checkpoint) {
        this.reader = reader;
        this.fieldType = fieldType;
        this.field = fieldType.name();
        this.budget = budget;
        this.checkpoint = checkpoint;
    }

    @Override
    public void forEach(BandJoin.Bucket bucket) {
        try {
            read(bucket);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the band terms of [" + field + "]", e);
        }
    }

    /** The field's band terms in a segment whose reader shows the field to the caller ({@link FieldExposure}), or null. */
    static Terms exposedTerms(LeafReader leaf, String field) throws IOException {
        return FieldExposure.exposes(leaf, field) ? leaf.terms(field) : null;
    }

    /**
     * The scheme of the segments read so far ({@code seen}, null if none recorded one) and this
     * one's; fails if they differ: the join compares no fingerprints of different schemes, as the
     * query refuses to.
     */
    static String sameScheme(String field, String seen, LeafReader leaf) throws IOException {
        String segmentScheme = SegmentScheme.of(leaf, field, FingerprintFields.schemeField(field));
        SegmentScheme.requireSame(field, seen, segmentScheme);
        return seen == null ? segmentScheme : seen;
    }

    /**
     * The band terms of the segments the caller may see, merged, with each segment's own live docs and the scheme;
     * {@code docBase} is added to a doc id of the terms' postings to number it in the reader.
     */
    public record BandTerms(TermsEnum terms, int docBase, Bits[] liveDocs, int[] docStarts, String scheme) {
        /** Whether the reader's document {@code doc} is live for the caller. */
        boolean live(int doc) {
            int leaf = ReaderUtil.subIndex(doc, docStarts);
            return liveDocs[leaf] == null || liveDocs[leaf].get(doc - docStarts[leaf]);
        }
    }

    /** The band terms {@link #forEach} reads, or null if no segment shows the field; fails on segments of different schemes. */
    public BandTerms open() throws IOException {
        List<LeafReaderContext> leaves = reader.leaves();
        List<Terms> subs = new ArrayList<>();
        List<ReaderSlice> slices = new ArrayList<>();
        // Each segment's own live docs: the Security plugin hides documents (DLS) there without changing numDocs, so
        // the whole reader's (MultiBits) would not see them.
        Bits[] liveDocs = new Bits[leaves.size()];
        int[] docStarts = new int[leaves.size()];
        String scheme = null;
        for (int i = 0; i < leaves.size(); i++) {
            LeafReaderContext leaf = leaves.get(i);
            liveDocs[i] = leaf.reader().getLiveDocs();
            docStarts[i] = leaf.docBase;
            Terms terms = exposedTerms(leaf.reader(), field);
            if (terms != null) {
                scheme = sameScheme(field, scheme, leaf.reader());
                slices.add(new ReaderSlice(leaf.docBase, leaf.reader().maxDoc(), subs.size()));
                subs.add(terms);
            }
        }
        if (subs.isEmpty()) {
            return null;
        }
        if (subs.size() == 1) {
            // One segment (a force-merged shard): its own terms, without MultiTermsEnum's queue and its sort of the
            // postings' segments at every term (a tenth of a join's time, JFR).
            return new BandTerms(subs.get(0).iterator(), LuceneApi.start(slices.get(0)), liveDocs, docStarts, scheme);
        }
        TermsEnum terms = new MultiTerms(subs.toArray(new Terms[0]), slices.toArray(new ReaderSlice[0])).iterator();
        return new BandTerms(terms, 0, liveDocs, docStarts, scheme);
    }

    /**
     * The band keys of this shard for another shard's look-ups: those of at most {@code maxBucket}
     * documents of a segment in a {@link BandKeyFilter}, those of more (boilerplate, joined by
     * leaders, not counted) listed exactly, and the segments' scheme. Every term of the segments the
     * caller may see is in one or the other (deleted or hidden documents may add keys: the filter only
     * decides what is looked up). The filter's memory is reserved from the budget and stays reserved
     * for the caller to release ({@link BandKeyFilter#bytesFor} of its {@code keys}). {@code format} is the field's
     * fingerprint format here, whose band keys the filter holds.
     */
    public record KeyFilter(
            BandKeyFilter filter, long keys, long[] oversizedKeys, String scheme, FingerprintFormat format) {
        /** Whether a band key of the other shard may be in a bucket of normal size here. */
        boolean mightShare(long filterKey) {
            return filter.mightContain(filterKey);
        }

        boolean oversized(long filterKey) {
            return Arrays.binarySearch(oversizedKeys, filterKey) >= 0;
        }

        /**
         * The bands of another shard's document (its {@link BandKeyFilter#keyOf} keys, band by band)
         * worth looking up here, written to {@code bands}: their number, or 0 if fewer than
         * {@code minBandMatches} pass the filter and none is an oversized bucket here (then no
         * document here can be its candidate).
         */
        public int bandsToLookUp(long[] keys, int minBandMatches, int[] bands) {
            int shared = 0;
            int count = 0;
            boolean oversized = false;
            for (int band = 0; band < keys.length; band++) {
                boolean inBucket = mightShare(keys[band]);
                boolean inOversized = oversizedKeys.length > 0 && oversized(keys[band]);
                shared += inBucket ? 1 : 0;
                oversized |= inOversized;
                if (inBucket || inOversized) {
                    bands[count++] = band;
                }
            }
            return shared >= minBandMatches || oversized ? count : 0;
        }
    }

    KeyFilter keyFilter(int maxBucket) throws IOException {
        long keys = 0;
        String scheme = null;
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = exposedTerms(leaf.reader(), field);
            if (terms != null) {
                scheme = sameScheme(field, scheme, leaf.reader());
                keys += terms.size() >= 0 ? terms.size() : terms.getSumDocFreq();
            }
        }
        budget.reserve(BandKeyFilter.bytesFor(keys));
        BandKeyFilter filter = BandKeyFilter.forKeys(keys);
        long[] oversized = new long[0];
        int oversizedCount = 0;
        // Keys are added a buffer at a time: each add misses the cache (a random block of a filter far larger than
        // it), and a tight loop of independent adds lets those misses overlap, where one add after each term would not.
        long[] pending = new long[ADD_BATCH];
        int pendingCount = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            Terms terms = exposedTerms(leaf.reader(), field);
            if (terms == null) {
                continue;
            }
            TermsEnum termsEnum = terms.iterator();
            for (BytesRef term = termsEnum.next(); term != null; term = termsEnum.next()) {
                long key = fieldType.filterKeyOf(term);
                if (termsEnum.docFreq() <= maxBucket) {
                    pending[pendingCount++] = key;
                    if (pendingCount == ADD_BATCH) {
                        filter.addAll(pending, pendingCount);
                        pendingCount = 0;
                    }
                    continue;
                }
                if (oversizedCount == oversized.length) {
                    // Few: a bucket of more than maxBucket documents needs maxBucket of the segment's documents.
                    oversized = Arrays.copyOf(oversized, Math.max(16, 2 * oversizedCount));
                }
                oversized[oversizedCount++] = key;
            }
        }
        filter.addAll(pending, pendingCount);
        long[] sorted = Arrays.copyOf(oversized, oversizedCount);
        Arrays.sort(sorted);
        return new KeyFilter(filter, keys, sorted, scheme, fieldType.format());
    }

    private void read(BandJoin.Bucket bucket) throws IOException {
        BandTerms bandTerms = open();
        if (bandTerms == null) {
            return;
        }
        TermsEnum terms = bandTerms.terms();
        PostingsEnum postings = null;
        int[] members = new int[0];
        try {
            long read = 0;
            for (BytesRef term = terms.next(); term != null; term = terms.next()) {
                if (++read % CHECK_EVERY == 0) {
                    checkpoint.run();
                }
                if (terms.docFreq() < 2) {
                    continue;
                }
                postings = terms.postings(postings, PostingsEnum.NONE);
                int size = 0;
                for (int next = postings.nextDoc(); next != DocIdSetIterator.NO_MORE_DOCS; next = postings.nextDoc()) {
                    int doc = bandTerms.docBase() + next;
                    if (bandTerms.live(doc) == false) {
                        continue;
                    }
                    if (size == members.length) {
                        int[] grown = new int[Math.max(16, size * 2)];
                        budget.reserve(4L * grown.length);
                        System.arraycopy(members, 0, grown, 0, size);
                        budget.release(4L * members.length);
                        members = grown;
                    }
                    members[size++] = doc;
                }
                if (size >= 2) {
                    bucket.members(members, size);
                }
            }
        } finally {
            budget.release(4L * members.length);
        }
    }
}
