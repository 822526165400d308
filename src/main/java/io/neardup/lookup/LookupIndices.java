/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import io.neardup.index.FingerprintKind;
import io.neardup.index.IndexFingerprintFormat;
import io.neardup.index.NearDupOption;
import io.neardup.index.WriteTarget;
import io.neardup.match.IndexSpan;
import io.neardup.match.MappingPaths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.DataStream;
import org.opensearch.cluster.metadata.IndexAbstraction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.metadata.MappingMetadata;
import org.opensearch.cluster.metadata.MetadataIndexTemplateService;
import org.opensearch.cluster.routing.IndexRoutingTable;
import org.opensearch.cluster.routing.RecoverySource;
import org.opensearch.cluster.routing.ShardRouting;
import org.opensearch.common.compress.CompressedXContent;
import org.opensearch.common.regex.Regex;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.core.xcontent.MediaTypeRegistry;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.index.mapper.MapperService;

/**
 * The indices a {@code near_dup_lookup} searches for the name it is given (its {@code index}, or the document's own
 * {@code _index}): an index, an alias, a data stream, a comma list or a pattern, resolved against the cluster state as
 * a search resolves it, ordered oldest first (by creation date, then name), and bounded by how far back to look: the
 * newest {@code max_indices} of them, and of those only the ones that may hold a document younger than
 * {@code max_age}. The field's kind is read from every one's mapping and must be the same in all.
 */
final class LookupIndices {

    static final int DEFAULT_MAX_INDICES = 100;
    static final int MAX_MAX_INDICES = 1_000;
    static final TimeValue MAX_MAX_AGE = TimeValue.timeValueDays(100 * 365);
    /** Shard requests one document's lookup keeps in flight; the others wait for one of them to answer. */
    static final int MAX_SHARD_REQUESTS_IN_FLIGHT = 32;

    private static final IndicesOptions OPTIONS = IndicesOptions.strictExpandOpen();

    /**
     * What a lookup into one name searches: the indices oldest first, and whether the name can stand for more than one
     * index (an alias, a data stream, a list or a pattern), in which case the lookup writes the index of the document
     * it found beside its {@code _id}. An empty list: the name is a document's own index that does not exist yet, and
     * the lookup has only its recent window.
     */
    record Selection(List<IndexMetadata> oldestFirst, boolean spansIndices, FingerprintKind kind) {}

    private record Resolved(String name, long stateVersion, Selection all) {}

    private record MappedKind(long mappingVersion, FingerprintKind kind) {}

    private final IndexNameExpressionResolver resolver;
    private final String field;
    private final Set<NearDupOption> options;
    private final int maxIndices;
    /** Null: no bound by age. */
    private final TimeValue maxAge;

    /** The last resolution, reused while the cluster state is the same. */
    private volatile Resolved resolved;
    /** The field's kind per index UUID, read once a mapping version. */
    private final Map<String, MappedKind> kinds = new ConcurrentHashMap<>();

    LookupIndices(
            IndexNameExpressionResolver resolver,
            String field,
            Set<NearDupOption> options,
            int maxIndices,
            TimeValue maxAge) {
        this.resolver = resolver;
        this.field = field;
        this.options = options;
        this.maxIndices = maxIndices;
        this.maxAge = maxAge;
    }

    /**
     * The indices to search for {@code name} now.
     *
     * @param ownIndex whether {@code name} is the document's own index (no {@code index} configured): one that does
     *     not exist yet (the first document of a data stream or of an index a template makes) is searched as empty,
     *     its field's kind read from the template that will make it
     * @throws IndexNotFoundException when {@code name} names no index
     * @throws IllegalArgumentException when the field is not a fingerprint field in one of them, an option does not
     *     apply to its kind, or two of them map it as different kinds
     */
    Selection select(ClusterState state, String name, boolean ownIndex, long nowMillis) {
        Resolved known = resolved;
        if (known == null
                || known.stateVersion() != state.version()
                || known.name().equals(name) == false) {
            known = new Resolved(name, state.version(), resolve(state, name, ownIndex));
            resolved = known;
        }
        Selection all = known.all();
        List<IndexMetadata> indices = all.oldestFirst();
        int from = Math.max(0, indices.size() - maxIndices);
        if (maxAge != null) {
            // An index may hold documents up to the creation of the next one (a data stream's, or a dated index's
            // successor): it is searched while that is within max_age. The newest always is.
            long since = nowMillis - maxAge.millis();
            while (from < indices.size() - 1 && indices.get(from + 1).getCreationDate() < since) {
                from++;
            }
        }
        return from == 0 ? all : new Selection(indices.subList(from, indices.size()), all.spansIndices(), all.kind());
    }

