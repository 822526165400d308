/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * The work {@code near_duplicate} queries did on this node. A query counts once, when it first
 * searches a segment; {@code _explain} re-runs count nothing.
 */
public final class QueryStats {
    private final LongAdder simhashQueries = new LongAdder();
    private final LongAdder segmentSearches = new LongAdder();
    private final LongAdder lookups = new LongAdder();
    private final LongAdder candidates = new LongAdder();
    private final LongAdder matches = new LongAdder();
    private final LongAdder minhashQueries = new LongAdder();
    private final LongAdder exactVerifications = new LongAdder();
    private final LongAdder estimatedVerifications = new LongAdder();
    private final LongAdder minhashSegmentsSkipped = new LongAdder();

    void simhashQuery() {
        simhashQueries.increment();
    }

    void segmentSearch(long lookupCount, long candidateCount, long matchCount) {
        segmentSearches.increment();
        lookups.add(lookupCount);
        candidates.add(candidateCount);
        matches.add(matchCount);
    }

    void minhashQuery() {
        minhashQueries.increment();
    }

    void verified(boolean exact) {
        (exact ? exactVerifications : estimatedVerifications).increment();
    }

    /** A minhash query passed over a segment whose band key filter holds too few of its band keys. */
    void minhashSegmentSkipped() {
        minhashSegmentsSkipped.increment();
    }

    public Snapshot snapshot() {
        return new Snapshot(
                simhashQueries.sum(),
                segmentSearches.sum(),
                lookups.sum(),
                candidates.sum(),
                matches.sum(),
                minhashQueries.sum(),
                exactVerifications.sum(),
                estimatedVerifications.sum(),
                minhashSegmentsSkipped.sum());
    }

    /** The counters at one moment, as a node reports them. */
    public record Snapshot(
            long simhashQueries,
            long segmentSearches,
            long lookups,
            long candidates,
            long matches,
            long minhashQueries,
            long exactVerifications,
            long estimatedVerifications,
            long minhashSegmentsSkipped)
            implements Writeable, ToXContentFragment {

        public Snapshot(StreamInput in) throws IOException {
            this(
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong(),
                    in.readVLong());
        }

        /** Both kinds of query. */
        public long queries() {
            return simhashQueries + minhashQueries;
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            out.writeVLong(simhashQueries);
            out.writeVLong(segmentSearches);
            out.writeVLong(lookups);
            out.writeVLong(candidates);
            out.writeVLong(matches);
            out.writeVLong(minhashQueries);
            out.writeVLong(exactVerifications);
            out.writeVLong(estimatedVerifications);
            out.writeVLong(minhashSegmentsSkipped);
        }

        @Override
        public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
            builder.startObject("queries");
            builder.field("queries", queries());
            builder.field("simhash_queries", simhashQueries);
            builder.field("segment_searches", segmentSearches);
            builder.field("lookups", lookups);
            builder.field("candidates_checked", candidates);
            builder.field("matches", matches);
            builder.field("minhash_queries", minhashQueries);
            builder.field("verified_exact", exactVerifications);
            builder.field("verified_estimate", estimatedVerifications);
            builder.field("minhash_segments_skipped", minhashSegmentsSkipped);
            return builder.endObject();
        }
    }
}
