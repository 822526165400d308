/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintScheme;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.search.SortField;
import org.apache.lucene.util.Accountable;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.util.BigArrays;
import org.opensearch.core.indices.breaker.CircuitBreakerService;
import org.opensearch.index.fielddata.IndexFieldData;
import org.opensearch.index.fielddata.IndexFieldDataCache;
import org.opensearch.index.fielddata.LeafFieldData;
import org.opensearch.index.fielddata.ScriptDocValues;
import org.opensearch.index.fielddata.SortedBinaryDocValues;
import org.opensearch.search.DocValueFormat;
import org.opensearch.search.MultiValueMode;
import org.opensearch.search.aggregations.support.CoreValuesSourceType;
import org.opensearch.search.aggregations.support.ValuesSourceType;
import org.opensearch.search.sort.BucketedSort;
import org.opensearch.search.sort.SortOrder;

/**
 * A {@code minhash} field's doc values as strings: each document's signature in the form the ingest
 * processor writes to {@code _source} ({@link SignatureCodec}), so that {@code docvalue_fields},
 * scripts and {@code terms} aggregations see the value users know, and {@code near_dup_collapse}
 * can read it. The doc values keep the signature without its header; the header's scheme hash is
 * taken from the document's scheme string when it is a scheme id ({@code nd1-xxxxxxxx}, what the
 * processor writes), else it is 0: a bare signature's scheme hash is not kept. A compact document, which stores no
 * signature, shows its set's ({@link io.neardup.core.FingerprintFormat#signatureOfSet}), with its format's header.
 */
final class MinhashFieldData implements IndexFieldData<MinhashFieldData.Leaf> {

    /** A scheme hash where the document's scheme is not a scheme id. */
    static final int UNKNOWN_SCHEME_HASH = 0;

    private final MinhashFieldMapper.MinhashFieldType fieldType;
    private final String field;

    private MinhashFieldData(MinhashFieldMapper.MinhashFieldType fieldType) {
        this.fieldType = fieldType;
        this.field = fieldType.name();
    }

    static IndexFieldData.Builder builder(MinhashFieldMapper.MinhashFieldType fieldType) {
        return (IndexFieldDataCache cache, CircuitBreakerService breakerService) -> new MinhashFieldData(fieldType);
    }

    @Override
    public String getFieldName() {
        return field;
    }

    @Override
    public ValuesSourceType getValuesSourceType() {
        return CoreValuesSourceType.BYTES;
    }

    @Override
    public Leaf load(LeafReaderContext context) {
        try {
            return loadDirect(context);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the doc values of [minhash] field [" + field + "]", e);
        }
    }

    @Override
    public Leaf loadDirect(LeafReaderContext context) throws IOException {
        return new Leaf(context.reader(), fieldType);
    }

    @Override
    public SortField sortField(
            Object missingValue, MultiValueMode sortMode, XFieldComparatorSource.Nested nested, boolean reverse) {
        throw noSorting();
    }

    @Override
    public BucketedSort newBucketedSort(
            BigArrays bigArrays,
            Object missingValue,
            MultiValueMode sortMode,
            XFieldComparatorSource.Nested nested,
            SortOrder sortOrder,
            DocValueFormat format,
            int bucketSize,
            BucketedSort.ExtraData extra) {
        throw noSorting();
    }

    private IllegalArgumentException noSorting() {
        // Signatures have no order that means anything: sorting by one would rank documents by noise.
        return new IllegalArgumentException("[minhash] fields do not support sorting: field [" + field + "]");
    }

    static final class Leaf implements LeafFieldData {
        private final LeafReader reader;
        private final MinhashFieldMapper.MinhashFieldType fieldType;
        private final String field;

        Leaf(LeafReader reader, MinhashFieldMapper.MinhashFieldType fieldType) {
            this.reader = reader;
            this.fieldType = fieldType;
            this.field = fieldType.name();
        }

        @Override
        public ScriptDocValues<?> getScriptValues() {
            return new ScriptDocValues.Strings(getBytesValues());
        }

        @Override
        public SortedBinaryDocValues getBytesValues() {
            try {
                return new SignatureStrings(
                        fieldType,
                        DocValues.getBinary(reader, field),
                        DocValues.getBinary(reader, FingerprintFields.shinglesField(field)),
                        DocValues.getSorted(reader, FingerprintFields.schemeField(field)));
            } catch (IOException e) {
                throw new UncheckedIOException("reading the doc values of [minhash] field [" + field + "]", e);
            }
        }

        @Override
        public long ramBytesUsed() {
            return 0; // reads the doc values as it goes, holds nothing
        }

        @Override
        public Collection<Accountable> getChildResources() {
            return List.of();
        }

        @Override
        public void close() {}
    }

    /** One signature string a document, built from the header-less doc value and the scheme string. */
    private static final class SignatureStrings extends SortedBinaryDocValues {
        private final MinhashFieldMapper.MinhashFieldType fieldType;
        private final BinaryDocValues signatures;
        private final BinaryDocValues shingleSets;
        private final SortedDocValues schemes;
        private int schemeHash;

        SignatureStrings(
                MinhashFieldMapper.MinhashFieldType fieldType,
                BinaryDocValues signatures,
                BinaryDocValues shingleSets,
                SortedDocValues schemes) {
            this.fieldType = fieldType;
            this.signatures = signatures;
            this.shingleSets = shingleSets;
            this.schemes = schemes;
        }

        @Override
        public boolean advanceExact(int target) throws IOException {
            if (signatures.advanceExact(target) == false) {
                return false;
            }
            schemeHash = schemeHashOf(target);
            return true;
        }

        @Override
        public int docValueCount() {
            return 1;
        }

        @Override
        public BytesRef nextValue() throws IOException {
            BytesRef raw = signatures.binaryValue();
            if (MinhashDocValues.storesSignature(raw) == false) {
                BytesRef set = shingleSets.advanceExact(signatures.docID()) ? shingleSets.binaryValue() : null;
                BytesRef derived = MinhashDocValues.signatureOf(raw, set, fieldType);
                // Neither: the empty value, which the encoding refuses (a signature has at least one value).
                raw = derived == null ? raw : derived;
            }
            return new BytesRef(SignatureCodec.encode(raw.bytes, raw.offset, raw.length, schemeHash, fieldType.format())
                    .getBytes(StandardCharsets.UTF_8));
        }

        private int schemeHashOf(int doc) throws IOException {
            if (schemes.advanceExact(doc) == false) {
                return UNKNOWN_SCHEME_HASH;
            }
            Integer hash = FingerprintScheme.schemeHashOfId(
                    schemes.lookupOrd(schemes.ordValue()).utf8ToString());
            return hash == null ? UNKNOWN_SCHEME_HASH : hash;
        }
    }
}
