/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.BandKeyFilter;
import io.neardup.core.FingerprintObject;
import io.neardup.core.MemoryBudget;
import io.neardup.core.SimhashCodec;
import io.neardup.index.BreakerBudget;
import io.neardup.index.FingerprintFieldType;
import io.neardup.index.SimhashBatchMatcher;
import io.neardup.query.Like;
import io.neardup.query.QueryServices;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

/**
 * Runs, on a node holding a copy of the shard, the {@code near_duplicate} query of every document
 * of a batch against one searcher of that shard: the per-segment structures (PSM tables, band
 * postings, shingle sets) are built once and shared by the whole batch, and nothing crosses the
 * network but the batch and its matches.
 */
public class TransportShardMatchAction extends OneShardAction<ShardMatchRequest, ShardMatchResponse> {

    /** Most matches kept per document and shard: enough to connect any group (every member queries), bounded however large it is. */
    public static final int MAX_MATCHES_PER_DOCUMENT = 1_000;

    private final IndicesService indicesService;
    private final QueryServices services;
    private final NodeRunBreakers runBreakers;

    @Inject
    public TransportShardMatchAction(
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            IndicesService indicesService,
            QueryServices services,
            NodeRunBreakers runBreakers) {
        this(
                ShardMatchAction.NAME,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                indicesService,
                services,
                runBreakers);
    }

    private TransportShardMatchAction(
            String name,
            ThreadPool threadPool,
            ClusterService clusterService,
            TransportService transportService,
            ActionFilters actionFilters,
            IndexNameExpressionResolver indexNameExpressionResolver,
            IndicesService indicesService,
            QueryServices services,
            NodeRunBreakers runBreakers) {
        super(
                name,
                threadPool,
                clusterService,
                transportService,
                actionFilters,
                indexNameExpressionResolver,
                ShardMatchRequest::new,
                ShardMatchResponse::new,
                ThreadPool.Names.SEARCH);
        this.indicesService = indicesService;
        this.services = services;
        this.runBreakers = runBreakers;
    }

    /** The same matching for {@code near_dup_lookup}, under the lookup's own permission ({@link NearDupLookupAction}). */
    public static final class Lookup extends TransportShardMatchAction {
        @Inject
        public Lookup(
                ThreadPool threadPool,
                ClusterService clusterService,
                TransportService transportService,
                ActionFilters actionFilters,
                IndexNameExpressionResolver indexNameExpressionResolver,
                IndicesService indicesService,
                QueryServices services,
                NodeRunBreakers runBreakers) {
            super(
                    NearDupLookupAction.NAME,
                    threadPool,
                    clusterService,
                    transportService,
                    actionFilters,
                    indexNameExpressionResolver,
                    indicesService,
                    services,
                    runBreakers);
        }
    }

    /**
     * The band self-join's look-up from another shard ({@link ShardBandLookup}): the caller's
     * segments and live documents only, oversized buckets joined by leaders, memory charged first.
     */
    private void matchSignatures(
            ShardMatchRequest request,
            ShardMatchRequest.Signatures batch,
            QueryShardContext context,
            IndexReader reader,
            ShardDocs docs,
            MatchList matches,
            ShardId shardId,
            CircuitBreaker breaker)
            throws IOException {
        MatchSpec spec = request.spec();
        try (DocMatches found = new DocMatches(DocMatches.budget(breaker))) {
            ShardBandLookup.lookUp(
                    reader,
                    spec.field(),
                    spec.bandMatching(context, shardId),
                    batch.scheme(),
                    batch.signatures(),
                    batch.shingleSets(),
                    batch.bands(),
                    request.maxMatches(),
                    ShardBandBuckets.MAX_BUCKET,
                    ShardBandBuckets.MAX_LEADERS,
                    BreakerBudget.of(breaker, "near_dup_clusters band look-up"),
                    request::ensureNotCancelled,
                    (q, doc, similarity) -> found.add(q, doc, docs.seqNo(doc), (float) similarity));
            found.addTo(matches, docs, q -> q);
        }
    }

