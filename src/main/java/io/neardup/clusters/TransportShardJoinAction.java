/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.core.BandJoin;
import io.neardup.core.BandKeyFilter;
import io.neardup.core.LshBanding;
import io.neardup.core.MemoryBudget;
import io.neardup.index.BreakerBudget;
import io.neardup.index.FieldExposure;
import io.neardup.index.MinhashDocValues;
import io.neardup.index.SegmentScheme;
import io.neardup.index.SimhashFieldMapper;
import io.neardup.query.QueryServices;
import io.neardup.query.SimhashBatchMatcher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.action.ActionFuture;
import org.opensearch.common.inject.Inject;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;
import org.opensearch.transport.client.Client;

/**
 * The self-join of {@code _near_dup_clusters} on a {@code simhash} field, run where a copy of the
 * shard is: a window of the shard's documents (a range of sequence numbers) is read from doc
 * values and looked up in the shard's own block tables, then sent as bare simhash values to the
 * other shards named in the request. Each pair is reported once: within the shard by the window
 * of its later sequence number (or, inside one window, from its lower doc id); across shards by
 * the one of the two shards that names the other (the caller names each pair of shards once). No
 * {@code _source} is read, and an {@code _id} only for documents with a match.
 */
public final class TransportShardJoinAction extends OneShardAction<ShardJoinRequest, ShardJoinResponse> {

    /** A window document's doc id, simhash, sequence number and segment, held while the window is joined. */
    static final int BYTES_PER_WINDOW_DOCUMENT = 4 + 8 + 8 + 4;

    private final IndicesService indicesService;
    private final QueryServices services;
    private final Client client;

