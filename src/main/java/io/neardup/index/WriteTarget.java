/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import org.opensearch.cluster.metadata.IndexAbstraction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.Metadata;
import org.opensearch.cluster.metadata.MetadataIndexTemplateService;

/**
 * Where a document written to a name goes, found as OpenSearch finds it, as the cluster state tells now: the name (its
 * date math resolved, as the write resolves it) and, where it names something (an index, an alias, a data stream),
 * that thing's write index; where it names nothing yet (the write makes it), the composable template that matches it.
 * The one reading of a write's target behind the format a document gets ({@link IndexFingerprintFormat#forWrite}) and
 * the index a lookup names for a document it has not written yet.
 *
 * @param name the name written to, date math resolved
 * @param exists whether {@code name} names an index, an alias or a data stream
 * @param writeIndex where it exists, the index the write goes to; null for an alias without one
 * @param composableTemplate where it does not exist, the composable template that will make it; null for none
 */
public record WriteTarget(String name, boolean exists, IndexMetadata writeIndex, String composableTemplate) {

    /** The target of a write to {@code target}; null where its date math does not parse (OpenSearch refuses the write). */
    public static WriteTarget of(Metadata metadata, String target) {
        IndexMetadata index = metadata.index(target);
        if (index != null) {
            // A concrete index: a map lookup, the common case.
            return new WriteTarget(target, true, index, null);
        }
        String name = IndexFingerprintFormat.resolveDateMath(target);
        if (name == null) {
            return null;
        }
        IndexAbstraction abstraction = metadata.getIndicesLookup().get(name);
        if (abstraction != null) {
            return new WriteTarget(name, true, abstraction.getWriteIndex(), null);
        }
        // As MetadataCreateIndexService picks an auto-created index's templates (its request names no index.hidden).
        return new WriteTarget(name, false, null, MetadataIndexTemplateService.findV2Template(metadata, name, false));
    }

    /** Whether the write makes a data stream: the name names nothing yet and its composable template makes one. */
    public boolean makesADataStream(Metadata metadata) {
        return composableTemplate != null
                && metadata.templatesV2().get(composableTemplate).getDataStreamTemplate() != null;
    }
}
