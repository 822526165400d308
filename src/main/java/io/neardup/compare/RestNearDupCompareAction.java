/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.rest.BaseRestHandler;
import org.opensearch.rest.RestRequest;
import org.opensearch.rest.action.RestToXContentListener;
import org.opensearch.transport.client.node.NodeClient;

/** {@code POST _near_dup/_compare} with {@code {"a": …, "b": …}}: see {@link NearDupCompareRequest}. */
public final class RestNearDupCompareAction extends BaseRestHandler {

    @Override
    public String getName() {
        return "near_dup_compare";
    }

    @Override
    public List<Route> routes() {
        return List.of(new Route(RestRequest.Method.POST, "/_near_dup/_compare"));
    }

    @Override
    protected RestChannelConsumer prepareRequest(RestRequest restRequest, NodeClient client) throws IOException {
        if (restRequest.hasContentOrSourceParam() == false) {
            throw new IllegalArgumentException("[_near_dup/_compare] needs a body with [a] and [b]");
        }
        Map<String, Object> body;
        try (XContentParser parser = restRequest.contentOrSourceParamParser()) {
            body = parser.map();
        }
        NearDupCompareRequest request = NearDupCompareRequest.parse(body);
        if (request.comparesDocuments() == false) {
            NearDupCompareTextsAction.Request texts = new NearDupCompareTextsAction.Request(request);
            return channel ->
                    client.execute(NearDupCompareTextsAction.INSTANCE, texts, new RestToXContentListener<>(channel));
        }
        return channel -> client.execute(NearDupCompareAction.INSTANCE, request, new RestToXContentListener<>(channel));
    }
}
