/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.MinhashDocuments;
import io.neardup.ShingleTruth;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.apache.lucene.tests.search.CheckHits;
import org.apache.lucene.tests.search.QueryUtils;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

/** Any candidate query (here: a term query standing in for the simhash neighbours) filtered by Jaccard, against brute force. */
public class JaccardVerifiedQueryTests extends OpenSearchTestCase {

    private static final String MINHASH = "fp.minhash";
    private static final int SCHEME_HASH = 0x2586f90f;

    public void testResultIsTheCandidatesAtOrAboveTau() throws IOException {
        Random random = random();
        MinHasher hasher = MinHasher.of(64, 3L, MinHasher.Method.ONE_PERMUTATION);
        long[] base = random.longs(200).toArray();
        int n = atLeast(200);
        long[][] sets = new long[n][];
        int[][] signatures = new int[n][];
        boolean[] candidate = new boolean[n];
        boolean[] stored = new boolean[n];
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                for (int i = 0; i < n; i++) {
                    sets[i] = base.clone();
                    for (int j = random.nextInt(base.length + 1); j > 0; j--) {
                        sets[i][random.nextInt(base.length)] = random.nextLong();
                    }
                    signatures[i] = hasher.signature(sets[i], sets[i].length);
                    candidate[i] = random.nextInt(3) > 0;
                    stored[i] = random.nextInt(4) > 0;
                    Document doc = new Document();
                    doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    doc.add(new StringField("near", candidate[i] ? "yes" : "no", Field.Store.NO));
                    doc.add(new BinaryDocValuesField(MINHASH, new BytesRef(SignatureCodec.valueBytes(signatures[i]))));
                    if (stored[i]) {
                        doc.add(new BinaryDocValuesField(
                                FingerprintFields.shinglesField(MINHASH),
                                new BytesRef(ShingleSetCodec.payload(ShingleSetCodec.of(sets[i], sets[i].length)))));
                    }
                    doc.add(new SortedDocValuesField(
                            FingerprintFields.schemeField(MINHASH), new BytesRef("nd1-2586f90f")));
                    writer.addDocument(doc);
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader);
                int q = random.nextInt(n);
                byte[] querySet = ShingleSetCodec.payload(ShingleSetCodec.of(sets[q], sets[q].length));
                Query candidates = new TermQuery(new Term("near", "yes"));
                for (double tau : new double[] {0.2, 0.5, 0.8, 1.0}) {
                    Map<Integer, Double> expected = new HashMap<>();
                    for (int i = 0; i < n; i++) {
                        double similarity = ShingleTruth.verifiedSimilarity(
                                stored[i], sets[q], sets[i], signatures[q], signatures[i]);
                        if (candidate[i] && similarity >= tau) {
                            expected.put(i, similarity);
                        }
                    }
                    JaccardVerifiedQuery query = new JaccardVerifiedQuery(
                            candidates, MinhashDocuments.fieldType(MINHASH), signatures[q], querySet, SCHEME_HASH, tau);
                    Map<Integer, Double> found = new HashMap<>();
                    for (ScoreDoc hit : searcher.search(query, n).scoreDocs) {
                        found.put(
                                Integer.parseInt(searcher.storedFields()
                                        .document(hit.doc)
                                        .get("id")),
                                (double) hit.score);
                    }
                    assertEquals("tau=" + tau, expected.keySet(), found.keySet());
                    expected.forEach((id, similarity) -> assertEquals(similarity, found.get(id), 1e-6));
                    QueryUtils.check(random, query, searcher);
                    CheckHits.checkExplanations(query, "id", searcher);
                }
                Explanation explanation = searcher.explain(
                        new JaccardVerifiedQuery(
                                candidates,
                                MinhashDocuments.fieldType(MINHASH),
                                signatures[q],
                                querySet,
                                SCHEME_HASH,
                                0.01),
                        0);
                assertTrue(
                        explanation.toString(),
                        explanation.toString().contains(candidate[docOf(searcher, 0)] ? "Jaccard" : "not a candidate"));
                IllegalArgumentException e = expectThrows(
                        IllegalArgumentException.class,
                        () -> searcher.search(
                                new JaccardVerifiedQuery(
                                        candidates,
                                        MinhashDocuments.fieldType(MINHASH),
                                        signatures[q],
                                        querySet,
                                        0x12345678,
                                        0.5),
                                10));
                assertEquals(
                        "the query fingerprint has scheme [scheme hash 12345678] but field [fp.minhash] holds scheme [nd1-2586f90f]; "
                                + "fingerprints of different schemes are not comparable",
                        e.getMessage());
            }
        }
    }

    private static int docOf(IndexSearcher searcher, int doc) throws IOException {
        return Integer.parseInt(searcher.storedFields().document(doc).get("id"));
    }
}
