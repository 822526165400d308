/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintFormat;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.opensearch.OpenSearchParseException;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.admin.indices.create.CreateIndexRequest;
import org.opensearch.action.admin.indices.shrink.ResizeAction;
import org.opensearch.action.admin.indices.shrink.ResizeRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.metadata.Metadata;
import org.opensearch.cluster.metadata.MetadataIndexTemplateService;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Setting;
import org.opensearch.common.settings.Setting.Property;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.shard.IndexSettingProvider;

/**
 * Where an index's {@link FingerprintFormat} is recorded: the index setting {@value #KEY}, 1 or 2, set when the
 * index is created and kept for its life. An index without it was created before formats were recorded and reads as
 * {@link FingerprintFormat#UNRECORDED}.
 *
 * <ul>
 * <li>A new index gets it explicitly ({@link #newIndexProvider}): {@link FingerprintFormat#NEW_INDEX_DEFAULT}, unless
 *     its create request or its templates set it. OpenSearch applies a provider's settings first, then the
 *     templates', then the request's, and asks providers only for an index made from nothing (also a data stream's
 *     backing index, a rollover's new index, an auto-created one).</li>
 * <li>A shrink, split or clone target is made from its source: no provider, no template; OpenSearch copies the
 *     source's settings (the target has the source's value, or none where the source has none), after the resize
 *     request's own. {@link ResizeCheck} refuses a request that would give the target another format.</li>
 * <li>A restored index keeps its snapshot's settings: no provider either, and the setting is
 *     {@link Property#UnmodifiableOnRestore}, so a restore's {@code index_settings} cannot set it nor its
 *     {@code ignore_index_settings} drop it.</li>
 * <li>No settings update changes it ({@link Property#Final}).</li>
 * </ul>
 * {@link #forWrite} finds the format a document written to an index, alias or data stream gets, also where the write
 * creates the index.
 */
public final class IndexFingerprintFormat {

    public static final String KEY = "index.neardup.fingerprint_format";

    private static final List<Integer> NUMBERS = Arrays.stream(FingerprintFormat.values())
            .map(FingerprintFormat::number)
            .toList();

    private static final String UNRECORDED_VALUE = Integer.toString(FingerprintFormat.UNRECORDED.number());

    /** {@value #KEY}; its default is the format of an index created before formats were recorded. */
    public static final Setting<FingerprintFormat> SETTING = new Setting<>(
            KEY,
            settings -> UNRECORDED_VALUE, // asked for at every read: a constant, not a string built each time
            IndexFingerprintFormat::parse,
            Property.IndexScope,
            Property.Final,
            Property.UnmodifiableOnRestore);

    /** Date math only: needs no cluster state, and its thread context no header. */
    private static final IndexNameExpressionResolver DATE_MATH =
            new IndexNameExpressionResolver(new ThreadContext(Settings.EMPTY));

    private IndexFingerprintFormat() {}

    /** The format recorded in an index's settings, {@link FingerprintFormat#UNRECORDED} where there is none. */
    public static FingerprintFormat of(Settings indexSettings) {
        return SETTING.get(indexSettings);
    }

    /**
     * The provider that records {@code newIndexFormat} in every new index whose create request and templates do not
     * name the setting (naming it as {@code null} leaves the index without one: {@link FingerprintFormat#UNRECORDED}).
     * The plugin's is {@link FingerprintFormat#NEW_INDEX_DEFAULT}'s; tests build the other's.
     */
    public static IndexSettingProvider newIndexProvider(FingerprintFormat newIndexFormat) {
        Settings recorded = Settings.builder().put(KEY, newIndexFormat.number()).build();
        return new IndexSettingProvider() {
            @Override
            public Settings getAdditionalIndexSettings(
                    String indexName, boolean isDataStreamIndex, Settings templateAndRequestSettings) {
                return templateAndRequestSettings.keySet().contains(KEY) ? Settings.EMPTY : recorded;
            }
        };
    }

    /**
     * The format a document written to {@code target} gets, as the ingest processor asks per document: the format
     * of the index the write goes to, found as OpenSearch finds that index.
     *
     * <ul>
     * <li>a concrete index: its own (a map lookup and the setting's parse: the common case);</li>
     * <li>an alias: its write index's, or that of the one index it points to; a data stream: its write backing
     *     index's;</li>
     * <li>a name that does not exist yet (the write creates it): the format the new index will get, from the
     *     settings of the composable template that matches the name (its component templates' and context's
     *     included), or where none does from the legacy templates that match (the highest {@code order} wins), else
     *     {@link FingerprintFormat#NEW_INDEX_DEFAULT};</li>
     * <li>date math ({@code <logs-{now/d}>}) is resolved first, at the time of the call, as the write resolves it
     *     (a write across midnight may resolve to the next day's index);</li>
     * <li>a target the write cannot go to (date math that does not parse, an alias with several indices and no
     *     write index): {@link FingerprintFormat#NEW_INDEX_DEFAULT}; OpenSearch refuses the write itself;</li>
     * <li>no target (null: a document without {@code _index}): {@link FingerprintFormat#NEW_INDEX_DEFAULT}.</li>
     * </ul>
     * A template that names the setting as {@code null} gives an index without it: {@link FingerprintFormat#UNRECORDED}.
     */
    public static FingerprintFormat forWrite(ClusterState state, String target) {
        return forWrite(state, target, FingerprintFormat.NEW_INDEX_DEFAULT);
    }

