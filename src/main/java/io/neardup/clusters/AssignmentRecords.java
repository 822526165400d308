/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.ClusterAssignment;
import java.util.LinkedHashMap;
import java.util.Map;
import org.opensearch.action.DocWriteRequest;
import org.opensearch.action.admin.indices.create.CreateIndexRequest;
import org.opensearch.action.index.IndexRequest;

/**
 * The one owner of the records a run with {@code dest} writes into its new index, one a document, instead of writing
 * the assignment into the document (docs/clusters.md section 9, "The choice"): indexing a small new record costs a
 * fraction of reindexing the whole document it describes. A record holds the assignment in the layout of
 * {@link ClusterAssignment#member} beside the document it is about and the version it was clustered at:
 * <pre>
 * {"index": "&lt;document's index&gt;", "id": "&lt;document's _id&gt;", "seq_no": s, "primary_term": t,
 *  "cluster": "&lt;representative's _id&gt;", "cluster_index": "&lt;its index&gt;" (over many indices), "size": n,
 *  "representative": true|false}
 * </pre>
 * Its {@code _id} is the document's {@code _id}, prefixed by its index and {@code :} where the run covers many indices
 * (an {@code _id} is unique only inside one index; no index name holds {@code :}). The layout's version is the
 * mapping's {@code _meta.neardup_records}.
 */
final class AssignmentRecords {

    /** The version of the layout above, in the new index's mapping. */
    static final int LAYOUT_VERSION = 1;

    static final String INDEX = "index";
    static final String ID = "id";
    static final String SEQ_NO = "seq_no";
    static final String PRIMARY_TERM = "primary_term";

    private AssignmentRecords() {}

    /** The new index, mapped strictly: {@code index}, {@code id} and the assignment's fields as keywords, as mapped in a document. */
    @SuppressWarnings("unchecked")
    static CreateIndexRequest createIndex(String dest) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put(INDEX, Map.of("type", "keyword"));
        properties.put(ID, Map.of("type", "keyword"));
        properties.put(SEQ_NO, Map.of("type", "long"));
        properties.put(PRIMARY_TERM, Map.of("type", "long"));
        properties.putAll((Map<String, ?>) ClusterAssignment.mapping(true).get("properties"));
        Map<String, Object> mapping = new LinkedHashMap<>();
        mapping.put("_meta", Map.of("neardup_records", LAYOUT_VERSION));
        mapping.put("dynamic", "strict");
        mapping.put("properties", properties);
        return new CreateIndexRequest(dest).mapping(mapping);
    }

    /**
     * The record of document {@code id} of {@code index} as found at {@code seqNo} and {@code primaryTerm}, holding
     * {@code assignment}; created, never overwritten (the index is the run's own and new).
     */
    static IndexRequest record(
            String dest,
            boolean spansIndices,
            String index,
            String id,
            Map<String, Object> assignment,
            long seqNo,
            long primaryTerm) {
        Map<String, Object> source = new LinkedHashMap<>();
        source.put(INDEX, index);
        source.put(ID, id);
        source.put(SEQ_NO, seqNo);
        source.put(PRIMARY_TERM, primaryTerm);
        source.putAll(assignment);
        return new IndexRequest(dest)
                .id(spansIndices ? index + ":" + id : id)
                .source(source)
                .opType(DocWriteRequest.OpType.CREATE);
    }
}
