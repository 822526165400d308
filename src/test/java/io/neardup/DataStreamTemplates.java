/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.opensearch.action.admin.indices.datastream.DeleteDataStreamAction;
import org.opensearch.action.admin.indices.template.delete.DeleteComposableIndexTemplateAction;
import org.opensearch.action.admin.indices.template.put.PutComposableIndexTemplateAction;
import org.opensearch.cluster.metadata.ComposableIndexTemplate;
import org.opensearch.cluster.metadata.Template;
import org.opensearch.common.compress.CompressedXContent;
import org.opensearch.common.settings.Settings;
import org.opensearch.transport.client.Client;

/** Data streams for the in-JVM tests: a composable template that makes one, and its removal with the stream. */
public final class DataStreamTemplates {

    private DataStreamTemplates() {}

    /** A template named {@code stream} whose pattern is {@code stream}: the data stream's backing indices get these. */
    public static void put(Client client, String stream, Settings settings, String mapping) {
        ComposableIndexTemplate template;
        try {
            template = new ComposableIndexTemplate(
                    List.of(stream),
                    new Template(settings, new CompressedXContent(mapping), null),
                    null,
                    100L,
                    null,
                    null,
                    new ComposableIndexTemplate.DataStreamTemplate());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        client.execute(
                        PutComposableIndexTemplateAction.INSTANCE,
                        new PutComposableIndexTemplateAction.Request(stream).indexTemplate(template))
                .actionGet();
    }

    /** Deletes the data stream {@code stream} and its template. */
    public static void delete(Client client, String stream) {
        client.execute(DeleteDataStreamAction.INSTANCE, new DeleteDataStreamAction.Request(new String[] {stream}))
                .actionGet();
        client.execute(
                        DeleteComposableIndexTemplateAction.INSTANCE,
                        new DeleteComposableIndexTemplateAction.Request(stream))
                .actionGet();
    }
}
