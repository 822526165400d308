/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.MatchSpec;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.search.SearchModule;
import org.opensearch.tasks.TaskInfo;
import org.opensearch.test.OpenSearchTestCase;
import org.opensearch.transport.client.Client;

/** Requests the tests build without the REST layer, and what they wait for while one runs. */
final class ClusterRequests {

    private ClusterRequests() {}

    /** A full run into {@code dup}: single linkage, representatives by {@code _id}, earlier ones kept, no singletons. */
    static NearDupClustersRequest fullRun(String index, MatchSpec spec) {
        return new NearDupClustersRequest(
                index, spec, "dup", NearDupClustersRequest.Linkage.SINGLE, List.of(), true, null, false);
    }

    /** Runs {@code body} on {@code index} (a name, a pattern or a comma list, as in the path), refreshing at the end. */
    static NearDupClustersResponse run(Client client, String index, String body) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents()),
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                body)) {
            return client.execute(
                            NearDupClustersAction.INSTANCE,
                            NearDupClustersRequest.parse(index, parser).refresh(true))
                    .actionGet();
        }
    }

    /** The pipeline {@code fp}: {@code text} fingerprinted into {@code fp} with the processor's defaults. */
    static void putFingerprintPipeline(Client client) {
        client.admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": "
                                + "{\"field\": \"text\", \"target_field\": \"fp\"}}]}"),
                        XContentType.JSON)
                .get();
    }

    /** Waits (up to a minute) until the running clusters task, as {@code client} lists it, has written an assignment. */
    static void awaitFirstWrite(Client client) throws Exception {
        OpenSearchTestCase.assertBusy(
                () -> {
                    List<TaskInfo> tasks = client.admin()
                            .cluster()
                            .prepareListTasks()
                            .setActions(NearDupClustersAction.NAME)
                            .setDetailed(true)
                            .get()
                            .getTasks();
                    OpenSearchTestCase.assertFalse(tasks.isEmpty());
                    OpenSearchTestCase.assertTrue(
                            ((NearDupClustersTask.Status) tasks.get(0).getStatus()).updated() >= 1);
                },
                60,
                TimeUnit.SECONDS);
    }
}
