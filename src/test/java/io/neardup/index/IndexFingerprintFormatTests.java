/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintFormat;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.opensearch.Version;
import org.opensearch.cluster.ClusterName;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.AliasMetadata;
import org.opensearch.cluster.metadata.ComponentTemplate;
import org.opensearch.cluster.metadata.ComposableIndexTemplate;
import org.opensearch.cluster.metadata.DataStream;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexTemplateMetadata;
import org.opensearch.cluster.metadata.Metadata;
import org.opensearch.cluster.metadata.Template;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.shard.IndexSettingProvider;
import org.opensearch.test.OpenSearchTestCase;

/**
 * {@link IndexFingerprintFormat} without a node: the setting's values, the provider, and {@code forWrite} over
 * cluster states built here, with either format as the new indices' default.
 */
public class IndexFingerprintFormatTests extends OpenSearchTestCase {

    private static final FingerprintFormat[] FORMATS = FingerprintFormat.values();

    public void testAnIndexWithoutTheSettingIsUnrecorded() {
        assertSame(FingerprintFormat.UNRECORDED, IndexFingerprintFormat.of(Settings.EMPTY));
        assertSame(FingerprintFormat.UNRECORDED, IndexFingerprintFormat.of(noFormat()));
    }

    public void testEachFormatReadsBack() {
        for (FingerprintFormat format : FORMATS) {
            assertSame(format, IndexFingerprintFormat.of(format(format)));
        }
    }

    public void testABadValueNamesTheSettingAndTheValues() {
        for (String bad : new String[] {"3", "0", "-1", "x", "1.5", ""}) {
            Settings settings =
                    Settings.builder().put(IndexFingerprintFormat.KEY, bad).build();
            IllegalArgumentException e =
                    expectThrows(IllegalArgumentException.class, () -> IndexFingerprintFormat.of(settings));
            assertEquals(
                    "[index.neardup.fingerprint_format] must be one of [1, 2] (a fingerprint format), got [" + bad
                            + "]",
                    e.getMessage());
        }
    }

    public void testTheSettingIsAFinalIndexSetting() {
        assertTrue(IndexFingerprintFormat.SETTING.hasIndexScope());
        assertTrue(IndexFingerprintFormat.SETTING.isFinal());
        assertTrue(IndexFingerprintFormat.SETTING.isUnmodifiableOnRestore());
        assertFalse(IndexFingerprintFormat.SETTING.isDynamic());
        assertEquals(
                Integer.toString(FingerprintFormat.UNRECORDED.number()),
                IndexFingerprintFormat.SETTING.getDefaultRaw(Settings.EMPTY));
    }

    public void testTheProviderRecordsItsFormatUnlessTheSettingIsNamed() {
        for (FingerprintFormat newIndexFormat : FORMATS) {
            IndexSettingProvider provider = IndexFingerprintFormat.newIndexProvider(newIndexFormat);
            for (boolean dataStream : new boolean[] {false, true}) {
                Settings other =
                        Settings.builder().put("index.number_of_shards", 3).build();
                for (Settings unnamed : List.of(Settings.EMPTY, other)) {
                    assertEquals(
                            Settings.builder()
                                    .put(IndexFingerprintFormat.KEY, newIndexFormat.number())
                                    .build(),
                            provider.getAdditionalIndexSettings("new", dataStream, unnamed));
                }
                for (Settings named : List.of(format(FingerprintFormat.SIGNATURE), format(FingerprintFormat.COMPACT))) {
                    assertEquals(Settings.EMPTY, provider.getAdditionalIndexSettings("new", dataStream, named));
                }
                assertEquals(Settings.EMPTY, provider.getAdditionalIndexSettings("new", dataStream, noFormat()));
            }
        }
    }

    public void testTheOneArgumentResolverUsesTheNewIndexDefault() {
        ClusterState state = state(Metadata.builder());
        assertSame(FingerprintFormat.NEW_INDEX_DEFAULT, IndexFingerprintFormat.forWrite(state, "missing"));
        assertSame(
                IndexFingerprintFormat.forWrite(state, "missing", FingerprintFormat.NEW_INDEX_DEFAULT),
                IndexFingerprintFormat.forWrite(state, "missing"));
    }