    /**
     * Bare simhash values from another shard's window, matched in this shard's block tables; with
     * {@code min_similarity} each neighbour is verified on the sibling {@code minhash} field, as the
     * query verifies it. The matches are held by doc id, reserved first, until their {@code _id}s are read.
     */
    private void matchSimhashes(
            ShardMatchRequest request,
            ShardMatchRequest.Simhashes batch,
            QueryShardContext context,
            IndexReader reader,
            SimhashBatchMatcher blocks,
            ShardDocs docs,
            MatchList matches,
            ShardId shardId,
            CircuitBreaker breaker)
            throws IOException {
        BlockNeighbours neighbours = new BlockNeighbours();
        long[] simhashes = batch.values();
        MatchSpec.SiblingVerification verification = request.spec().siblingVerification(context, shardId);
        ShardJaccard jaccard =
                verification == null ? null : new ShardJaccard(reader, verification.minhash(), verification.exact());
        try (DocMatches found = new DocMatches(DocMatches.budget(breaker))) {
            for (int i = 0; i < simhashes.length; i++) {
                if (jaccard != null && (batch.signatures() == null || batch.signatures()[i] == null)) {
                    continue; // nothing to verify with: no match, as the query finds none
                }
                int closest = Math.min(neighbours.find(blocks, simhashes[i], batch.scheme()), request.maxMatches());
                for (int h = 0; h < closest; h++) {
                    int doc = neighbours.doc(h);
                    if (jaccard == null) {
                        found.add(i, doc, docs.seqNo(doc), SimhashBatchMatcher.similarity(neighbours.distance(h)));
                        continue;
                    }
                    double similarity = jaccard.similarity(batch.signatures()[i], batch.shingleSets()[i], doc);
                    if (similarity >= verification.minSimilarity()) {
                        found.add(i, doc, docs.seqNo(doc), (float) similarity);
                    }
                }
            }
            found.addTo(matches, docs, query -> query);
        }
    }

    /** The shard's band key filter for another shard's band look-ups; its memory is held while it is built. */
    private ShardMatchResponse keyFilter(
            ShardMatchRequest request,
            QueryShardContext context,
            IndexReader reader,
            ShardId shardId,
            CircuitBreaker breaker)
            throws IOException {
        String field = request.spec().field();
        MatchSpec.BandMatching matching = request.spec().bandMatching(context, shardId); // or a clear error
        MemoryBudget budget = BreakerBudget.of(breaker, "near_dup_clusters band key filter");
        ShardBandBuckets.KeyFilter filter =
                new ShardBandBuckets(reader, matching.fieldType(), budget).keyFilter(ShardBandBuckets.MAX_BUCKET);
        budget.release(BandKeyFilter.bytesFor(filter.keys()));
        return new ShardMatchResponse(filter);
    }

    /**
     * The request charges the breaker of its run on this node ({@link NodeRunBreakers}, keyed by its parent task), and
     * its answer says the most the run held here at once.
     */
    @Override
    protected ShardMatchResponse shardOperation(ShardMatchRequest request, ShardId shardId) throws IOException {
        try (NodeRunBreakers.Request run = runBreakers.open(request.getParentTask())) {
            return match(request, shardId, run.breaker()).nodeBytes(run.nodeBytes());
        }
    }

    private ShardMatchResponse match(ShardMatchRequest request, ShardId shardId, CircuitBreaker breaker)
            throws IOException {
        IndexService indexService = indicesService.indexServiceSafe(shardId.getIndex());
        IndexShard shard = indexService.getShard(shardId.id());
        try (Engine.Searcher searcher = shard.acquireSearcher("near_dup_clusters");
                MatchList matches = new MatchList(breaker)) {
            QueryShardContext context =
                    indexService.newQueryShardContext(shardId.id(), searcher, System::currentTimeMillis, null);
            IndexReader reader = searcher.getIndexReader();
            try (ShardDocs docs = new ShardDocs(searcher, request.clusterField(), DocMatches.budget(breaker))) {
                ShardMatchRequest.Batch batch = request.batch();
                if (batch instanceof ShardMatchRequest.BandFilter) {
                    return keyFilter(request, context, reader, shardId, breaker);
                } else if (batch instanceof ShardMatchRequest.Signatures signatures) {
                    matchSignatures(request, signatures, context, reader, docs, matches, shardId, breaker);
                } else if (batch instanceof ShardMatchRequest.Simhashes simhashes) {
                    SimhashBatchMatcher blocks = blocks(request, context, searcher);
                    if (blocks == null) {
                        throw new IllegalArgumentException(
                                "[" + request.spec().field() + "] is not a [simhash] field with doc values in "
                                        + shardId + ": it cannot be matched by value");
                    }
                    matchSimhashes(request, simhashes, context, reader, blocks, docs, matches, shardId, breaker);
                } else if (batch instanceof ShardMatchRequest.Documents documents) {
                    matchDocuments(request, documents, context, searcher, shardId, docs, matches);
                } else {
                    throw new IllegalStateException(
                            "no such batch: " + batch.getClass().getName()); // sealed
                }
                return matches.toResponse();
            }
        }
    }