    @Inject
    public TransportShardJoinAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            IndicesService indicesService,
            QueryServices services,
            Client client) {
        // The generic pool: a window waits for the other shards' answers, which run on the search pool.
        super(
                ShardJoinAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                ShardJoinRequest::new,
                ShardJoinResponse::new,
                ThreadPool.Names.GENERIC);
        this.indicesService = indicesService;
        this.services = services;
        this.client = client;
    }

    /** The window's documents with a simhash, in doc id order. */
    private record Window(int size, int[] docs, long[] simhashes, long[] seqNos, int[] leaves, long scanned) {}

    @Override
    protected ShardJoinResponse shardOperation(ShardJoinRequest request, ShardId shardId) throws IOException {
        IndexService indexService = indicesService.indexServiceSafe(shardId.getIndex());
        IndexShard shard = indexService.getShard(shardId.id());
        MatchSpec spec = request.spec();
        int maxDistance = spec.options().effectiveMaxDistance();
        CircuitBreaker breaker = services.cache().breaker();
        try (Engine.Searcher searcher = shard.acquireSearcher("near_dup_clusters")) {
            QueryShardContext context =
                    indexService.newQueryShardContext(shardId.id(), searcher, System::currentTimeMillis, null);
            if (request.bands()) {
                return bandJoin(request, context, searcher, breaker, shardId);
            }
            SimhashBatchMatcher blocks =
                    SimhashBatchMatcher.forField(context, searcher, spec.field(), maxDistance, services);
            if (blocks == null) {
                throw new IllegalArgumentException(
                        "[field] [" + spec.field() + "] is not a [simhash] field with doc values in " + shardId);
            }
            long capacity = Math.min(
                    request.toSeqNo() - request.fromSeqNo(),
                    searcher.getIndexReader().maxDoc());
            long charge = capacity * BYTES_PER_WINDOW_DOCUMENT;
            breaker.addEstimateBytesAndMaybeBreak(charge, "near_dup_clusters window");
            try {
                Window window = readWindow(context, searcher.getIndexReader().leaves(), request, (int) capacity);
                MatchSpec.SiblingVerification verification = spec.siblingVerification(context, shardId);
                Verifier verifier = verification == null
                        ? null
                        : new Verifier(
                                verification,
                                new ShardJaccard(
                                        searcher.getIndexReader(), verification.minhashField(), verification.exact()),
                                BreakerBudget.of(breaker, "near_dup_clusters window signatures"));
                // Pairs within the shard, as doc ids: their _ids are read at the end, in doc id order.
                try (MatchList matches = new MatchList(breaker);
                        DocMatches pairs = new DocMatches(matchedBudget(breaker));
                        ShardDocs docs = new ShardDocs(searcher, null, matchedBudget(breaker))) {
                    return join(request, blocks, docs, window, verifier, matches, pairs);
                } finally {
                    if (verifier != null) {
                        verifier.budget.release(verifier.held);
                    }
                }
            } finally {
                breaker.addWithoutBreaking(-charge);
            }
        }
    }

    /**
     * A step of a whole shard's band join on a {@code minhash} field: its band self-join
     * ({@link BandJoin} over the band terms, {@link ShardBandBuckets}, verified as the query verifies,
     * {@link ShardJaccard}; for single linkage a pair whose documents are already connected is not
     * verified), or its look-ups in one other shard ({@link #probeOtherShard}). Reads only what the
     * caller's reader shows (DLS live docs, the field's exposure); its memory is charged to the
     * breaker before it is taken.
     */
    private ShardJoinResponse bandJoin(
            ShardJoinRequest request,
            QueryShardContext context,
            Engine.Searcher searcher,
            CircuitBreaker breaker,
            ShardId shardId)
            throws IOException {
        MatchSpec spec = request.spec();
        MatchSpec.BandMatching matching = spec.bandMatching(context, shardId);
        IndexReader reader = searcher.getIndexReader();
        MemoryBudget budget = BreakerBudget.of(breaker, "near_dup_clusters band join of [" + spec.field() + "]");
        // The self-join counts the shard's documents; the steps across shards read the same ones again.
        long[] counts = request.bandsWithin() ? countFingerprints(reader, spec.field()) : new long[2];
        budget.reserve(8L * reader.maxDoc()); // the query numbering
        try (MatchList matches = new MatchList(breaker);
                DocMatches pairs = new DocMatches(matchedBudget(breaker));
                ShardDocs docs = new ShardDocs(searcher, null, matchedBudget(breaker))) {
            Queries queries = new Queries(reader.maxDoc());
            if (request.bandsWithin()) {
                BandJoin.join(
                        new ShardBandBuckets(reader, spec.field(), budget, request::ensureNotCancelled),
                        reader.maxDoc(),
                        matching.minBandMatches(),
                        matching.minSimilarity(),
                        MAX_BUCKET,
                        MAX_LEADERS,
                        request.allPairs() == false,
                        new ShardJaccard(reader, spec.field(), matching.exact()),
                        (a, b, similarity) -> {
                            try {
                                pairs.add(a, b, docs.seqNo(b), (float) similarity);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        budget);
                pairs.addTo(matches, docs, queries::of);
            } else {
                probeOtherShard(request, matching, reader, breaker, queries, matches);
            }
            int[] queryDocs = Arrays.copyOf(queries.windowOf, queries.count);
            long[] querySeqNos = new long[queries.count];
            for (int q = 0; q < queries.count; q++) {
                querySeqNos[q] = docs.seqNo(queryDocs[q]);
            }
            return new ShardJoinResponse(
                    counts[0],
                    counts[0] - counts[1],
                    docs.ids(queryDocs, queries.count),
                    querySeqNos,
                    matches.toResponse());
        } finally {
            budget.release(8L * reader.maxDoc());
        }
    }

    /** What a shard request holds of its matches by doc id and of the {@code _id}s it has read. */
    static MemoryBudget matchedBudget(CircuitBreaker breaker) {
        return BreakerBudget.of(breaker, "near_dup_clusters matched documents");
    }

    /** Documents a band look-up request carries to another shard: bounds its size (~1.5 KB a document). */
    static final int PROBE_BATCH = 1_000;
    /** Look-up requests to one other shard awaiting their answer while the next batch is read. */
    static final int PROBES_IN_FLIGHT = 2;

    /**
     * The pairs across shards: every live document of this shard with a signature that can share a
     * bucket with a document of the shard {@code request.otherShards()} names (each pair of shards is
     * named once), judged by that shard's {@link ShardBandBuckets.KeyFilter}: at least
     * {@code min_band_matches} of its band keys pass the filter, or one is an oversized bucket there.
     * Those are looked up there by the bands that passed, in batches of {@link #PROBE_BATCH}, as the
     * caller and with its reader there. The filter is charged to the breaker when it arrives and
     * released when its look-ups are answered.
     */
    private void probeOtherShard(
            ShardJoinRequest request,
            MatchSpec.BandMatching matching,
            IndexReader reader,
            CircuitBreaker breaker,
            Queries queries,
            MatchList matches)
            throws IOException {
        String field = request.spec().field();
        ShardBandBuckets.BandTerms own = new ShardBandBuckets(reader, field, MemoryBudget.NONE).open();
        if (own == null) {
            return;
        }
        int other = request.otherShards()[0];
        ShardMatchResponse answer = askFilter(request, other).actionGet(ClusterJob.STEP_TIMEOUT);
        ShardBandBuckets.KeyFilter filter = answer.keyFilter();
        long bytes = BandKeyFilter.bytesFor(filter.keys());
        breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters band key filter");
        try {
            SegmentScheme.requireSame(field, own.scheme(), filter.scheme());
            probe(request, matching, reader, own.scheme(), new Probes(other, filter), queries, matches);
        } finally {
            breaker.addWithoutBreaking(-bytes);
        }
    }

    private ActionFuture<ShardMatchResponse> askFilter(ShardJoinRequest request, int shard) {
        ShardMatchRequest ask = ShardMatchRequest.bandFilter(request.index(), shard, request.spec());
        ask.setParentTask(request.getParentTask());
        return client.execute(ShardMatchAction.INSTANCE, ask);
    }

    /** This shard's documents that can be a candidate in {@code probe}'s shard, looked up there. */
    private void probe(
            ShardJoinRequest request,
            MatchSpec.BandMatching matching,
            IndexReader reader,
            String scheme,
            Probes probe,
            Queries queries,
            MatchList matches)
            throws IOException {
        String field = request.spec().field();
        int bands = matching.banding().bands();
        int rows = matching.banding().rows();
        long[] keys = new long[bands];
        int[] passed = new int[bands];
        long read = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            MinhashDocValues values = MinhashDocValues.open(leaf.reader(), field, true);
            Bits live = leaf.reader().getLiveDocs();
            for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                if (live != null && live.get(doc) == false) {
                    continue;
                }
                if (++read % ShardBandBuckets.CHECK_EVERY == 0) {
                    request.ensureNotCancelled();
                }
                BytesRef signature = values.signature();
                for (int band = 0; band < bands; band++) {
                    keys[band] = BandKeyFilter.keyOf(
                            band, LshBanding.bandKey(signature.bytes, signature.offset, band, rows));
                }
                int count = probe.filter.bandsToLookUp(keys, matching.minBandMatches(), passed);
                if (count == 0) {
                    continue;
                }
                byte[] set = values.shingleSet() == null ? null : BytesRef.deepCopyOf(values.shingleSet()).bytes;
                probe.add(leaf.docBase + doc, BytesRef.deepCopyOf(signature).bytes, set, Arrays.copyOf(passed, count));
                if (probe.size == PROBE_BATCH) {
                    probe.send(request, scheme, queries, matches);
                }
            }
        }
        probe.send(request, scheme, queries, matches);
        probe.awaitAll(queries, matches);
    }

    /** The look-ups of one other shard: the batch being filled and those sent, in order. */
    private final class Probes {
        private final int shard;
        private final ShardBandBuckets.KeyFilter filter;
        private final byte[][] signatures = new byte[PROBE_BATCH][];
        private final byte[][] shingleSets = new byte[PROBE_BATCH][];
        private final int[][] bands = new int[PROBE_BATCH][];
        private final int[] docs = new int[PROBE_BATCH];
        private int size;
        private final ArrayDeque<Sent> sent = new ArrayDeque<>();

        /** A batch sent: its documents (reader doc ids) and the answer to come. */
        private record Sent(int[] docs, ActionFuture<ShardMatchResponse> response) {}

        Probes(int shard, ShardBandBuckets.KeyFilter filter) {
            this.shard = shard;
            this.filter = filter;
        }

        void add(int doc, byte[] signature, byte[] shingleSet, int[] passedBands) {
            signatures[size] = signature;
            shingleSets[size] = shingleSet;
            bands[size] = passedBands;
            docs[size++] = doc;
        }

        void send(ShardJoinRequest request, String scheme, Queries queries, MatchList matches) {
            if (size == 0) {
                return;
            }
            if (sent.size() == PROBES_IN_FLIGHT) {
                await(sent.removeFirst(), queries, matches);
            }
            ShardMatchRequest probe = new ShardMatchRequest(
                    request.index(),
                    shard,
                    request.spec(),
                    Arrays.copyOf(signatures, size),
                    Arrays.copyOf(shingleSets, size),
                    Arrays.copyOf(bands, size),
                    scheme,
                    TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT);
            probe.setParentTask(request.getParentTask());
            sent.addLast(new Sent(Arrays.copyOf(docs, size), client.execute(ShardMatchAction.INSTANCE, probe)));
            Arrays.fill(signatures, null);
            Arrays.fill(shingleSets, null);
            Arrays.fill(bands, null);
            size = 0;
        }

        void awaitAll(Queries queries, MatchList matches) {
            while (sent.isEmpty() == false) {
                await(sent.removeFirst(), queries, matches);
            }
        }

        private void await(Sent batch, Queries queries, MatchList matches) {
            ShardMatchResponse found = batch.response().actionGet(ClusterJob.STEP_TIMEOUT);
            for (int m = 0; m < found.size(); m++) {
                matches.add(
                        queries.of(batch.docs()[found.query(m)]),
                        found.target(m),
                        found.targetSeqNo(m),
                        found.similarity(m),
                        null);
            }
        }
    }

    /** Most documents of a bucket whose pairs are all counted; a larger one (boilerplate) is joined by leaders. */
    static final int MAX_BUCKET = 1_000;
    /** Leaders of an oversized bucket: at most this many verifications a document in it. */
    static final int MAX_LEADERS = 64;

    /** The caller's live documents, and those of them with a signature the caller may see. */
    private static long[] countFingerprints(IndexReader reader, String field) throws IOException {
        long live = 0;
        long withSignature = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            Bits liveDocs = leaf.reader().getLiveDocs();
            for (int doc = 0; doc < leaf.reader().maxDoc(); doc++) {
                live += liveDocs == null || liveDocs.get(doc) ? 1 : 0;
            }
            MinhashDocValues signatures = MinhashDocValues.open(leaf.reader(), field, false);
            for (int doc = signatures.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = signatures.nextDoc()) {
                withSignature += liveDocs == null || liveDocs.get(doc) ? 1 : 0;
            }
        }
        return new long[] {live, withSignature};
    }

    private static Window readWindow(
            QueryShardContext context, List<LeafReaderContext> leaves, ShardJoinRequest request, int capacity)
            throws IOException {
        Query range = context.fieldMapper(SeqNoFieldMapper.NAME)
                .rangeQuery(request.fromSeqNo(), request.toSeqNo() - 1, true, true, null, null, null, context);
        Weight weight =
                context.searcher().createWeight(context.searcher().rewrite(range), ScoreMode.COMPLETE_NO_SCORES, 1f);
        int[] docs = new int[capacity];
        long[] simhashes = new long[capacity];
        long[] seqNos = new long[capacity];
        int[] leafOf = new int[capacity];
        int size = 0;
        long scanned = 0;
        for (int l = 0; l < leaves.size(); l++) {
            LeafReaderContext leaf = leaves.get(l);
            Scorer scorer = weight.scorer(leaf);
            if (scorer == null
                    || FieldExposure.exposes(leaf.reader(), request.spec().field()) == false) {
                continue;
            }
            SortedNumericDocValues values =
                    DocValues.getSortedNumeric(leaf.reader(), request.spec().field());
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
        return new Window(size, docs, simhashes, seqNos, leafOf, scanned);
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

    private ShardJoinResponse join(
            ShardJoinRequest request,
            SimhashBatchMatcher blocks,
            ShardDocs docs,
            Window window,
            Verifier verifier,
            MatchList matches,
            DocMatches pairs)
            throws IOException {
        int maxMatches = TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT;
        List<ProbeBatch> probes = sendProbes(request, blocks, window, verifier, maxMatches);
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
                boolean inWindow = seqNo >= request.fromSeqNo() && seqNo < request.toSeqNo();
                // A neighbour of an earlier window reported this pair there; one of this window, from the lower doc id.
                if (seqNo < request.fromSeqNo() || (inWindow && doc < window.docs()[i])) {
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
        Queries queries = new Queries(window.size());
        pairs.addTo(matches, docs, queries::of);
        for (ProbeBatch probe : probes) {
            ShardMatchResponse found = probe.response().actionGet(ClusterJob.STEP_TIMEOUT);
            for (int m = 0; m < found.size(); m++) {
                int i = probe.windowIndexes()[found.query(m)];
                matches.add(queries.of(i), found.target(m), found.targetSeqNo(m), found.similarity(m), null);
            }
        }
        int[] queryDocs = new int[queries.count];
        long[] querySeqNos = new long[queries.count];
        for (int q = 0; q < queries.count; q++) {
            queryDocs[q] = window.docs()[queries.windowOf[q]];
            querySeqNos[q] = window.seqNos()[queries.windowOf[q]];
        }
        return new ShardJoinResponse(
                window.scanned(),
                window.scanned() - window.size(),
                docs.ids(queryDocs, queries.count),
                querySeqNos,
                matches.toResponse());
    }

    /** The window's documents that have a match, numbered in the order their first match is found. */
    private static final class Queries {
        private final int[] queryOf;
        private final int[] windowOf;
        private int count;

        Queries(int windowSize) {
            queryOf = new int[windowSize];
            Arrays.fill(queryOf, -1);
            windowOf = new int[windowSize];
        }

        int of(int windowIndex) {
            if (queryOf[windowIndex] < 0) {
                windowOf[count] = windowIndex;
                queryOf[windowIndex] = count++;
            }
            return queryOf[windowIndex];
        }
    }

    /** The window's simhashes of one scheme, sent to one other shard; {@code windowIndexes[k]} is the window document of value k. */
    private record ProbeBatch(int[] windowIndexes, ActionFuture<ShardMatchResponse> response) {}

    /** Sends the window to the other shards first, so that they search while this shard joins the window with itself. */
    private List<ProbeBatch> sendProbes(
            ShardJoinRequest request, SimhashBatchMatcher blocks, Window window, Verifier verifier, int maxMatches) {
        List<ProbeBatch> probes = new ArrayList<>();
        if (request.otherShards().length == 0 || window.size() == 0) {
            return probes;
        }
        // Segments of one shard may record different schemes (an error when matched, as in the query): one batch per
        // scheme.
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
            for (int other : request.otherShards()) {
                ShardMatchRequest probe = new ShardMatchRequest(
                        request.index(), other, request.spec(), simhashes, signatures, shingleSets, scheme, maxMatches);
                probe.setParentTask(request.getParentTask());
                probes.add(new ProbeBatch(windowIndexes, client.execute(ShardMatchAction.INSTANCE, probe)));
            }
        }
        return probes;
    }
}