    private Selection resolve(ClusterState state, String name, boolean ownIndex) {
        String dated = withoutDateMath(name);
        IndexAbstraction abstraction = state.metadata().getIndicesLookup().get(dated);
        boolean spansIndices = IndexSpan.standsForManyIndices(state.metadata(), dated);
        if (abstraction == null && ownIndex && Regex.isSimpleMatchPattern(dated) == false) {
            FingerprintKind kind = kindInTemplate(state, dated);
            if (kind == null) {
                throw new IndexNotFoundException(name);
            }
            return new Selection(List.of(), spansIndices, kind);
        }
        String[] names = resolver.concreteIndexNames(state, OPTIONS, true, name);
        if (names.length == 0) {
            // A pattern that matches nothing (a missing index, alias or data stream is an IndexNotFoundException).
            throw new IllegalArgumentException(
                    "[" + NearDupLookupProcessor.TYPE + "] [index] [" + name + "] names no index");
        }
        List<IndexMetadata> indices = new ArrayList<>(names.length);
        for (String concrete : names) {
            indices.add(state.metadata().index(concrete));
        }
        indices.sort(IndexSpan.OLDEST_FIRST);
        FingerprintKind kind = null;
        IndexMetadata first = null;
        for (IndexMetadata index : indices) {
            FingerprintKind its = kindIn(index);
            if (kind == null) {
                kind = its;
                first = index;
            } else if (its != kind) {
                throw new IllegalArgumentException("[" + NearDupLookupProcessor.TYPE + "] [" + field + "] is a ["
                        + kind.typeName() + "] field in [" + first.getIndex().getName() + "] and a [" + its.typeName()
                        + "] field in [" + index.getIndex().getName()
                        + "]: the indices of one lookup must map it alike");
            }
        }
        if (kinds.size() > 2 * indices.size() + 16) {
            Set<String> live = new HashSet<>();
            indices.forEach(index -> live.add(index.getIndexUUID()));
            kinds.keySet().retainAll(live);
        }
        return new Selection(List.copyOf(indices), spansIndices, kind);
    }

    /**
     * Whether shard {@code shard} of {@code index} may hold a document as {@code state} tells: not while its primary
     * has never started (an index being made, such as the backing index a rollover has just added to a data stream),
     * since no write reaches a shard before its primary has started. Such a shard is not asked: it would refuse the
     * read while it recovers, failing the document, and has nothing to find. (A document written there meanwhile
     * through another node is not searchable yet either; one written through this node is in the recent window.)
     */
    static boolean mayHoldDocuments(ClusterState state, IndexMetadata index, int shard) {
        IndexRoutingTable routing = state.routingTable().index(index.getIndex());
        ShardRouting primary = routing == null ? null : routing.shard(shard).primaryShard();
        return primary == null
                || primary.active()
                || primary.recoverySource() == null
                || primary.recoverySource().getType() != RecoverySource.Type.EMPTY_STORE;
    }

    /**
     * The index a document sent to {@code ownIndex} is written to, as the cluster state tells now: a data stream's or
     * an alias's write index, the index itself (date math resolved), the first backing index of a data stream its first
     * document makes, or the name as given.
     */
    String homeOf(ClusterState state, String ownIndex) {
        if (ownIndex == null) {
            return null;
        }
        WriteTarget write = WriteTarget.of(state.metadata(), withoutDateMath(ownIndex));
        if (write.exists()) {
            return write.writeIndex() == null
                    ? write.name()
                    : write.writeIndex().getIndex().getName();
        }
        return write.makesADataStream(state.metadata())
                ? DataStream.getDefaultBackingIndexName(write.name(), 1)
                : write.name();
    }

    /**
     * {@code name} with its date math ({@code <logs-{now/d}>}) resolved now, as the write resolves it
     * ({@link IndexFingerprintFormat#resolveDateMath}: a name without date math comes back as it is, at no cost).
     */
    private static String withoutDateMath(String name) {
        String resolved = IndexFingerprintFormat.resolveDateMath(name);
        if (resolved == null) {
            throw new IllegalArgumentException(
                    "[" + NearDupLookupProcessor.TYPE + "] [index] [" + name + "] is not a valid date math name");
        }
        return resolved;
    }

    private FingerprintKind kindIn(IndexMetadata index) {
        MappedKind known = kinds.get(index.getIndexUUID());
        if (known == null || known.mappingVersion() != index.getMappingVersion()) {
            MappingMetadata mapping = index.mapping();
            known = new MappedKind(
                    index.getMappingVersion(),
                    checkedKind(
                            mapping == null ? null : mapping.sourceAsMap(),
                            "the lookup index [" + index.getIndex().getName() + "]"));
            kinds.put(index.getIndexUUID(), known);
        }
        return known.kind();
    }

    /** The kind the template that will make index {@code name} maps the field as; null without such a template. */
    private FingerprintKind kindInTemplate(ClusterState state, String name) {
        String template = MetadataIndexTemplateService.findV2Template(state.metadata(), name, false);
        if (template == null) {
            return null;
        }
        List<CompressedXContent> mappings;
        try {
            mappings = MetadataIndexTemplateService.collectMappings(state, template, name);
        } catch (Exception e) {
            return null;
        }
        // The template's own mapping comes last and wins, as when the index is made.
        for (int i = mappings.size() - 1; i >= 0; i--) {
            Map<String, Object> source = XContentHelper.convertToMap(
                            mappings.get(i).uncompressed(), true, MediaTypeRegistry.JSON)
                    .v2();
            if (source.size() == 1 && source.get(MapperService.SINGLE_MAPPING_NAME) instanceof Map<?, ?> typed) {
                @SuppressWarnings("unchecked")
                Map<String, Object> unwrapped = (Map<String, Object>) typed;
                source = unwrapped;
            }
            if (MappingPaths.find(source, field) != null) {
                return checkedKind(source, "the template [" + template + "] of [" + name + "]");
            }
        }
        return null;
    }

    /** {@link NearDupLookupProcessor#kindOf} on one mapping, its refusal a 400 naming the option. */
    private FingerprintKind checkedKind(Map<String, Object> mapping, String where) {
        try {
            return NearDupLookupProcessor.kindOf(mapping, where, field, options);
        } catch (NearDupOption.Invalid e) {
            throw new IllegalArgumentException("[" + NearDupLookupProcessor.TYPE + "] " + e.getMessage(), e);
        }
    }
}
