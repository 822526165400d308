/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.CountingBreaker;
import io.neardup.index.BreakerBudget;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.index.mapper.IdFieldMapper;
import org.opensearch.index.mapper.Uid;
import org.opensearch.test.OpenSearchTestCase;

/** {@link ShardDocs#ids}: each document's own {@code _id}, for any order and repeats, over calls that share documents. */
public class ShardDocsTests extends OpenSearchTestCase {

    public void testIdsOverCallsThatShareDocuments() throws IOException {
        int n = between(1, 300);
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random(), directory)) {
                for (int i = 0; i < n; i++) {
                    Document doc = new Document();
                    doc.add(new StoredField(IdFieldMapper.NAME, Uid.encodeId("doc-" + i)));
                    writer.addDocument(doc);
                }
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                String[] expected = new String[n];
                for (int doc = 0; doc < n; doc++) {
                    expected[doc] =
                            Uid.decodeId(reader.storedFields().document(doc).getBinaryValue(IdFieldMapper.NAME).bytes);
                }
                CountingBreaker breaker = new CountingBreaker(Long.MAX_VALUE);
                Set<Integer> read = new HashSet<>();
                try (ShardDocs docs = new ShardDocs(searcher, null, BreakerBudget.of(breaker, "ids"))) {
                    for (int call = 0; call < 5; call++) {
                        int count = between(0, 2 * n);
                        int[] asked = new int[count + between(0, 3)]; // only the first count are asked for
                        for (int i = 0; i < asked.length; i++) {
                            asked[i] = randomIntBetween(0, n - 1);
                        }
                        String[] ids = docs.ids(asked, count);
                        assertEquals(count, ids.length);
                        for (int i = 0; i < count; i++) {
                            assertEquals(expected[asked[i]], ids[i]);
                            read.add(asked[i]);
                        }
                        assertEquals(
                                "each _id kept is charged once",
                                read.size() * ShardDocs.BYTES_PER_ID,
                                breaker.getUsed());
                    }
                }
                assertEquals(0, breaker.getUsed());
            }
        }
    }

    /** The {@code _id}s kept are reserved before they are read: past the limit, a 429 and nothing held. */
    public void testIdsPastTheLimitTripTheBreakerAndHoldNothing() throws IOException {
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random(), directory)) {
                for (int i = 0; i < 100; i++) {
                    Document doc = new Document();
                    doc.add(new StoredField(IdFieldMapper.NAME, Uid.encodeId("doc-" + i)));
                    writer.addDocument(doc);
                }
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                int room = between(0, 99);
                CountingBreaker breaker = new CountingBreaker(room * ShardDocs.BYTES_PER_ID);
                int[] all = new int[100];
                for (int i = 0; i < all.length; i++) {
                    all[i] = i;
                }
                try (ShardDocs docs =
                        new ShardDocs(new IndexSearcher(reader), null, BreakerBudget.of(breaker, "ids"))) {
                    int[] some = Arrays.copyOf(all, room);
                    assertEquals(room, docs.ids(some, room).length);
                    CircuitBreakingException e = expectThrows(CircuitBreakingException.class, () -> docs.ids(all, 100));
                    assertEquals(RestStatus.TOO_MANY_REQUESTS, e.status());
                    assertEquals(room * ShardDocs.BYTES_PER_ID, breaker.getUsed());
                }
                assertEquals(0, breaker.getUsed());
            }
        }
    }
}
