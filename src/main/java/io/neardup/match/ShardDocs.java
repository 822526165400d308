/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import io.neardup.core.MemoryBudget;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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

/**
 * What a match reports of a shard's document, read by doc id from one searcher: its {@code _id}, sequence number and
 * cluster. The {@code _id}s read are kept until {@link #close}, reserved first.
 */
public final class ShardDocs implements AutoCloseable {

    /** A document's slots in the two arrays of {@code _id}s read, and its {@code _id} string (short ids assumed). */
    static final long BYTES_PER_ID = 4 + 4 + 64;

    private final List<LeafReaderContext> leaves;
    private final StoredFields storedFields;
    /** A field of the documents' {@code _source} to report (their current cluster), or null. */
    private final String clusterField;

    private final MemoryBudget budget;
    private long reserved;

    private FieldsVisitor visitor;
    /** The read document's {@code _source} as a map, once asked for. */
    private Map<String, Object> readSource;

    public ShardDocs(IndexSearcher searcher, String clusterField, MemoryBudget budget) throws IOException {
        this.leaves = searcher.getIndexReader().leaves();
        this.storedFields = searcher.storedFields();
        this.clusterField = clusterField;
        this.budget = budget;
    }

    /** Reads the stored fields of {@code doc}, for {@link #id()} and {@link #cluster()}. */
    void read(int doc) throws IOException {
        visitor = new FieldsVisitor(clusterField != null);
        readSource = null;
        storedFields.document(doc, visitor);
    }

    String id() {
        return visitor.id();
    }

    /** The documents whose {@code _id} {@link #ids} has read (ascending), and those {@code _id}s. */
    private int[] idsReadFor = new int[0];

    private String[] idsRead = new String[0];

    /**
     * The {@code _id}s of the first {@code count} of {@code docs} (in any order, repeats allowed),
     * read in ascending doc id order, each document once, also across calls (a join asks for the
     * documents of its pairs, then for those that had a match: mostly the same; each read decompresses
     * a block of stored fields, the largest share of a band join's time after the band terms, JFR).
     */
    public String[] ids(int[] docs, int count) throws IOException {
        int[] distinct = Arrays.copyOf(docs, count);
        Arrays.sort(distinct);
        int unique = 0;
        for (int i = 0; i < count; i++) {
            if (unique == 0 || distinct[unique - 1] != distinct[i]) {
                distinct[unique++] = distinct[i];
            }
        }
        long bytes = unique * BYTES_PER_ID; // at most unique more kept; those read before are given back by remember
        budget.reserve(bytes);
        reserved += bytes;
        String[] idOfDistinct = new String[unique];
        for (int i = 0; i < unique; i++) {
            int known = Arrays.binarySearch(idsReadFor, distinct[i]);
            if (known >= 0) {
                idOfDistinct[i] = idsRead[known];
            } else {
                read(distinct[i]);
                idOfDistinct[i] = id();
            }
        }
        remember(distinct, idOfDistinct, unique);
        String[] ids = new String[count];
        for (int i = 0; i < count; i++) {
            ids[i] = idOfDistinct[Arrays.binarySearch(distinct, 0, unique, docs[i])];
        }
        return ids;
    }

    /** Merges {@code docs} (ascending, distinct) and their {@code _id}s into those read before. */
    private void remember(int[] docs, String[] ids, int count) {
        int[] mergedDocs = new int[idsReadFor.length + count];
        String[] mergedIds = new String[mergedDocs.length];
        int size = 0;
        for (int a = 0, b = 0; a < idsReadFor.length || b < count; ) {
            boolean fromRead = b == count || (a < idsReadFor.length && idsReadFor[a] <= docs[b]);
            if (fromRead && b < count && idsReadFor[a] == docs[b]) {
                b++;
            }
            mergedDocs[size] = fromRead ? idsReadFor[a] : docs[b];
            mergedIds[size++] = fromRead ? idsRead[a++] : ids[b++];
        }
        long unused = (idsReadFor.length + count - size) * BYTES_PER_ID;
        idsReadFor = Arrays.copyOf(mergedDocs, size);
        idsRead = Arrays.copyOf(mergedIds, size);
        budget.release(unused);
        reserved -= unused;
    }

    @Override
    public void close() {
        budget.release(reserved);
        reserved = 0;
    }

    String cluster() {
        return clusterFieldValue(clusterField);
    }

    /**
     * The index of the document's cluster where its assignment names one ({@link ClusterAssignment#CLUSTER_INDEX},
     * beside {@link #cluster}), else null.
     */
    String clusterIndex() {
        if (clusterField == null || clusterField.endsWith("." + ClusterAssignment.CLUSTER) == false) {
            return null;
        }
        return clusterFieldValue(clusterField.substring(0, clusterField.length() - ClusterAssignment.CLUSTER.length())
                + ClusterAssignment.CLUSTER_INDEX);
    }

    private String clusterFieldValue(String path) {
        if (path == null || visitor.source() == null) {
            return null;
        }
        if (readSource == null) {
            // _source is in whatever content type the document was indexed with.
            readSource = XContentHelper.convertToMap(
                            visitor.source(), false, MediaTypeRegistry.xContentType(visitor.source()))
                    .v2();
        }
        Object value = XContentMapValues.extractValue(path, readSource);
        return value == null ? null : value.toString();
    }

    public long seqNo(int doc) throws IOException {
        LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
        NumericDocValues seqNos = leaf.reader().getNumericDocValues(SeqNoFieldMapper.NAME);
        return seqNos != null && seqNos.advanceExact(doc - leaf.docBase)
                ? seqNos.longValue()
                : SequenceNumbers.UNASSIGNED_SEQ_NO;
    }
}
