/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.compat.CoordinatorRewrite;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.Margins;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.index.IndexFingerprintFormat;
import io.neardup.index.LikeFingerprints;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.ingest.NearDupFingerprintProcessor;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.IndicesRequest;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.get.GetResponse;
import org.opensearch.action.search.SearchContextId;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.metadata.Metadata;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.Strings;
import org.opensearch.core.index.Index;
import org.opensearch.index.query.QueryCoordinatorContext;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.ingest.ConditionalProcessor;
import org.opensearch.ingest.IngestService;
import org.opensearch.ingest.Pipeline;
import org.opensearch.ingest.Processor;
import org.opensearch.search.fetch.subphase.FetchSourceContext;

/**
 * Turns a query's {@link Like} into the fingerprint to search for, on the shard that runs the query.
 * A text is fingerprinted by the very processor that fingerprints the index's documents, so the
 * two can only differ if the pipeline changed, which the per-segment scheme check then reports.
 * A liked document is read before that, by the query's rewrite on the coordinating node
 * ({@link #readInEachIndex} when no {@code _index} names its index).
 */
public final class LikeResolver {

    private final Supplier<IngestService> ingestService;
    private final Supplier<ClusterService> clusterService;
    private final Supplier<IndexNameExpressionResolver> indexResolver;
    /** Knows each index's field aliases: a liked document is read for the fields an alias names. */
    private final FingerprintSearchChecks mappings;

    /** Suppliers because the plugin's services are created after its queries are registered. */
    public LikeResolver(
            Supplier<IngestService> ingestService,
            Supplier<ClusterService> clusterService,
            Supplier<IndexNameExpressionResolver> indexResolver,
            FingerprintSearchChecks mappings) {
        this.ingestService = ingestService;
        this.clusterService = clusterService;
        this.indexResolver = indexResolver;
        this.mappings = mappings;
    }

    /** The realtime GET of a liked document, as the caller: only the fingerprint object the query reads. */
    static GetRequest getLiked(String id, String index, String fingerprintObject) {
        return new GetRequest(index)
                .id(id)
                .fetchSourceContext(new FetchSourceContext(true, new String[] {fingerprintObject}, null));
    }

    /** The object holding a fingerprint field and its siblings (a {@code simhash} query with {@code min_similarity} reads both). */
    static String fingerprintObjectOf(String field) {
        int dot = field.lastIndexOf('.');
        return dot < 0 ? field : field.substring(0, dot);
    }

    /**
     * {@code like._id} without {@code _index}, on the coordinating node: registers with the rewrite one GET of the
     * document in each local index the request reads that {@code known} has no answer of yet, as the caller (the
     * Security plugin checks each GET as it checked each shard's), realtime; each answer, found, missing or failed,
     * is kept for that index's shards. The GETs are the rewrite's async actions, as a terms lookup's: no thread waits.
     *
     * @return the like with every index's answer (null until all have answered), or null now when every index the
     *     request reads has its answer in {@code known} (a remote cluster's coordinating node reads its own indices)
     */
    /** Whether the coordinating rewrite can tell the indices searched (from OpenSearch 3.1.0 on). */
    public boolean readsOnTheCoordinator(QueryCoordinatorContext context) {
        return CoordinatorRewrite.requestOf(context) != null;
    }

    public Supplier<Like> readInEachIndex(Like.ReadInEachIndex known, String field, QueryCoordinatorContext context) {
        IndicesRequest request = CoordinatorRewrite.requestOf(context);
        if (request == null) {
            throw new IllegalArgumentException("[like._id] without [like._index] is read in each index searched, "
                    + "which the query's rewrite learns from OpenSearch 3.1.0 on; name the document's index in "
                    + "[like._index]");
        }
        List<Index> unread = Arrays.stream(localIndicesOf(request, context))
                .filter(index -> known.byIndexUuid().containsKey(index.getUUID()) == false)
                .toList();
        if (unread.isEmpty()) {
            return null;
        }
        Metadata metadata = clusterService.get().state().metadata();
        Map<String, Like.IndexRead> answers = new ConcurrentHashMap<>(known.byIndexUuid());
        for (Index index : unread) {
            // A shard reads the field's own path (a field alias's target) from the document.
            IndexMetadata indexMetadata = metadata.index(index);
            String path = indexMetadata == null ? field : mappings.pathIn(indexMetadata, field);
            GetRequest get = getLiked(known.id(), index.getName(), fingerprintObjectOf(path));
            context.registerAsyncAction((client, listener) -> client.get(
                    get,
                    ActionListener.wrap(
                            response -> {
                                Map<String, Object> source = response.getSourceAsMap();
                                answers.put(
                                        index.getUUID(),
                                        response.isExists()
                                                ? new Like.IndexRead(source == null ? Map.of() : source, null)
                                                : Like.IndexRead.NOT_FOUND);
                                listener.onResponse(null);
                            },
                            failure -> {
                                // That index's shards fail with it, as they did with their own GET; the others answer.
                                answers.put(index.getUUID(), new Like.IndexRead(null, failure));
                                listener.onResponse(null);
                            })));
        }
        int expected = known.byIndexUuid().size() + unread.size();
        return () -> answers.size() == expected ? new Like.ReadInEachIndex(known.id(), answers) : null;
    }

