/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.core.FingerprintScheme;
import io.neardup.core.MemoryBudget;
import io.neardup.core.ShingleAlignment;
import io.neardup.core.TextTokens;
import io.neardup.index.BreakerBudget;
import io.neardup.index.FieldExposure;
import io.neardup.index.FingerprintFields;
import io.neardup.index.SegmentScheme;
import io.neardup.index.SimhashFieldMapper;
import io.neardup.ingest.NearDupFingerprintProcessor;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.search.IndexSearcher;
import org.opensearch.common.document.DocumentField;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.index.IndexSettings;
import org.opensearch.ingest.IngestService;
import org.opensearch.search.fetch.FetchContext;
import org.opensearch.search.fetch.FetchSubPhase;
import org.opensearch.search.fetch.FetchSubPhaseProcessor;

/**
 * Adds {@code near_dup_explain} to each hit's {@code fields}, the way highlighting adds {@code highlight}: the
 * comparison of the request's {@code like} text (a) with the hit's field (b), as {@code _near_dup/_compare} answers
 * it, both analyzed by the searched index's default pipeline. The like text is analyzed once per fetch, at its first hit,
 * and each text's simhash computed from its tokens, not by analyzing it again (a third of the work per hit before). The
 * like's tokens are charged to the {@code neardup} breaker with each hit's scratch, while that hit is explained, and
 * given back with it: a fetch processor has no end to release a reservation for the whole fetch at, so while the like
 * is analyzed and between two hits of one fetch they are held uncharged (at most 12 bytes a token of the like text, whose
 * length the fingerprint processor caps). A hit without the field,
 * or whose field the caller's reader hides or masks (the Security plugin's FLS, field masking), gets nothing.
 */
public final class NearDupExplainPhase implements FetchSubPhase {
    static final String BREAKER_LABEL = "near_dup_explain";

    private final Supplier<IngestService> ingestService;
    private final Supplier<CircuitBreaker> breaker;
    /** Per search context (by its searcher): weak keys, compared by identity ({@code IndexSearcher} does not override {@code equals}). */
    private final Map<IndexSearcher, AtomicLong> explainedBySearcher = new WeakHashMap<>();

    public NearDupExplainPhase(Supplier<IngestService> ingestService, Supplier<CircuitBreaker> breaker) {
        this.ingestService = ingestService;
        this.breaker = breaker;
    }

    @Override
    public FetchSubPhaseProcessor getProcessor(FetchContext context) {
        if (context.getSearchExt(NearDupExplainExt.NAME) instanceof NearDupExplainExt ext) {
            if (ext.likeDocument() != null) {
                // NearDupExplainCoordinator reads it on the coordinating node; a shard cannot read it as the caller.
                throw new IllegalStateException("[" + NearDupExplainExt.NAME + ".like._id] reached shard of index ["
                        + context.getIndexName() + "] unread");
            }
            String pipelineId = IndexSettings.DEFAULT_PIPELINE.get(
                    context.getIndexSettings().getSettings());
            if (pipelineId == null || pipelineId.isEmpty() || "_none".equals(pipelineId)) {
                throw new IllegalArgumentException("[" + NearDupExplainExt.NAME + "] analyzes texts with the "
                        + "[index.default_pipeline] of the index searched; index [" + context.getIndexName()
                        + "] has none");
            }
            NearDupFingerprintProcessor processor = ComparePipelines.processorOf(
                    ingestService.get().getPipeline(pipelineId), pipelineId, ext.fingerprint(), List.of(ext.field()));
            return new Explainer(ext, processor, explainedOn(context));
        }
        return null;
    }

    /**
     * Characters explained so far by this shard's search context, shared by each fetch it runs (the hits', each bucket's
     * {@code top_hits}, inner hits), so that a shard's share holds across them: its searcher is the one object they all
     * see. The entry goes with the searcher.
     */
    private AtomicLong explainedOn(FetchContext context) {
        synchronized (explainedBySearcher) {
            return explainedBySearcher.computeIfAbsent(context.searcher(), searcher -> new AtomicLong());
        }
    }

    private final class Explainer implements FetchSubPhaseProcessor {
        private final NearDupExplainExt ext;
        private final NearDupFingerprintProcessor processor;
        private final boolean simhash;
        /** Characters of hits explained so far on this shard. */
        private final AtomicLong explained;
        /** The like text's tokens, from the first hit on; charged while each hit is explained (see the class). */
        private TextTokens like;

