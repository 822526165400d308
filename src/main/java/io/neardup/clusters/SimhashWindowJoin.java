/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.MemoryBudget;
import io.neardup.index.BreakerBudget;
import io.neardup.index.FieldExposure;
import io.neardup.index.SimhashBatchMatcher;
import io.neardup.index.SimhashFieldMapper;
import io.neardup.match.BlockNeighbours;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.opensearch.action.support.GroupedActionListener;
import org.opensearch.common.lease.Releasable;
import org.opensearch.common.lease.Releasables;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryShardContext;

/**
 * The self-join of {@code _near_dup_clusters} on a {@code simhash} field, one window of a shard: the
 * window's documents (a range of sequence numbers) are read from doc values and sent as bare simhash
 * values to the other shards the request names, then looked up in the shard's own block tables while
 * those answer. Each pair is reported once: within the shard by the window of its later sequence
 * number (or, inside one window, from its lower doc id); across shards by the one of the two shards
 * that names the other (the caller names each pair of shards once). No {@code _source} is read, and
 * an {@code _id} only for documents with a match.
 */
final class SimhashWindowJoin {

    /** A window document's doc id, simhash, sequence number and segment, held while the window is joined. */
    static final int BYTES_PER_WINDOW_DOCUMENT = 4 + 8 + 8 + 4;

    private final ShardJoinStep step;
    private final ShardJoinRequest request;
    /** The sequence numbers the window spans, and the shards it is looked up in. */
    private final ShardJoinRequest.Window range;

    private final List<Releasable> held = new ArrayList<>();

    private SimhashWindowJoin(ShardJoinStep step, ShardJoinRequest.Window range) {
        this.step = step;
        this.request = step.request();
        this.range = range;
    }

    /** Joins the step's window; {@code listener} has the answer once the other shards' look-ups are in. */
    static void run(ShardJoinStep step, ShardJoinRequest.Window range, ActionListener<ShardJoinResponse> listener) {
        SimhashWindowJoin join = new SimhashWindowJoin(step, range);
        ActionListener<ShardJoinResponse> releasing =
                ActionListener.runAfter(listener, () -> Releasables.close(join.held));
        try {
            join.start(releasing);
        } catch (Exception e) {
            releasing.onFailure(e);
        }
    }

    /** The window's documents with a simhash, in doc id order. */
    private record WindowDocs(int size, int[] docs, long[] simhashes, long[] seqNos, int[] leaves, long scanned) {}

    /** What the window found: its pairs within the shard, or one other shard's answer to a batch of its values. */
    private sealed interface Found permits OwnPairs, Answer {}

    private record OwnPairs(DocMatches pairs) implements Found {}

    /** The answer to the {@code sent}-th look-up; {@code windowIndexes[k]} is the window document of its value k. */
    /** @param matchedIn the position of the shard that answered among those the step looks up, from 1 */
    private record Answer(int sent, int matchedIn, int[] windowIndexes, ShardMatchResponse matches) implements Found {}

    private void start(ActionListener<ShardJoinResponse> listener) throws IOException {
        MatchSpec spec = request.spec();
        QueryShardContext context = step.context();
        SimhashBatchMatcher blocks = SimhashBatchMatcher.forField(
                context,
                step.searcher(),
                spec.field(),
                spec.options().effectiveMaxDistance(),
                step.services().cache());
        if (blocks == null) {
            throw new IllegalArgumentException(
                    "[field] [" + spec.field() + "] is not a [simhash] field with doc values in " + step.shardId());
        }
        long capacity = Math.min(
                range.toSeqNo() - range.fromSeqNo(),
                step.searcher().getIndexReader().maxDoc());
        long charge = capacity * BYTES_PER_WINDOW_DOCUMENT;
        step.breaker().addEstimateBytesAndMaybeBreak(charge, "near_dup_clusters window");
        held.add(() -> step.breaker().addWithoutBreaking(-charge));
        WindowDocs window = readWindow(context, (int) capacity);
        MatchSpec.SiblingVerification verification = spec.siblingVerification(context, step.shardId());
        Verifier verifier = null;
        if (verification != null) {
            verifier = new Verifier(
                    verification,
                    new ShardJaccard(step.searcher().getIndexReader(), verification.minhash(), verification.exact()),
                    BreakerBudget.of(step.breaker(), "near_dup_clusters window signatures"));
            Verifier charged = verifier;
            held.add(() -> charged.budget.release(charged.held));
        }
        List<ProbeBatch> probes = probeBatches(blocks, window, verifier);
        GroupedActionListener<Found> found = new GroupedActionListener<>(
                ActionListener.wrap(all -> listener.onResponse(answer(window, all)), listener::onFailure),
                probes.size() * range.otherShards().length + 1);
        // The other shards search while this one joins the window with itself.
        int sent = 0;
        for (ProbeBatch probe : probes) {
            for (int o = 0; o < range.otherShards().length; o++) {
                ShardJoinRequest.OtherShard other = range.otherShards()[o];
                int order = sent++;
                int matchedIn = o + 1;
                step.lookUp(
                        new ShardMatchRequest(
                                other.index(),
                                other.shard(),
                                spec,
                                probe.values(),
                                TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT,
                                null),
                        ActionListener.map(
                                found, matches -> new Answer(order, matchedIn, probe.windowIndexes(), matches)));
            }
        }
        try {
            found.onResponse(new OwnPairs(joinWithinShard(blocks, window, verifier)));
        } catch (Exception e) {
            found.onFailure(e);
        }
    }

