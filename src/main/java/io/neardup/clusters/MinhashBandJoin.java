/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.BandJoin;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.MemoryBudget;
import io.neardup.index.BreakerBudget;
import io.neardup.index.MinhashDocValues;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.SegmentScheme;
import io.neardup.match.DocMatches;
import io.neardup.match.MatchList;
import io.neardup.match.MatchSpec;
import io.neardup.match.ShardBandBuckets;
import io.neardup.match.ShardDocs;
import io.neardup.match.ShardJaccard;
import io.neardup.match.ShardMatchRequest;
import io.neardup.match.ShardMatchResponse;
import io.neardup.match.TransportShardMatchAction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.breaker.CircuitBreaker;

/**
 * A step of a whole shard's band join on a {@code minhash} field: its band self-join ({@link BandJoin}
 * over the band terms, {@link ShardBandBuckets}, verified as the query verifies, {@link ShardJaccard};
 * for single linkage a pair whose documents are already connected is not verified), or its look-ups
 * in one other shard ({@link Probes}). Reads only what the caller's reader shows (DLS live docs, the
 * field's exposure); its memory is charged to the breaker before it is taken.
 */
final class MinhashBandJoin {

    /** Documents a band look-up request carries to another shard: bounds its size (~1.5 KB a document). */
    static final int PROBE_BATCH = 1_000;
    /** Look-up requests to one other shard awaiting their answer while the next batch is read. */
    static final int PROBES_IN_FLIGHT = 2;

    private MinhashBandJoin() {}

    /** The pairs within the shard, and the count of its documents (the step that counts them). */
    static ShardJoinResponse joinWithin(ShardJoinStep step, ShardJoinRequest.BandsWithin within) throws IOException {
        ShardJoinRequest request = step.request();
        return selfJoin(
                step.breaker(),
                request.spec().bandMatching(step.context(), step.shardId()),
                step.searcher(),
                within.allPairs(),
                request::ensureNotCancelled,
                null);
    }

