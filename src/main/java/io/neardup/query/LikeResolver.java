/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.Margins;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SimhashCodec;
import io.neardup.index.IndexFingerprintFormat;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.NearDupTargets;
import io.neardup.ingest.NearDupFingerprintProcessor;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.get.GetResponse;
import org.opensearch.action.ingest.GetPipelineAction;
import org.opensearch.action.ingest.GetPipelineRequest;
import org.opensearch.action.ingest.GetPipelineResponse;
import org.opensearch.common.xcontent.support.XContentMapValues;
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
 */
public final class LikeResolver {

    private final Supplier<IngestService> ingestService;

    public LikeResolver(Supplier<IngestService> ingestService) {
        this.ingestService = ingestService;
    }

    public NearDupTargets.Simhash resolveSimhash(Like like, String field, QueryShardContext context) {
        return switch (like) {
            case Like.Simhash simhash ->
                new NearDupTargets.Simhash(
                        SimhashCodec.parseHex(simhash.hex()),
                        simhash.margins() == null ? null : Margins.decode(simhash.margins()),
                        simhash.scheme());
            case Like.ById byId -> fromDocument(byId.id(), byId, field, context);
            case Like.Fetched fetched -> fromDocument(fetched.id(), fetched, field, context);
            case Like.Text text -> fromText(text, field, context);
            case Like.Minhash minhash ->
                throw new IllegalArgumentException(
                        "[like.minhash] cannot be compared with [simhash] field [" + field + "]");
        };
    }

    public NearDupTargets.Minhash resolveMinhash(
            Like like, MinhashFieldMapper.MinhashFieldType fieldType, QueryShardContext context) {
        String field = fieldType.name();
        int numHashes = fieldType.numHashes();
        return switch (like) {
            case Like.Minhash minhash ->
                signature(minhash.signature(), minhash.shingles(), minhash.scheme(), fieldType, null);
            case Like.ById byId -> storedSignature(byId.id(), byId, fieldType, context);
            case Like.Fetched fetched -> storedSignature(fetched.id(), fetched, fieldType, context);
            case Like.Text text -> {
                NearDupFingerprintProcessor processor = processorFor(text, field, context, true);
                Fingerprint fingerprint = fingerprintOf(processor, text.text(), false, fieldType.format());
                if (fingerprint.minhash().length != numHashes) {
                    throw new IllegalArgumentException("[like.text] pipeline [" + pipelineOf(text, context)
                            + "] makes signatures of " + fingerprint.minhash().length + " values but field [" + field
                            + "] holds " + numHashes);
                }
                byte[] shingleSet =
                        fingerprint.shingleSet() == null ? null : ShingleSetCodec.payload(fingerprint.shingleSet());
                yield new NearDupTargets.Minhash(
                        fingerprint.minhash(),
                        shingleSet,
                        processor.scheme().schemeHash(),
                        processor.scheme().id());
            }
            case Like.Simhash simhash ->
                throw new IllegalArgumentException(
                        "[like.simhash] cannot be compared with [minhash] field [" + field + "]");
        };
    }

    private static NearDupTargets.Minhash storedSignature(
            String id, Like document, MinhashFieldMapper.MinhashFieldType fieldType, QueryShardContext context) {
        FingerprintObject.Parts stored = storedParts(
                id, document, fieldType.name(), context, FingerprintObject.MINHASH_KEYS, "MinHash signature");
        return signature(stored.value(), stored.shingles(), stored.scheme(), fieldType, id);
    }

    private static NearDupTargets.Minhash signature(
            String encoded,
            String shingles,
            String scheme,
            MinhashFieldMapper.MinhashFieldType fieldType,
            String selfId) {
        try {
            return fieldType.targetOf(encoded, shingles, scheme);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    (selfId == null ? "[like.minhash]" : "[like._id] document [" + selfId + "]") + ": "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * That document's value of {@code field}: from the source the query's rewrite fetched when
     * {@code like._index} was given, else read here, on the shard, which knows the searched index (a
     * blocking lookup on the search thread, as {@code more_like_this} does for its liked documents).
     */
    private static Object fieldOf(Like document, String field, QueryShardContext context) {
        Map<String, Object> source;
        if (document instanceof Like.ById byId) {
            String index = byId.index() != null ? byId.index() : context.index().getName();
            GetResponse response = context.getClient()
                    .get(new GetRequest(index)
                            .id(byId.id())
                            .fetchSourceContext(new FetchSourceContext(true, new String[] {field}, null)))
                    .actionGet();
            if (response.isExists() == false) {
                throw new IllegalArgumentException(
                        "[like._id] document [" + byId.id() + "] not found in index [" + index + "]");
            }
            source = response.getSourceAsMap();
        } else {
            source = ((Like.Fetched) document).source();
        }
        return source == null ? null : XContentMapValues.extractValue(field, source);
    }

    /** @param document a {@link Like.ById} or a {@link Like.Fetched} */
    private static NearDupTargets.Simhash fromDocument(
            String id, Like document, String field, QueryShardContext context) {
        FingerprintObject.Parts stored =
                storedParts(id, document, field, context, FingerprintObject.SIMHASH_KEYS, "simhash");
        return new NearDupTargets.Simhash(
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

    private NearDupTargets.Simhash fromText(Like.Text like, String field, QueryShardContext context) {
        NearDupFingerprintProcessor processor = processorFor(like, field, context, false);
        Fingerprint fingerprint = fingerprintOf(
                processor,
                like.text(),
                true,
                IndexFingerprintFormat.of(context.getIndexSettings().getSettings()));
        return new NearDupTargets.Simhash(
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
        if (like.pipeline() != null) {
            // A pipeline named in the request is read only by a caller who may read pipelines (with the Security
            // plugin, cluster:admin/ingest/pipeline/get), so that a query cannot tell a user who may not whether a
            // pipeline exists or what it holds. The coordinating node's rewrite checked it already (a 403 there);
            // this is for requests that reach the shard without it. From this node's cluster state: no extra hop.
            GetPipelineResponse visible = context.getClient()
                    .execute(GetPipelineAction.INSTANCE, new GetPipelineRequest(pipelineId).local(true))
                    .actionGet();
            if (visible.isFound() == false) {
                throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] does not exist");
            }
        }
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