    /** The window's pairs within the shard, as doc ids: their {@code _id}s are read when every answer is in. */
    private DocMatches joinWithinShard(SimhashBatchMatcher blocks, WindowDocs window, Verifier verifier)
            throws IOException {
        int maxMatches = TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT;
        DocMatches pairs = new DocMatches(step.matchedBudget());
        held.add(pairs::close);
        ShardDocs docs = new ShardDocs(step.searcher(), null, MemoryBudget.NONE);
        BlockNeighbours neighbours = new BlockNeighbours();
        for (int i = 0; i < window.size(); i++) {
            if ((i + 1) % ShardBandBuckets.CHECK_EVERY == 0) {
                request.ensureNotCancelled();
            }
            int found = neighbours.find(blocks, window.simhashes()[i], blocks.scheme(window.leaves()[i]));
            int considered = 0;
            for (int h = 0; h < found && considered < maxMatches; h++) {
                int doc = neighbours.doc(h);
                if (doc == window.docs()[i]) {
                    continue;
                }
                considered++;
                long seqNo = docs.seqNo(doc);
                boolean inWindow = seqNo >= range.fromSeqNo() && seqNo < range.toSeqNo();
                // A neighbour of an earlier window reported this pair there; one of this window, from the lower doc id.
                if (seqNo < range.fromSeqNo() || (inWindow && doc < window.docs()[i])) {
                    continue;
                }
                if (verifier == null) {
                    pairs.add(i, doc, seqNo, SimhashBatchMatcher.similarity(neighbours.distance(h)));
                    continue;
                }
                double similarity = verifier.jaccard.similarity(window.docs()[i], doc);
                if (similarity >= verifier.verification.minSimilarity()) {
                    pairs.add(i, doc, seqNo, (float) similarity);
                }
            }
        }
        return pairs;
    }

    /** The window's matches, once the pairs within the shard and every other shard's answer are in. */
    private ShardJoinResponse answer(WindowDocs window, Collection<Found> found) throws IOException {
        // Read on this thread with readers of its own: doc values belong to the thread that opens them.
        try (MatchList matches = new MatchList(step.breaker());
                ShardDocs docs = new ShardDocs(step.searcher(), null, step.matchedBudget())) {
            ShardJoinStep.Queries queries = new ShardJoinStep.Queries(window.size());
            for (Found part : found) {
                if (part instanceof OwnPairs own) {
                    own.pairs().addTo(matches, docs, queries::of);
                }
            }
            int own = matches.size();
            List<int[]> answered = new ArrayList<>(); // {matchedIn, matches}
            // In the order sent, so that the answer does not depend on which shard answered first.
            List<Answer> answers = new ArrayList<>();
            for (Found part : found) {
                if (part instanceof Answer answer) {
                    answers.add(answer);
                }
            }
            answers.sort(Comparator.comparingInt(Answer::sent));
            for (Answer answer : answers) {
                ShardMatchResponse matched = answer.matches();
                for (int m = 0; m < matched.size(); m++) {
                    int i = answer.windowIndexes()[matched.query(m)];
                    matches.add(
                            queries.of(i), matched.matchedId(m), matched.matchedSeqNo(m), matched.similarity(m), null);
                }
                answered.add(new int[] {answer.matchedIn(), matched.size()});
            }
            ShardMatchResponse all = matches.toResponse();
            int[] matchedIn = new int[all.size()];
            int at = own;
            for (int[] part : answered) {
                Arrays.fill(matchedIn, at, at + part[1], part[0]);
                at += part[1];
            }
            int[] queryDocs = new int[queries.count()];
            long[] querySeqNos = new long[queries.count()];
            for (int q = 0; q < queries.count(); q++) {
                queryDocs[q] = window.docs()[queries.indexOf(q)];
                querySeqNos[q] = window.seqNos()[queries.indexOf(q)];
            }
            return new ShardJoinResponse(
                    window.scanned(),
                    window.scanned() - window.size(),
                    docs.ids(queryDocs, queries.count()),
                    querySeqNos,
                    all,
                    matchedIn);
        }
    }

