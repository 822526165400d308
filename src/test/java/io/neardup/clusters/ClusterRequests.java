/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.MappingPaths;
import io.neardup.match.MatchSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.opensearch.action.support.PlainActionFuture;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.common.breaker.NoopCircuitBreaker;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.core.xcontent.DeprecationHandler;
import org.opensearch.core.xcontent.NamedXContentRegistry;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.search.SearchModule;
import org.opensearch.tasks.TaskInfo;
import org.opensearch.test.OpenSearchTestCase;
import org.opensearch.threadpool.ThreadPool;
import org.opensearch.transport.client.Client;

/** Requests the tests build without the REST layer, and what they wait for while one runs. */
final class ClusterRequests {

    private ClusterRequests() {}

    /** A full run into {@code dup}: single linkage, representatives by {@code _id}, earlier ones kept, no singletons. */
    static NearDupClustersRequest fullRun(String index, MatchSpec spec) {
        return new NearDupClustersRequest(
                index, spec, "dup", NearDupClustersRequest.Linkage.SINGLE, List.of(), true, null, false);
    }

    /**
     * Runs {@code body} on {@code index} (a name, a pattern or a comma list, as in the path), refreshing at the end, by
     * the action the REST layer picks for it.
     */
    static NearDupClustersResponse run(Client client, String index, String body) throws IOException {
        NearDupClustersRequest request = parse(index, body).refresh(true);
        return client.execute(NearDupClustersDryRunAction.of(request), request).actionGet();
    }

    /**
     * Runs {@code body} on the indices {@code indices} (a comma list of names, oldest first; refreshing at the end) with
     * its graph on the coordinating node, {@code client}'s, as a run takes it in a rolling upgrade (no parts on the data
     * nodes): the duels' control for the runs on the parts. Its target field is mapped first, as the run's action maps
     * it.
     */
    static NearDupClustersResponse runWithTheGraphOnTheCoordinator(
            Client client, ThreadPool threadPool, String indices, String body) throws IOException {
        NearDupClustersRequest request = parse(indices, body).refresh(true);
        ClusterState state = client.admin().cluster().prepareState().get().getState();
        List<IndexMetadata> metadata = new ArrayList<>();
        for (String index : indices.split(",")) {
            metadata.add(state.metadata().index(index));
        }
        boolean manyIndices = metadata.size() > 1;
        if (request.writesIntoDocuments()) {
            for (IndexMetadata index : metadata) {
                client.admin()
                        .indices()
                        .preparePutMapping(index.getIndex().getName())
                        .setSource(TransportNearDupClustersAction.targetMapping(
                                request.targetField(), index.mapping().sourceAsMap(), manyIndices))
                        .get();
            }
        }
        Map<?, ?> field = MappingPaths.find(
                metadata.get(0).mapping().sourceAsMap(), request.spec().field());
        RunContext context =
                runContext(client, threadPool, request, new RunIndices(metadata, manyIndices, state.routingTable()));
        PlainActionFuture<NearDupClustersResponse> run = new PlainActionFuture<>();
        new ClusterJob(context, new NoopCircuitBreaker("test"), "simhash".equals(field.get("type")), null, () -> {})
                .run(run);
        return run.actionGet(60, TimeUnit.SECONDS);
    }

    /** The request the path's {@code index} and {@code body} make. */
    static NearDupClustersRequest parse(String index, String body) throws IOException {
        try (XContentParser parser = JsonXContent.jsonXContent.createParser(
                new NamedXContentRegistry(new SearchModule(Settings.EMPTY, List.of()).getNamedXContents()),
                DeprecationHandler.THROW_UNSUPPORTED_OPERATION,
                body)) {
            return NearDupClustersRequest.parse(index, parser);
        }
    }

    /** A new index of one shard holding three documents of one simhash in {@code fp.simhash}, refreshed. */
    static IndexMetadata threeCopies(Client client, String index) {
        client.admin()
                .indices()
                .prepareCreate(index)
                .setSettings(Settings.builder().put("index.number_of_shards", 1))
                .setMapping("{\"properties\": {\"fp\": {\"properties\": {\"simhash\": {\"type\": \"simhash\"}}}}}")
                .get();
        for (String id : List.of("a", "b", "c")) {
            client.prepareIndex(index)
                    .setId(id)
                    .setSource(Map.of("fp", Map.of("simhash", "00000000000000ff")))
                    .get();
        }
        client.admin().indices().prepareRefresh(index).get();
        return client.admin()
                .cluster()
                .prepareState()
                .get()
                .getState()
                .metadata()
                .index(index);
    }

    /**
     * What a {@link ClusterJob} is given for {@code request} on one index, its requests going through {@code client}
     * (a client that fails or delays some of them), for a test to start the job without the transport action.
     */
    static RunContext runContext(
            Client client, ThreadPool threadPool, NearDupClustersRequest request, IndexMetadata index) {
        return runContext(client, threadPool, request, new RunIndices(List.of(index), false));
    }

    /** The same over {@code indices}, where their shards' copies are as {@code client}'s cluster state says now. */
    static RunContext runContext(
            Client client, ThreadPool threadPool, NearDupClustersRequest request, List<IndexMetadata> indices) {
        return runContext(
                client,
                threadPool,
                request,
                new RunIndices(
                        indices,
                        true,
                        client.admin().cluster().prepareState().get().getState().routingTable()));
    }

    private static RunContext runContext(
            Client client, ThreadPool threadPool, NearDupClustersRequest request, RunIndices indices) {
        NearDupClustersTask task = new NearDupClustersTask(
                1, "transport", NearDupClustersAction.NAME, request.getDescription(), TaskId.EMPTY_TASK_ID, Map.of());
        return new RunContext(
                client,
                threadPool,
                new StepTimeouts(threadPool),
                request,
                task,
                new WriteThrottle(threadPool, request.requestsPerSecond()),
                indices);
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
        awaitFirstWrite(client, NearDupClustersAction.NAME);
    }

    /** As {@link #awaitFirstWrite(Client)}, for a run under {@code action} (a run with {@code dest} goes under the read action). */
    static void awaitFirstWrite(Client client, String action) throws Exception {
        OpenSearchTestCase.assertBusy(
                () -> {
                    List<TaskInfo> tasks = client.admin()
                            .cluster()
                            .prepareListTasks()
                            .setActions(action)
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
