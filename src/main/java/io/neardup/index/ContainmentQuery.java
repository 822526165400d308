/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.PostingsDisjunction;
import io.neardup.compat.SupplierWeight;
import io.neardup.compat.WeightScorer;
import io.neardup.core.ContainmentSampling;
import io.neardup.core.MemoryBudget;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.TermState;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DisiWrapper;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TwoPhaseIterator;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Accountable;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.RamUsageEstimator;

/**
 * Documents that contain the query's text ({@link Containment.Contained#LIKE}), or that the query's text contains
 * ({@link Containment.Contained#DOCUMENT}), by at least {@link Containment#min}, scored by that exact containment.
 *
 * <p>Candidates share at least {@link ContainmentSampling#minSharedSamples} of the query's sampled shingle values
 * (the terms of {@code f._containment}) for the size of the contained side, the query's or each document's; each is
 * verified on the exact containment of the two shingle sets. {@link ScorerSupplier#get} chooses one of two ways, as
 * Lucene's {@code IndexOrDocValuesQuery} does, each for its own job:
 *
 * <ul>
 *   <li>where this query leads, or what leads is not {@link #LEAD_COST_RATIO} times cheaper, one pass over the
 *       postings of the query's sampled values counts the shared ones per document (in an array of the segment's
 *       size, or a sorted list of the postings' documents where that is smaller), charged to the {@code neardup}
 *       breaker before it is allocated and given back when the segment's hits are ready; postings read in order, one
 *       enum reused, are the cheapest way through a whole segment;
 *   <li>where a clause that much cheaper leads (a filter on a rare value), a two-phase scorer: the disjunction of the
 *       sampled values' postings as the approximation, and for each document the lead stops on, the shared values
 *       counted where the postings stand and the same verification. Only the lead's documents are looked at, and
 *       nothing grows with the segment.
 * </ul>
 *
 * A candidate whose set's size (a doc value, {@code f._containment_size}) rules it out is discarded without reading
 * its set. A document without a shingle set has no sampled values and is never a hit. Both ways give the same hits
 * and scores.
 */
public final class ContainmentQuery extends Query implements Accountable {

    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;
    private final String termsField;
    private final String shinglesField;
    private final String setSizeField;
    /** The query's shingle set payload ({@code ShingleSetCodec}) and its size. */
    private final byte[] likeSet;

    private final int likeSize;
    /** The query's sampled values as terms, ascending: the order a terms enum seeks fastest. */
    private final BytesRef[] sampledTerms;

    private final int schemeHash;
    private final String scheme;
    private final Containment containment;
    private final SegmentFingerprintCache cache;
    /** What this query holds, for a query cache that keeps it (as Lucene's {@code TermInSetQuery} reports its terms). */
    private final long ramBytesUsed;

    private static final long BASE_RAM_BYTES = RamUsageEstimator.shallowSizeOfInstance(ContainmentQuery.class);
    private static final long TERM_RAM_BYTES = RamUsageEstimator.shallowSizeOfInstance(BytesRef.class);
    /** The most document sizes a search remembers thresholds for ({@link ContainmentWeight#documentThreshold}). */
    private static final int MAX_REMEMBERED_SIZES = 1 << 16;
    /**
     * How many times cheaper than this query a leading clause must be for the two-phase scorer: the penalty
     * {@code IndexOrDocValuesQuery} gives its per-document check, which ours resembles (an advance of each sampled
     * value's postings, a heap or a linear scan over them, where the one pass decodes the postings in blocks). Not
     * tuned: {@code ContainmentLeadBenchmark} compares the two ways at several lead fractions.
     */
    private static final int LEAD_COST_RATIO = 8;