    /**
     * The band self-join of what {@code searcher} reads: one shard, or shards joined together (a reader of their
     * readers, {@link TransportShardGroupJoinAction}), every pair of its documents once, and the count of its documents.
     *
     * @param shardStarts where the searcher reads shards together, the first doc id of each in it (the answer says
     *     which each query and match is in); null for one shard
     */
    static ShardJoinResponse selfJoin(
            CircuitBreaker breaker,
            MatchSpec.BandMatching matching,
            IndexSearcher searcher,
            boolean allPairs,
            Runnable checkpoint,
            int[] shardStarts)
            throws IOException {
        IndexReader reader = searcher.getIndexReader();
        MemoryBudget budget = BreakerBudget.of(
                breaker,
                "near_dup_clusters band join of [" + matching.fieldType().name() + "]");
        MemoryBudget matchedBudget = DocMatches.budget(breaker);
        long[] counts = countFingerprints(reader, matching.fieldType());
        budget.reserve(8L * reader.maxDoc()); // the query numbering
        try (MatchList matches = new MatchList(breaker);
                DocMatches pairs = new DocMatches(matchedBudget);
                ShardDocs docs = new ShardDocs(searcher, null, matchedBudget)) {
            ShardJoinStep.Queries queries = new ShardJoinStep.Queries(reader.maxDoc());
            BandJoin.join(
                    new ShardBandBuckets(reader, matching.fieldType(), budget, checkpoint),
                    reader.maxDoc(),
                    matching.minBandMatches(),
                    matching.minSimilarity(),
                    ShardBandBuckets.MAX_BUCKET,
                    ShardBandBuckets.MAX_LEADERS,
                    allPairs == false,
                    new ShardJaccard(reader, matching.fieldType(), matching.exact()),
                    (a, b, similarity) -> {
                        try {
                            pairs.add(a, b, docs.seqNo(b), (float) similarity);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    },
                    budget);
            pairs.addTo(matches, docs, queries::of);
            int[] matchedIn = new int[pairs.size()];
            int[] queryIn = shardStarts == null ? null : new int[queries.count()];
            if (shardStarts != null) {
                for (int i = 0; i < matchedIn.length; i++) {
                    matchedIn[i] = ReaderUtil.subIndex(pairs.matchedDoc(i), shardStarts);
                }
                for (int q = 0; q < queryIn.length; q++) {
                    queryIn[q] = ReaderUtil.subIndex(queries.indexOf(q), shardStarts);
                }
            }
            return response(counts[0], counts[0] - counts[1], queries, docs, matches, matchedIn, queryIn);
        } finally {
            budget.release(8L * reader.maxDoc());
        }
    }

    /**
     * @param matchedIn where each match is: 0 this shard, 1 the other shard a step across looks up, or the shard of a
     *     group join
     * @param queryIn where each query is, for a group join; null: this shard
     */
    private static ShardJoinResponse response(
            long scanned,
            long noFingerprint,
            ShardJoinStep.Queries queries,
            ShardDocs docs,
            MatchList matches,
            int[] matchedIn,
            int[] queryIn)
            throws IOException {
        int[] queryDocs = new int[queries.count()];
        long[] querySeqNos = new long[queries.count()];
        for (int q = 0; q < queries.count(); q++) {
            queryDocs[q] = queries.indexOf(q);
            querySeqNos[q] = docs.seqNo(queryDocs[q]);
        }
        return new ShardJoinResponse(
                scanned,
                noFingerprint,
                docs.ids(queryDocs, queries.count()),
                querySeqNos,
                matches.toResponse(),
                matchedIn,
                queryIn);
    }

    /**
     * The pairs across shards: every live document of this shard with a signature that can share a
     * bucket with a document of the shard {@code across} names (each pair of shards is
     * named once), judged by that shard's {@link ShardBandBuckets.KeyFilter}: at least
     * {@code min_band_matches} of its band keys pass the filter, or one is an oversized bucket there.
     * Those are looked up there by the bands that passed, in batches of {@link #PROBE_BATCH}, as the
     * caller and with its reader there. The filter is charged to the breaker when it arrives and
     * released when its look-ups are answered.
     */
    static void lookUpIn(
            ShardJoinStep step, ShardJoinRequest.BandsAcross across, ActionListener<ShardJoinResponse> listener)
            throws IOException {
        ShardJoinRequest request = step.request();
        MatchSpec.BandMatching matching = request.spec().bandMatching(step.context(), step.shardId());
        String field = request.spec().field();
        IndexReader reader = step.searcher().getIndexReader();
        ShardBandBuckets.BandTerms own = new ShardBandBuckets(reader, matching.fieldType(), MemoryBudget.NONE).open();
        if (own == null) {
            listener.onResponse(collect(step, List.of(), List.of()));
            return;
        }
        String scheme = own.scheme();
        ShardJoinRequest.OtherShard other = across.otherShard();
        step.lookUp(
                ShardMatchRequest.bandFilter(other.index(), other.shard(), request.spec()),
                ActionListener.wrap(
                        answer -> {
                            ShardBandBuckets.KeyFilter filter = answer.keyFilter();
                            long bytes = BandKeyFilter.bytesFor(filter.keys());
                            step.breaker().addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters band key filter");
                            ActionListener<ShardJoinResponse> releasing = ActionListener.runAfter(
                                    listener, () -> step.breaker().addWithoutBreaking(-bytes));
                            try {
                                SegmentScheme.requireSame(field, scheme, filter.scheme());
                                new Probes(step, matching, scheme, other, filter, releasing).start();
                            } catch (Exception e) {
                                releasing.onFailure(e);
                            }
                        },
                        listener::onFailure));
    }

    /**
     * The look-ups of one other shard: reads this shard's documents that can be a candidate there,
     * sends them in batches, at most {@link #PROBES_IN_FLIGHT} unanswered; reading stops while as
     * many are out and goes on when one is answered (on the thread of the answer, with readers of its
     * own: doc values belong to the thread that opens them), so no thread waits.
     */
    private static final class Probes {
        private final ShardJoinStep step;
        private final ShardJoinRequest request;
        private final MatchSpec.BandMatching matching;
        private final String scheme;
        private final ShardJoinRequest.OtherShard shard;
        private final ShardBandBuckets.KeyFilter filter;
        private final ActionListener<ShardJoinResponse> listener;

        private final byte[][] signatures = new byte[PROBE_BATCH][];
        private final byte[][] shingleSets = new byte[PROBE_BATCH][];
        private final int[][] bands = new int[PROBE_BATCH][];
        private final int[] docs = new int[PROBE_BATCH];
        private int size;
        /** Where reading goes on: the segment and the first doc id not read yet. */
        private int leaf;

        private int nextDoc;
        private long read;

        // Guarded by this: the batches sent and their answers.
        private int sent;
        private int inFlight;
        /** A thread reads the shard (the searcher must stay open). */
        private boolean reading;

        private boolean readingDone;
        private boolean paused;
        private Exception failure;
        private boolean finished;
        private final List<int[]> sentDocs = new ArrayList<>();
        private final List<ShardMatchResponse> answers = new ArrayList<>();

        Probes(
                ShardJoinStep step,
                MatchSpec.BandMatching matching,
                String scheme,
                ShardJoinRequest.OtherShard shard,
                ShardBandBuckets.KeyFilter filter,
                ActionListener<ShardJoinResponse> listener) {
            this.step = step;
            this.request = step.request();
            this.matching = matching;
            this.scheme = scheme;
            this.shard = shard;
            this.filter = filter;
            this.listener = listener;
        }

        /** Starts reading. */
        void start() {
            synchronized (this) {
                reading = true;
            }
            read();
        }

        /**
         * Reads on from where it stopped until a batch is sent with {@link #PROBES_IN_FLIGHT} out, or the end;
         * called with {@code reading} set, by one thread at a time.
         */
        private void read() {
            Exception failed = null;
            boolean ended = false;
            try {
                if (readOn() || send()) {
                    // Handed off: the answer that frees a slot reads on (or, after a failure, nothing does).
                    finishIfDone();
                    return;
                }
                ended = true;
            } catch (Exception e) {
                failed = e;
            }
            synchronized (this) {
                reading = false;
                readingDone |= ended;
                if (failure == null) {
                    failure = failed;
                }
            }
            finishIfDone();
        }

        /** True when it stopped with a full batch sent (or after a failure); false at the end of the shard. */
        private boolean readOn() throws IOException {
            MinhashFieldMapper.MinhashFieldType fieldType = matching.fieldType();
            // The other shard's band keys are of its own format. Across an upgrade (a data stream's format 1
            // generations beside format 2 ones) this shard is of format 1 and the other derives its signatures from
            // the sets ([ShardScan.BandJoin] sends the step this way round): this shard's documents are looked up there
            // by their sets' signatures of that format, which are what a document of the same text has there. A
            // document without a set has no such signature, and no pair with that shard.
            FingerprintFormat otherFormat = filter.format();
            boolean bySets = otherFormat != fieldType.format();
            if (bySets && otherFormat.derivesSignatureFromSet() == false) {
                throw new IllegalStateException(
                        "a band step of a shard of " + fieldType.format().describe() + " looks up one of "
                                + otherFormat.describe() + ": the step goes the other way round");
            }
            int rows = matching.banding().rows();
            int bandCount = matching.banding().bands();
            long[] keys = new long[bandCount];
            int[] passed = new int[bandCount];
            List<LeafReaderContext> leaves = step.searcher().getIndexReader().leaves();
            for (; leaf < leaves.size(); leaf++, nextDoc = 0) {
                LeafReaderContext context = leaves.get(leaf);
                MinhashDocValues values = fieldType.docValues(context.reader(), true);
                Bits live = context.reader().getLiveDocs();
                for (int doc = values.advance(nextDoc); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                    if (live != null && live.get(doc) == false) {
                        continue;
                    }
                    if (++read % ShardBandBuckets.CHECK_EVERY == 0) {
                        request.ensureNotCancelled();
                    }
                    BytesRef shingleSet = values.shingleSet();
                    if (bySets && shingleSet == null) {
                        continue;
                    }
                    BytesRef signature = bySets
                            ? new BytesRef(FingerprintFormat.signatureBytesOfSet(
                                    shingleSet.bytes, shingleSet.offset, shingleSet.length, fieldType.numHashes()))
                            : values.signature();
                    for (int band = 0; band < bandCount; band++) {
                        keys[band] = BandKeyFilter.keyOf(
                                band, otherFormat.bandKey(signature.bytes, signature.offset, band, rows));
                    }
                    int count = filter.bandsToLookUp(keys, matching.minBandMatches(), passed);
                    if (count == 0) {
                        continue;
                    }
                    byte[] set = shingleSet == null ? null : BytesRef.deepCopyOf(shingleSet).bytes;
                    signatures[size] = BytesRef.deepCopyOf(signature).bytes;
                    shingleSets[size] = set;
                    bands[size] = Arrays.copyOf(passed, count);
                    docs[size++] = context.docBase + doc;
                    if (size == PROBE_BATCH) {
                        nextDoc = doc + 1;
                        if (send()) {
                            return true;
                        }
                    }
                }
            }
            return false;
        }

        /** Sends the batch read; true if reading stops here (until an answer comes, or for good after a failure). */
        private boolean send() {
            if (size == 0) {
                return false;
            }
            ShardMatchRequest probe = new ShardMatchRequest(
                    shard.index(),
                    shard.shard(),
                    request.spec(),
                    new ShardMatchRequest.Signatures(
                            Arrays.copyOf(signatures, size),
                            Arrays.copyOf(shingleSets, size),
                            Arrays.copyOf(bands, size),
                            scheme),
                    TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT,
                    null);
            int[] batchDocs = Arrays.copyOf(docs, size);
            Arrays.fill(signatures, null);
            Arrays.fill(shingleSets, null);
            Arrays.fill(bands, null);
            size = 0;
            int index;
            boolean pause;
            synchronized (this) {
                if (failure != null) {
                    reading = false;
                    return true;
                }
                index = sent++;
                sentDocs.add(batchDocs);
                answers.add(null);
                inFlight++;
                pause = inFlight >= PROBES_IN_FLIGHT;
                paused = pause;
                // Before the request goes: its answer may come at once, and read on in its own thread.
                reading = pause == false;
            }
            step.lookUp(probe, ActionListener.wrap(answer -> answered(index, answer), this::failed));
            return pause;
        }

        private void answered(int index, ShardMatchResponse answer) {
            boolean resume;
            synchronized (this) {
                answers.set(index, answer);
                inFlight--;
                resume = paused && failure == null;
                paused = false;
                reading |= resume;
            }
            if (resume) {
                read();
            } else {
                finishIfDone();
            }
        }

        private void failed(Exception e) {
            synchronized (this) {
                inFlight--;
                if (failure == null) {
                    failure = e;
                }
                paused = false;
            }
            finishIfDone();
        }

        /** Answers once reading ended (or failed) and every batch sent is answered. */
        private void finishIfDone() {
            Exception failed;
            synchronized (this) {
                if (finished || inFlight > 0 || reading || (readingDone == false && failure == null)) {
                    return;
                }
                finished = true;
                failed = failure;
            }
            if (failed != null) {
                listener.onFailure(failed);
                return;
            }
            try {
                listener.onResponse(collect(step, sentDocs, answers));
            } catch (Exception e) {
                listener.onFailure(e);
            }
        }
    }

    /** The matches of the look-ups: {@code answers.get(b)} answers the documents {@code sentDocs.get(b)}. */
    private static ShardJoinResponse collect(ShardJoinStep step, List<int[]> sentDocs, List<ShardMatchResponse> answers)
            throws IOException {
        // Read on this thread with readers of its own: doc values belong to the thread that opens them.
        try (MatchList matches = new MatchList(step.breaker());
                ShardDocs docs = new ShardDocs(step.searcher(), null, step.matchedBudget())) {
            ShardJoinStep.Queries queries =
                    new ShardJoinStep.Queries(step.searcher().getIndexReader().maxDoc());
            for (int b = 0; b < answers.size(); b++) {
                ShardMatchResponse found = answers.get(b);
                int[] batchDocs = sentDocs.get(b);
                for (int m = 0; m < found.size(); m++) {
                    matches.add(
                            queries.of(batchDocs[found.query(m)]),
                            found.matchedId(m),
                            found.matchedSeqNo(m),
                            found.similarity(m),
                            null);
                }
            }
            int[] matchedIn = new int[matches.size()];
            Arrays.fill(matchedIn, 1);
            return response(0, 0, queries, docs, matches, matchedIn, null);
        }
    }

    /** The caller's live documents, and those of them with a signature the caller may see. */
    private static long[] countFingerprints(IndexReader reader, MinhashFieldMapper.MinhashFieldType fieldType)
            throws IOException {
        long live = 0;
        long withSignature = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            Bits liveDocs = leaf.reader().getLiveDocs();
            for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                live += liveDocs == null || liveDocs.get(doc) ? 1 : 0;
            }
            MinhashDocValues signatures = fieldType.docValues(leaf.reader(), false);
            for (int doc = signatures.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = signatures.nextDoc()) {
                withSignature += liveDocs == null || liveDocs.get(doc) ? 1 : 0;
            }
        }
        return new long[] {live, withSignature};
    }
}
