/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.common.xcontent.support.XContentMapValues;
import org.opensearch.core.xcontent.MediaTypeRegistry;
import org.opensearch.index.fieldvisitor.FieldsVisitor;
import org.opensearch.index.mapper.SeqNoFieldMapper;
import org.opensearch.index.seqno.SequenceNumbers;

/** What a match reports of a shard's document, read by doc id from one searcher: its {@code _id}, sequence number and cluster. */
final class ShardDocs {

    private final List<LeafReaderContext> leaves;
    private final StoredFields storedFields;
    /** A field of the documents' {@code _source} to report (their current cluster), or null. */
    private final String clusterField;

    private FieldsVisitor visitor;

    ShardDocs(IndexSearcher searcher, String clusterField) throws IOException {
        this.leaves = searcher.getIndexReader().leaves();
        this.storedFields = searcher.storedFields();
        this.clusterField = clusterField;
    }

    /** Reads the stored fields of {@code doc}, for {@link #id()} and {@link #cluster()}. */
    void read(int doc) throws IOException {
        visitor = new FieldsVisitor(clusterField != null);
        storedFields.document(doc, visitor);
    }

    String id() {
        return visitor.id();
    }

    /**
     * The {@code _id}s of the first {@code count} of {@code docs} (in any order, repeats allowed),
     * read in ascending doc id order, each document once: consecutive documents share a compressed
     * block of stored fields, which is then decompressed once, not once a document.
     */
    String[] ids(int[] docs, int count) throws IOException {
        int[] distinct = Arrays.copyOf(docs, count);
        Arrays.sort(distinct);
        int unique = 0;
        for (int i = 0; i < count; i++) {
            if (unique == 0 || distinct[unique - 1] != distinct[i]) {
                distinct[unique++] = distinct[i];
            }
        }
        String[] idOfDistinct = new String[unique];
        for (int i = 0; i < unique; i++) {
            read(distinct[i]);
            idOfDistinct[i] = id();
        }
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = idOfDistinct[Arrays.binarySearch(distinct, 0, unique, docs[i])];
        }
        return ids;
    }

    String cluster() {
        if (clusterField == null || visitor.source() == null) {
            return null;
        }
        // _source is in whatever content type the document was indexed with.
        Object value = XContentMapValues.extractValue(
                clusterField,
                XContentHelper.convertToMap(visitor.source(), false, MediaTypeRegistry.xContentType(visitor.source()))
                        .v2());
        return value == null ? null : value.toString();
    }

    long seqNo(int doc) throws IOException {
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        NumericDocValues seqNos = leaf.reader().getNumericDocValues(SeqNoFieldMapper.NAME);
        return seqNos != null && seqNos.advanceExact(doc - leaf.docBase)
                ? seqNos.longValue()
                : SequenceNumbers.UNASSIGNED_SEQ_NO;
    }
}