    /**
     * @param likeSet the query's shingle set payload
     * @param cache the node's breaker and query stats; not part of the query's identity
     */
    public ContainmentQuery(
            MinhashFieldMapper.MinhashFieldType fieldType,
            byte[] likeSet,
            int schemeHash,
            String scheme,
            Containment containment,
            SegmentFingerprintCache cache) {
        this.fieldType = Objects.requireNonNull(fieldType, "fieldType");
        if (fieldType.containmentSampling() == 0) {
            throw new IllegalArgumentException("field [" + fieldType.name() + "] is not mapped with [containment]");
        }
        this.field = fieldType.name();
        this.termsField = FingerprintFields.containmentField(field);
        this.shinglesField = FingerprintFields.shinglesField(field);
        this.setSizeField = FingerprintFields.containmentSizeField(field);
        this.likeSet = likeSet.clone();
        int[] values = ShingleSetCodec.values(likeSet, 0, likeSet.length);
        this.likeSize = values.length;
        int[] sampled = ContainmentSampling.sample(values, fieldType.containmentSampling());
        this.sampledTerms = new BytesRef[sampled.length];
        for (int i = 0; i < sampled.length; i++) {
            sampledTerms[i] = MinhashFieldMapper.MinhashFieldType.containmentTerm(sampled[i]);
        }
        Arrays.sort(sampledTerms);
        this.schemeHash = schemeHash;
        this.scheme = scheme;
        this.containment = Objects.requireNonNull(containment, "containment");
        this.cache = cache;
        long terms = RamUsageEstimator.shallowSizeOf(sampledTerms);
        for (BytesRef term : sampledTerms) {
            terms += TERM_RAM_BYTES + RamUsageEstimator.sizeOf(term.bytes);
        }
        this.ramBytesUsed = BASE_RAM_BYTES + RamUsageEstimator.sizeOf(this.likeSet) + terms;
    }

    /** How many sampled values a document must share with the query to be verified, for the contained side's size. */
    private int minShared(int containedSize) {
        return ContainmentSampling.minSharedSamples(
                ContainmentSampling.sharedShinglesFor(containment.min(), containedSize),
                fieldType.containmentSampling());
    }

    /**
     * The containment of the contained side in the other (the query's in the document's set, or the reverse) if it
     * may reach {@link Containment#min}, else -1, found without reading the rest of the sets once it cannot.
     */
    private double containmentOf(BytesRef documentSet) {
        return containment.contained() == Containment.Contained.LIKE
                ? ShingleSetCodec.containmentIfAtLeast(
                        likeSet,
                        0,
                        likeSet.length,
                        documentSet.bytes,
                        documentSet.offset,
                        documentSet.length,
                        containment.min())
                : ShingleSetCodec.containmentIfAtLeast(
                        documentSet.bytes,
                        documentSet.offset,
                        documentSet.length,
                        likeSet,
                        0,
                        likeSet.length,
                        containment.min());
    }

    @Override
    public long ramBytesUsed() {
        return ramBytesUsed;
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
        return new ContainmentWeight(boost);
    }

    /** The query's sampled values present in one segment, each with its terms-enum state. */
    private record SegmentTerms(TermsEnum termsEnum, List<BytesRef> terms, List<TermState> states, long cost) {}

    private final class ContainmentWeight extends SupplierWeight {
        private final float boost;
        private final AtomicBoolean counted = new AtomicBoolean();
        /**
         * {@link #minShared} by document size, filled as sizes are met (0: not yet), where the documents are the
         * contained side: a binomial quantile a candidate otherwise (16% of the node's time in a profile of
         * {@code contained: document} at 1M documents). Sizes of documents that can lie inside the query, at most
         * {@link #MAX_REMEMBERED_SIZES}. Held by the search's weight, not the query, which a query cache may keep.
         */
        private final int[] documentThresholds;

        ContainmentWeight(float boost) {
            super(ContainmentQuery.this);
            this.boost = boost;
            this.documentThresholds = new int
                    [containment.contained() == Containment.Contained.DOCUMENT
                            ? (int) Math.min(MAX_REMEMBERED_SIZES, likeSize / containment.min() + 1)
                            : 0];
        }

        private int documentThreshold(int documentSize) {
            if (documentSize >= documentThresholds.length) {
                return minShared(documentSize);
            }
            // Threads of a concurrent segment search racing here store the same value.
            int known = documentThresholds[documentSize];
            if (known == 0) {
                known = documentThresholds[documentSize] = minShared(documentSize);
            }
            return known;
        }