    private WindowDocs readWindow(QueryShardContext context, int capacity) throws IOException {
        List<LeafReaderContext> leaves = step.searcher().getIndexReader().leaves();
        Query inWindow = context.fieldMapper(SeqNoFieldMapper.NAME)
                .rangeQuery(range.fromSeqNo(), range.toSeqNo() - 1, true, true, null, null, null, context);
        // A window's range is asked once: through the shard's query cache it would only contend for the cache's
        // lock with every search on the node and evict the filters users repeat.
        IndexSearcher uncached = new IndexSearcher(step.searcher().getIndexReader());
        uncached.setQueryCache(null);
        Weight weight = uncached.createWeight(uncached.rewrite(inWindow), ScoreMode.COMPLETE_NO_SCORES, 1f);
        int[] docs = new int[capacity];
        long[] simhashes = new long[capacity];
        long[] seqNos = new long[capacity];
        int[] leafOf = new int[capacity];
        int size = 0;
        long scanned = 0;
        String field = request.spec().field();
        for (int l = 0; l < leaves.size(); l++) {
            LeafReaderContext leaf = leaves.get(l);
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null || FieldExposure.exposes(leaf.reader(), field) == false) {
                continue;
            }
            SortedNumericDocValues values = DocValues.getSortedNumeric(leaf.reader(), field);
            NumericDocValues seqNo = DocValues.getNumeric(leaf.reader(), SeqNoFieldMapper.NAME);
            Bits live = leaf.reader().getLiveDocs();
            DocIdSetIterator matching = scorer.iterator();
            for (int doc = matching.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = matching.nextDoc()) {
                if (live != null && live.get(doc) == false) {
                    continue;
                }
                scanned++;
                if (values.advanceExact(doc) == false || seqNo.advanceExact(doc) == false) {
                    continue;
                }
                docs[size] = leaf.docBase + doc;
                simhashes[size] = SimhashFieldMapper.decode(values.nextValue());
                seqNos[size] = seqNo.longValue();
                leafOf[size++] = l;
            }
        }
        return new WindowDocs(size, docs, simhashes, seqNos, leafOf, scanned);
    }

    /**
     * With {@code min_similarity}: the neighbours are verified as the query verifies them, on the
     * sibling {@code minhash} field; the window's values sent to other shards are charged to {@code budget}.
     */
    private static final class Verifier {
        private final MatchSpec.SiblingVerification verification;
        private final ShardJaccard jaccard;
        private final MemoryBudget budget;
        private long held;

        Verifier(MatchSpec.SiblingVerification verification, ShardJaccard jaccard, MemoryBudget budget) {
            this.verification = verification;
            this.jaccard = jaccard;
            this.budget = budget;
        }

        /** The window document's values to send, charged while the join holds them; null where it has no signature. */
        byte[][] valuesOf(int doc) {
            byte[][] values = jaccard.valuesOf(doc, budget);
            if (values != null) {
                held += values[0].length + (values[1] == null ? 0 : values[1].length);
            }
            return values;
        }
    }

    /** The window's simhashes of one scheme (with their sibling values to verify), sent to every other shard. */
    private record ProbeBatch(int[] windowIndexes, ShardMatchRequest.Simhashes values) {}

    /** Segments of one shard may record different schemes (an error when matched, as in the query): one batch per scheme. */
    private List<ProbeBatch> probeBatches(SimhashBatchMatcher blocks, WindowDocs window, Verifier verifier) {
        List<ProbeBatch> probes = new ArrayList<>();
        if (range.otherShards().length == 0 || window.size() == 0) {
            return probes;
        }
        boolean[] sent = new boolean[window.size()];
        for (int first = 0; first < window.size(); first++) {
            if (sent[first]) {
                continue;
            }
            String scheme = blocks.scheme(window.leaves()[first]);
            int[] indexes = new int[window.size() - first];
            int n = 0;
            for (int i = first; i < window.size(); i++) {
                if (sent[i] == false && Objects.equals(scheme, blocks.scheme(window.leaves()[i]))) {
                    sent[i] = true;
                    indexes[n++] = i;
                }
            }
            int[] windowIndexes = Arrays.copyOf(indexes, n);
            long[] simhashes = new long[n];
            byte[][] signatures = verifier == null ? null : new byte[n][];
            byte[][] shingleSets = verifier == null ? null : new byte[n][];
            for (int k = 0; k < n; k++) {
                simhashes[k] = window.simhashes()[windowIndexes[k]];
                if (verifier != null) {
                    byte[][] values = verifier.valuesOf(window.docs()[windowIndexes[k]]);
                    signatures[k] = values == null ? null : values[0];
                    shingleSets[k] = values == null ? null : values[1];
                }
            }
            probes.add(new ProbeBatch(
                    windowIndexes, new ShardMatchRequest.Simhashes(simhashes, signatures, shingleSets, scheme)));
        }
        return probes;
    }
}
