package io.neardup.clusters;

import io.neardup.core.FingerprintObject;
import io.neardup.core.SimhashCodec;
import io.neardup.query.Like;
import io.neardup.query.NearDuplicateQueryBuilder;
import io.neardup.query.SimhashBatchMatcher;
import io.neardup.query.QueryServices;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.opensearch.action.support.ActionFilters;
import org.opensearch.action.support.single.shard.TransportSingleShardAction;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.routing.OperationRouting;
import org.opensearch.cluster.routing.ShardsIterator;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.inject.Inject;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.MediaTypeRegistry;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.index.IndexService;
import org.opensearch.index.engine.Engine;
import org.opensearch.index.fieldvisitor.FieldsVisitor;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.index.seqno.SequenceNumbers;
import org.opensearch.index.shard.IndexShard;
import org.opensearch.indices.IndicesService;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.TransportService;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * Runs, on a node holding a copy of the shard, the {@code near_duplicate} query of every document
 * of a batch against one searcher of that shard: the per-segment structures (PSM tables, band
 * postings, shingle sets) are built once and shared by the whole batch, and nothing crosses the
 * network but the batch and its matches.
 */
public final class TransportShardMatchAction extends TransportSingleShardAction<ShardMatchRequest, ShardMatchResponse> {

    /** Most matches kept per document and shard: enough to connect any group (every member queries), bounded however large it is. */
    public static final int MAX_MATCHES_PER_DOCUMENT = 1_000;

    private final IndicesService indicesService;
    private final QueryServices services;

    @Inject
    public TransportShardMatchAction(ThreadPool threadPool, ClusterService clusterService, TransportService transportService,
        ActionFilters actionFilters, IndexNameExpressionResolver indexNameExpressionResolver, IndicesService indicesService,
        QueryServices services) {
        super(ShardMatchAction.NAME, threadPool, clusterService, transportService, actionFilters, indexNameExpressionResolver,
            ShardMatchRequest::new, ThreadPool.Names.SEARCH);
        this.indicesService = indicesService;
        this.services = services;
    }

    @Override
    protected ShardMatchResponse shardOperation(ShardMatchRequest request, ShardId shardId) throws IOException {
        IndexService indexService = indicesService.indexServiceSafe(shardId.getIndex());
        IndexShard shard = indexService.getShard(shardId.id());
        List<String> ids = request.ids();
        MatchList matches = new MatchList();
        try (Engine.Searcher searcher = shard.acquireSearcher("near_dup_clusters")) {
            QueryShardContext context = indexService.newQueryShardContext(shardId.id(), searcher, System::currentTimeMillis, null);
            List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
            StoredFields storedFields = searcher.storedFields();
            String index = shardId.getIndexName();
            SimhashBatchMatcher blocks = request.spec().minSimilarity() == null ? SimhashBatchMatcher.forField(context, searcher,
                request.spec().field(), request.spec().maxDistance() == null ? NearDuplicateQueryBuilder.DEFAULT_MAX_DISTANCE : request
                    .spec().maxDistance(), services) : null;
            for (int i = 0; i < ids.size(); i++) {
                String id = ids.get(i);
                if (blocks != null) {
                    matchByBlocks(blocks, leaves, storedFields, request, i, matches);
                    continue;
                }
                Like like = id.isEmpty() ? Like.source(null, index, request.sources().get(i)) : Like.fetched(id, index, request.sources()
                    .get(i));
                Query lucene = request.spec().query(like, services).toQuery(context);
                TopDocs top = searcher.search(lucene, request.maxMatches());
                for (ScoreDoc hit : top.scoreDocs) {
                    FieldsVisitor visitor = new FieldsVisitor(request.clusterField() != null);
                    storedFields.document(hit.doc, visitor);
                    matches.add(i, visitor.id(), seqNo(leaves, hit.doc), hit.score, clusterOf(visitor, request.clusterField()));
                }
            }
        }
        return matches.toResponse();
    }

    /** The matches of a batch as they are found, in the response's parallel arrays. */
    private static final class MatchList {
        private int size;
        private int[] query = new int[16];
        private String[] target = new String[16];
        private long[] targetSeqNo = new long[16];
        private float[] similarity = new float[16];
        private String[] cluster = new String[16];

