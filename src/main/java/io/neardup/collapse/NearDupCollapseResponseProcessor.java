/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.collapse;

import io.neardup.collapse.HitFingerprint.Kind;
import io.neardup.core.NearDupCollapser;
import io.neardup.index.NearDupOption;
import io.neardup.index.NearDupOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
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

/**
 * Folds near-duplicates in a result list into the best-ranked copy: hits are taken in rank order,
 * and a hit within the threshold of an already kept hit (a leader) of the same fingerprint scheme
 * is folded into the best-ranked such leader (greedy leader clustering, {@link NearDupCollapser}).
 * Each kept hit gets {@code fields._near_dup.folded} (how many hits were folded into it) and, when
 * some were, {@code fields._near_dup.ids} (their {@code _id}s in rank order, at most
 * {@code max_folded_ids}) and, where the hits come from more than one index (a data stream, a pattern), beside
 * them {@code fields._near_dup.indices} (an {@code _id} is unique only inside one index); the response gets
 * {@code ext.near_dup_collapse} with the counts.
 *
 * <p>With {@link NearDupWindowRequestProcessor} in the same pipeline, the engine returned the top
 * {@code window} hits; they are all collapsed and the user's {@code from}/{@code size} is then cut
 * out of the collapsed list. Without it, the page as returned is collapsed (and may shrink).
 */
public final class NearDupCollapseResponseProcessor extends AbstractProcessor implements SearchResponseProcessor {
    public static final String TYPE = "near_dup_collapse";
    public static final String FOLDED_FIELD = "_near_dup.folded";
    public static final String IDS_FIELD = "_near_dup.ids";
    /** The index of each of {@link #IDS_FIELD}, where the hits come from more than one index. */
    public static final String INDICES_FIELD = "_near_dup.indices";

    public static final int DEFAULT_MAX_DISTANCE = 3;
    public static final int MAX_MAX_DISTANCE = 16;
    public static final double DEFAULT_MIN_SIMILARITY = 0.8;
    public static final int DEFAULT_MAX_FOLDED_IDS = 10;
    public static final int MAX_MAX_FOLDED_IDS = 1000;
    /** The matching options that fold hits ({@code max_distance} is read apart, with its own range). */
    static final Set<NearDupOption> OPTIONS = EnumSet.of(NearDupOption.MIN_SIMILARITY);