    public void testAConcreteIndex() {
        Metadata.Builder metadata = Metadata.builder();
        for (FingerprintFormat format : FORMATS) {
            metadata.put(index("index-" + format.number(), format(format)), false);
        }
        metadata.put(index("index-none", Settings.EMPTY), false);
        ClusterState state = state(metadata);
        for (FingerprintFormat newIndexFormat : FORMATS) {
            for (FingerprintFormat format : FORMATS) {
                assertSame(format, IndexFingerprintFormat.forWrite(state, "index-" + format.number(), newIndexFormat));
            }
            assertSame(
                    FingerprintFormat.UNRECORDED, IndexFingerprintFormat.forWrite(state, "index-none", newIndexFormat));
        }
    }

    public void testAnAliasGoesToItsWriteIndex() {
        FingerprintFormat writeFormat = randomFrom(FORMATS);
        FingerprintFormat otherFormat = other(writeFormat);
        ClusterState state = state(Metadata.builder()
                .put(index("old", format(otherFormat), alias("logs", false), alias("several", null)), false)
                .put(index("current", format(writeFormat), alias("logs", true), alias("several", null)), false)
                .put(index("only", format(otherFormat), alias("single", null)), false));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            assertSame(writeFormat, IndexFingerprintFormat.forWrite(state, "logs", newIndexFormat));
            assertSame(otherFormat, IndexFingerprintFormat.forWrite(state, "single", newIndexFormat));
            // No write index: OpenSearch refuses the write.
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "several", newIndexFormat));
        }
    }

    public void testADataStreamGoesToItsWriteBackingIndex() {
        FingerprintFormat writeFormat = randomFrom(FORMATS);
        IndexMetadata first = index(DataStream.getDefaultBackingIndexName("events", 1), format(other(writeFormat)));
        IndexMetadata second = index(DataStream.getDefaultBackingIndexName("events", 2), format(writeFormat));
        ClusterState state = state(Metadata.builder()
                .put(first, false)
                .put(second, false)
                .put(new DataStream(
                        "events",
                        new DataStream.TimestampField("@timestamp"),
                        List.of(first.getIndex(), second.getIndex()),
                        2)));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            assertSame(writeFormat, IndexFingerprintFormat.forWrite(state, "events", newIndexFormat));
        }
    }

    public void testAMissingIndexMatchedByNothingGetsTheNewIndexFormat() {
        ClusterState state = state(Metadata.builder()
                .put(legacy("elsewhere", "elsewhere-*", 5, format(FingerprintFormat.SIGNATURE)))
                .put("elsewhere", composable("elsewhere2-*", 5, format(FingerprintFormat.COMPACT), List.of())));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "missing", newIndexFormat));
            assertSame("no _index", newIndexFormat, IndexFingerprintFormat.forWrite(state, null, newIndexFormat));
        }
    }

    public void testLegacyTemplatesApplyInOrder() {
        FingerprintFormat high = randomFrom(FORMATS);
        ClusterState state = state(Metadata.builder()
                .put(legacy("low", "logs-*", 1, format(other(high))))
                .put(legacy("high", "logs-*", 2, format(high)))
                .put(legacy(
                        "higher-without",
                        "logs-*",
                        3,
                        Settings.builder().put("index.number_of_shards", 2).build()))
                .put(legacy("unrecorded", "old-*", 1, noFormat()))
                .put(legacy(
                        "unnamed",
                        "plain-*",
                        1,
                        Settings.builder().put("index.number_of_shards", 2).build())));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            assertSame(high, IndexFingerprintFormat.forWrite(state, "logs-1", newIndexFormat));
            assertSame(FingerprintFormat.UNRECORDED, IndexFingerprintFormat.forWrite(state, "old-1", newIndexFormat));
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "plain-1", newIndexFormat));
        }
    }

    public void testAComposableTemplateWinsOverLegacyOnes() {
        FingerprintFormat composed = randomFrom(FORMATS);
        ClusterState state = state(Metadata.builder()
                .put(legacy("legacy", "*", 100, format(other(composed))))
                .put("low", composable("logs-*", 1, format(other(composed)), List.of()))
                .put("high", composable("logs-*", 2, format(composed), List.of()))
                .put("part", new ComponentTemplate(new Template(format(composed), null, null), null, null))
                .put("composed", composable("metrics-*", 1, null, List.of("part")))
                .put("unnamed", composable("plain-*", 1, Settings.EMPTY, List.of())));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            assertSame(composed, IndexFingerprintFormat.forWrite(state, "logs-1", newIndexFormat));
            assertSame(composed, IndexFingerprintFormat.forWrite(state, "metrics-1", newIndexFormat));
            // The composable template matches: the legacy ones do not apply, as OpenSearch does not apply them.
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "plain-1", newIndexFormat));
            assertSame(other(composed), IndexFingerprintFormat.forWrite(state, "other-1", newIndexFormat));
        }
    }

    public void testDateMathIsResolved() {
        FingerprintFormat format = randomFrom(FORMATS);
        String before = todays("dated-");
        ClusterState state = state(Metadata.builder()
                .put(index(before, format(format)), false)
                .put(legacy("dated", "tpl-dated-*", 1, format(other(format)))));
        for (FingerprintFormat newIndexFormat : FORMATS) {
            FingerprintFormat existing = IndexFingerprintFormat.forWrite(state, "<dated-{now/d}>", newIndexFormat);
            FingerprintFormat templated = IndexFingerprintFormat.forWrite(state, "<tpl-dated-{now/d}>", newIndexFormat);
            assumeTrue("the day did not change during the test", before.equals(todays("dated-")));
            assertSame(format, existing);
            assertSame(other(format), templated);
            // Date math that does not parse: OpenSearch refuses the write.
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "<dated-{now/d>", newIndexFormat));
            assertSame(newIndexFormat, IndexFingerprintFormat.forWrite(state, "<dated-{now/x}>", newIndexFormat));
        }
    }

    private static String todays(String prefix) {
        return prefix
                + ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("uuuu.MM.dd", Locale.ROOT));
    }

    static FingerprintFormat other(FingerprintFormat format) {
        return format == FingerprintFormat.SIGNATURE ? FingerprintFormat.COMPACT : FingerprintFormat.SIGNATURE;
    }

    static Settings format(FingerprintFormat format) {
        return Settings.builder()
                .put(IndexFingerprintFormat.KEY, format.number())
                .build();
    }

    /** The setting given as null: an index without one, as before formats were recorded. */
    static Settings noFormat() {
        return Settings.builder().putNull(IndexFingerprintFormat.KEY).build();
    }

    private static ClusterState state(Metadata.Builder metadata) {
        return ClusterState.builder(ClusterName.DEFAULT).metadata(metadata).build();
    }

    private static IndexMetadata index(String name, Settings format, AliasMetadata... aliases) {
        IndexMetadata.Builder index = IndexMetadata.builder(name)
                .settings(Settings.builder()
                        .put(IndexMetadata.SETTING_VERSION_CREATED, Version.CURRENT)
                        .put(IndexMetadata.SETTING_NUMBER_OF_SHARDS, 1)
                        .put(IndexMetadata.SETTING_NUMBER_OF_REPLICAS, 0)
                        .put(format));
        for (AliasMetadata alias : aliases) {
            index.putAlias(alias);
        }
        return index.build();
    }

    private static AliasMetadata alias(String name, Boolean writeIndex) {
        return AliasMetadata.builder(name).writeIndex(writeIndex).build();
    }

    private static IndexTemplateMetadata legacy(String name, String pattern, int order, Settings settings) {
        return IndexTemplateMetadata.builder(name)
                .patterns(List.of(pattern))
                .order(order)
                .settings(settings)
                .build();
    }

    private static ComposableIndexTemplate composable(
            String pattern, long priority, Settings settings, List<String> components) {
        return new ComposableIndexTemplate(
                List.of(pattern), new Template(settings, null, null), components, priority, null, null);
    }
}