        void add(int queryIndex, String targetId, long seqNo, float score, String targetCluster) {
            if (size == query.length) {
                int grown = size * 2;
                query = Arrays.copyOf(query, grown);
                target = Arrays.copyOf(target, grown);
                targetSeqNo = Arrays.copyOf(targetSeqNo, grown);
                similarity = Arrays.copyOf(similarity, grown);
                cluster = Arrays.copyOf(cluster, grown);
            }
            cluster[size] = targetCluster;
            query[size] = queryIndex;
            target[size] = targetId;
            targetSeqNo[size] = seqNo;
            similarity[size++] = score;
        }

        ShardMatchResponse toResponse() {
            return new ShardMatchResponse(Arrays.copyOf(query, size), Arrays.copyOf(target, size), Arrays.copyOf(targetSeqNo, size),
                Arrays.copyOf(similarity, size), Arrays.copyOf(cluster, size));
        }
    }

    /**
     * A simhash document's neighbours, all of them within the distance (exact), from the segments'
     * block tables: the closest {@code maxMatches} other than itself, scored as the query scores them.
     */
    private static void matchByBlocks(SimhashBatchMatcher blocks, List<LeafReaderContext> leaves, StoredFields storedFields,
        ShardMatchRequest request, int i, MatchList matches) throws IOException {
        FingerprintObject.Parts parts;
        try {
            parts = FingerprintObject.read(XContentMapValues.extractValue(request.spec().field(), request.sources().get(i)),
                FingerprintObject.SIMHASH_KEYS);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("document [" + request.ids().get(i) + "] has a malformed fingerprint in [" + request.spec()
                .field() + "]: " + e.getMessage(), e);
        }
        if (parts == null) {
            return;
        }
        long simhash = SimhashCodec.parseHex(parts.value());
        // Distance and doc packed in one long: sorted, the closest come first, ties by doc.
        long[][] hits = { new long[16] };
        int[] count = { 0 };
        blocks.match(simhash, parts.scheme(), (doc, distance) -> {
            if (count[0] == hits[0].length) {
                hits[0] = Arrays.copyOf(hits[0], count[0] * 2);
            }
            hits[0][count[0]++] = (long) distance << 32 | doc;
        });
        Arrays.sort(hits[0], 0, count[0]);
        int kept = 0;
        for (int h = 0; h < count[0] && kept < request.maxMatches(); h++) {
            int doc = (int) hits[0][h];
            int distance = (int) (hits[0][h] >>> 32);
            FieldsVisitor visitor = new FieldsVisitor(request.clusterField() != null);
            storedFields.document(doc, visitor);
            if (visitor.id().equals(request.ids().get(i))) {
                continue;
            }
            matches.add(i, visitor.id(), seqNo(leaves, doc), SimhashBatchMatcher.similarity(distance), clusterOf(visitor, request.clusterField()));
            kept++;
        }
    }

    private static String clusterOf(FieldsVisitor visitor, String clusterField) {
        if (clusterField == null || visitor.source() == null) {
            return null;
        }
        // _source is in whatever content type the document was indexed with.
        Object value = XContentMapValues.extractValue(clusterField, XContentHelper.convertToMap(visitor.source(), false,
            MediaTypeRegistry.xContentType(visitor.source())).v2());
        return value == null ? null : value.toString();
    }

    private static long seqNo(List<LeafReaderContext> leaves, int doc) throws IOException {
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        NumericDocValues seqNos = leaf.reader().getNumericDocValues(SeqNoFieldMapper.NAME);
        return seqNos != null && seqNos.advanceExact(doc - leaf.docBase) ? seqNos.longValue() : SequenceNumbers.UNASSIGNED_SEQ_NO;
    }

    @Override
    protected Writeable.Reader<ShardMatchResponse> getResponseReader() {
        return ShardMatchResponse::new;
    }

    @Override
    protected boolean resolveIndex(ShardMatchRequest request) {
        return true;
    }

    @Override
    protected ShardsIterator shards(ClusterState state, InternalRequest request) {
        return OperationRouting.getShards(state, new ShardId(state.metadata().index(request.concreteIndex()).getIndex(),
            request.request().shard()));
    }
}
