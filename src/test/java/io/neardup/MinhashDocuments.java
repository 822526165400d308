/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.core.LshBanding;
import io.neardup.core.SignatureCodec;
import io.neardup.index.FingerprintFields;
import io.neardup.index.MinhashFieldMapper;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.util.BytesRef;

/**
 * The Lucene fields of a {@code minhash} field, as {@code MinhashFieldMapper} indexes them, for the
 * tests and benchmarks that build segments without a node: the signature's doc value, one term per
 * band, and the shingle set and scheme where given.
 */
public final class MinhashDocuments {

    private MinhashDocuments() {}

    /** @param shingleSet a {@code ShingleSetCodec} payload, or null; @param scheme the scheme string, or null */
    public static void add(
            Document doc, String field, int[] signature, byte[] shingleSet, String scheme, LshBanding banding) {
        byte[] bytes = SignatureCodec.valueBytes(signature);
        doc.add(new BinaryDocValuesField(field, new BytesRef(bytes)));
        for (int band = 0; band < banding.bands(); band++) {
            doc.add(new Field(
                    field,
                    MinhashFieldMapper.bandTerm(bytes, band, banding.rows()),
                    MinhashFieldMapper.BAND_FIELD_TYPE));
        }
        if (shingleSet != null) {
            doc.add(new BinaryDocValuesField(FingerprintFields.shinglesField(field), new BytesRef(shingleSet)));
        }
        if (scheme != null) {
            doc.add(new SortedDocValuesField(FingerprintFields.schemeField(field), new BytesRef(scheme)));
        }
    }
}