        /** Null where the segment has none of the query's sampled values, hides the field, or has another scheme. */
        private SegmentTerms segmentTerms(LeafReader reader) throws IOException {
            if (FieldExposure.exposes(reader, field) == false) {
                return null;
            }
            String segmentScheme = SegmentScheme.of(reader, field, FingerprintFields.schemeField(field));
            SegmentScheme.requireSameHash(field, schemeHash, segmentScheme);
            SegmentScheme.requireSame(field, scheme, segmentScheme);
            Terms terms = reader.terms(termsField);
            if (terms == null) {
                return null;
            }
            TermsEnum termsEnum = terms.iterator();
            List<BytesRef> found = new ArrayList<>();
            List<TermState> states = new ArrayList<>();
            long cost = 0;
            for (BytesRef term : sampledTerms) {
                if (termsEnum.seekExact(term)) {
                    found.add(term);
                    states.add(termsEnum.termState());
                    cost += termsEnum.docFreq();
                }
            }
            return found.isEmpty() ? null : new SegmentTerms(termsEnum, found, states, cost);
        }

        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
            if (cache != null && counted.compareAndSet(false, true)) {
                cache.queryStats().minhashQuery();
            }
            SegmentTerms segmentTerms = segmentTerms(context.reader());
            if (segmentTerms == null) {
                return null;
            }
            return new ScorerSupplier() {
                @Override
                public Scorer get(long leadCost) throws IOException {
                    // A disjunction holds a postings enum a sampled value; past the clause limit, as many as a
                    // BooleanQuery may hold, the one pass, which reuses one enum, is kept whatever leads.
                    if (leadCost < cost() / LEAD_COST_RATIO
                            && segmentTerms.terms().size() <= IndexSearcher.getMaxClauseCount()) {
                        return new TwoPhaseContainmentScorer(context.reader(), segmentTerms, leadCost);
                    }
                    return hits(context.reader(), segmentTerms);
                }

                @Override
                public long cost() {
                    return Math.min(segmentTerms.cost(), context.reader().maxDoc());
                }
            };
        }

        /**
         * The segment's hits, all verified before the first is returned: one pass over the postings counts the
         * sampled values each document shares with the query, then one exact comparison a candidate. The counts are
         * kept in an array of the segment's size or, where the postings are fewer than an eighth of the segment's
         * documents, as the sorted list of the postings' documents (4 bytes a posting), whichever is smaller.
         */
        private Scorer hits(LeafReader reader, SegmentTerms segmentTerms) throws IOException {
            int maxDoc = reader.maxDoc();
            boolean sparse = segmentTerms.cost() < maxDoc / 8;
            MemoryBudget budget = BreakerBudget.of(
                    cache == null ? null : cache.breaker(), "near_duplicate containment candidates of [" + field + "]");
            long countBytes = (long) Integer.BYTES * (sparse ? segmentTerms.cost() : maxDoc);
            budget.reserve(countBytes);
            try {
                int floor = sharedFloor();
                SharedCounts shared = sparse ? sortedPostings(segmentTerms) : countsByDoc(segmentTerms, maxDoc);
                int candidates = shared.candidates(floor);
                long resultBytes = (long) (Integer.BYTES + Float.BYTES) * candidates;
                budget.reserve(resultBytes);
                try {
                    int[] docs = new int[candidates];
                    float[] scores = new float[candidates];
                    return new ArrayScorer(
                            ContainmentWeight.this, docs, scores, verify(reader, shared, floor, docs, scores));
                } finally {
                    budget.release(resultBytes);
                }
            } finally {
                budget.release(countBytes);
            }
        }

        /**
         * The fewest shared sampled values a candidate has: a document of the contained side needs at least one (its
         * own threshold is checked with its size), the query's side fixes it once.
         */
        private int sharedFloor() {
            return containment.contained() == Containment.Contained.LIKE ? minShared(likeSize) : 1;
        }

