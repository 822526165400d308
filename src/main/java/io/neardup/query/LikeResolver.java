package io.neardup.query;

import io.neardup.core.Fingerprint;
import io.neardup.core.Margins;
import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.mapper.SimhashFieldMapper;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.get.GetResponse;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.ingest.ConditionalProcessor;
import org.opensearch.ingest.IngestService;
import org.opensearch.ingest.Pipeline;
import org.opensearch.ingest.Processor;
import org.opensearch.search.fetch.subphase.FetchSourceContext;

import java.util.Map;
import java.util.function.Supplier;

/**
 * Turns a query's {@link Like} into the fingerprint to search for, on the shard that runs the query.
 * A text is fingerprinted by the very processor that fingerprints the index's documents, so the
 * two can only differ if the pipeline changed, which the per-segment scheme check then reports.
 */
public final class LikeResolver {

    /** The fingerprint to look for; {@code margins} and {@code scheme} may be null for bare values. */
    public record Resolved(long simhash, Margins margins, String scheme, String selfId) {
    }

    private final Supplier<IngestService> ingestService;

    public LikeResolver(Supplier<IngestService> ingestService) {
        this.ingestService = ingestService;
    }

    public Resolved resolveSimhash(Like like, String field, QueryShardContext context) {
        return switch (like.kind()) {
            case SIMHASH -> new Resolved(SimhashFieldMapper.parseHex(like.simhash()),
                like.margins() == null ? null : Margins.decode(like.margins()), like.scheme(), null);
            case ID -> fromDocument(like, field, context);
            case TEXT -> fromText(like, field, context);
            case MINHASH -> throw new IllegalArgumentException("[like.minhash] cannot be compared with [simhash] field [" + field + "]");
        };
    }

    private static Resolved fromDocument(Like like, String field, QueryShardContext context) {
        String index = like.index() != null ? like.index() : context.index().getName();
        // A blocking lookup on the search thread, as more_like_this does for its liked documents.
        GetResponse response = context.getClient()
            .get(new GetRequest(index).id(like.id()).fetchSourceContext(new FetchSourceContext(true, new String[] { field }, null)))
            .actionGet();
        if (response.isExists() == false) {
            throw new IllegalArgumentException("[like._id] document [" + like.id() + "] not found in index [" + index + "]");
        }
        Object value = response.getSourceAsMap() == null ? null : XContentMapValues.extractValue(field, response.getSourceAsMap());
        if (value instanceof String hex) {
            return new Resolved(SimhashFieldMapper.parseHex(hex), null, null, like.id());
        }
        if (value instanceof Map<?, ?> object && object.get("value") instanceof String hex) {
            Object margins = object.get("margins");
            Object scheme = object.get("scheme");
            return new Resolved(SimhashFieldMapper.parseHex(hex), margins instanceof String m ? Margins.decode(m) : null,
                scheme instanceof String s ? s : null, like.id());
        }
        throw new IllegalArgumentException("[like._id] document [" + like.id() + "] in index [" + index + "] has no fingerprint in ["
            + field + "]");
    }

    private Resolved fromText(Like like, String field, QueryShardContext context) {
        String pipelineId = like.pipeline() != null ? like.pipeline() : context.getIndexSettings().getDefaultPipeline();
        if (pipelineId == null || "_none".equals(pipelineId)) {
            throw new IllegalArgumentException("[like.text] needs the pipeline that fingerprints [" + field + "]: set [like.pipeline], "
                + "or [index.default_pipeline] on index [" + context.index().getName() + "]");
        }
        Pipeline pipeline = ingestService.get().getPipeline(pipelineId);
        if (pipeline == null) {
            throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] does not exist");
        }
        NearDupFingerprintProcessor processor = null;
        for (Processor candidate : pipeline.flattenAllProcessors()) {
            Processor unwrapped = candidate instanceof ConditionalProcessor conditional ? conditional.getInnerProcessor() : candidate;
            if (unwrapped instanceof NearDupFingerprintProcessor fingerprinting && fingerprinting.writesSimhashTo(field)) {
                processor = fingerprinting;
                break;
            }
        }
        if (processor == null) {
            throw new IllegalArgumentException("[like.text] pipeline [" + pipelineId + "] has no [" + NearDupFingerprintProcessor.TYPE
                + "] processor writing a simhash to [" + field + "]");
        }
        Fingerprint fingerprint = processor.fingerprint(like.text());
        if (fingerprint.tokens() == 0) {
            throw new IllegalArgumentException("[like.text] has no tokens after analysis, so it has no fingerprint");
        }
        return new Resolved(fingerprint.simhash(), fingerprint.margins(), processor.scheme().id(), null);
    }
}
