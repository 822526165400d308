/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.LeadCostQuery;
import io.neardup.core.ContainmentSampling;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.LshBanding;
import io.neardup.core.ShingleSetCodec;
import io.neardup.index.Containment;
import io.neardup.index.ContainmentQuery;
import io.neardup.index.FingerprintFields;
import io.neardup.index.MinhashFieldMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A containment query beside a cheaper required clause (a term {@code leadFraction} of the documents have), scored
 * for the top 10, three ways: as Lucene asks for it ({@code led}: two-phase where the term is at least eight times
 * cheaper, else one pass), in one pass over the whole segment whatever leads ({@code onePass}: asked as if nothing led,
 * what it did before it honoured {@code leadCost}), and two-phase whatever leads ({@code twoPhase}: asked as if
 * nothing cost anything), which shows where the ratio chosen between the two stands.
 *
 * <p>One force-merged segment of {@code n} synthetic sets of 60–300 values, one value in ten from a pool of 2,000
 * shared by many documents (boilerplate), one document in ten embedding one of 1,000 articles (40–200 values, 3%
 * replaced); {@code contained: like} asks with an article, {@code document} with a host, those of rare hosts first.
 * The setup checks that the three give the same top hits, and that some queries have hits.
 *
 * <pre>
 * mvn -Pbench test-compile exec:exec -Dbench.args="ContainmentLeadBenchmark -f 1"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@State(Scope.Thread)
public class ContainmentLeadBenchmark {
    private static final String FIELD = "fp";
    private static final String TAG = "tag";
    private static final int SAMPLING = 4;
    private static final int ARTICLES = 1_000;
    private static final int BOILERPLATE = 2_000;
    private static final int QUERIES = 64;
    private static final MinhashFieldMapper.MinhashFieldType FIELD_TYPE = new MinhashFieldMapper.MinhashFieldType(
            FIELD,
            MinhashFieldMapper.DEFAULT_NUM_HASHES,
            LshBanding.forFloor(0.5, MinhashFieldMapper.DEFAULT_NUM_HASHES),
            FingerprintFormat.SIGNATURE,
            SAMPLING,
            Map.of());

    @Param("200000")
    public int n;

    @Param({"0.001", "0.01", "0.1"})
    public double leadFraction;

    @Param({"like", "document"})
    public String contained;

