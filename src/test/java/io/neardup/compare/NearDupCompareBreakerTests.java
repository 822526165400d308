/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import static org.hamcrest.Matchers.containsString;

import io.neardup.NearDupPlugin;
import java.util.Collection;
import java.util.List;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.core.common.bytes.BytesArray;
import org.opensearch.core.indices.breaker.CircuitBreakerService;
import org.opensearch.plugins.Plugin;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/** A comparison's scratch is charged to the {@code neardup} breaker: past it, a 429 naming the comparison, nothing kept. */
public class NearDupCompareBreakerTests extends OpenSearchSingleNodeTestCase {

    @Override
    protected Collection<Class<? extends Plugin>> getPlugins() {
        return List.of(NearDupPlugin.class);
    }

    @Override
    protected Settings nodeSettings() {
        return Settings.builder()
                .put(super.nodeSettings())
                .put(NearDupPlugin.BREAKER_LIMIT.getKey(), "1mb")
                .build();
    }

    private long breakerUsed() {
        return getInstanceFromNode(CircuitBreakerService.class)
                .getBreaker(NearDupPlugin.BREAKER_NAME)
                .getUsed();
    }

    public void testTextsPastTheBreakerAreA429AndGiveEverythingBack() {
        client().admin()
                .cluster()
                .preparePutPipeline(
                        "fp",
                        new BytesArray("{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\"}}]}"),
                        XContentType.JSON)
                .get();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            text.append('w').append(i % 5000).append(' ');
        }
        long before = breakerUsed();
        // 100,000 tokens a side: 2 MB of tokens and offsets, more with the shingles, past the 1 MB limit
        NearDupCompareRequest request = new NearDupCompareRequest(
                new NearDupCompareRequest.Side("a", text.toString(), null, null, null),
                new NearDupCompareRequest.Side("b", text + "end", null, null, null),
                "fp",
                null,
                NearDupCompareRequest.DEFAULT_MAX_EXPLAINED_CHARS);
        CircuitBreakingException e = expectThrows(
                CircuitBreakingException.class,
                () -> client().execute(NearDupCompareAction.INSTANCE, request).actionGet());
        assertThat(e.getMessage(), containsString(TransportNearDupCompareAction.BREAKER_LABEL));
        assertEquals("everything reserved was given back", before, breakerUsed());

        // short texts compare under the same limit
        NearDupCompareRequest small = new NearDupCompareRequest(
                new NearDupCompareRequest.Side("a", "one two three four", null, null, null),
                new NearDupCompareRequest.Side("b", "one two three five", null, null, null),
                "fp",
                null,
                NearDupCompareRequest.DEFAULT_MAX_EXPLAINED_CHARS);
        // {one two three, two three four} and {one two three, two three five}
        assertEquals(
                1.0 / 3,
                client().execute(NearDupCompareAction.INSTANCE, small)
                        .actionGet()
                        .result()
                        .jaccard(),
                0.0);
    }
}