        /** Calls {@code visitor} with each posting's document, term by term. */
        private void forEachPosting(SegmentTerms segmentTerms, java.util.function.IntConsumer visitor)
                throws IOException {
            PostingsEnum postings = null;
            TermsEnum termsEnum = segmentTerms.termsEnum();
            for (int t = 0; t < segmentTerms.terms().size(); t++) {
                termsEnum.seekExact(
                        segmentTerms.terms().get(t), segmentTerms.states().get(t));
                postings = termsEnum.postings(postings, PostingsEnum.NONE);
                for (int doc = postings.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = postings.nextDoc()) {
                    visitor.accept(doc);
                }
            }
        }

        private SharedCounts countsByDoc(SegmentTerms segmentTerms, int maxDoc) throws IOException {
            int[] counts = new int[maxDoc];
            forEachPosting(segmentTerms, doc -> counts[doc]++);
            return new SharedCounts(counts, false, maxDoc);
        }

        private SharedCounts sortedPostings(SegmentTerms segmentTerms) throws IOException {
            int[] docs = new int[(int) segmentTerms.cost()];
            int[] size = {0};
            forEachPosting(segmentTerms, doc -> docs[size[0]++] = doc);
            Arrays.sort(docs, 0, size[0]);
            return new SharedCounts(docs, true, size[0]);
        }

        /** Verifies the candidates in doc id order; returns how many matched, their ids and scores in the arrays. */
        private int verify(LeafReader reader, SharedCounts shared, int floor, int[] docs, float[] scores)
                throws IOException {
            BinaryDocValues sets = DocValues.getBinary(reader, shinglesField);
            NumericDocValues setSizes = DocValues.getNumeric(reader, setSizeField);
            // Deleted documents are left to the collector: the answer may be cached by the segment's core and served
            // to readers that delete less (an older point in time), as Lucene's own queries are.
            int n = 0;
            for (shared.reset(); shared.next(floor); ) {
                int doc = shared.doc();
                double value = verifiedContainment(doc, shared.count(), sets, setSizes);
                if (value >= 0) {
                    docs[n] = doc;
                    scores[n++] = (float) (boost * value);
                }
            }
            return n;
        }

        /**
         * The containment of {@code doc}, which shares {@code sharedSamples} sampled values with the query, where it
         * reaches {@link Containment#min}, else -1. Its set's size is read first, from the doc value where the
         * document has one: documents indexed before the sets' sizes were have none (a segment may hold both kinds
         * after a merge), their sets are read for it. {@code sets} and {@code setSizes} only move forward: call in
         * doc id order.
         */
        private double verifiedContainment(int doc, int sharedSamples, BinaryDocValues sets, NumericDocValues setSizes)
                throws IOException {
            boolean sized = setSizes.advanceExact(doc);
            int documentSize = sized ? (int) setSizes.longValue() : -1;
            if (sized && mayReach(sharedSamples, documentSize) == false) {
                return -1;
            }
            if (sets.advanceExact(doc) == false) {
                return -1;
            }
            BytesRef set = sets.binaryValue();
            if (sized == false) {
                documentSize = ShingleSetCodec.count(set.bytes, set.offset, set.length);
                if (mayReach(sharedSamples, documentSize) == false) {
                    return -1;
                }
            }
            double value = containmentOf(set);
            if (cache != null) {
                cache.queryStats().verified(true);
            }
            return value >= containment.min() ? value : -1;
        }

        /**
         * The segment's hits among the documents a cheaper clause leads to: the approximation is the disjunction of
         * the sampled values' postings (the lead's documents with none are skipped without a look), and
         * {@code matches()} counts the postings standing on the document, the values it shares, then verifies it as
         * the one pass does. What it holds grows with the query's sampled values, not with the segment: nothing is
         * charged to the breaker. Deleted documents are left to the collector, as in the one pass.
         */
        private final class TwoPhaseContainmentScorer extends WeightScorer {
            private final PostingsDisjunction sampledPostings;
            private final TwoPhaseIterator twoPhase;
            private float score;

