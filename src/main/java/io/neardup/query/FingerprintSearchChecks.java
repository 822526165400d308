/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.index.FingerprintKind;
import io.neardup.index.SimhashDocValueFormat;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.search.SearchAction;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.action.support.ActionFilterChain;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.metadata.MappingMetadata;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.regex.Regex;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.search.aggregations.AggregationBuilder;
import org.opensearch.search.aggregations.bucket.composite.CompositeAggregationBuilder;
import org.opensearch.search.aggregations.bucket.composite.CompositeValuesSourceBuilder;
import org.opensearch.search.aggregations.bucket.composite.TermsValuesSourceBuilder;
import org.opensearch.search.aggregations.support.ValuesSourceAggregationBuilder;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.fetch.subphase.FieldAndFormat;
import org.opensearch.tasks.Task;

/**
 * Checks a search's use of fingerprint fields on the coordinating node, before any shard runs it,
 * where OpenSearch would otherwise find the problem too late:
 * <ul>
 * <li>a {@code format} on {@code docvalue_fields} or {@code fields}: a field is asked for its
 *     format only in the fetch phase, where a refusal fails just the shards that had hits to fetch,
 *     and their hits drop out of a 200 response;</li>
 * <li>an aggregation that reads a {@code simhash} as a double: only the response's rendering
 *     refuses it, and a {@code histogram} over values spread across 2^64 allocates buckets until
 *     the node's heap is gone before that.</li>
 * </ul>
 * Both are a 400 naming the parameter or the aggregation and the field. Only {@code terms},
 * {@code cardinality}, {@code value_count}, {@code missing} and composite {@code terms} sources
 * treat a fingerprint as the opaque value it is.
 */
public final class FingerprintSearchChecks implements ActionFilter {

    static final List<String> AGGREGATIONS_ON_SIMHASH = List.of("terms", "cardinality", "value_count", "missing");

    private final Supplier<ClusterService> clusterService;
    private final Supplier<IndexNameExpressionResolver> resolver;
    /** Per index UUID: the fingerprint fields of its mapping at one mapping version. */
    private final Map<String, FingerprintFieldsOf> fieldsByIndex = new ConcurrentHashMap<>();

    private record FingerprintFieldsOf(
            long mappingVersion, Map<String, FingerprintKind> kindByField, Map<String, String> pathByAlias) {}

    /** Suppliers because the plugin's services are created after its action filters. */
    public FingerprintSearchChecks(
            Supplier<ClusterService> clusterService, Supplier<IndexNameExpressionResolver> resolver) {
        this.clusterService = clusterService;
        this.resolver = resolver;
    }

    @Override
    public int order() {
        return 0;
    }

    @Override
    public <Request extends ActionRequest, Response extends ActionResponse> void apply(
            Task task,
            String action,
            Request request,
            ActionListener<Response> listener,
            ActionFilterChain<Request, Response> chain) {
        if (SearchAction.NAME.equals(action) && request instanceof SearchRequest search && search.source() != null) {
            try {
                check(search);
            } catch (IllegalArgumentException e) {
                listener.onFailure(e);
                return;
            }
        }
        chain.proceed(task, action, request, listener);
    }

    private void check(SearchRequest search) {
        SearchSourceBuilder source = search.source();
        boolean formats = hasFormat(source.docValueFields()) || hasFormat(source.fetchFields());
        if (formats == false && source.aggregations() == null) {
            return;
        }
        Map<String, FingerprintKind> kindByField = fingerprintFields(search);
        if (kindByField.isEmpty()) {
            return;
        }
        checkFormats(kindByField, source.docValueFields(), false);
        checkFormats(kindByField, source.fetchFields(), true);
        if (source.aggregations() != null) {
            checkAggregations(kindByField, source.aggregations().getAggregatorFactories());
        }
    }

    private static boolean hasFormat(List<FieldAndFormat> fields) {
        return fields != null && fields.stream().anyMatch(f -> f.format != null);
    }

    /** The simhash and minhash fields of every index the search reads; empty where they cannot be told (a remote cluster). */
    private Map<String, FingerprintKind> fingerprintFields(SearchRequest search) {
        ClusterService cluster = clusterService.get();
        IndexNameExpressionResolver indexResolver = resolver.get();
        if (cluster == null || indexResolver == null) {
            return Map.of();
        }
        ClusterState state = cluster.state();
        String[] indices;
        try {
            indices = indexResolver.concreteIndexNames(state, search);
        } catch (RuntimeException e) {
            return Map.of(); // the search itself reports a missing index, with its own message
        }
        if (fieldsByIndex.size() > 2 * state.metadata().indices().size() + 16) {
            // Deleted indices' entries: let go of them once they could outnumber the live ones.
            fieldsByIndex
                    .keySet()
                    .retainAll(state.metadata().indices().values().stream()
                            .map(IndexMetadata::getIndexUUID)
                            .toList());
        }
        Map<String, FingerprintKind> kindByField = new HashMap<>();
        for (String index : indices) {
            IndexMetadata metadata = state.metadata().index(index);
            if (metadata != null) {
                kindByField.putAll(fingerprintFieldsOf(metadata).kindByField());
            }
        }
        return kindByField;
    }

    /**
     * The path of the fingerprint field that {@code field} names in the index's mapping: a field alias's target,
     * else {@code field} itself.
     */
    String pathIn(IndexMetadata metadata, String field) {
        return fingerprintFieldsOf(metadata).pathByAlias().getOrDefault(field, field);
    }

