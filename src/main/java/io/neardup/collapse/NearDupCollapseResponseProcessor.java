package io.neardup.collapse;

import io.neardup.collapse.HitFingerprint.Kind;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.SearchResponseSections;
import org.opensearch.common.document.DocumentField;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.search.SearchExtBuilder;
import org.opensearch.search.SearchHit;
import org.opensearch.search.SearchHits;
import org.opensearch.search.aggregations.InternalAggregations;
import org.opensearch.search.internal.InternalSearchResponse;
import org.opensearch.search.pipeline.AbstractProcessor;
import org.opensearch.search.pipeline.PipelineProcessingContext;
import org.opensearch.search.pipeline.Processor;
import org.opensearch.search.pipeline.SearchResponseProcessor;
import org.opensearch.search.profile.SearchProfileShardResults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Folds near-duplicates in a result list into the best-ranked copy: hits are taken in rank order,
 * and a hit within the threshold of an already kept hit (a leader) of the same fingerprint scheme
 * is folded into the best-ranked such leader (greedy leader clustering, {@link NearDupCollapser}).
 * Each kept hit gets {@code fields._near_dup.folded} (how many hits were folded into it) and, when
 * some were, {@code fields._near_dup.ids} (their {@code _id}s in rank order, at most
 * {@code max_folded_ids}); the response gets {@code ext.near_dup_collapse} with the counts.
 *
 * <p>With {@link NearDupWindowRequestProcessor} in the same pipeline, the engine returned the top
 * {@code window} hits; they are all collapsed and the user's {@code from}/{@code size} is then cut
 * out of the collapsed list. Without it, the page as returned is collapsed (and may shrink).
 */
public final class NearDupCollapseResponseProcessor extends AbstractProcessor implements SearchResponseProcessor {
    public static final String TYPE = "near_dup_collapse";
    public static final String FOLDED_FIELD = "_near_dup.folded";
    public static final String IDS_FIELD = "_near_dup.ids";
    public static final int DEFAULT_MAX_DISTANCE = 3;
    public static final int MAX_MAX_DISTANCE = 16;
    public static final double DEFAULT_MIN_SIMILARITY = 0.8;
    public static final int DEFAULT_MAX_FOLDED_IDS = 10;
    public static final int MAX_MAX_FOLDED_IDS = 1000;

    private final String field;
    /** SIMHASH when max_distance was given, MINHASH when min_similarity was, null: told by the first fingerprint. */
    private final Kind kind;
    private final int maxDistance;
    private final double minSimilarity;
    private final int maxFoldedIds;

    NearDupCollapseResponseProcessor(
        String tag,
        String description,
        boolean ignoreFailure,
        String field,
        Kind kind,
        int maxDistance,
        double minSimilarity,
        int maxFoldedIds
    ) {
        super(tag, description, ignoreFailure);
        this.field = field;
        this.kind = kind;
        this.maxDistance = maxDistance;
        this.minSimilarity = minSimilarity;
        this.maxFoldedIds = maxFoldedIds;
    }

    @Override
    public String getType() {
        return TYPE;
    }

    public String field() {
        return field;
    }

    public int maxDistance() {
        return maxDistance;
    }

    public double minSimilarity() {
        return minSimilarity;
    }

    public int maxFoldedIds() {
        return maxFoldedIds;
    }

    /** The configured fingerprint kind, or null when it is told at search time by the first fingerprint. */
    Kind kind() {
        return kind;
    }

    @Override
    public SearchResponse processResponse(SearchRequest request, SearchResponse response) {
        return processResponse(request, response, null);
    }