            TwoPhaseContainmentScorer(LeafReader reader, SegmentTerms segmentTerms, long leadCost) throws IOException {
                super(ContainmentWeight.this);
                // Lucene's own disjunction (internal API: its shape differs in Lucene 9 and 10.1, hence compat): a heap
                // of the postings the lead passes often, a linear check of the others, and the list of those on a
                // document.
                List<PostingsEnum> postings =
                        new ArrayList<>(segmentTerms.terms().size());
                TermsEnum termsEnum = segmentTerms.termsEnum();
                for (int t = 0; t < segmentTerms.terms().size(); t++) {
                    termsEnum.seekExact(
                            segmentTerms.terms().get(t), segmentTerms.states().get(t));
                    postings.add(termsEnum.postings(null, PostingsEnum.NONE));
                }
                this.sampledPostings = new PostingsDisjunction(ContainmentWeight.this, postings, leadCost);
                BinaryDocValues sets = DocValues.getBinary(reader, shinglesField);
                NumericDocValues setSizes = DocValues.getNumeric(reader, setSizeField);
                int floor = sharedFloor();
                this.twoPhase = new TwoPhaseIterator(sampledPostings.iterator()) {
                    @Override
                    public boolean matches() throws IOException {
                        int shared = 0;
                        for (DisiWrapper standing = sampledPostings.onCurrentDocument();
                                standing != null;
                                standing = standing.next) {
                            shared++;
                        }
                        if (shared < floor) {
                            return false;
                        }
                        double value =
                                verifiedContainment(sampledPostings.iterator().docID(), shared, sets, setSizes);
                        if (value < 0) {
                            return false;
                        }
                        score = (float) (boost * value);
                        return true;
                    }

                    /** A verification walks the query's set against the document's, stopping once it cannot reach. */
                    @Override
                    public float matchCost() {
                        return likeSize;
                    }
                };
            }

            @Override
            public int docID() {
                return sampledPostings.iterator().docID();
            }

            @Override
            public TwoPhaseIterator twoPhaseIterator() {
                return twoPhase;
            }

            @Override
            public DocIdSetIterator iterator() {
                return TwoPhaseIterator.asDocIdSetIterator(twoPhase);
            }

            /** A containment is at most 1. */
            @Override
            public float getMaxScore(int upTo) {
                return boost;
            }

            @Override
            public float score() {
                return score;
            }
        }

        /**
         * Whether a document of {@code documentSize} shingles sharing {@code sharedSamples} sampled values with the
         * query can reach the containment asked for, before its set is read: the sizes must allow ⌈c · contained
         * size⌉ shingles in common, and (where the document is the contained side) the shared samples must reach the
         * threshold for its size. The query's side's threshold is the first pass's floor.
         */
        private boolean mayReach(int sharedSamples, int documentSize) {
            if (containment.contained() == Containment.Contained.LIKE) {
                return documentSize >= ContainmentSampling.sharedShinglesFor(containment.min(), likeSize);
            }
            return ContainmentSampling.sharedShinglesFor(containment.min(), documentSize) <= likeSize
                    && sharedSamples >= documentThreshold(documentSize);
        }

        @Override
        public Explanation explain(LeafReaderContext context, int doc) throws IOException {
            LeafReader reader = context.reader();
            BinaryDocValues sets =
                    FieldExposure.exposes(reader, field) ? DocValues.getBinary(reader, shinglesField) : null;
            if (sets == null || sets.advanceExact(doc) == false) {
                return Explanation.noMatch("no shingle set in [" + field + "]: the document has no containment sample");
            }
            BytesRef set = sets.binaryValue();
            int documentSize = ShingleSetCodec.count(set.bytes, set.offset, set.length);
            int common =
                    ShingleSetCodec.intersectionSize(likeSet, 0, likeSet.length, set.bytes, set.offset, set.length);
            boolean likeContained = containment.contained() == Containment.Contained.LIKE;
            int containedSize = likeContained ? likeSize : documentSize;
            double value = ShingleSetCodec.containment(common, containedSize);
            String how = String.format(
                    Locale.ROOT,
                    "%d of the %d shingles of %s are in %s (exact containment, shingle sets of [%s])",
                    common,
                    containedSize,
                    likeContained ? "the query's text" : "the document",
                    likeContained ? "the document" : "the query's text",
                    field);
            int sharedSamples = sharedSamples(reader, doc);
            int needed = minShared(containedSize);
            if (sharedSamples < needed) {
                return Explanation.noMatch(
                        String.format(
                                Locale.ROOT,
                                "shares %d of the query's %d sampled shingles in [%s], fewer than the %d a candidate needs: "
                                        + "not verified",
                                sharedSamples,
                                sampledTerms.length,
                                termsField,
                                needed),
                        Explanation.noMatch(how + ": " + value));
            }
            if (value < containment.min()) {
                return Explanation.noMatch(
                        how + ": " + value + " < " + Containment.MIN_CONTAINMENT + " " + containment.min());
            }
            return Explanation.match(
                    (float) (boost * value),
                    "near_duplicate containment, product of:",
                    Explanation.match((float) value, how),
                    Explanation.match(boost, "boost"));
        }