        private long likeSimhash;

        Explainer(NearDupExplainExt ext, NearDupFingerprintProcessor processor, AtomicLong explained) {
            this.ext = ext;
            this.processor = processor;
            this.explained = explained;
            this.simhash = processor.writesSimhashTo(processor.targetField() + ".simhash");
        }

        /** Whether the caller's reader of the current segment shows the field as stored (not FLS-hidden, not masked). */
        private boolean exposed;

        /**
         * The segment's stored simhashes where they are the processor's (its scheme recorded for every document) and the
         * caller's reader shows them: the hit's simhash is then read, not computed again from its text.
         */
        private SortedNumericDocValues storedSimhashes;

        @Override
        public void setNextReader(LeafReaderContext readerContext) throws IOException {
            LeafReader reader = readerContext.reader();
            exposed = FieldExposure.exposesField(reader, ext.field());
            storedSimhashes = null;
            String simhashField = processor.targetField() + ".simhash";
            if (simhash && exposed && FieldExposure.exposes(reader, simhashField)) {
                String segmentScheme;
                try {
                    segmentScheme = SegmentScheme.of(reader, simhashField, FingerprintFields.schemeField(simhashField));
                } catch (IllegalArgumentException severalSchemes) {
                    segmentScheme = null;
                }
                if (processor.scheme().id().equals(segmentScheme)
                        && DocValues.getSorted(reader, FingerprintFields.schemeField(simhashField))
                                        .cost()
                                >= DocValues.getSortedNumeric(reader, simhashField)
                                        .cost()) {
                    storedSimhashes = reader.getSortedNumericDocValues(simhashField);
                }
            }
        }

        /** The hit's simhash: stored, else of its tokens as the processor computes it. */
        private long simhashOf(int docId, TextTokens hit) throws IOException {
            if (storedSimhashes != null && storedSimhashes.advanceExact(docId)) {
                return SimhashFieldMapper.decode(storedSimhashes.nextValue());
            }
            return processor.simhash(hit);
        }

        @Override
        public void process(HitContext hitContext) throws IOException {
            if (exposed == false) {
                // A masked field's _source holds a hash: passages over it would be no explanation, and not the text.
                return;
            }
            Object value = hitContext.sourceLookup().extractValue(ext.field(), null);
            String text = value instanceof String string
                    ? string
                    : value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)
                            ? String.join(
                                    "\n", list.stream().map(String.class::cast).toList())
                            : null;
            if (text == null) {
                return;
            }
            FingerprintScheme scheme = processor.scheme();
            MemoryBudget budget = BreakerBudget.of(breaker.get(), BREAKER_LABEL);
            if (like == null) {
                // Charged below with each hit, as it is held for the whole fetch (see the class).
                TextTokens tokens = new TextTokens(scheme.seed(), MemoryBudget.NONE);
                processor.tokens(ext.likeText(), tokens);
                like = tokens;
                likeSimhash = simhash && like.size() > 0 ? processor.simhash(like) : 0;
            }
            // Within the shard's share of the request's cap: past it, the measures only (passages for no character).
            int cap = (int) Math.max(0, Math.min(ext.maxExplainedChars(), ext.maxShardChars() - explained.get()));
            ShingleAlignment.Result result;
            int distance = -1;
            budget.reserve(like.bytes());
            try (TextTokens hit = new TextTokens(scheme.seed(), budget)) {
                processor.tokens(text, hit);
                result = ShingleAlignment.align(like, hit, scheme.minhashShingleSize(), scheme.seed(), cap, budget);
                if (simhash && like.size() > 0 && hit.size() > 0) {
                    distance = Long.bitCount(likeSimhash ^ simhashOf(hitContext.docId(), hit));
                }
            } finally {
                budget.release(like.bytes());
            }
            explained.addAndGet(Math.min(text.length(), cap));
            Map<String, Object> explanation = NearDupCompareResponse.explanation(result, distance);
            hitContext
                    .hit()
                    .setDocumentField(
                            NearDupExplainExt.NAME, new DocumentField(NearDupExplainExt.NAME, List.of(explanation)));
        }
    }
}
