/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.MinhashDocuments;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.opensearch.test.OpenSearchTestCase;

public class MinhashDocValuesTests extends OpenSearchTestCase {
    private static final String FIELD = "fp.minhash";

    /** Document i: a signature [i, i] unless i % 3 == 2; a shingle set {i} when i % 3 == 0. */
    private static DirectoryReader index(Directory dir, int docs) throws IOException {
        try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
            for (int i = 0; i < docs; i++) {
                Document doc = new Document();
                if (i % 3 != 2) {
                    doc.add(new BinaryDocValuesField(FIELD, new BytesRef(SignatureCodec.valueBytes(new int[] {i, i}))));
                }
                if (i % 3 == 0) {
                    doc.add(new BinaryDocValuesField(
                            FingerprintFields.shinglesField(FIELD), new BytesRef(new byte[] {(byte) i})));
                }
                writer.addDocument(doc);
            }
            writer.forceMerge(1);
        }
        return DirectoryReader.open(dir);
    }

    public void testEachDocumentsSignatureAndShingleSetInOrder() throws IOException {
        int docs = between(5, 60);
        try (Directory dir = newDirectory();
                DirectoryReader reader = index(dir, docs)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            MinhashDocValues values = MinhashDocuments.fieldType(FIELD).docValues(leaf, true);
            int expected = 0;
            int visited = 0;
            for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
                if (expected % 3 == 2) {
                    expected++;
                }
                assertEquals(expected, doc);
                assertArrayEquals(
                        SignatureCodec.valueBytes(new int[] {doc, doc}), BytesRef.deepCopyOf(values.signature()).bytes);
                // the shingle set is read when asked for: skip some, and the next ones still come right
                if (randomBoolean()) {
                    assertEquals(doc % 3 == 0 ? new BytesRef(new byte[] {(byte) doc}) : null, values.shingleSet());
                }
                expected++;
                visited++;
            }
            assertEquals(countWithSignature(docs), visited);

            MinhashDocValues signaturesOnly = MinhashDocuments.fieldType(FIELD).docValues(leaf, false);
            assertTrue(signaturesOnly.advanceExact(0));
            assertNull("not asked for", signaturesOnly.shingleSet());
            assertFalse(signaturesOnly.advanceExact(2));
        }
    }

    /**
     * The one comparison rule: the exact Jaccard of the shingle sets where both sides have one, else the estimate on
     * the signatures; signatures of another length, and corrupt shingle sets, fail naming the document and field.
     */
    public void testSimilarityIsExactWhereBothHaveAShingleSetElseTheEstimate() throws IOException {
        try (Directory dir = newDirectory();
                IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig())) {
            Document doc = new Document();
            doc.add(new BinaryDocValuesField(FIELD, new BytesRef(SignatureCodec.valueBytes(new int[] {1, 2, 3, 4}))));
            doc.add(new BinaryDocValuesField(
                    FingerprintFields.shinglesField(FIELD),
                    new BytesRef(ShingleSetCodec.payload(new int[] {1, 2, 3}))));
            writer.addDocument(doc);
            Document corrupt = new Document();
            corrupt.add(
                    new BinaryDocValuesField(FIELD, new BytesRef(SignatureCodec.valueBytes(new int[] {1, 2, 3, 4}))));
            corrupt.add(
                    new BinaryDocValuesField(FingerprintFields.shinglesField(FIELD), new BytesRef(new byte[] {2, 5})));
            writer.addDocument(corrupt);
            writer.forceMerge(1);
            writer.commit();
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                LeafReader leaf = reader.leaves().get(0).reader();
                BytesRef signature = new BytesRef(SignatureCodec.valueBytes(new int[] {1, 2, 9, 9}));
                BytesRef shingles = new BytesRef(ShingleSetCodec.payload(new int[] {2, 3, 4, 5}));

                MinhashDocValues values = MinhashDocuments.fieldType(FIELD).docValues(leaf, true);
                assertTrue(values.advanceExact(0));
                assertTrue(values.exactWith(shingles));
                assertEquals(2.0 / 5, values.similarityTo(signature, shingles), 1e-9);
                assertFalse("the fingerprint has no shingle set", values.exactWith(null));
                assertEquals(0.5, values.similarityTo(signature, null), 1e-9);
                IllegalArgumentException e = expectThrows(
                        IllegalArgumentException.class,
                        () -> values.similarityTo(new BytesRef(SignatureCodec.valueBytes(new int[] {1, 2})), null));
                assertEquals(
                        "document [segment doc 0] has a signature of 4 values in [fp.minhash], expected 2",
                        e.getMessage());

                MinhashDocValues signaturesOnly =
                        MinhashDocuments.fieldType(FIELD).docValues(leaf, false);
                assertTrue(signaturesOnly.advanceExact(0));
                assertFalse("the document's shingle set is not read", signaturesOnly.exactWith(shingles));
                assertEquals(0.5, signaturesOnly.similarityTo(signature, shingles), 1e-9);

                assertTrue(values.advanceExact(1));
                e = expectThrows(IllegalArgumentException.class, () -> values.similarityTo(signature, shingles));
                assertEquals(
                        "document [segment doc 1] has a corrupt shingle set in [fp.minhash]: shingle set is corrupt: it ends inside a value",
                        e.getMessage());
            }
        }
    }

    private static int countWithSignature(int docs) {
        int count = 0;
        for (int i = 0; i < docs; i++) {
            count += i % 3 != 2 ? 1 : 0;
        }
        return count;
    }

    /**
     * A reader that drops the field from its field infos, as field-level security does, reads as a segment without
     * it, though its doc values are still there underneath (so without the exposure check the values would show).
     */
    public void testAHiddenFieldReadsAsNone() throws IOException {
        try (Directory dir = newDirectory();
                DirectoryReader reader = index(dir, 10)) {
            LeafReader leaf = reader.leaves().get(0).reader();
            LeafReader hiding = new FilterLeafReader(leaf) {
                @Override
                public FieldInfos getFieldInfos() {
                    List<FieldInfo> shown = new ArrayList<>();
                    in.getFieldInfos().forEach(info -> {
                        if (info.name.equals(FIELD) == false) {
                            shown.add(info);
                        }
                    });
                    return new FieldInfos(shown.toArray(FieldInfo[]::new));
                }

                @Override
                public CacheHelper getCoreCacheHelper() {
                    return in.getCoreCacheHelper();
                }

                @Override
                public CacheHelper getReaderCacheHelper() {
                    return null;
                }
            };
            MinhashDocValues values = MinhashDocuments.fieldType(FIELD).docValues(hiding, true);
            assertEquals(DocIdSetIterator.NO_MORE_DOCS, values.nextDoc());
            assertTrue(
                    "the unwrapped segment has the field",
                    MinhashDocuments.fieldType(FIELD).docValues(leaf, true).advanceExact(0));
        }
    }
}