    private FingerprintFieldsOf fingerprintFieldsOf(IndexMetadata metadata) {
        FingerprintFieldsOf known = fieldsByIndex.get(metadata.getIndexUUID());
        if (known == null || known.mappingVersion() != metadata.getMappingVersion()) {
            MappingMetadata mapping = metadata.mapping();
            Map<String, FingerprintKind> fields = new HashMap<>();
            Map<String, String> pathByAlias = new HashMap<>();
            if (mapping != null) {
                Map<String, Object> root = mapping.sourceAsMap();
                Map<String, String> aliases = new HashMap<>();
                collect(root.get("properties"), "", fields, aliases);
                aliases.forEach((alias, path) -> {
                    if (fields.containsKey(path)) {
                        fields.put(alias, fields.get(path));
                        pathByAlias.put(alias, path);
                    }
                });
            }
            known = new FingerprintFieldsOf(metadata.getMappingVersion(), Map.copyOf(fields), Map.copyOf(pathByAlias));
            fieldsByIndex.put(metadata.getIndexUUID(), known);
        }
        return known;
    }

    @SuppressWarnings("unchecked")
    private static void collect(
            Object properties, String prefix, Map<String, FingerprintKind> fields, Map<String, String> aliases) {
        if (properties instanceof Map<?, ?> map) {
            for (Map.Entry<String, Object> entry : ((Map<String, Object>) map).entrySet()) {
                if (entry.getValue() instanceof Map<?, ?> definition) {
                    collect(entry.getKey(), (Map<String, Object>) definition, prefix, fields, aliases);
                }
            }
        }
    }

    private static void collect(
            String name,
            Map<String, Object> definition,
            String prefix,
            Map<String, FingerprintKind> fields,
            Map<String, String> aliases) {
        String path = prefix + name;
        Object type = definition.get("type");
        FingerprintKind kind = FingerprintKind.ofType(type);
        if (kind != null) {
            fields.put(path, kind);
        } else if ("alias".equals(type) && definition.get("path") instanceof String target) {
            aliases.put(path, target);
        }
        collect(definition.get("properties"), path + ".", fields, aliases);
        collect(definition.get("fields"), path + ".", fields, aliases);
    }

    private static void checkFormats(
            Map<String, FingerprintKind> kindByField, List<FieldAndFormat> requested, boolean fromSource) {
        if (requested == null) {
            return;
        }
        for (FieldAndFormat field : requested) {
            if (field.format == null || (fromSource && FingerprintKind.OBJECT.equals(field.format))) {
                continue;
            }
            kindByField.forEach((name, kind) -> {
                if (Regex.simpleMatch(field.field, name)) {
                    kind.requireRenderFormat(name, field.format);
                }
            });
        }
    }

    private static void checkAggregations(
            Map<String, FingerprintKind> kindByField, Collection<AggregationBuilder> aggregations) {
        for (AggregationBuilder aggregation : aggregations) {
            if (aggregation instanceof ValuesSourceAggregationBuilder<?> valuesSource
                    && isSimhash(kindByField, valuesSource.field())) {
                if (AGGREGATIONS_ON_SIMHASH.contains(aggregation.getType()) == false) {
                    throw notANumber(aggregation.getType(), aggregation.getName(), valuesSource.field());
                }
                if (valuesSource.missing() != null) {
                    // Numeric fields parse a missing value as a double: a 64-bit fingerprint does not survive that.
                    throw new IllegalArgumentException(
                            "[missing] is not supported on [simhash] field [" + valuesSource.field() + "] in ["
                                    + aggregation.getType() + "] aggregation [" + aggregation.getName()
                                    + "]; the [missing] aggregation counts the "
                                    + "documents without a fingerprint");
                }
            }
            if (aggregation instanceof CompositeAggregationBuilder composite) {
                for (CompositeValuesSourceBuilder<?> compositeSource : composite.sources()) {
                    if (compositeSource instanceof TermsValuesSourceBuilder == false
                            && isSimhash(kindByField, compositeSource.field())) {
                        throw notANumber("composite", aggregation.getName(), compositeSource.field());
                    }
                }
            }
            checkAggregations(kindByField, aggregation.getSubAggregations());
        }
    }

    private static boolean isSimhash(Map<String, FingerprintKind> kindByField, String field) {
        return field != null && kindByField.get(field) == FingerprintKind.SIMHASH;
    }

    private static IllegalArgumentException notANumber(String type, String name, String field) {
        return new IllegalArgumentException(
                "[" + type + "] aggregation [" + name + "] does not apply to [simhash] field [" + field + "]: "
                        + SimhashDocValueFormat.NOT_NUMBERS + exactAlternative(type, field));
    }

    /**
     * For {@code min} / {@code max}, the request that answers exactly: a sort on the field compares
     * the 64-bit doc values themselves (unsigned fingerprint order), where the aggregators would
     * round through a double to a fingerprint no document has. The sort value of a long is not
     * formatted (it is the stored signed long), so the hex comes from {@code docvalue_fields}.
     */
    static String exactAlternative(String type, String field) {
        String order = switch (type) {
            case "min" -> "asc";
            case "max" -> "desc";
            default -> null;
        };
        if (order == null) {
            return "";
        }
        return "; for the exact " + type + "imum, sort by [" + field + "] " + order
                + " with [size] 1 and [docvalue_fields] [" + field
                + "]: the hit's value is that fingerprint in hex (within a bucket: a [top_hits] aggregation with that [size], [sort] "
                + "and [docvalue_fields])";
    }
}
