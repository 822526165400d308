/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import static io.neardup.index.IndexFingerprintFormatTests.format;
import static io.neardup.index.IndexFingerprintFormatTests.noFormat;
import static io.neardup.index.IndexFingerprintFormatTests.other;

import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.opensearch.ExceptionsHelper;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.admin.cluster.snapshots.restore.RestoreSnapshotRequestBuilder;
import org.opensearch.action.admin.indices.alias.IndicesAliasesRequest.AliasActions;
import org.opensearch.action.admin.indices.datastream.DeleteDataStreamAction;
import org.opensearch.action.admin.indices.shrink.ResizeRequest;
import org.opensearch.action.admin.indices.shrink.ResizeType;
import org.opensearch.action.admin.indices.template.delete.DeleteComposableIndexTemplateAction;
import org.opensearch.action.admin.indices.template.put.PutComposableIndexTemplateAction;
import org.opensearch.cluster.metadata.ComposableIndexTemplate;
import org.opensearch.cluster.metadata.DataStream;
import org.opensearch.cluster.metadata.Template;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Settings;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * {@value IndexFingerprintFormat#KEY} on a real node: what an index gets and keeps, with the plugin's provider. The
 * subclasses run the same with the other format as the new indices' default ({@link
 * IndexFingerprintFormatOtherDefaultSingleNodeTests}) and with no provider, as indices were created before formats
 * were recorded ({@link IndexFingerprintFormatUnrecordedSingleNodeTests}).
 */
public class IndexFingerprintFormatSingleNodeTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    /** The format the node's provider records in a new index; null where the node has none. */
    protected FingerprintFormat providerFormat() {
        return FingerprintFormat.NEW_INDEX_DEFAULT;
    }

    /** What a new index that does not name a format reads as. */
    protected final FingerprintFormat newIndexFormat() {
        return providerFormat() == null ? FingerprintFormat.UNRECORDED : providerFormat();
    }

    private Settings settingsOf(String index) {
        return client().admin()
                .indices()
                .prepareGetSettings(index)
                .get()
                .getIndexToSettings()
                .get(index);
    }

    /** The format an index reads as; asserts that an index records one exactly where it should. */
    private FingerprintFormat formatOf(String index, boolean recorded) {
        Settings settings = settingsOf(index);
        assertEquals(index + ": " + settings, recorded, settings.get(IndexFingerprintFormat.KEY) != null);
        return IndexFingerprintFormat.of(settings);
    }

    private static void assertRefusedNaming(String value, Exception e) {
        assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
        assertEquals(
                "[index.neardup.fingerprint_format] must be one of [1, 2] (a fingerprint format), got [" + value + "]",
                ExceptionsHelper.unwrapCause(e).getMessage());
    }

    public void testANewIndexRecordsTheDefault() {
        createIndex("plain");
        assertSame(newIndexFormat(), formatOf("plain", providerFormat() != null));
        if (providerFormat() != null) {
            assertEquals(
                    Integer.toString(providerFormat().number()),
                    settingsOf("plain").get(IndexFingerprintFormat.KEY));
        }
    }

    public void testTheCreateRequestWins() {
        for (FingerprintFormat chosen : FingerprintFormat.values()) {
            String index = "chosen-" + chosen.number();
            createIndex(index, format(chosen));
            assertSame(chosen, formatOf(index, true));
        }
        createIndex("none", noFormat());
        assertSame(FingerprintFormat.UNRECORDED, formatOf("none", false));
    }

    public void testALegacyTemplateWinsAndTheRequestOverIt() {
        FingerprintFormat templated = other(newIndexFormat());
        putLegacyTemplate("fmt", "tpl-*", 1, format(templated));
        try {
            createIndex("tpl-a");
            assertSame(templated, formatOf("tpl-a", true));
            createIndex("tpl-b", format(newIndexFormat()));
            assertSame(newIndexFormat(), formatOf("tpl-b", true));
        } finally {
            client().admin().indices().prepareDeleteTemplate("fmt").get();
        }
    }

    public void testAComposableTemplateWinsAndTheRequestOverIt() {
        FingerprintFormat templated = other(newIndexFormat());
        putComposableTemplate("fmt", "ctpl-*", format(templated), false);
        try {
            createIndex("ctpl-a");
            assertSame(templated, formatOf("ctpl-a", true));
            createIndex("ctpl-b", noFormat());
            assertSame(FingerprintFormat.UNRECORDED, formatOf("ctpl-b", false));
        } finally {
            deleteComposableTemplate("fmt");
        }
    }

    private void putLegacyTemplate(String name, String pattern, int order, Settings settings) {
        client().admin()
                .indices()
                .preparePutTemplate(name)
                .setPatterns(List.of(pattern))
                .setOrder(order)
                .setSettings(settings)
                .get();
    }

    void putComposableTemplate(String name, String pattern, Settings settings, boolean dataStream) {
        ComposableIndexTemplate template = new ComposableIndexTemplate(
                List.of(pattern),
                new Template(settings, null, null),
                null,
                100L,
                null,
                null,
                dataStream ? new ComposableIndexTemplate.DataStreamTemplate() : null);
        client().execute(
                        PutComposableIndexTemplateAction.INSTANCE,
                        new PutComposableIndexTemplateAction.Request(name).indexTemplate(template))
                .actionGet();
    }

    void deleteComposableTemplate(String name) {
        client().execute(
                        DeleteComposableIndexTemplateAction.INSTANCE,
                        new DeleteComposableIndexTemplateAction.Request(name))
                .actionGet();
    }

    public void testABadValueIsRefusedAtCreation() {
        for (String bad : new String[] {"3", "x"}) {
            Exception e = expectThrows(
                    Exception.class,
                    () -> client().admin()
                            .indices()
                            .prepareCreate("bad")
                            .setSettings(Settings.builder().put(IndexFingerprintFormat.KEY, bad))
                            .get());
            assertRefusedNaming(bad, e);
        }
    }

    public void testABadValueIsRefusedInATemplate() {
        for (String bad : new String[] {"3", "x"}) {
            Settings settings =
                    Settings.builder().put(IndexFingerprintFormat.KEY, bad).build();
            for (Exception e : List.of(
                    expectThrows(Exception.class, () -> putLegacyTemplate("bad", "bad-*", 0, settings)),
                    expectThrows(Exception.class, () -> putComposableTemplate("bad", "bad-*", settings, false)))) {
                assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
                assertTrue(
                        e.getMessage(),
                        ExceptionsHelper.stackTrace(e)
                                .contains("[index.neardup.fingerprint_format] must be one of [1, 2] (a fingerprint"
                                        + " format), got [" + bad + "]"));
            }
        }
    }

    public void testTheSettingCannotBeUpdated() {
        FingerprintFormat chosen = randomFrom(FingerprintFormat.values());
        createIndex("fixed", format(chosen));
        for (boolean closed : new boolean[] {false, true}) {
            if (closed) {
                client().admin().indices().prepareClose("fixed").get();
            }
            for (Settings update : List.of(format(other(chosen)), noFormat())) {
                Exception e = expectThrows(
                        Exception.class,
                        () -> client().admin()
                                .indices()
                                .prepareUpdateSettings("fixed")
                                .setSettings(update)
                                .get());
                assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
                // OpenSearch's own words: an open index refuses a static setting, a closed one a final setting.
                assertEquals(
                        closed
                                ? "final fixed setting [index.neardup.fingerprint_format], not updateable"
                                : "Can't update non dynamic settings [[index.neardup.fingerprint_format]] for open indices ["
                                        + resolveIndex("fixed") + "]",
                        ExceptionsHelper.unwrapCause(e).getMessage());
            }
        }
        assertSame(chosen, formatOf("fixed", true));
    }

    /** The sources of a resize or a snapshot: each format named, and none (a source from before formats). */
    private List<String> sources(int shards) {
        List<String> sources = new ArrayList<>();
        for (FingerprintFormat chosen : FingerprintFormat.values()) {
            sources.add(source("source-" + chosen.number(), format(chosen), shards));
        }
        sources.add(source("source-none", noFormat(), shards));
        return sources;
    }

    private String source(String name, Settings format, int shards) {
        createIndex(
                name,
                Settings.builder()
                        .put(format)
                        .put("index.number_of_shards", shards)
                        .put("index.number_of_replicas", 0)
                        .put("index.blocks.write", true)
                        .build());
        return name;
    }

    private static boolean recorded(Settings settings) {
        return settings.get(IndexFingerprintFormat.KEY) != null;
    }

    public void testShrinkSplitAndCloneKeepTheSourceFormat() {
        for (String source : sources(2)) {
            Settings sourceSettings = settingsOf(source);
            FingerprintFormat sourceFormat = IndexFingerprintFormat.of(sourceSettings);
            for (ResizeType type : new ResizeType[] {ResizeType.SHRINK, ResizeType.SPLIT, ResizeType.CLONE}) {
                String target = source + "-" + type.name().toLowerCase(Locale.ROOT);
                int shards = type == ResizeType.SHRINK ? 1 : type == ResizeType.SPLIT ? 4 : 2;
                client().admin()
                        .indices()
                        .prepareResizeIndex(source, target)
                        .setResizeType(type)
                        .setSettings(Settings.builder()
                                .put("index.number_of_shards", shards)
                                .put("index.number_of_replicas", 0)
                                .build())
                        .get();
                assertSame(target, sourceFormat, formatOf(target, recorded(sourceSettings)));
            }
        }
    }

    public void testAResizeCannotAskForAnotherFormat() {
        for (String source : sources(1)) {
            Settings sourceSettings = settingsOf(source);
            FingerprintFormat sourceFormat = IndexFingerprintFormat.of(sourceSettings);
            List<Settings> others = new ArrayList<>(List.of(format(other(sourceFormat))));
            if (sourceFormat != FingerprintFormat.UNRECORDED) {
                others.add(noFormat()); // a target without the setting reads as unrecorded
            }
            for (Settings asked : others) {
                Exception e = expectThrows(
                        Exception.class,
                        () -> client().admin()
                                .indices()
                                .prepareResizeIndex(source, source + "-clone")
                                .setResizeType(ResizeType.CLONE)
                                .setSettings(asked)
                                .get());
                assertEquals(RestStatus.BAD_REQUEST, ExceptionsHelper.status(e));
                assertEquals(
                        "[index.neardup.fingerprint_format] of a shrink, split or clone target is its source's: ["
                                + source + "] has " + sourceFormat.describe() + ", the request asks for "
                                + IndexFingerprintFormat.of(asked).describe(),
                        e.getMessage());
            }
            // Its own format, named: a clone as any other.
            client().admin()
                    .indices()
                    .prepareResizeIndex(source, source + "-same")
                    .setResizeType(ResizeType.CLONE)
                    .setSettings(format(sourceFormat))
                    .get();
            assertSame(sourceFormat, formatOf(source + "-same", true));
        }
    }

    /** A transport request without copy_settings copies almost none of the source's settings: the format is added. */
    public void testAResizeWithoutCopySettingsKeepsTheSourceFormat() {
        for (String source : sources(1)) {
            Settings sourceSettings = settingsOf(source);
            ResizeRequest clone = new ResizeRequest(source + "-clone", source);
            clone.setResizeType(ResizeType.CLONE);
            clone.setCopySettings(null);
            client().admin().indices().resizeIndex(clone).actionGet();
            assertSame(
                    source,
                    IndexFingerprintFormat.of(sourceSettings),
                    formatOf(source + "-clone", recorded(sourceSettings)));
        }
    }

    public void testARestoredIndexKeepsItsFormat() {
        List<String> sources = sources(1);
        List<Settings> sourceSettings = sources.stream().map(this::settingsOf).toList();
        client().admin()
                .cluster()
                .preparePutRepository("fmt")
                .setType("fs")
                .setSettings(Settings.builder().put("location", "fmt"))
                .get();
        try {
            client().admin()
                    .cluster()
                    .prepareCreateSnapshot("fmt", "one")
                    .setIndices("source-*")
                    .setWaitForCompletion(true)
                    .get();
            client().admin().indices().prepareDelete("source-*").get();
            client().admin()
                    .cluster()
                    .prepareRestoreSnapshot("fmt", "one")
                    .setIndices("source-*")
                    .setWaitForCompletion(true)
                    .get();
            restoreAs("renamed-").get();
            assertRestoredAs("source-", sources, sourceSettings);
            assertRestoredAs("renamed-", sources, sourceSettings);
            // A restore can neither set nor drop it.
            for (FingerprintFormat asked : FingerprintFormat.values()) {
                Exception set = expectThrows(
                        Exception.class,
                        () -> restoreAs("again-")
                                .setIndexSettings(format(asked))
                                .get());
                assertTrue(
                        set.getMessage(),
                        set.getMessage()
                                .endsWith(
                                        "cannot modify UnmodifiableOnRestore setting [index.neardup.fingerprint_format]"
                                                + " on restore"));
            }
            Exception dropped = expectThrows(
                    Exception.class,
                    () -> restoreAs("again-")
                            .setIgnoreIndexSettings(IndexFingerprintFormat.KEY)
                            .get());
            assertTrue(
                    dropped.getMessage(),
                    dropped.getMessage()
                            .endsWith("cannot remove UnmodifiableOnRestore setting [index.neardup.fingerprint_format]"
                                    + " on restore"));
            // A pattern leaves it in place.
            restoreAs("wild-").setIgnoreIndexSettings("index.neardup.*").get();
            assertRestoredAs("wild-", sources, sourceSettings);
        } finally {
            client().admin().cluster().prepareDeleteSnapshot("fmt", "one").get();
            client().admin().cluster().prepareDeleteRepository("fmt").get();
        }
    }

    /** A restore of snapshot {@code one}'s sources, renamed to start with {@code prefix}. */
    private RestoreSnapshotRequestBuilder restoreAs(String prefix) {
        return client().admin()
                .cluster()
                .prepareRestoreSnapshot("fmt", "one")
                .setIndices("source-*")
                .setRenamePattern("source-(.+)")
                .setRenameReplacement(prefix + "$1")
                .setWaitForCompletion(true);
    }

    private void assertRestoredAs(String prefix, List<String> sources, List<Settings> sourceSettings) {
        for (int i = 0; i < sources.size(); i++) {
            String restored = sources.get(i).replace("source-", prefix);
            assertSame(
                    restored,
                    IndexFingerprintFormat.of(sourceSettings.get(i)),
                    formatOf(restored, recorded(sourceSettings.get(i))));
        }
    }

    /**
     * {@code forWrite} answers, before a write, the format of the index the write goes to, also where the write
     * creates it: the format found in that index after the write.
     */
    public void testForWriteFindsTheIndexTheWriteGoesTo() {
        FingerprintFormat templated = other(newIndexFormat());
        putLegacyTemplate("low", "legacy-*", 1, format(newIndexFormat()));
        putLegacyTemplate("high", "legacy-*", 2, format(templated));
        putComposableTemplate("composed", "composed-*", format(templated), false);
        putComposableTemplate("events", "events-*", format(templated), true);
        try {
            createIndex("old", format(newIndexFormat()));
            createIndex("current", format(templated));
            client().admin()
                    .indices()
                    .prepareAliases()
                    .addAliasAction(
                            AliasActions.add().index("old").alias("logs").writeIndex(false))
                    .addAliasAction(
                            AliasActions.add().index("current").alias("logs").writeIndex(true))
                    .get();
            for (String target : List.of(
                    "old",
                    "current",
                    "logs",
                    "legacy-a",
                    "legacy-a",
                    "composed-a",
                    "events-a",
                    "events-a",
                    "plain-a",
                    "<dated-{now/d}>",
                    "<legacy-{now/d}>")) {
                FingerprintFormat predicted = IndexFingerprintFormat.forWrite(
                        getInstanceFromNode(ClusterService.class).state(), target, newIndexFormat());
                String index = client().prepareIndex(target)
                        .setOpType(DocWriteRequest.OpType.CREATE)
                        .setSource("@timestamp", "2026-01-01T00:00:00Z")
                        .get()
                        .getIndex();
                assertSame(
                        target + " went to " + index,
                        predicted,
                        formatOf(index, providerFormat() != null || templated(index)));
            }
            assertEquals(
                    "a data stream's backing index",
                    DataStream.getDefaultBackingIndexName("events-a", 1),
                    client().prepareIndex("events-a")
                            .setOpType(DocWriteRequest.OpType.CREATE)
                            .setSource("@timestamp", "2026-01-01T00:00:00Z")
                            .get()
                            .getIndex());
        } finally {
            client().execute(DeleteDataStreamAction.INSTANCE, new DeleteDataStreamAction.Request(new String[] {"*"}))
                    .actionGet();
            deleteComposableTemplate("events");
            deleteComposableTemplate("composed");
            client().admin().indices().prepareDeleteTemplate("high").get();
            client().admin().indices().prepareDeleteTemplate("low").get();
        }
    }

    /** Whether a template names the format of an index these tests write to. */
    private static boolean templated(String index) {
        return index.startsWith("legacy-")
                || index.startsWith("composed-")
                || index.startsWith(".ds-events-")
                || index.equals("old")
                || index.equals("current");
    }
}
