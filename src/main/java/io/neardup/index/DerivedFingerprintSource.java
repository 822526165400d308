/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.compat.DerivedSourceSupport;
import io.neardup.core.FingerprintObject;
import io.neardup.core.Margins;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import io.neardup.core.SimhashCodec;
import java.io.IOException;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.SortedNumericDocValues;
import org.apache.lucene.util.BytesRef;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.mapper.FieldMapper;
import org.opensearch.index.mapper.ParseContext;

/**
 * Fingerprint fields in an index with derived source ({@code index.derived_source.enabled}): OpenSearch
 * stores no {@code _source} and rebuilds it from each field's doc values, so every payload is kept once.
 * The rebuilt value is the one the processor wrote, string for string: the hex value, the base64url
 * signature, shingle set and margins are encoded again from the doc values with the header they came with.
 *
 * <p>The one owner of {@code f._form}, a binary doc value written only in such an index, holding what
 * the other doc values of {@code f} lack:
 * <pre>
 * byte     flags: {@link #OBJECT} when the value was an object (else a bare string)
 * simhash: byte[] the quantized margins, when the object had them (1 to 64 bytes)
 * minhash: int32  the scheme hash of the signature's header, big-endian
 * </pre>
 * The scheme string is {@code f._scheme}. OpenSearch derives the source through the reader the Security plugin
 * gives the caller, so a field it hides or masks ({@link FieldExposure}) is left out, as the queries treat it,
 * and so is a value whose doc values are not in the form written here. What is rebuilt is canonical: keys
 * in the processor's order, lowercase hex, base64url without padding; a value sent in another spelling of
 * the same bytes comes back in this one (as a {@code keyword} normalizer would).
 */
final class DerivedFingerprintSource {
    static final String FORM_SUFFIX = "._form";
    static final int OBJECT = 1;

    private DerivedFingerprintSource() {}

    /** OpenSearch's own refusal of {@code copy_to}, which a mapper deriving its source itself must repeat. */
    static void requireNoCopyTo(FieldMapper mapper) {
        if (mapper.copyTo() != null && mapper.copyTo().copyToFields().isEmpty() == false) {
            throw new UnsupportedOperationException("Unable to derive source for fields with copy_to parameter set");
        }
    }

    static boolean enabled(ParseContext context) {
        return DerivedSourceSupport.enabled(context.indexSettings());
    }

    static String formField(String field) {
        return field + FORM_SUFFIX;
    }

    /** The form of a simhash value with its margins, or null. */
    static void addSimhash(ParseContext context, String field, boolean object, Margins margins) {
        byte[] form = new byte[1 + (margins == null ? 0 : margins.length())];
        form[0] = (byte) (object ? OBJECT : 0);
        for (int i = 1; i < form.length; i++) {
            form[i] = (byte) margins.quantized(i - 1);
        }
        context.doc().add(new BinaryDocValuesField(formField(field), new BytesRef(form)));
    }

    static void addMinhash(ParseContext context, String field, boolean object, int schemeHash) {
        byte[] form = {
            (byte) (object ? OBJECT : 0),
            (byte) (schemeHash >>> 24),
            (byte) (schemeHash >>> 16),
            (byte) (schemeHash >>> 8),
            (byte) schemeHash
        };
        context.doc().add(new BinaryDocValuesField(formField(field), new BytesRef(form)));
    }

    static void writeSimhash(XContentBuilder builder, LeafReader reader, int docId, String field, String name)
            throws IOException {
        if (FieldExposure.exposes(reader, field) == false) {
            return;
        }
        SortedNumericDocValues values = reader.getSortedNumericDocValues(field);
        BytesRef form = binary(reader, formField(field), docId);
        if (values == null
                || values.advanceExact(docId) == false
                || form == null
                || form.length < 1
                || form.length > 1 + Margins.BITS) {
            return;
        }
        String hex = SimhashCodec.toHex(SimhashFieldMapper.decode(values.nextValue()));
        String margins = null;
        if (form.length > 1) {
            byte[] quantized = new byte[form.length - 1];
            System.arraycopy(form.bytes, form.offset + 1, quantized, 0, quantized.length);
            margins = Margins.ofQuantized(quantized).encode();
        }
        FingerprintObject.Parts parts = new FingerprintObject.Parts(hex, margins, null, scheme(reader, field, docId));
        builder.field(name, FingerprintObject.write(parts, isObject(form)));
    }

    static void writeMinhash(
            XContentBuilder builder,
            LeafReader reader,
            int docId,
            MinhashFieldMapper.MinhashFieldType fieldType,
            String name)
            throws IOException {
        String field = fieldType.name();
        if (FieldExposure.exposes(reader, field) == false) {
            return;
        }
        BytesRef signatureBytes = binary(reader, field, docId);
        BytesRef form = binary(reader, formField(field), docId);
        BytesRef shingles = binary(reader, FingerprintFields.shinglesField(field), docId);
        // A compact document whose signature is its set's has no [value].
        boolean signatureStored = signatureBytes != null && MinhashDocValues.storesSignature(signatureBytes);
        if (signatureBytes == null
                || (signatureStored ? signatureBytes.length % 4 != 0 : shingles == null)
                || form == null
                || form.length != 5) {
            return;
        }
        int schemeHash = (form.bytes[form.offset + 1] & 0xFF) << 24
                | (form.bytes[form.offset + 2] & 0xFF) << 16
                | (form.bytes[form.offset + 3] & 0xFF) << 8
                | (form.bytes[form.offset + 4] & 0xFF);
        FingerprintObject.Parts parts = new FingerprintObject.Parts(
                signatureStored
                        ? SignatureCodec.encode(
                                signatureBytes.bytes,
                                signatureBytes.offset,
                                signatureBytes.length,
                                schemeHash,
                                fieldType.format())
                        : null,
                null,
                shingles == null
                        ? null
                        : signatureStored
                                ? ShingleSetCodec.encodePayload(
                                        shingles.bytes, shingles.offset, shingles.length, schemeHash)
                                : ShingleSetCodec.encodePayload(
                                        shingles.bytes,
                                        shingles.offset,
                                        shingles.length,
                                        schemeHash,
                                        fieldType.numHashes()),
                scheme(reader, field, docId));
        builder.field(name, FingerprintObject.write(parts, isObject(form)));
    }

    private static boolean isObject(BytesRef form) {
        return (form.bytes[form.offset] & OBJECT) != 0;
    }

    private static BytesRef binary(LeafReader reader, String field, int docId) throws IOException {
        BinaryDocValues values = reader.getBinaryDocValues(field);
        return values != null && values.advanceExact(docId) ? values.binaryValue() : null;
    }

    private static String scheme(LeafReader reader, String field, int docId) throws IOException {
        SortedDocValues values = reader.getSortedDocValues(FingerprintFields.schemeField(field));
        return values != null && values.advanceExact(docId)
                ? values.lookupOrd(values.ordValue()).utf8ToString()
                : null;
    }
}
