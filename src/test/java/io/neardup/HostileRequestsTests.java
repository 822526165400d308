/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.opensearch.test.OpenSearchTestCase;

/**
 * 10,000 generated hostile requests across the entry points (the {@code near_duplicate} query, a
 * {@code _near_dup_clusters} body, the {@code near_dup_lookup}, {@code near_dup_fingerprint} and
 * {@code near_dup_collapse} processors' configurations), parsed in this JVM as a node parses them: each is refused
 * with a 400 naming a key made hostile, or every key in it is applied ({@link HostileRequests}). A failure prints
 * the seed ({@code -Dtests.seed=…}) that generates the same requests again.
 */
public class HostileRequestsTests extends OpenSearchTestCase {

    static final int REQUESTS = 10_000;

    public void testNoKeyIsSilentlyIgnoredAndEveryRefusalNamesItsKey() {
        HostileRequests requests = new HostileRequests(createTempDir());
        Random random = random();
        HostileRequests.Tally tally = new HostileRequests.Tally();
        List<String> violations = new ArrayList<>();
        long[] nanos = new long[HostileRequests.EntryPoint.values().length];
        for (int i = 0; i < REQUESTS; i++) {
            HostileRequests.EntryPoint entryPoint =
                    HostileRequests.EntryPoint.values()[i % HostileRequests.EntryPoint.values().length];
            // One request in five is valid: the keys of a valid request must all be applied.
            HostileRequests.Request request =
                    HostileRequests.generate(random, entryPoint, random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(3));
            long start = System.nanoTime();
            String violation = requests.violation(request, tally);
            nanos[entryPoint.ordinal()] += System.nanoTime() - start;
            if (violation != null && violations.size() < 20) {
                violations.add(request + "\n  -> " + violation);
            }
        }
        logger.info(
                "hostile requests: {}; ms per entry point {}",
                tally,
                Arrays.toString(Arrays.stream(nanos).map(n -> n / 1_000_000).toArray()));
        assertTrue(String.join("\n", violations), violations.isEmpty());
        // The generator reaches both sides of the property.
        assertTrue(tally.toString(), tally.refused > REQUESTS / 2);
        assertTrue(tally.toString(), tally.accepted > REQUESTS / 10);
        assertTrue(tally.toString(), tally.keysApplied > tally.accepted);
    }
}