    /**
     * The indices of this cluster that {@code request} reads: a point in time's own, or its expressions resolved
     * leniently (another cluster's {@code remote:index} matches none here; an index the request cannot read is read
     * for nothing, never missed). None where they cannot be resolved: the request then fails on its own resolution.
     */
    private Index[] localIndicesOf(IndicesRequest request, QueryCoordinatorContext context) {
        if (request instanceof SearchRequest search && search.pointInTimeBuilder() != null) {
            return SearchContextId.decode(
                            context.getWriteableRegistry(),
                            search.pointInTimeBuilder().getId())
                    .shards()
                    .entrySet()
                    .stream()
                    .filter(shard -> Strings.isNullOrEmpty(shard.getValue().getClusterAlias()))
                    .map(shard -> shard.getKey().getIndex())
                    .distinct()
                    .toArray(Index[]::new);
        }
        IndicesOptions options = request.indicesOptions();
        IndicesOptions lenient = IndicesOptions.fromOptions(
                true,
                true,
                options.expandWildcardsOpen(),
                options.expandWildcardsClosed(),
                options.expandWildcardsHidden(),
                true,
                false,
                options.ignoreAliases(),
                options.ignoreThrottled());
        try {
            return indexResolver
                    .get()
                    .concreteIndices(
                            clusterService.get().state(), lenient, request.includeDataStreams(), request.indices());
        } catch (RuntimeException e) {
            return new Index[0];
        }
    }

    public LikeFingerprints.Simhash resolveSimhash(Like like, String field, QueryShardContext context) {
        if (like instanceof Like.Simhash simhash) {
            return new LikeFingerprints.Simhash(
                    SimhashCodec.parseHex(simhash.hex()),
                    simhash.margins() == null ? null : Margins.decode(simhash.margins()),
                    simhash.scheme());
        }
        if (like instanceof Like.ById byId) {
            return fromDocument(byId.id(), byId, field, context);
        }
        if (like instanceof Like.Fetched fetched) {
            return fromDocument(fetched.id(), fetched, field, context);
        }
        if (like instanceof Like.ReadInEachIndex read) {
            return fromDocument(read.id(), read, field, context);
        }
        if (like instanceof Like.Text text) {
            return fromText(text, field, context);
        }
        if (like instanceof Like.Minhash) {
            throw new IllegalArgumentException(
                    "[like.minhash] cannot be compared with [simhash] field [" + field + "]");
        }
        throw Like.unknown(like);
    }

    public LikeFingerprints.Minhash resolveMinhash(
            Like like, MinhashFieldMapper.MinhashFieldType fieldType, QueryShardContext context) {
        String field = fieldType.name();
        int numHashes = fieldType.numHashes();
        if (like instanceof Like.Minhash minhash) {
            return signature(minhash.signature(), minhash.shingles(), minhash.scheme(), fieldType, null);
        }
        if (like instanceof Like.ById byId) {
            return storedSignature(byId.id(), byId, fieldType, context);
        }
        if (like instanceof Like.Fetched fetched) {
            return storedSignature(fetched.id(), fetched, fieldType, context);
        }
        if (like instanceof Like.ReadInEachIndex read) {
            return storedSignature(read.id(), read, fieldType, context);
        }
        if (like instanceof Like.Text text) {
            NearDupFingerprintProcessor processor = processorFor(text, field, context, true);
            Fingerprint fingerprint = fingerprintOf(processor, text.text(), false, fieldType.format());
            if (fingerprint.minhash().length != numHashes) {
                throw new IllegalArgumentException("[like.text] pipeline [" + pipelineOf(text, context)
                        + "] makes signatures of " + fingerprint.minhash().length + " values but field [" + field
                        + "] holds " + numHashes);
            }
            byte[] shingleSet =
                    fingerprint.shingleSet() == null ? null : ShingleSetCodec.payload(fingerprint.shingleSet());
            return new LikeFingerprints.Minhash(
                    fingerprint.minhash(),
                    shingleSet,
                    processor.scheme().schemeHash(),
                    processor.scheme().id());
        }
        if (like instanceof Like.Simhash) {
            throw new IllegalArgumentException(
                    "[like.simhash] cannot be compared with [minhash] field [" + field + "]");
        }
        throw Like.unknown(like);
    }

