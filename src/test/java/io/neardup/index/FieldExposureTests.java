/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.MinhashDocuments;
import io.neardup.core.LshBanding;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.SortedNumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.FilterBinaryDocValues;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.FilterSortedDocValues;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.lucene.index.OpenSearchDirectoryReader;
import org.opensearch.core.index.shard.ShardId;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The shared per-segment structures answer only callers whose reader shows the field. The readers
 * here hide and mask fields as the Security plugin's (3.4) reader wrapper does: field-level
 * security drops a field from the field infos and returns nothing for it; masking keeps it in the
 * field infos, returns no numeric doc values, points or terms, and hashed binary and sorted values.
 */
public class FieldExposureTests extends OpenSearchTestCase {

    private static final String SIMHASH = "fp.simhash";
    private static final String MINHASH = "fp.minhash";
    private static final int K = 32;
    private static final LshBanding BANDING = LshBanding.of(8, 4, K);

    private final SegmentFingerprintCache cache = new SegmentFingerprintCache(() -> null);

    /** What a role hides: whole fields (FLS) and masked ones. */
    private record Role(Set<String> hidden, Set<String> masked) {}

    private static final class RoleDirectoryReader extends FilterDirectoryReader {
        private final Role role;

        RoleDirectoryReader(DirectoryReader in, Role role) throws IOException {
            super(in, new SubReaderWrapper() {
                @Override
                public LeafReader wrap(LeafReader reader) {
                    return new RoleLeafReader(reader, role);
                }
            });
            this.role = role;
        }

        @Override
        protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
            return new RoleDirectoryReader(in, role);
        }