        /** How many of the query's sampled values {@code doc} has (explanations only: one seek a value). */
        private int sharedSamples(LeafReader reader, int doc) throws IOException {
            Terms terms = reader.terms(termsField);
            if (terms == null) {
                return 0;
            }
            TermsEnum termsEnum = terms.iterator();
            PostingsEnum postings = null;
            int shared = 0;
            for (BytesRef term : sampledTerms) {
                if (termsEnum.seekExact(term)) {
                    postings = termsEnum.postings(postings, PostingsEnum.NONE);
                    if (postings.advance(doc) == doc) {
                        shared++;
                    }
                }
            }
            return shared;
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
            return DocValues.isCacheable(context, shinglesField, setSizeField);
        }
    }

    /**
     * The number of the query's sampled values each document shares, in doc id order: an array indexed by doc id
     * ({@code sortedDocs} false), or the sorted documents of all postings, one entry a shared value.
     */
    private static final class SharedCounts {
        private final int[] values;
        private final boolean sortedDocs;
        private final int length;
        private int at;
        private int doc;
        private int count;

        SharedCounts(int[] values, boolean sortedDocs, int length) {
            this.values = values;
            this.sortedDocs = sortedDocs;
            this.length = length;
        }

        void reset() {
            at = 0;
        }

        /** Moves to the next document sharing at least {@code floor} values; false at the end. */
        boolean next(int floor) {
            while (at < length) {
                if (sortedDocs) {
                    doc = values[at];
                    int end = at;
                    while (end < length && values[end] == doc) {
                        end++;
                    }
                    count = end - at;
                    at = end;
                } else {
                    doc = at;
                    count = values[at++];
                }
                if (count >= floor) {
                    return true;
                }
            }
            return false;
        }

        int doc() {
            return doc;
        }

        int count() {
            return count;
        }

        /** How many documents share at least {@code floor} values. */
        int candidates(int floor) {
            int candidates = 0;
            for (reset(); next(floor); ) {
                candidates++;
            }
            return candidates;
        }
    }

    @Override
    public void visit(QueryVisitor visitor) {
        if (visitor.acceptField(field)) {
            visitor.visitLeaf(this);
        }
    }

    @Override
    public String toString(String defaultField) {
        return String.format(
                Locale.ROOT,
                "near_duplicate(%s, min_containment=%s, contained=%s, sampled=%d of %d, sampling=%d)",
                field,
                containment.min(),
                containment.contained().paramName(),
                sampledTerms.length,
                likeSize,
                fieldType.containmentSampling());
    }

    @Override
    public boolean equals(Object other) {
        if (sameClassAs(other) == false) {
            return false;
        }
        ContainmentQuery that = (ContainmentQuery) other;
        return field.equals(that.field)
                && Arrays.equals(likeSet, that.likeSet)
                && schemeHash == that.schemeHash
                && Objects.equals(scheme, that.scheme)
                && containment.equals(that.containment)
                && fieldType.containmentSampling() == that.fieldType.containmentSampling();
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                classHash(),
                field,
                Arrays.hashCode(likeSet),
                schemeHash,
                scheme,
                containment,
                fieldType.containmentSampling());
    }
}