    private static LikeFingerprints.Minhash storedSignature(
            String id, Like document, MinhashFieldMapper.MinhashFieldType fieldType, QueryShardContext context) {
        FingerprintObject.Parts stored = storedParts(
                id, document, fieldType.name(), context, FingerprintObject.MINHASH_KEYS, "MinHash signature");
        return signature(stored.value(), stored.shingles(), stored.scheme(), fieldType, id);
    }

    private static LikeFingerprints.Minhash signature(
            String encoded,
            String shingles,
            String scheme,
            MinhashFieldMapper.MinhashFieldType fieldType,
            String selfId) {
        try {
            return fieldType.likeFingerprintOf(encoded, shingles, scheme);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    (selfId == null ? "[like.minhash]" : "[like._id] document [" + selfId + "]") + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * A liked document is read by the query's rewrite on the coordinating node ({@code NearDuplicateQueryBuilder#doRewrite});
     * one that reaches a shard unread came another way (an alias filter, a stored percolator query), where no read
     * may wait.
     */
    /**
     * That document's value of {@code field}, from the source the query's rewrite read on the coordinating node: in
     * {@code like._index}, or, without it, in this shard's index, whose answer the shard takes as it would its own
     * GET's.
     */
    private static Object fieldOf(Like document, String field, QueryShardContext context) {
        Map<String, Object> source;
        if (document instanceof Like.ReadInEachIndex read) {
            source = sourceIn(read, context.index());
        } else if (document instanceof Like.ById byId) {
            source = readOnTheShard(byId, field, context);
        } else {
            source = ((Like.Fetched) document).source();
        }
        return source == null ? null : XContentMapValues.extractValue(field, source);
    }

    /**
     * {@code like._id} without {@code _index} read here, on the shard, which knows its index: a blocking GET on the
     * search thread, as {@code more_like_this} does. It stays only where the coordinating rewrite cannot read it: on
     * OpenSearch 3.0.x, whose rewrite cannot tell the indices searched ({@link #readsOnTheCoordinator}), and for a
     * query that reaches a shard without that rewrite (an alias filter, a percolator query).
     */
    private static Map<String, Object> readOnTheShard(Like.ById byId, String field, QueryShardContext context) {
        String index = context.index().getName();
        GetResponse response = context.getClient()
                .get(new GetRequest(index)
                        .id(byId.id())
                        .fetchSourceContext(new FetchSourceContext(true, new String[] {field}, null)))
                .actionGet();
        if (response.isExists() == false) {
            throw new IllegalArgumentException(
                    "[like._id] document [" + byId.id() + "] not found in index [" + index + "]");
        }
        return response.getSourceAsMap();
    }

    private static Map<String, Object> sourceIn(Like.ReadInEachIndex read, Index index) {
        Like.IndexRead answer = read.byIndexUuid().get(index.getUUID());
        if (answer == null) {
            throw new IllegalArgumentException("[like._id] document [" + read.id() + "] was not read in index ["
                    + index.getName() + "]: the query's rewrite on the coordinating node did not see that index (a "
                    + "remote cluster's shard searched without [ccs_minimize_roundtrips], or an index created since)");
        }
        if (answer.failure() != null) {
            throw ExceptionsHelper.convertToRuntime(answer.failure());
        }
        if (answer.source() == null) {
            throw new IllegalArgumentException(
                    "[like._id] document [" + read.id() + "] not found in index [" + index.getName() + "]");
        }
        return answer.source();
    }

    /** @param document a {@link Like.Fetched} or a {@link Like.ReadInEachIndex} */
    private static LikeFingerprints.Simhash fromDocument(
            String id, Like document, String field, QueryShardContext context) {
        FingerprintObject.Parts stored =
                storedParts(id, document, field, context, FingerprintObject.SIMHASH_KEYS, "simhash");
        return new LikeFingerprints.Simhash(
                SimhashCodec.parseHex(stored.value()),
                stored.margins() == null ? null : Margins.decode(stored.margins()),
                stored.scheme());
    }

    /** The document's stored fingerprint in {@code field}, read as the mapper reads it; a 400 naming the document if it has none. */
    private static FingerprintObject.Parts storedParts(
            String id, Like document, String field, QueryShardContext context, List<String> keys, String kind) {
        Object value = fieldOf(document, field, context);
        FingerprintObject.Parts stored;
        try {
            stored = FingerprintObject.read(value, keys);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "[like._id] document [" + id + "] has a malformed " + kind + " in [" + field + "]: "
                            + e.getMessage(),
                    e);
        }
        if (stored == null) {
            throw new IllegalArgumentException(
                    "[like._id] document [" + id + "] has no " + kind + " in [" + field + "]");
        }
        return stored;
    }

    private LikeFingerprints.Simhash fromText(Like.Text like, String field, QueryShardContext context) {
        NearDupFingerprintProcessor processor = processorFor(like, field, context, false);
        Fingerprint fingerprint = fingerprintOf(
                processor,
                like.text(),
                true,
                IndexFingerprintFormat.of(context.getIndexSettings().getSettings()));
        return new LikeFingerprints.Simhash(
                fingerprint.simhash(), fingerprint.margins(), processor.scheme().id());
    }

    private static String pipelineOf(Like.Text like, QueryShardContext context) {
        return like.pipeline() != null
                ? like.pipeline()
                : context.getIndexSettings().getDefaultPipeline();
    }

    /** The processor of the pipeline that writes the query's field: the text is fingerprinted exactly as the documents were. */
    private NearDupFingerprintProcessor processorFor(
            Like.Text like, String field, QueryShardContext context, boolean minhash) {
        String pipelineId = pipelineOf(like, context);
        if (pipelineId == null || "_none".equals(pipelineId)) {
            throw new IllegalArgumentException("[like.text] needs the pipeline that fingerprints [" + field
                    + "]: set [like.pipeline], " + "or [index.default_pipeline] on index ["
                    + context.index().getName() + "]");
        }
        if (like.pipeline() != null && like.pipelineChecked() == false) {
            // A pipeline named in the request is read only by a caller who may read pipelines (with the Security
            // plugin, cluster:admin/ingest/pipeline/get), so that a query cannot tell a user who may not whether a
            // pipeline exists or what it holds. The query's rewrite reads it as the caller, asynchronously
            // (NearDuplicateQueryBuilder#checkPipelineReadable); a query that reaches the shard without that
            // rewrite (an alias filter being validated, a percolator's stored query) is refused rather than
            // making this thread wait on that read.
            throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] is read as the caller by "
                    + "the query's rewrite, which this query did not go through (an alias filter, a percolator "
                    + "query): leave [like.pipeline] out there, and the index's [index.default_pipeline] is used");
        }
        // The node's own pipelines, as its cluster state (IngestMetadata) holds them: nothing to wait for.
        Pipeline pipeline = ingestService.get().getPipeline(pipelineId);
        if (pipeline == null) {
            throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] does not exist");
        }
        for (Processor candidate : pipeline.flattenAllProcessors()) {
            Processor unwrapped =
                    candidate instanceof ConditionalProcessor conditional ? conditional.getInnerProcessor() : candidate;
            if (unwrapped instanceof NearDupFingerprintProcessor fingerprinting
                    && (minhash ? fingerprinting.writesMinhashTo(field) : fingerprinting.writesSimhashTo(field))) {
                return fingerprinting;
            }
        }
        throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] has no ["
                + NearDupFingerprintProcessor.TYPE + "] processor writing a "
                + (minhash ? "MinHash signature" : "simhash") + " to [" + field + "]");
    }

    /** The side of {@code text}'s fingerprint a query compares with: the simhash, or the MinHash side. */
    private static Fingerprint fingerprintOf(
            NearDupFingerprintProcessor processor, String text, boolean simhash, FingerprintFormat format) {
        Fingerprint fingerprint = simhash
                ? processor.fingerprint(text, true, false, false, format)
                : processor.fingerprint(text, false, true, processor.writesShingleSets(), format);
        if (fingerprint.tokens() == 0) {
            throw new IllegalArgumentException("[like.text] has no tokens after analysis, so it has no fingerprint");
        }
        return fingerprint;
    }
}