    /** The shard's block tables for a {@code simhash} field with doc values, else null. */
    private SimhashBatchMatcher blocks(ShardMatchRequest request, QueryShardContext context, Engine.Searcher searcher)
            throws IOException {
        return SimhashBatchMatcher.forField(
                context,
                searcher,
                request.spec().field(),
                request.spec().options().effectiveMaxDistance(),
                services.cache());
    }

    /**
     * Documents: on a {@code simhash} field without {@code min_similarity}, every neighbour within the distance from
     * the block tables; otherwise each document's {@code near_duplicate} query (with a containment spec, the one the
     * field type builds for it, whatever the field's type: a type that cannot answer it refuses).
     */
    private void matchDocuments(
            ShardMatchRequest request,
            ShardMatchRequest.Documents documents,
            QueryShardContext context,
            Engine.Searcher searcher,
            ShardId shardId,
            ShardDocs docs,
            MatchList matches)
            throws IOException {
        SimhashBatchMatcher blocks =
                request.spec().minSimilarity() == null && request.spec().containment() == null
                        ? blocks(request, context, searcher)
                        : null;
        List<String> ids = documents.ids();
        String index = shardId.getIndexName();
        Object identity = context.fieldMapper(request.spec().field()) instanceof FingerprintFieldType fingerprint
                ? fingerprint.queryIdentity()
                : null;
        BlockNeighbours neighbours = blocks == null ? null : new BlockNeighbours();
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (blocks != null) {
                FingerprintObject.Parts parts = simhashOf(request, documents, i);
                if (parts != null) {
                    addClosest(
                            neighbours,
                            blocks,
                            SimhashCodec.parseHex(parts.value()),
                            parts.scheme(),
                            id,
                            request.maxMatches(),
                            i,
                            docs,
                            matches);
                }
                continue;
            }
            Like like = id.isEmpty()
                    ? Like.source(null, index, documents.sources().get(i))
                    : Like.fetched(id, index, documents.sources().get(i));
            // A document excluded by its _id here has a query of its own; the others' are shared with the other
            // shards of their field's identity.
            Query lucene = documents
                    .queries()
                    .get(
                            i,
                            id.isEmpty() ? identity : null,
                            () -> request.spec().query(like, services).toQuery(context));
            TopDocs top = searcher.search(lucene, request.maxMatches());
            for (ScoreDoc hit : top.scoreDocs) {
                docs.read(hit.doc);
                matches.add(i, docs.id(), docs.seqNo(hit.doc), hit.score, docs.cluster(), docs.clusterIndex());
            }
        }
    }

    private static FingerprintObject.Parts simhashOf(
            ShardMatchRequest request, ShardMatchRequest.Documents documents, int i) {
        try {
            return FingerprintObject.read(
                    XContentMapValues.extractValue(
                            request.spec().field(), documents.sources().get(i)),
                    FingerprintObject.SIMHASH_KEYS);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "document [" + documents.ids().get(i) + "] has a malformed fingerprint in ["
                            + request.spec().field() + "]: " + e.getMessage(),
                    e);
        }
    }

    /**
     * A simhash's neighbours, all of them within the distance (exact), from the segments' block
     * tables: the closest {@code maxMatches} other than {@code selfId}, scored as the query scores them.
     */
    private static void addClosest(
            BlockNeighbours neighbours,
            SimhashBatchMatcher blocks,
            long simhash,
            String scheme,
            String selfId,
            int maxMatches,
            int queryIndex,
            ShardDocs docs,
            MatchList matches)
            throws IOException {
        int found = neighbours.find(blocks, simhash, scheme);
        int kept = 0;
        for (int h = 0; h < found && kept < maxMatches; h++) {
            int doc = neighbours.doc(h);
            docs.read(doc);
            if (docs.id().equals(selfId)) {
                continue;
            }
            matches.add(
                    queryIndex,
                    docs.id(),
                    docs.seqNo(doc),
                    SimhashBatchMatcher.similarity(neighbours.distance(h)),
                    docs.cluster(),
                    docs.clusterIndex());
            kept++;
        }
    }
}
