/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.opensearch.ResourceNotFoundException;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.search.SearchAction;
import org.opensearch.action.search.SearchRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.action.support.ActionFilterChain;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.regex.Regex;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.search.SearchExtBuilder;
import org.opensearch.search.builder.SearchSourceBuilder;
import org.opensearch.search.fetch.subphase.FetchSourceContext;
import org.opensearch.tasks.Task;
import org.opensearch.transport.client.Client;

/**
 * Prepares a search's {@code near_dup_explain} on the coordinating node, before any shard runs it:
 * <ul>
 * <li>splits {@code max_total_chars}, a cap per request, evenly over the shards the search reads (of its local
 *     indices), so that what every shard explains adds up to at most the cap: a shard cannot know what the others
 *     explain, and each explains its hits as it fetches them;</li>
 * <li>reads the document {@code like} names: a realtime GET of its field in the caller's thread context, so the Security
 *     plugin checks it as any GET of the caller (an index the caller may not read is a 403) and its reader hides what the
 *     caller may not see (a document hidden by DLS answers as a missing one, a 404; a field hidden by FLS has no value, a
 *     400), exactly as {@code _near_dup/_compare} reads its sides. The search then proceeds with the document's text as
 *     {@code like.text}, from the GET's listener: no thread waits for the read. A fetch sub-phase has no asynchronous
 *     step and a search extension no rewrite, so the search's own action filter is where the read can be chained.</li>
 * </ul>
 */
public final class NearDupExplainCoordinator implements ActionFilter {
    private final Supplier<Client> client;
    private final Supplier<ClusterService> clusterService;
    private final Supplier<IndexNameExpressionResolver> resolver;

    /** Suppliers because the plugin's services are given after its action filters are asked for. */
    public NearDupExplainCoordinator(
            Supplier<Client> client,
            Supplier<ClusterService> clusterService,
            Supplier<IndexNameExpressionResolver> resolver) {
        this.client = client;
        this.clusterService = clusterService;
        this.resolver = resolver;
    }

    @Override
    public int order() {
        // After FingerprintSearchChecks (0): a search those refuse reads nothing.
        return 1;
    }

    @Override
    public <Request extends ActionRequest, Response extends ActionResponse> void apply(
            Task task,
            String action,
            Request request,
            ActionListener<Response> listener,
            ActionFilterChain<Request, Response> chain) {
        if (SearchAction.NAME.equals(action)
                && request instanceof SearchRequest search
                && search.source() != null
                && explainExt(search.source()) instanceof NearDupExplainExt asSent) {
            NearDupExplainExt ext = asSent.withMaxShardChars(asSent.maxTotalChars() / shardsSearched(search));
            NearDupExplainExt.LikeDocument like = ext.likeDocument();
            if (like == null) {
                search.source(withExt(search.source(), ext));
                chain.proceed(task, action, request, listener);
                return;
            }
            String index;
            try {
                index = likedIndex(like, search);
            } catch (IllegalArgumentException e) {
                listener.onFailure(e);
                return;
            }
            String field = like.field() == null ? ext.field() : like.field();
            GetRequest get = new GetRequest(index)
                    .id(like.id())
                    .fetchSourceContext(new FetchSourceContext(true, new String[] {field}, null));
            client.get()
                    .get(
                            get,
                            ActionListener.wrap(
                                    response -> {
                                        if (response.isExists() == false) {
                                            listener.onFailure(new ResourceNotFoundException(
                                                    "[" + NearDupExplainExt.NAME + ".like._id] document [" + like.id()
                                                            + "] not found in index [" + index + "]"));
                                            return;
                                        }
                                        Map<String, Object> source = response.getSourceAsMap();
                                        String text = TransportNearDupCompareAction.textOf(
                                                NearDupExplainExt.NAME + ".like",
                                                field,
                                                like.id(),
                                                index,
                                                source == null ? null : XContentMapValues.extractValue(field, source));
                                        search.source(withExt(search.source(), ext.withLikeText(text)));
                                        chain.proceed(task, action, request, listener);
                                    },
                                    listener::onFailure));
            return;
        }
        chain.proceed(task, action, request, listener);
    }

    /**
     * The shards of the local indices the search names (each is searched on one copy), at least 1. Routing or a
     * preference may read fewer: each shard's share is then smaller than it could be, and the sum still within the cap.
     * Where the names do not resolve, the search reports that itself; until it does, 1.
     */
    private int shardsSearched(SearchRequest search) {
        ClusterService cluster = clusterService.get();
        IndexNameExpressionResolver indexResolver = resolver.get();
        if (cluster == null || indexResolver == null) {
            return 1;
        }
        ClusterState state = cluster.state();
        int shards = 0;
        try {
            for (String index : indexResolver.concreteIndexNames(state, search)) {
                IndexMetadata metadata = state.metadata().index(index);
                shards += metadata == null ? 0 : metadata.getNumberOfShards();
            }
        } catch (RuntimeException e) {
            return 1;
        }
        return Math.max(1, shards);
    }

    private static SearchExtBuilder explainExt(SearchSourceBuilder source) {
        for (SearchExtBuilder ext : source.ext()) {
            if (NearDupExplainExt.NAME.equals(ext.getWriteableName())) {
                return ext;
            }
        }
        return null;
    }

    /** {@code like._index}, else the one index (or alias) the search names. */
    private static String likedIndex(NearDupExplainExt.LikeDocument like, SearchRequest search) {
        if (like.index() != null) {
            return like.index();
        }
        String[] indices = search.indices();
        if (indices.length == 1
                && Regex.isSimpleMatchPattern(indices[0]) == false
                && "_all".equals(indices[0]) == false
                && indices[0].contains(":") == false) {
            return indices[0];
        }
        throw new IllegalArgumentException("[" + NearDupExplainExt.NAME + ".like._index] is needed: the search reads "
                + (indices.length == 0 ? "every index" : "[" + String.join(",", indices) + "]")
                + ", not one index to read [like._id] in");
    }

    /** A copy of {@code source} with {@code ext} in place of the one of its name: a source the caller still holds is left as it was. */
    private static SearchSourceBuilder withExt(SearchSourceBuilder source, NearDupExplainExt ext) {
        List<SearchExtBuilder> exts = new ArrayList<>();
        for (SearchExtBuilder other : source.ext()) {
            exts.add(NearDupExplainExt.NAME.equals(other.getWriteableName()) ? ext : other);
        }
        return source.shallowCopy().ext(exts);
    }
}