        @Override
        public CacheHelper getReaderCacheHelper() {
            return in.getReaderCacheHelper();
        }
    }

    private static final class RoleLeafReader extends FilterLeafReader {
        private final Role role;
        private final FieldInfos fieldInfos;

        RoleLeafReader(LeafReader in, Role role) {
            super(in);
            this.role = role;
            List<FieldInfo> shown = new ArrayList<>();
            for (FieldInfo info : in.getFieldInfos()) {
                if (role.hidden().contains(info.name) == false) {
                    shown.add(info);
                }
            }
            this.fieldInfos = new FieldInfos(shown.toArray(new FieldInfo[0]));
        }

        private boolean allowed(String field) {
            return role.hidden().contains(field) == false && role.masked().contains(field) == false;
        }

        private static BytesRef mask(BytesRef value) {
            byte[] hashed = new byte[32];
            for (int i = 0; i < hashed.length; i++) {
                hashed[i] = (byte) (value.length == 0 ? i : value.bytes[value.offset + i % value.length] * 31 + i);
            }
            return new BytesRef(hashed);
        }

        @Override
        public FieldInfos getFieldInfos() {
            return fieldInfos;
        }

        @Override
        public NumericDocValues getNumericDocValues(String field) throws IOException {
            return allowed(field) ? in.getNumericDocValues(field) : null;
        }

        @Override
        public SortedNumericDocValues getSortedNumericDocValues(String field) throws IOException {
            return allowed(field) ? in.getSortedNumericDocValues(field) : null;
        }

        @Override
        public PointValues getPointValues(String field) throws IOException {
            return allowed(field) ? in.getPointValues(field) : null;
        }

        @Override
        public Terms terms(String field) throws IOException {
            return allowed(field) ? in.terms(field) : null;
        }

        @Override
        public BinaryDocValues getBinaryDocValues(String field) throws IOException {
            BinaryDocValues values = role.hidden().contains(field) ? null : in.getBinaryDocValues(field);
            if (values == null || role.masked().contains(field) == false) {
                return values;
            }
            return new FilterBinaryDocValues(values) {
                @Override
                public BytesRef binaryValue() throws IOException {
                    return mask(in.binaryValue());
                }
            };
        }

        @Override
        public SortedDocValues getSortedDocValues(String field) throws IOException {
            SortedDocValues values = role.hidden().contains(field) ? null : in.getSortedDocValues(field);
            if (values == null || role.masked().contains(field) == false) {
                return values;
            }
            return new FilterSortedDocValues(values) {
                @Override
                public BytesRef lookupOrd(int ord) throws IOException {
                    return mask(in.lookupOrd(ord));
                }
            };
        }

        @Override
        public CacheHelper getCoreCacheHelper() {
            return in.getCoreCacheHelper();
        }

        @Override
        public CacheHelper getReaderCacheHelper() {
            return in.getReaderCacheHelper();
        }
    }

    /** The shingle hashes of text number {@code base}: 40 values no other text shares. */
    private static long[] set(long base) {
        long[] set = new long[40];
        for (int i = 0; i < set.length; i++) {
            set[i] = base * 1_000 + i;
        }
        return set;
    }

    private static int[] signature(long base) {
        return MinHasher.of(K, 3L, MinHasher.Method.ONE_PERMUTATION).signature(set(base), 40);
    }

    private static byte[] shingles(long base) {
        return ShingleSetCodec.payload(ShingleSetCodec.of(set(base), 40));
    }

    /** Documents 0..n-1, all copies of one text: every document is every other's near-duplicate. */
    private static Directory index(int n) throws IOException {
        Directory directory = newDirectory();
        try (IndexWriter writer = new IndexWriter(directory, new IndexWriterConfig())) {
            for (int i = 0; i < n; i++) {
                Document doc = new Document();
                doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
                doc.add(new SortedNumericDocValuesField(SIMHASH, SimhashFieldMapper.encode(0x5eedL)));
                doc.add(new LongPoint(SIMHASH, SimhashFieldMapper.encode(0x5eedL)));
                doc.add(new SortedDocValuesField(FingerprintFields.schemeField(SIMHASH), new BytesRef("nd1-test")));
                MinhashDocuments.add(doc, MINHASH, signature(7), shingles(7), "nd1-test", BANDING);
                writer.addDocument(doc);
            }
        }
        return directory;
    }

    private Query simhashQuery() {
        return new SimhashNeighborQuery(SIMHASH, 0x5eedL, null, null, 3, true, 1, 0, false, null, cache);
    }

    /** With the shared cache: the first caller's search builds the segment's band key filter too. */
    private Query minhashQuery(boolean exact) {
        return new MinhashSimilarityQuery(
                MinhashDocuments.fieldType(MINHASH, BANDING),
                signature(7),
                exact ? shingles(7) : null,
                0,
                null,
                1,
                0.8,
                cache);
    }

    /** Without Lucene's query cache, which the Security plugin also bypasses for readers it restricts. */
    private static int count(DirectoryReader reader, Query query) throws IOException {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setQueryCache(null);
        return searcher.count(query);
    }

    public void testAnUnwrappedReaderAndOneThatHidesOtherFieldsExposeTheField() throws IOException {
        try (Directory directory = index(5);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            assertTrue(FieldExposure.exposes(leaf, SIMHASH));
            assertTrue(FieldExposure.exposes(leaf, MINHASH));
            DirectoryReader other = new RoleDirectoryReader(reader, new Role(Set.of("id"), Set.of("secret")));
            assertTrue(FieldExposure.exposes(other.leaves().get(0).reader(), SIMHASH));
            assertTrue(FieldExposure.exposes(other.leaves().get(0).reader(), MINHASH));
        }
    }

    /** OpenSearch's own wrapper is looked through, but not what it wraps: a restriction beneath it still counts. */
    public void testOpenSearchsWrapperIsLookedThroughButNotWhatItWraps() throws IOException {
        try (Directory directory = index(5);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            ShardId shard = new ShardId("test", "_na_", 0);
            LeafReader plain = OpenSearchDirectoryReader.wrap(reader, shard)
                    .leaves()
                    .get(0)
                    .reader();
            assertNotSame(plain, FilterLeafReader.unwrap(plain));
            assertTrue(FieldExposure.exposes(plain, SIMHASH));
            DirectoryReader restricted = new RoleDirectoryReader(reader, new Role(Set.of(), Set.of(SIMHASH)));
            LeafReader hidden = OpenSearchDirectoryReader.wrap(restricted, shard)
                    .leaves()
                    .get(0)
                    .reader();
            assertFalse(FieldExposure.exposes(hidden, SIMHASH));
            assertTrue(FieldExposure.exposes(hidden, MINHASH));
        }
    }

    public void testEachHiddenOrMaskedPartHidesTheWholeField() throws IOException {
        try (Directory directory = index(5);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            for (String part : List.of(SIMHASH, FingerprintFields.schemeField(SIMHASH))) {
                for (Role role : List.of(new Role(Set.of(part), Set.of()), new Role(Set.of(), Set.of(part)))) {
                    LeafReader leaf = new RoleDirectoryReader(reader, role)
                            .leaves()
                            .get(0)
                            .reader();
                    assertFalse(role.toString(), FieldExposure.exposes(leaf, SIMHASH));
                    assertTrue(role.toString(), FieldExposure.exposes(leaf, MINHASH));
                }
            }
            for (String part : List.of(
                    MINHASH, FingerprintFields.schemeField(MINHASH), FingerprintFields.shinglesField(MINHASH))) {
                for (Role role : List.of(new Role(Set.of(part), Set.of()), new Role(Set.of(), Set.of(part)))) {
                    LeafReader leaf = new RoleDirectoryReader(reader, role)
                            .leaves()
                            .get(0)
                            .reader();
                    assertFalse(role.toString(), FieldExposure.exposes(leaf, MINHASH));
                    assertTrue(role.toString(), FieldExposure.exposes(leaf, SIMHASH));
                }
            }
        }
    }

    /**
     * The leak the shared cache made possible: a caller who may read the field builds the segment's
     * structure, then a caller whose reader hides or masks it must still find nothing (and no
     * masked field may fail the search), while the first caller keeps its answers.
     */
    public void testStructuresBuiltForOneCallerAnswerNothingToACallerWhoMayNotSeeTheField() throws IOException {
        int n = between(2, 30);
        try (Directory directory = index(n);
                DirectoryReader reader = DirectoryReader.open(directory)) {
            assertEquals(n, count(reader, simhashQuery()));
            assertEquals(n, count(reader, minhashQuery(true)));
            assertEquals(
                    "the simhash structure and the minhash band key filter",
                    2,
                    cache.stats().entries());
            List<Role> roles = List.of(
                    new Role(Set.of(SIMHASH, FingerprintFields.schemeField(SIMHASH)), Set.of()),
                    new Role(Set.of(), Set.of(SIMHASH)),
                    new Role(Set.of(), Set.of(FingerprintFields.schemeField(SIMHASH))),
                    new Role(Set.of(MINHASH), Set.of()),
                    new Role(Set.of(), Set.of(MINHASH)),
                    new Role(Set.of(), Set.of(FingerprintFields.shinglesField(MINHASH))),
                    new Role(Set.of(), Set.of(FingerprintFields.schemeField(MINHASH))));
            for (Role role : roles) {
                DirectoryReader restricted = new RoleDirectoryReader(reader, role);
                boolean simhashHidden = role.toString().contains(SIMHASH);
                assertEquals(role.toString(), simhashHidden ? 0 : n, count(restricted, simhashQuery()));
                assertEquals(role.toString(), simhashHidden ? n : 0, count(restricted, minhashQuery(true)));
                assertEquals(role.toString(), simhashHidden ? n : 0, count(restricted, minhashQuery(false)));
                // Simhash neighbours verified on the minhash field: nothing when either is hidden.
                assertEquals(role.toString(), 0, count(restricted, verifiedSimhashQuery()));
            }
            assertEquals(n, count(reader, simhashQuery()));
            assertEquals(n, count(reader, verifiedSimhashQuery()));
            assertEquals(2, cache.stats().entries());
        }
    }

    private Query verifiedSimhashQuery() {
        return new JaccardVerifiedQuery(
                simhashQuery(), MinhashDocuments.fieldType(MINHASH), signature(7), shingles(7), 0, 0.8);
    }
}