    @Override
    public SearchResponse processResponse(SearchRequest request, SearchResponse response, PipelineProcessingContext context) {
        if (response.getHits() == null || request.scroll() != null) {
            return response; // a scroll (reindex, export) must see every document
        }
        CollapseWindow window = context == null ? null : (CollapseWindow) context.getAttribute(CollapseWindow.ATTRIBUTE);
        if (window != null) {
            if (window.used()) {
                window = null; // an earlier collapse processor already cut the page
            } else {
                window.markUsed();
            }
        }
        SearchHit[] hits = response.getHits().getHits();
        int n = hits.length;

        // 1. every hit's fingerprint, in rank order; per-hit state stays inside the loop
        HitFingerprint[] fingerprints = new HitFingerprint[n];
        Kind resolved = kind;
        String firstOfKind = null;
        int withoutFingerprint = 0;
        for (int i = 0; i < n; i++) {
            HitFingerprint fp = HitFingerprint.read(hits[i], field);
            if (fp == null) {
                withoutFingerprint++;
                continue;
            }
            if (resolved == null) {
                resolved = fp.kind();
                firstOfKind = hits[i].getId();
            } else if (fp.kind() != resolved) {
                throw new IllegalArgumentException(HitFingerprint.prefix(hits[i], field) + "holds a " + fp.kind().label
                    + (kind != null
                        ? (", but the processor was configured for " + resolved.label + " fingerprints with ["
                            + (resolved == Kind.SIMHASH ? "max_distance" : "min_similarity") + "]")
                        : (", but hit [" + firstOfKind + "] holds a " + resolved.label)));
            }
            fingerprints[i] = fp;
        }

        // 2. greedy leaders, in rank order
        Map<String, Integer> schemes = new HashMap<>();
        int[] schemeKeys = new int[n];
        for (int i = 0; i < n; i++) {
            HitFingerprint fp = fingerprints[i];
            schemeKeys[i] = fp == null
                ? NearDupCollapser.MISSING
                : schemes.computeIfAbsent(fp.scheme() == null ? "" : fp.scheme(), s -> schemes.size());
        }
        int[] leaderOf;
        String verification = null;
        if (resolved == Kind.MINHASH) {
            // Exact Jaccard when every fingerprinted hit brought its shingle set; one rule for the whole window otherwise.
            boolean exact = true;
            int[][] signatures = new int[n][];
            int[][] shingleSets = new int[n][];
            for (int i = 0; i < n; i++) {
                signatures[i] = fingerprints[i] == null ? null : fingerprints[i].signature();
                shingleSets[i] = fingerprints[i] == null ? null : fingerprints[i].shingleSet();
                exact &= fingerprints[i] == null || shingleSets[i] != null;
            }
            verification = exact ? "exact" : "estimate";
            leaderOf = exact ? NearDupCollapser.collapseJaccard(shingleSets, schemeKeys, minSimilarity)
                : NearDupCollapser.collapseMinhash(signatures, schemeKeys, minSimilarity);
        } else {
            long[] simhashes = new long[n];
            for (int i = 0; i < n; i++) {
                simhashes[i] = fingerprints[i] == null ? 0 : fingerprints[i].simhash();
            }
            leaderOf = NearDupCollapser.collapseSimhash(simhashes, schemeKeys, maxDistance);
        }

        // 3. groups: the leaders in rank order, each with its folded hits in rank order
        int[] foldedCount = new int[n];
        List<List<String>> foldedIds = new ArrayList<>(n);
        List<Integer> leaders = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            foldedIds.add(null);
            if (leaderOf[i] == i) {
                leaders.add(i);
            } else {
                int leader = leaderOf[i];
                foldedCount[leader]++;
                if (foldedIds.get(leader) == null) {
                    foldedIds.set(leader, new ArrayList<>());
                }
                if (foldedIds.get(leader).size() < maxFoldedIds) {
                    foldedIds.get(leader).add(hits[i].getId());
                }
            }
        }

