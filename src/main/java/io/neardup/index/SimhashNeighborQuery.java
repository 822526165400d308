/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.SupplierWeight;
import io.neardup.core.FlipModel;
import io.neardup.core.Margins;
import io.neardup.core.Matches;
import io.neardup.core.MemoryBudget;
import io.neardup.core.PsmSearch;
import io.neardup.core.SimhashCodec;
import io.neardup.core.SortedFingerprintTable;
import io.neardup.core.SortedFingerprints;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.opensearch.index.mapper.IdFieldMapper;

/**
 * Documents whose simhash is within {@code maxDistance} bits of a fingerprint. Per segment, the
 * fingerprints are searched in unsigned order (see {@link SegmentFingerprintCache}) by PSM or
 * exactly; a match scores {@code 1 - distance / 64}, so closer documents rank first.
 */
public final class SimhashNeighborQuery extends Query {

    /** Calibrated flip probabilities: 0.95 / 0.99 recall at k = 21 / 65 against 25 / 82 for eq. 4.5 (docs/psm.md). */
    public static final FlipModel FLIP_MODEL = FlipModel.gaussian(0.5);

    private static final ThreadLocal<PsmSearch> SEARCHES = ThreadLocal.withInitial(PsmSearch::new);

    private final String field;
    private final long fingerprint;
    private final Margins margins;
    private final String scheme;
    private final int maxDistance;
    private final boolean exact;
    private final int maxFlips;
    private final int prefixBits;
    private final boolean firstMatch;
    private final BytesRef excludedId;
    private final SegmentFingerprintCache cache;

    /**
     * @param margins    the query's margins; required unless {@code exact}
     * @param scheme     the query fingerprint's scheme, checked against every segment's; null skips the check
     * @param prefixBits p, or 0 for about log2 of each segment's size
     * @param excludedId the encoded {@code _id} of the query's own document, never matched (so that it cannot end a
     *                   {@code firstMatch} search either), or null
     */
    public SimhashNeighborQuery(
            String field,
            long fingerprint,
            Margins margins,
            String scheme,
            int maxDistance,
            boolean exact,
            int maxFlips,
            int prefixBits,
            boolean firstMatch,
            BytesRef excludedId,
            SegmentFingerprintCache cache) {
        this.field = Objects.requireNonNull(field, "field");
        if (exact == false && margins == null) {
            throw new IllegalArgumentException("PSM needs the query fingerprint's margins");
        }
        this.params(maxDistance, maxFlips, Math.max(prefixBits, 1), exact, firstMatch);
        this.fingerprint = fingerprint;
        this.margins = margins;
        this.scheme = scheme;
        this.maxDistance = maxDistance;
        this.exact = exact;
        this.maxFlips = maxFlips;
        this.prefixBits = prefixBits;
        this.firstMatch = firstMatch;
        this.excludedId = excludedId;
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    /** Validates eagerly, with the core's messages, so that a bad query fails before any segment is read. */
    private PsmSearch.Params params(int h, int k, int p, boolean exactMode, boolean first) {
        PsmSearch.Mode mode = exactMode ? PsmSearch.Mode.EXACT : first ? PsmSearch.Mode.PSM_F : PsmSearch.Mode.PSM_A;
        return new PsmSearch.Params(mode, h, k, p);
    }

    @Override
    public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
        return new NeighborWeight(boost);
    }

    private final class NeighborWeight extends SupplierWeight {
        private final float boost;
        private final AtomicBoolean counted = new AtomicBoolean();

        NeighborWeight(float boost) {
            super(SimhashNeighborQuery.this);
            this.boost = boost;
        }

        @Override
        public ScorerSupplier scorerSupplier(LeafReaderContext context) throws IOException {
            if (counted.compareAndSet(false, true)) {
                cache.queryStats().simhashQuery();
            }
            return search(context, true);
        }

        /** One segment's matches; {@code record}: counted in the node's stats (a search, not an explanation). */
        private ScorerSupplier search(LeafReaderContext context, boolean record) throws IOException {
            LeafReader reader = context.reader();
            SortedFingerprints fingerprints = cache.fingerprints(reader, field);
            if (fingerprints == null) {
                return null;
            }
            SegmentScheme.requireSame(
                    field, scheme, SegmentScheme.of(reader, field, FingerprintFields.schemeField(field)));
            int p = prefixBits > 0 ? prefixBits : SortedFingerprintTable.defaultIndexBits(fingerprints.size());
            int excludedDoc = excludedDoc(reader);
            // The matches grow with the data (a segment of copies matches whole), so they are charged
            // to the breaker before each allocation, up to the peak of matchBytes, and given back
            // once the segment's doc ids and scores are ready.
            MemoryBudget budget = BreakerBudget.of(cache.breaker(), "near_duplicate matches of [" + field + "]");
            Matches found = new Matches(budget);
            int[] docs;
            float[] scores;
            int n;
            try {
                SEARCHES.get()
                        .search(
                                fingerprints,
                                fingerprint,
                                margins,
                                FLIP_MODEL,
                                params(maxDistance, maxFlips, p, exact, firstMatch),
                                excludedDoc,
                                found);
                if (record) {
                    cache.queryStats().segmentSearch(found.lookups(), found.candidates(), found.size());
                }
                long resultBytes = resultBytes(found.size());
                budget.reserve(resultBytes);
                try {
                    docs = new int[found.size()];
                    scores = new float[found.size()];
                    n = collectLive(found, reader.getLiveDocs(), excludedDoc, docs, scores);
                } finally {
                    budget.release(resultBytes);
                }
            } finally {
                found.release();
            }
            if (n == 0) {
                return null;
            }
            return new ScorerSupplier() {
                @Override
                public Scorer get(long leadCost) {
                    return new ArrayScorer(NeighborWeight.this, docs, scores, n);
                }

                @Override
                public long cost() {
                    return n;
                }
            };
        }