    private DirectoryReader reader;
    private IndexSearcher searcher;
    private Query[] led;
    private Query[] onePass;
    private Query[] twoPhase;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Random random = new Random(42);
        long[] boilerplate = random.longs(BOILERPLATE).toArray();
        long[][] articles = new long[ARTICLES][];
        for (int a = 0; a < ARTICLES; a++) {
            articles[a] = hashes(random, boilerplate, 40 + random.nextInt(161));
        }
        ByteBuffersDirectory directory = new ByteBuffersDirectory();
        // The likes of rare hosts first: their queries have a hit among the rare documents.
        List<byte[]> rareLikes = new ArrayList<>();
        List<byte[]> otherLikes = new ArrayList<>();
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
            for (int i = 0; i < n; i++) {
                long[] host = hashes(random, boilerplate, 60 + random.nextInt(241));
                boolean rare = random.nextDouble() < leadFraction;
                byte[] like = null;
                if (i % 10 == 0) {
                    long[] article = articles[random.nextInt(ARTICLES)];
                    long[] edited = article.clone();
                    for (int j = 0; j < edited.length; j++) {
                        if (random.nextInt(100) < 3) {
                            edited[j] = random.nextLong();
                        }
                    }
                    int at = random.nextInt(host.length);
                    long[] embedding = new long[host.length + edited.length];
                    System.arraycopy(host, 0, embedding, 0, at);
                    System.arraycopy(edited, 0, embedding, at, edited.length);
                    System.arraycopy(host, at, embedding, at + edited.length, host.length - at);
                    host = embedding;
                    if (contained.equals("like")) {
                        like = ShingleSetCodec.payload(ShingleSetCodec.of(article, article.length));
                    }
                }
                int[] values = ShingleSetCodec.of(host, host.length);
                if (contained.equals("document") && i % 10 == 0) {
                    like = ShingleSetCodec.payload(values);
                }
                List<byte[]> likes = rare ? rareLikes : otherLikes;
                if (like != null && likes.size() < QUERIES) {
                    likes.add(like);
                }
                Document doc = new Document();
                doc.add(new BinaryDocValuesField(
                        FingerprintFields.shinglesField(FIELD), new BytesRef(ShingleSetCodec.payload(values))));
                doc.add(new NumericDocValuesField(FingerprintFields.containmentSizeField(FIELD), values.length));
                for (int value : ContainmentSampling.sample(values, SAMPLING)) {
                    doc.add(new Field(
                            FingerprintFields.containmentField(FIELD),
                            MinhashFieldMapper.MinhashFieldType.containmentTerm(value),
                            MinhashFieldMapper.BAND_FIELD_TYPE));
                }
                doc.add(new StringField(TAG, rare ? "rare" : "common", Field.Store.NO));
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
        }
        List<byte[]> likes = new ArrayList<>(rareLikes);
        likes.addAll(otherLikes.subList(0, Math.min(otherLikes.size(), QUERIES - likes.size())));
        if (likes.size() < QUERIES) {
            throw new IllegalArgumentException(
                    "n = " + n + " plants " + likes.size() + " queries, fewer than " + QUERIES);
        }
        reader = DirectoryReader.open(directory);
        searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null);
        led = new Query[QUERIES];
        onePass = new Query[QUERIES];
        twoPhase = new Query[QUERIES];
        Containment containment = new Containment(
                0.8, contained.equals("like") ? Containment.Contained.LIKE : Containment.Contained.DOCUMENT);
        Query rare = new TermQuery(new Term(TAG, "rare"));
        int withHits = 0;
        for (int q = 0; q < QUERIES; q++) {
            Query query = new ContainmentQuery(FIELD_TYPE, likes.get(q), 0, null, containment, null);
            led[q] = besideRare(query, rare);
            onePass[q] = besideRare(LeadCostQuery.askedWith(query, Long.MAX_VALUE), rare);
            twoPhase[q] = besideRare(LeadCostQuery.askedWith(query, 0), rare);
            String ledHits = Arrays.toString(searcher.search(led[q], 10).scoreDocs);
            for (Query other : new Query[] {onePass[q], twoPhase[q]}) {
                String otherHits = Arrays.toString(searcher.search(other, 10).scoreDocs);
                if (ledHits.equals(otherHits) == false) {
                    throw new AssertionError("query " + q + ": " + ledHits + " led, " + otherHits + " as " + other);
                }
            }
            withHits += searcher.count(led[q]) > 0 ? 1 : 0;
        }
        if (withHits == 0) {
            throw new AssertionError("no query has a hit among the rare documents: nothing is measured");
        }
    }

    private static Query besideRare(Query query, Query rare) {
        return new BooleanQuery.Builder()
                .add(query, BooleanClause.Occur.MUST)
                .add(rare, BooleanClause.Occur.FILTER)
                .build();
    }

    /** {@code size} shingle hashes: one in ten from the boilerplate pool, the others random. */
    private static long[] hashes(Random random, long[] boilerplate, int size) {
        long[] hashes = new long[size];
        for (int i = 0; i < size; i++) {
            hashes[i] = random.nextInt(10) == 0 ? boilerplate[random.nextInt(boilerplate.length)] : random.nextLong();
        }
        return hashes;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        reader.close();
    }

    @Benchmark
    public int led() throws IOException {
        return searcher.search(led[next++ & (QUERIES - 1)], 10).scoreDocs.length;
    }

    @Benchmark
    public int onePass() throws IOException {
        return searcher.search(onePass[next++ & (QUERIES - 1)], 10).scoreDocs.length;
    }

    @Benchmark
    public int twoPhase() throws IOException {
        return searcher.search(twoPhase[next++ & (QUERIES - 1)], 10).scoreDocs.length;
    }
}