    static final String NOT_AN_OPTION =
            "does not apply: [" + TYPE + "] folds hits within [max_distance] (simhash) or [min_similarity] (minhash)";

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
            int maxFoldedIds) {
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
    public SearchResponse processResponse(
            SearchRequest request, SearchResponse response, PipelineProcessingContext context) {
        if (response.getHits() == null || request.scroll() != null) {
            return response; // a scroll (reindex, export) must see every document
        }
        CollapseWindow window =
                context == null ? null : (CollapseWindow) context.getAttribute(CollapseWindow.ATTRIBUTE);
        if (window != null) {
            if (window.used()) {
                window = null; // an earlier collapse processor already cut the page
            } else {
                window.markUsed();
            }
        }
        int requested = window != null
                ? window.size()
                : request.source() == null ? 10 : request.source().size();
        if (requested == 0) {
            return response; // size 0 (counts, aggregations): nothing to collapse, nothing to add
        }
        SearchHit[] hits = response.getHits().getHits();
        Fingerprints fingerprints = read(hits);
        Groups groups = group(hits, fingerprints);
        return replace(
                response,
                page(response, hits, groups, window),
                new NearDupCollapseExt(summary(hits.length, fingerprints, groups, window)));
    }

    /** Every hit's fingerprint (null where it has none), in rank order, and their one kind. */
    private record Fingerprints(HitFingerprint[] of, Kind kind, int missing) {}

    /** The leaders in rank order, each hit's leader, the folded hits per leader, and how MinHash hits were compared. */
    private record Groups(
            List<Integer> leaders,
            int[] leaderOf,
            int[] foldedCount,
            List<List<Integer>> folded,
            String verification) {}

    private Fingerprints read(SearchHit[] hits) {
        HitFingerprint[] fingerprints = new HitFingerprint[hits.length];
        Kind resolved = kind;
        String firstOfKind = null;
        int missing = 0;
        for (int i = 0; i < hits.length; i++) {
            HitFingerprint fp = HitFingerprint.read(hits[i], field);
            if (fp == null) {
                missing++;
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
        return new Fingerprints(fingerprints, resolved, missing);
    }

    /** Greedy leaders in rank order (see {@link NearDupCollapser}); fingerprints of different schemes are never compared. */
    private Groups group(SearchHit[] hits, Fingerprints fingerprints) {
        int n = hits.length;
        HitFingerprint[] fps = fingerprints.of();
        int[] leaderOf;
        String verification = null;
        if (fingerprints.kind() == Kind.MINHASH) {
            // Exact Jaccard when every fingerprinted hit brought its shingle set (then sets of one scheme compare
            // whatever their format); one rule for the whole window otherwise.
            boolean exact = true;
            int[][] signatures = new int[n][];
            int[][] shingleSets = new int[n][];
            for (int i = 0; i < n; i++) {
                signatures[i] = fps[i] == null ? null : fps[i].signature();
                shingleSets[i] = fps[i] == null ? null : fps[i].shingleSet();
                exact &= fps[i] == null || shingleSets[i] != null;
            }
            verification = exact ? "exact" : "estimate";
            leaderOf = exact
                    ? NearDupCollapser.collapseJaccard(
                            shingleSets, schemeKeys(fps, HitFingerprint::shingleSetScheme), minSimilarity)
                    : NearDupCollapser.collapseMinhash(
                            signatures, schemeKeys(fps, HitFingerprint::scheme), minSimilarity);
        } else {
            long[] simhashes = new long[n];
            for (int i = 0; i < n; i++) {
                simhashes[i] = fps[i] == null ? 0 : fps[i].simhash();
            }
            leaderOf =
                    NearDupCollapser.collapseSimhash(simhashes, schemeKeys(fps, HitFingerprint::scheme), maxDistance);
        }
        int[] foldedCount = new int[n];
        List<List<Integer>> folded = new ArrayList<>(n);
        List<Integer> leaders = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            folded.add(null);
            if (leaderOf[i] == i) {
                leaders.add(i);
            } else {
                int leader = leaderOf[i];
                foldedCount[leader]++;
                if (folded.get(leader) == null) {
                    folded.set(leader, new ArrayList<>());
                }
                if (folded.get(leader).size() < maxFoldedIds) {
                    folded.get(leader).add(i);
                }
            }
        }
        return new Groups(leaders, leaderOf, foldedCount, folded, verification);
    }

    /** Each hit's scheme as a small number, hits with equal {@code key}s alike; {@link NearDupCollapser#MISSING} without a fingerprint. */
    private static int[] schemeKeys(HitFingerprint[] fps, Function<HitFingerprint, String> key) {
        Map<String, Integer> schemes = new HashMap<>();
        int[] keys = new int[fps.length];
        for (int i = 0; i < fps.length; i++) {
            keys[i] = fps[i] == null
                    ? NearDupCollapser.MISSING
                    : schemes.computeIfAbsent(Objects.toString(key.apply(fps[i]), ""), s -> schemes.size());
        }
        return keys;
    }

    /** The user's page out of the collapsed list: all groups, or {@code from} to {@code from + size} behind a window. */
    private SearchHits page(SearchResponse response, SearchHit[] hits, Groups groups, CollapseWindow window) {
        List<Integer> leaders = groups.leaders();
        int from = 0;
        int to = leaders.size();
        if (window != null) {
            from = Math.min(window.from(), leaders.size());
            to = (int) Math.min((long) window.from() + window.size(), leaders.size());
        }
        Object[] collapseValues = response.getHits().getCollapseValues();
        SearchHit[] page = new SearchHit[to - from];
        Object[] pageCollapseValues = collapseValues == null ? null : new Object[page.length];
        boolean manyIndices =
                Arrays.stream(hits).map(SearchHit::getIndex).distinct().count() > 1;
        for (int p = 0; p < page.length; p++) {
            int rank = leaders.get(from + p);
            SearchHit hit = hits[rank];
            hit.setDocumentField(FOLDED_FIELD, new DocumentField(FOLDED_FIELD, List.of(groups.foldedCount()[rank])));
            List<Integer> folded = groups.folded().get(rank);
            if (folded != null && folded.isEmpty() == false) {
                List<Object> ids = new ArrayList<>(folded.size());
                List<Object> indices = new ArrayList<>(folded.size());
                for (int i : folded) {
                    ids.add(hits[i].getId());
                    indices.add(hits[i].getIndex());
                }
                hit.setDocumentField(IDS_FIELD, new DocumentField(IDS_FIELD, ids));
                if (manyIndices) {
                    hit.setDocumentField(INDICES_FIELD, new DocumentField(INDICES_FIELD, indices));
                }
            }
            page[p] = hit;
            if (pageCollapseValues != null && rank < collapseValues.length) {
                pageCollapseValues[p] = collapseValues[rank];
            }
        }
        return new SearchHits(
                page,
                response.getHits().getTotalHits(),
                response.getHits().getMaxScore(),
                response.getHits().getSortFields(),
                response.getHits().getCollapseField(),
                pageCollapseValues);
    }

    private Map<String, Object> summary(int n, Fingerprints fingerprints, Groups groups, CollapseWindow window) {
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("field", field);
        if (fingerprints.kind() != null) {
            stats.put("fingerprint", fingerprints.kind().label);
        }
        if (groups.verification() != null) {
            stats.put("verification", groups.verification());
        }
        if (window != null) {
            stats.put("window", window.window());
        }
        stats.put("hits", n);
        stats.put("groups", groups.leaders().size());
        stats.put("folded", n - groups.leaders().size());
        stats.put("without_fingerprint", fingerprints.missing());
        if (window != null) {
            stats.put("from", window.from());
            stats.put("size", window.size());
        }
        return stats;
    }

    /** The response's profile, or none when it has none (an empty one would show as {@code "profile": {"shards": []}}). */
    private static SearchProfileShardResults profile(SearchResponse response) {
        return response.getProfileResults() == null
                        || response.getProfileResults().isEmpty()
                ? null
                : new SearchProfileShardResults(response.getProfileResults());
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
                    profile(response),
                    response.isTimedOut(),
                    response.isTerminatedEarly(),
                    response.getNumReducePhases(),
                    exts,
                    processorResult);
        } else {
            sections = new SearchResponseSections(
                    hits,
                    response.getAggregations(),
                    response.getSuggest(),
                    response.isTimedOut(),
                    response.isTerminatedEarly(),
                    profile(response),
                    response.getNumReducePhases(),
                    exts,
                    processorResult);
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
                response.pointInTimeId());
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
                PipelineContext pipelineContext) {
            if (config.containsKey("window")) {
                throw ConfigurationUtils.newConfigurationException(
                        TYPE,
                        tag,
                        "window",
                        "is an option of the [" + NearDupWindowRequestProcessor.TYPE + "] request processor: add "
                                + "{\"" + NearDupWindowRequestProcessor.TYPE + "\": {\"window\": "
                                + config.get("window")
                                + "}} to the pipeline's request_processors");
            }
            String field = ConfigurationUtils.readStringProperty(TYPE, tag, config, "field");
            if (field.isBlank()) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, "field", "must not be empty");
            }
            boolean hasDistance = config.containsKey(NearDupOption.MAX_DISTANCE.paramName());
            boolean hasSimilarity = config.containsKey(NearDupOption.MIN_SIMILARITY.paramName());
            if (hasDistance && hasSimilarity) {
                throw ConfigurationUtils.newConfigurationException(
                        TYPE,
                        tag,
                        "min_similarity",
                        "cannot be combined with [max_distance]: [max_distance] is for simhash fields, [min_similarity] for minhash fields");
            }
            int maxDistance = DEFAULT_MAX_DISTANCE;
            double minSimilarity = DEFAULT_MIN_SIMILARITY;
            try {
                if (hasDistance) {
                    // Wider than the query's: folding compares each hit with the leaders, no flip sets to bound.
                    maxDistance = NearDupOption.MAX_DISTANCE.readIntWithin(
                            config.remove(NearDupOption.MAX_DISTANCE.paramName()), 0, MAX_MAX_DISTANCE);
                }
                NearDupOptions options = new NearDupOptions.Reader(OPTIONS, NOT_AN_OPTION)
                        .readFrom(config)
                        .options();
                if (options.minSimilarity() != null) {
                    minSimilarity = options.minSimilarity();
                }
            } catch (NearDupOption.Invalid e) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, e.option(), e.reason());
            }
            int maxFoldedIds = DEFAULT_MAX_FOLDED_IDS;
            try {
                Integer read = NearDupOption.removeIntSetting(config, "max_folded_ids", 0, MAX_MAX_FOLDED_IDS);
                maxFoldedIds = read == null ? DEFAULT_MAX_FOLDED_IDS : read;
            } catch (NearDupOption.Invalid e) {
                throw ConfigurationUtils.newConfigurationException(TYPE, tag, e.option(), e.reason());
            }
            Kind kind = hasDistance ? Kind.SIMHASH : hasSimilarity ? Kind.MINHASH : null;
            return new NearDupCollapseResponseProcessor(
                    tag, description, ignoreFailure, field, kind, maxDistance, minSimilarity, maxFoldedIds);
        }
    }
}
