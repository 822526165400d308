/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.jmh;

import io.neardup.MinhashDocuments;
import io.neardup.core.LshBanding;
import io.neardup.core.Margins;
import io.neardup.core.MinHasher;
import io.neardup.index.FingerprintFields;
import io.neardup.index.MinhashSimilarityQuery;
import io.neardup.index.SegmentFingerprintCache;
import io.neardup.index.SimhashFieldMapper;
import io.neardup.index.SimhashNeighborQuery;
import java.io.IOException;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
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
import org.opensearch.common.lucene.index.OpenSearchDirectoryReader;
import org.opensearch.core.index.shard.ShardId;

/**
 * What checking the caller's reader ({@code FieldExposure}) costs a query: the same {@code near_duplicate}
 * query (simhash PSM, k = 64, h = 3; minhash at 0.8, verified by the estimate) on one force-merged segment,
 * through the segment's own reader ({@code segment}: nothing to check), through OpenSearch's own wrapper
 * ({@code opensearch}: {@code OpenSearchDirectoryReader}, looked through), and through a wrapper the check
 * does not know ({@code restricted}: as the Security plugin's, every part of the field is compared). The
 * differences are the check's cost per segment and query.
 *
 * <pre>
 * mvn -Pbench test-compile exec:exec -Dbench.args="FieldExposureBenchmark -f 2"
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@State(Scope.Thread)
public class FieldExposureBenchmark {
    private static final String SIMHASH = "fp.simhash";
    private static final String MINHASH = "fp.minhash";
    private static final int K = 128;
    private static final LshBanding BANDING = LshBanding.of(42, 3, K);
    private static final int QUERIES = 256;

    @Param("200000")
    public int n;

    @Param({"segment", "opensearch", "restricted"})
    public String reader;

    private DirectoryReader directoryReader;
    private IndexSearcher searcher;
    private Query[] simhashQueries;
    private Query[] minhashQueries;
    private int next;

    /** A wrapper that changes nothing but that the check does not know: what a Security-restricted reader costs it. */
    private static final class PassThrough extends FilterDirectoryReader {
        PassThrough(DirectoryReader in) throws IOException {
            super(in, new SubReaderWrapper() {
                @Override
                public LeafReader wrap(LeafReader leaf) {
                    return new FilterLeafReader(leaf) {
                        @Override
                        public CacheHelper getCoreCacheHelper() {
                            return in.getCoreCacheHelper();
                        }

                        @Override
                        public CacheHelper getReaderCacheHelper() {
                            return in.getReaderCacheHelper();
                        }
                    };
                }
            });
        }

        @Override
        protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
            return new PassThrough(in);
        }

        @Override
        public CacheHelper getReaderCacheHelper() {
            return in.getReaderCacheHelper();
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Random random = new Random(42);
        MinHasher hasher = MinHasher.of(K, 7L, MinHasher.Method.ONE_PERMUTATION);
        ByteBuffersDirectory directory = new ByteBuffersDirectory();
        long[] simhashes = new long[n];
        int[][] signatures = new int[QUERIES][];
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig().setRAMBufferSizeMB(256))) {
            long[] set = new long[60];
            for (int i = 0; i < n; i++) {
                simhashes[i] = random.nextLong();
                for (int j = 0; j < set.length; j++) {
                    set[j] = random.nextInt(2_000_000);
                }
                int[] signature = hasher.signature(set, set.length);
                if (i < QUERIES) {
                    signatures[i] = signature;
                }
                Document doc = new Document();
                doc.add(new SortedNumericDocValuesField(SIMHASH, SimhashFieldMapper.encode(simhashes[i])));
                doc.add(new SortedDocValuesField(FingerprintFields.schemeField(SIMHASH), new BytesRef("nd1-bench")));
                MinhashDocuments.add(doc, MINHASH, signature, null, "nd1-bench", BANDING);
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
        }
        DirectoryReader segment = DirectoryReader.open(directory);
        directoryReader = switch (reader) {
            case "segment" -> segment;
            case "opensearch" -> OpenSearchDirectoryReader.wrap(segment, new ShardId("bench", "_na_", 0));
            case "restricted" -> new PassThrough(segment);
            default -> throw new IllegalArgumentException("reader must be segment, opensearch or restricted");
        };
        searcher = new IndexSearcher(directoryReader);
        searcher.setQueryCache(null);
        SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> null);
        simhashQueries = new Query[QUERIES];
        minhashQueries = new Query[QUERIES];
        byte[] margins = new byte[Margins.BITS];
        for (int q = 0; q < QUERIES; q++) {
            random.nextBytes(margins);
            long query = simhashes[random.nextInt(n)] ^ (1L << random.nextInt(64));
            simhashQueries[q] = new SimhashNeighborQuery(
                    SIMHASH, query, Margins.ofQuantized(margins), null, 3, false, 64, 0, false, null, cache);
            minhashQueries[q] = new MinhashSimilarityQuery(
                    MinhashDocuments.fieldType(MINHASH, BANDING), signatures[q], null, 0, null, 14, 0.8);
        }
        searcher.count(simhashQueries[0]); // builds the segment's table once, as the first query of a segment does
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        directoryReader.close();
    }

    @Benchmark
    public int simhashPsm() throws IOException {
        return searcher.count(simhashQueries[next++ & (QUERIES - 1)]);
    }

    @Benchmark
    public int minhash() throws IOException {
        return searcher.count(minhashQueries[next++ & (QUERIES - 1)]);
    }
}