        // 4. the user's page out of the collapsed list
        int from = 0;
        int to = leaders.size();
        if (window != null) {
            from = Math.min(window.from(), leaders.size());
            to = (int) Math.min((long) window.from() + window.size(), leaders.size());
        }
        Object[] collapseValues = response.getHits().getCollapseValues();
        SearchHit[] page = new SearchHit[to - from];
        Object[] pageCollapseValues = collapseValues == null ? null : new Object[page.length];
        for (int p = 0; p < page.length; p++) {
            int rank = leaders.get(from + p);
            SearchHit hit = hits[rank];
            hit.setDocumentField(FOLDED_FIELD, new DocumentField(FOLDED_FIELD, List.of(foldedCount[rank])));
            List<String> ids = foldedIds.get(rank);
            if (ids != null && ids.isEmpty() == false) {
                hit.setDocumentField(IDS_FIELD, new DocumentField(IDS_FIELD, new ArrayList<>(ids)));
            }
            page[p] = hit;
            if (pageCollapseValues != null && rank < collapseValues.length) {
                pageCollapseValues[p] = collapseValues[rank];
            }
        }

        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("field", field);
        if (resolved != null) {
            stats.put("fingerprint", resolved.label);
        }
        if (verification != null) {
            stats.put("verification", verification);
        }
        if (window != null) {
            stats.put("window", window.window());
        }
        stats.put("hits", n);
        stats.put("groups", leaders.size());
        stats.put("folded", n - leaders.size());
        stats.put("without_fingerprint", withoutFingerprint);
        if (window != null) {
            stats.put("from", window.from());
            stats.put("size", window.size());
        }
        SearchHits newHits = new SearchHits(
            page,
            response.getHits().getTotalHits(),
            response.getHits().getMaxScore(),
            response.getHits().getSortFields(),
            response.getHits().getCollapseField(),
            pageCollapseValues
        );
        return replace(response, newHits, new NearDupCollapseExt(stats));
    }

    /** A copy of the response with other hits and this processor's ext section; everything else is kept. */
    static SearchResponse replace(SearchResponse response, SearchHits hits, NearDupCollapseExt ext) {
        SearchResponseSections internal = response.getInternalResponse();
        List<SearchExtBuilder> exts = new ArrayList<>();
        List<org.opensearch.search.pipeline.ProcessorExecutionDetail> processorResult = new ArrayList<>();
        if (internal != null) {
            for (SearchExtBuilder existing : internal.getSearchExtBuilders()) {
                if (NearDupCollapseExt.NAME.equals(existing.getWriteableName()) == false) {
                    exts.add(existing);
                }
            }
            processorResult.addAll(internal.getProcessorResult());
        }
        exts.add(ext);
        SearchResponseSections sections;
        if (response.getAggregations() == null || response.getAggregations() instanceof InternalAggregations) {
            sections = new InternalSearchResponse(
                hits,
                (InternalAggregations) response.getAggregations(),
                response.getSuggest(),
                new SearchProfileShardResults(response.getProfileResults()),
                response.isTimedOut(),
                response.isTerminatedEarly(),
                response.getNumReducePhases(),
                exts,
                processorResult
            );
        } else {
            sections = new SearchResponseSections(
                hits,
                response.getAggregations(),
                response.getSuggest(),
                response.isTimedOut(),
                response.isTerminatedEarly(),
                new SearchProfileShardResults(response.getProfileResults()),
                response.getNumReducePhases(),
                exts,
                processorResult
            );
        }
        return new SearchResponse(
            sections,
            response.getScrollId(),
            response.getTotalShards(),
            response.getSuccessfulShards(),
            response.getSkippedShards(),
            response.getTook().millis(),
            response.getPhaseTook(),
            response.getShardFailures(),
            response.getClusters(),
            response.pointInTimeId()
        );
    }

    /**
     * Parses {@code {"field": …, "max_distance": 3}} (simhash) or {@code {"field": …, "min_similarity": 0.8}}
     * (minhash), and {@code max_folded_ids}. Every bad value fails the pipeline PUT naming the option.
     */
    public static final class Factory implements Processor.Factory<SearchResponseProcessor> {
        @Override
        public NearDupCollapseResponseProcessor create(
            Map<String, Processor.Factory<SearchResponseProcessor>> processorFactories,
            String tag,
            String description,
            boolean ignoreFailure,
            Map<String, Object> config,
            PipelineContext pipelineContext
        ) {
            if (config.containsKey("window")) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "window",
                    "is an option of the [" + NearDupWindowRequestProcessor.TYPE + "] request processor: add "
                        + "{\"" + NearDupWindowRequestProcessor.TYPE + "\": {\"window\": " + config.get("window")
                        + "}} to the pipeline's request_processors");
            }
            String field = ConfigurationUtils.readStringProperty(TYPE, tag, config, "field");
            if (field.isBlank()) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "field", "must not be empty");
            }
            boolean hasDistance = config.get("max_distance") != null;
            boolean hasSimilarity = config.get("min_similarity") != null;
            if (hasDistance && hasSimilarity) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "min_similarity",
                    "cannot be combined with [max_distance]: [max_distance] is for simhash fields, [min_similarity] for minhash fields");
            }
            int maxDistance = ConfigurationUtils.readIntProperty(TYPE, tag, config, "max_distance", DEFAULT_MAX_DISTANCE);
            if (maxDistance < 0 || maxDistance > MAX_MAX_DISTANCE) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "max_distance",
                    "must be in [0, " + MAX_MAX_DISTANCE + "], got [" + maxDistance + "]");
            }
            double minSimilarity = hasSimilarity
                ? ConfigurationUtils.readDoubleProperty(TYPE, tag, config, "min_similarity")
                : DEFAULT_MIN_SIMILARITY;
            if (!(minSimilarity > 0 && minSimilarity <= 1)) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "min_similarity",
                    "must be in (0, 1], got [" + minSimilarity + "]");
            }
            int maxFoldedIds = ConfigurationUtils.readIntProperty(TYPE, tag, config, "max_folded_ids", DEFAULT_MAX_FOLDED_IDS);
            if (maxFoldedIds < 0 || maxFoldedIds > MAX_MAX_FOLDED_IDS) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "max_folded_ids",
                    "must be in [0, " + MAX_MAX_FOLDED_IDS + "], got [" + maxFoldedIds + "]");
            }
            Kind kind = hasDistance ? Kind.SIMHASH : hasSimilarity ? Kind.MINHASH : null;
            return new NearDupCollapseResponseProcessor(tag, description, ignoreFailure, field, kind, maxDistance, minSimilarity,
                maxFoldedIds);
        }
    }
}
