/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.BandJoin;
import io.neardup.core.MemoryBudget;
import io.neardup.mapper.FingerprintFields;
import io.neardup.query.FieldExposure;
import io.neardup.query.SegmentScheme;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.IndexReader;
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
final class ShardBandBuckets implements BandJoin.Buckets {
    private final IndexReader reader;
    private final String field;
    private final MemoryBudget budget;

    ShardBandBuckets(IndexReader reader, String field, MemoryBudget budget) {
        this.reader = reader;
        this.field = field;
        this.budget = budget;
    }

    @Override
    public void forEach(BandJoin.Bucket bucket) {
        try {
            read(bucket);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the band terms of [" + field + "]", e);
        }
    }

    /** The band terms of the segments the caller may see, merged, with each segment's own live docs and the scheme. */
    record BandTerms(TermsEnum terms, Bits[] liveDocs, int[] docStarts, String scheme) {
        /** Whether the reader's document {@code doc} is live for the caller. */
        boolean live(int doc) {
            int leaf = ReaderUtil.subIndex(doc, docStarts);
            return liveDocs[leaf] == null || liveDocs[leaf].get(doc - docStarts[leaf]);
        }
    }

    /** The band terms {@link #forEach} reads, or null if no segment shows the field; fails on segments of different schemes. */
    BandTerms open() throws IOException {
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
            Terms terms =
                    FieldExposure.exposes(leaf.reader(), field) ? leaf.reader().terms(field) : null;
            if (terms != null) {
                // The join compares no fingerprints of different schemes, as the query refuses to.
                String segmentScheme = SegmentScheme.of(leaf.reader(), field, FingerprintFields.schemeField(field));
                SegmentScheme.requireSame(field, scheme, segmentScheme);
                scheme = scheme == null ? segmentScheme : scheme;
                slices.add(new ReaderSlice(leaf.docBase, leaf.reader().maxDoc(), subs.size()));
                subs.add(terms);
            }
        }
        if (subs.isEmpty()) {
            return null;
        }
        TermsEnum terms = new MultiTerms(subs.toArray(new Terms[0]), slices.toArray(new ReaderSlice[0])).iterator();
        return new BandTerms(terms, liveDocs, docStarts, scheme);
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
            for (BytesRef term = terms.next(); term != null; term = terms.next()) {
                if (terms.docFreq() < 2) {
                    continue;
                }
                postings = terms.postings(postings, PostingsEnum.NONE);
                int size = 0;
                for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
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