    /** {@link #forWrite(ClusterState, String)} where new indices get {@code newIndexFormat} (tests: either format). */
    static FingerprintFormat forWrite(ClusterState state, String target, FingerprintFormat newIndexFormat) {
        if (target == null) {
            return newIndexFormat;
        }
        Metadata metadata = state.metadata();
        WriteTarget write = WriteTarget.of(metadata, target);
        if (write == null) {
            return newIndexFormat;
        }
        if (write.exists()) {
            return write.writeIndex() == null
                    ? newIndexFormat
                    : of(write.writeIndex().getSettings());
        }
        Settings templateSettings = write.composableTemplate() != null
                ? MetadataIndexTemplateService.resolveSettings(metadata, write.composableTemplate())
                : MetadataIndexTemplateService.resolveSettings(
                        MetadataIndexTemplateService.findV1Templates(metadata, write.name(), null));
        return formatOfNewIndex(templateSettings, newIndexFormat);
    }

    /**
     * The format an index created with these template and request settings gets: theirs where they name the setting,
     * else {@code newIndexFormat} (the provider's).
     */
    static FingerprintFormat formatOfNewIndex(Settings templateAndRequestSettings, FingerprintFormat newIndexFormat) {
        return templateAndRequestSettings.keySet().contains(KEY) ? of(templateAndRequestSettings) : newIndexFormat;
    }

    /**
     * Keeps a shrink, split or clone target in its source's format. OpenSearch gives the target the source's value
     * (or none, as the source) unless the resize request names the setting, or is a transport request without
     * {@code copy_settings} (then only the source's analysis, similarity, sort and soft-deletes settings are copied).
     * The first is refused with a 400 where it names another format; to the second the source's value is added. On the
     * node that receives the request: the source's value is final, so the master finds the same.
     */
    public static final class ResizeCheck extends ActionFilter.Simple {
        private final Supplier<ClusterService> clusterService;

        /** A supplier because the plugin's services are created after its action filters. */
        public ResizeCheck(Supplier<ClusterService> clusterService) {
            this.clusterService = clusterService;
        }

        @Override
        public int order() {
            return 0;
        }

        @Override
        protected boolean apply(String action, ActionRequest request, ActionListener<?> listener) {
            ClusterService cluster = clusterService.get();
            if (ResizeAction.NAME.equals(action) && request instanceof ResizeRequest resize && cluster != null) {
                try {
                    keepSourceFormat(cluster.state(), resize);
                } catch (IllegalArgumentException e) {
                    listener.onFailure(e);
                    return false;
                }
            }
            return true;
        }
    }

    /** {@link ResizeCheck}'s work: refuses or completes {@code resize}'s target settings. */
    static void keepSourceFormat(ClusterState state, ResizeRequest resize) {
        String sourceName = resolveDateMath(resize.getSourceIndex());
        IndexMetadata source = sourceName == null ? null : state.metadata().index(sourceName);
        if (source == null) {
            return; // the resize's own error
        }
        FingerprintFormat sourceFormat = of(source.getSettings());
        CreateIndexRequest target = resize.getTargetIndexRequest();
        Settings asked = Settings.builder()
                .put(target.settings())
                .normalizePrefix(IndexMetadata.INDEX_SETTING_PREFIX)
                .build();
        if (asked.keySet().contains(KEY)) {
            FingerprintFormat askedFormat = of(asked);
            if (askedFormat != sourceFormat) {
                throw new IllegalArgumentException("[" + KEY + "] of a shrink, split or clone target is its source's: ["
                        + sourceName + "] has " + sourceFormat.describe() + ", the request asks for "
                        + askedFormat.describe());
            }
        } else if (Boolean.TRUE.equals(resize.getCopySettings()) == false
                && source.getSettings().get(KEY) != null) {
            target.settings(Settings.builder().put(target.settings()).put(KEY, sourceFormat.number()));
        }
    }

    /**
     * {@code name} with its date math resolved (now), as OpenSearch resolves a resize's or a write's target; null for
     * an expression that does not parse (OpenSearch refuses the request then). Cheap for a name without date math.
     */
    public static String resolveDateMath(String name) {
        if (name.startsWith("<") == false || name.endsWith(">") == false) {
            return name;
        }
        try {
            return DATE_MATH.resolveDateMathExpression(name);
        } catch (OpenSearchParseException | IllegalArgumentException e) {
            return null;
        }
    }

    /** A value of {@value #KEY}; a bad one is refused naming the setting and the values it takes. */
    private static FingerprintFormat parse(String value) {
        try {
            return FingerprintFormat.of(Integer.parseInt(value));
        } catch (IllegalArgumentException e) { // a NumberFormatException too
            throw new IllegalArgumentException(
                    "[" + KEY + "] must be one of " + NUMBERS + " (a fingerprint format), got [" + value + "]", e);
        }
    }
}
