package io.neardup.query;

import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.mapper.FingerprintFields;
import io.neardup.mapper.MinhashFieldMapper;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

public class MinhashSimilarityQueryTests extends OpenSearchTestCase {

    private static final String FIELD = "fp.minhash";
    private static final int K = 64;
    private static final int SCHEME_HASH = 0x2586f90f;

    /** Signatures of documents that overlap a base set by a random fraction: a spread of similarities. */
    private static int[][] signatures(Random random, int n) {
        MinHasher hasher = MinHasher.of(K, 7L, MinHasher.Method.ONE_PERMUTATION);
        long[] base = random.longs(300).toArray();
        int[][] signatures = new int[n][];
        for (int i = 0; i < n; i++) {
            long[] set = base.clone();
            int replaced = random.nextInt(set.length + 1);
            for (int j = 0; j < replaced; j++) {
                set[random.nextInt(set.length)] = random.nextLong();
            }
            signatures[i] = hasher.signature(set, set.length);
        }
        return signatures;
    }

    private static int equalBands(int[] a, int[] b, LshBanding banding) {
        int equal = 0;
        for (int band = 0; band < banding.bands(); band++) {
            int from = band * banding.rows();
            equal += Arrays.equals(a, from, from + banding.rows(), b, from, from + banding.rows()) ? 1 : 0;
        }
        return equal;
    }

    public void testResultIsExactlyTheVerifiedCandidates() throws IOException {
        Random random = random();
        int[][] signatures = signatures(random, 400);
        try (Directory directory = newDirectory()) {
            LshBanding banding = LshBanding.of(8, 8, K);
            try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setMaxBufferedDocs(100))) {
                for (int i = 0; i < signatures.length; i++) {
                    Document doc = new Document();
                    doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                    byte[] bytes = MinhashFieldMapper.signatureBytes(signatures[i]);
                    doc.add(new BinaryDocValuesField(FIELD, new BytesRef(bytes)));
                    for (int band = 0; band < banding.bands(); band++) {
                        doc.add(new Field(FIELD, MinhashFieldMapper.bandTerm(bytes, band, banding.rows()), MinhashFieldMapper.BAND_FIELD_TYPE));
                    }
                    doc.add(new SortedDocValuesField(FingerprintFields.schemeField(FIELD), new BytesRef("nd1-2586f90f")));
                    writer.addDocument(doc);
                }
                writer.deleteDocuments(new Term("id", "3"));
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = newSearcher(reader, false);
                int[] query = signatures[0];
                for (int m : new int[] { 1, 2, 4 }) {
                    for (double tau : new double[] { 0.3, 0.6, 0.9 }) {
                        Map<Integer, Double> expected = new HashMap<>();
                        for (int i = 0; i < signatures.length; i++) {
                            double similarity = MinHasher.jaccard(query, signatures[i]);
                            if (i != 3 && equalBands(query, signatures[i], banding) >= m && similarity >= tau) {
                                expected.put(i, similarity);
                            }
                        }
                        Map<Integer, Double> found = new HashMap<>();
                        for (ScoreDoc hit : searcher.search(new MinhashSimilarityQuery(FIELD, query, SCHEME_HASH, null, banding, m, tau),
                            1000).scoreDocs) {
                            found.put(Integer.parseInt(searcher.storedFields().document(hit.doc).get("id")), (double) hit.score);
                        }
                        assertEquals("m=" + m + " tau=" + tau, expected.keySet(), found.keySet());
                        expected.forEach((id, similarity) -> assertEquals(similarity, found.get(id), 1e-6));
                    }
                }
                IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> searcher.search(
                    new MinhashSimilarityQuery(FIELD, query, 0x12345678, null, banding, 1, 0.5), 10));
                assertEquals("the query fingerprint has scheme [scheme hash 12345678] but field [fp.minhash] holds scheme [nd1-2586f90f]; "
                    + "fingerprints of different schemes are not comparable", e.getMessage());
            }
        }
    }

    public void testCandidateProbabilityIsTheBandingSCurve() {
        LshBanding banding = LshBanding.of(9, 13, 128);
        for (double s : new double[] { 0.1, 0.5, 0.8, 0.95 }) {
            double classic = 1 - Math.pow(1 - Math.pow(s, 13), 9);
            assertEquals(classic, MinhashSimilarityQuery.candidateProbability(banding, 1, s), 1e-12);
            double p = Math.pow(s, 13);
            double atLeastTwo = classic - 9 * p * Math.pow(1 - p, 8);
            assertEquals(atLeastTwo, MinhashSimilarityQuery.candidateProbability(banding, 2, s), 1e-12);
        }
        assertEquals(1.0, MinhashSimilarityQuery.candidateProbability(banding, 9, 1.0), 0.0);
    }

    public void testConstructorRejectsWhatCannotWork() {
        int[] signature = new int[K];
        LshBanding banding = LshBanding.of(8, 8, K);
        assertEquals("min_band_matches must be in [1, 8], got 9", expectThrows(IllegalArgumentException.class,
            () -> new MinhashSimilarityQuery(FIELD, signature, 0, null, banding, 9, 0.5)).getMessage());
        assertEquals("min_similarity must be in (0, 1], got 0.0", expectThrows(IllegalArgumentException.class,
            () -> new MinhashSimilarityQuery(FIELD, signature, 0, null, banding, 1, 0)).getMessage());
        assertEquals("banding 8 x 8 needs 64 values, the signature has 32", expectThrows(IllegalArgumentException.class,
            () -> new MinhashSimilarityQuery(FIELD, new int[32], 0, null, banding, 1, 0.5)).getMessage());
    }
}