        private int excludedDoc(LeafReader reader) throws IOException {
            if (excludedId == null) {
                return PsmSearch.NO_DOC;
            }
            Terms ids = reader.terms(IdFieldMapper.NAME);
            TermsEnum terms = ids == null ? null : ids.iterator();
            if (terms == null || terms.seekExact(excludedId) == false) {
                return PsmSearch.NO_DOC;
            }
            PostingsEnum docs = terms.postings(null, PostingsEnum.NONE);
            Bits live = reader.getLiveDocs();
            for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
                if (live == null || live.get(doc)) {
                    return doc;
                }
            }
            return PsmSearch.NO_DOC;
        }

        /** Matches of live documents, sorted by doc id, scored; a document found twice (equal flipped prefixes) counts once. */
        private int collectLive(Matches found, Bits liveDocs, int excludedDoc, int[] docs, float[] scores) {
            long[] packed = new long[found.size()];
            for (int i = 0; i < packed.length; i++) {
                packed[i] = ((long) found.doc(i) << 32) | found.distance(i);
            }
            Arrays.sort(packed);
            int n = 0;
            for (long entry : packed) {
                int doc = (int) (entry >>> 32);
                if ((n > 0 && docs[n - 1] == doc)
                        || (liveDocs != null && liveDocs.get(doc) == false)
                        || doc == excludedDoc) {
                    continue;
                }
                docs[n] = doc;
                scores[n++] = boost * similarity((int) entry);
            }
            return n;
        }

        @Override
        public Explanation explain(LeafReaderContext context, int doc) throws IOException {
            if (FieldExposure.exposes(context.reader(), field) == false) {
                return Explanation.noMatch("no value in [" + field + "]");
            }
            var values = DocValues.unwrapSingleton(DocValues.getSortedNumeric(context.reader(), field));
            if (values.advanceExact(doc) == false) {
                return Explanation.noMatch("no value in [" + field + "]");
            }
            int distance = Long.bitCount(SimhashFieldMapper.decode(values.longValue()) ^ fingerprint);
            ScorerSupplier supplier = search(context, false);
            boolean found =
                    supplier != null && supplier.get(Long.MAX_VALUE).iterator().advance(doc) == doc;
            if (found == false) {
                return Explanation.noMatch(
                        "hamming distance " + distance + " of [" + field + "] to " + SimhashCodec.toHex(fingerprint)
                                + (distance <= maxDistance
                                        ? " is within " + maxDistance + " but no looked-up prefix holds it"
                                        : " > " + maxDistance));
            }
            return Explanation.match(
                    boost * similarity(distance),
                    "near_duplicate, computed as boost * (1 - distance / 64) from:",
                    Explanation.match(
                            distance, "hamming distance of [" + field + "] to " + SimhashCodec.toHex(fingerprint)),
                    Explanation.match(boost, "boost"));
        }

        @Override
        public boolean isCacheable(LeafReaderContext context) {
            return DocValues.isCacheable(context, field);
        }
    }

    /** What turning {@code matches} matches into the scorer's arrays takes: doc id and distance packed to sort, doc ids, scores. */
    static long resultBytes(int matches) {
        return 3 * 16 + (8L + 4 + 4) * matches;
    }

    /**
     * The most heap one segment's search holds beyond the cached structures, at {@code matches}
     * matches: the collector grown by half past them, and the arrays that sort and score them.
     */
    static long matchBytes(int matches) {
        return Matches.bytesAtCapacity(Math.max(16, matches + (matches >> 1))) + resultBytes(matches);
    }

    public static float similarity(int distance) {
        return 1f - distance / 64f;
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
                "near_duplicate(%s:%s, max_distance=%d, mode=%s, max_flips=%d, prefix_bits=%s, first_match=%s)",
                field,
                SimhashCodec.toHex(fingerprint),
                maxDistance,
                exact ? "exact" : "psm",
                maxFlips,
                prefixBits == 0 ? "auto" : prefixBits,
                firstMatch);
    }

    @Override
    public boolean equals(Object other) {
        if (sameClassAs(other) == false) {
            return false;
        }
        SimhashNeighborQuery that = (SimhashNeighborQuery) other;
        return field.equals(that.field)
                && fingerprint == that.fingerprint
                && Objects.equals(margins, that.margins)
                && Objects.equals(scheme, that.scheme)
                && maxDistance == that.maxDistance
                && exact == that.exact
                && maxFlips == that.maxFlips
                && prefixBits == that.prefixBits
                && firstMatch == that.firstMatch
                && Objects.equals(excludedId, that.excludedId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                classHash(),
                field,
                fingerprint,
                margins,
                scheme,
                maxDistance,
                exact,
                maxFlips,
                prefixBits,
                firstMatch,
                excludedId);
    }
}
