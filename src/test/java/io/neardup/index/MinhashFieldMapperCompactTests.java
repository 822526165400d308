/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.MinhashDocuments;
import io.neardup.NearDupPlugin;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.LshBanding;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.util.BytesRef;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentFactory;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.index.mapper.DocumentMapper;
import org.opensearch.index.mapper.MapperParsingException;
import org.opensearch.index.mapper.MapperServiceTestCase;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.plugins.Plugin;

/**
 * A {@code minhash} field in an index of the compact format (fingerprint format 2): what it stores for the objects the
 * processor writes there, and what it refuses. The same field in a format 1 index is {@link MinhashFieldMapperTests}.
 */
public class MinhashFieldMapperCompactTests extends MapperServiceTestCase {
    private static final FingerprintScheme SCHEME = FingerprintScheme.defaults("standard");
    private static final LshBanding BANDING = LshBanding.forFloor(0.5, 128);

    @Override
    protected Collection<? extends Plugin> getPlugins() {
        return List.of(new NearDupPlugin());
    }

    @Override
    protected Settings getIndexSettings() {
        return Settings.builder()
                .put(super.getIndexSettings())
                .put(IndexFingerprintFormat.SETTING.getKey(), FingerprintFormat.COMPACT.number())
                .build();
    }

    private DocumentMapper mapper() throws IOException {
        return createDocumentMapper(fieldMapping(b -> b.field("type", "minhash")));
    }

    private static int[] set(int size, int from) {
        int[] values = new int[size];
        for (int i = 0; i < size; i++) {
            values[i] = (from + i) * 40_503;
        }
        java.util.Arrays.sort(values);
        return values;
    }

    private ParseContext.Document parse(DocumentMapper mapper, Map<String, Object> value) throws IOException {
        XContentBuilder source = XContentFactory.jsonBuilder()
                .startObject()
                .field("field", value)
                .endObject();
        return mapper.parse(source(source.toString())).rootDoc();
    }

    private static String json(Map<String, Object> value) throws IOException {
        return JsonXContent.contentBuilder().map(value).toString();
    }

    /** A document with a set stores no signature: an empty marker, the set, and band terms of the set's signature. */
    public void testSetOnlyValueStoresNoSignatureAndBandsTheSetsSignature() throws IOException {
        DocumentMapper mapper = mapper();
        int[] set = set(300, 1);
        int[] signature = FingerprintFormat.signatureOfSet(set, 128);
        Map<String, Object> value =
                FingerprintObject.minhash(signature, set, SCHEME.schemeHash(), SCHEME.id(), FingerprintFormat.COMPACT);
        assertEquals("no [value]: " + json(value), Set.of("shingles", "scheme"), value.keySet());
        ParseContext.Document doc = parse(mapper, value);

        MinhashFieldMapper.MinhashFieldType type =
                ((MinhashFieldMapper) mapper.mappers().getMapper("field")).fieldType();
        assertEquals(FingerprintFormat.COMPACT, type.format());
        assertEquals(6, type.bandTermBytes());
        byte[] signatureBytes = SignatureCodec.valueBytes(signature);
        Set<BytesRef> expectedTerms = new HashSet<>();
        for (int band = 0; band < BANDING.bands(); band++) {
            expectedTerms.add(type.bandTerm(signatureBytes, band));
        }
        Set<BytesRef> terms = new HashSet<>();
        BytesRef storedSignature = null;
        for (IndexableField f : doc.getFields("field")) {
            if (f.fieldType().docValuesType() == org.apache.lucene.index.DocValuesType.BINARY) {
                storedSignature = f.binaryValue();
            } else {
                assertEquals(6, f.binaryValue().length);
                terms.add(BytesRef.deepCopyOf(f.binaryValue()));
            }
        }
        assertEquals(new BytesRef(), storedSignature);
        assertEquals(expectedTerms, terms);
        assertEquals(BANDING.bands(), terms.size());
        assertEquals(
                new BytesRef(ShingleSetCodec.payload(set)),
                doc.getField("field._shingles").binaryValue());
    }

    /** The 4-byte key is the high half of format 1's 8-byte key, after the band's two bytes. */
    public void testBandKeyIsTheHighHalfOfTheEightByteKey() {
        byte[] signature = SignatureCodec.valueBytes(FingerprintFormat.signatureOfSet(set(50, 7), 128));
        MinhashFieldMapper.MinhashFieldType compact =
                new MinhashFieldMapper.MinhashFieldType("f", 128, BANDING, FingerprintFormat.COMPACT, Map.of());
        MinhashFieldMapper.MinhashFieldType stored =
                new MinhashFieldMapper.MinhashFieldType("f", 128, BANDING, FingerprintFormat.SIGNATURE, Map.of());
        for (int band = 0; band < BANDING.bands(); band++) {
            BytesRef wide = stored.bandTerm(signature, band);
            BytesRef narrow = compact.bandTerm(signature, band);
            assertEquals(10, wide.length);
            assertEquals(6, narrow.length);
            assertTrue(java.util.Arrays.equals(
                    wide.bytes, wide.offset, wide.offset + 6, narrow.bytes, narrow.offset, narrow.offset + 6));
            assertEquals(band, MinhashFieldMapper.MinhashFieldType.bandOf(narrow));
            assertEquals(stored.keyOf(wide) >>> 32, compact.keyOf(narrow));
            assertEquals(compact.bandKey(signature, 0, band), compact.keyOf(narrow));
        }
    }

    /** The fixture that builds segments without a node ({@link MinhashDocuments}) writes what the mapper writes. */
    public void testFixtureDocumentIsTheMappers() throws IOException {
        DocumentMapper mapper = mapper();
        int[] set = set(300, 1);
        int[] signature = FingerprintFormat.signatureOfSet(set, 128);
        ParseContext.Document parsed = parse(
                mapper,
                FingerprintObject.minhash(signature, set, SCHEME.schemeHash(), SCHEME.id(), FingerprintFormat.COMPACT));
        MinhashFieldMapper.MinhashFieldType type =
                ((MinhashFieldMapper) mapper.mappers().getMapper("field")).fieldType();
        Document fixture = new Document();
        MinhashDocuments.add(fixture, type, signature, ShingleSetCodec.payload(set), SCHEME.id());
        for (String name : List.of("field", "field._shingles", "field._scheme")) {
            assertEquals(name, fields(parsed.getFields(name)), fields(fixture.getFields(name)));
        }
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> MinhashDocuments.add(
                        new Document(), type, set(128, 9), ShingleSetCodec.payload(set), SCHEME.id()));
        assertEquals(
                "in fingerprint format 2 (compact) the signature of a document with a set is the set's",
                e.getMessage());
    }

    private static Set<String> fields(IndexableField[] fields) {
        Set<String> described = new HashSet<>();
        for (IndexableField f : fields) {
            described.add(f.fieldType().docValuesType() + " " + f.fieldType().indexOptions() + " " + f.binaryValue());
        }
        assertEquals("distinct fields", fields.length, described.size());
        return described;
    }

    /** Past max_shingles (no set) the signature is stored, with its format in its header. */
    public void testValueWithoutSetIsStored() throws IOException {
        int[] signature = FingerprintFormat.signatureOfSet(set(80, 3), 128);
        Map<String, Object> value =
                FingerprintObject.minhash(signature, null, SCHEME.schemeHash(), SCHEME.id(), FingerprintFormat.COMPACT);
        assertEquals(FingerprintFormat.COMPACT, SignatureCodec.formatOf((String) value.get("value")));
        ParseContext.Document doc = parse(mapper(), value);
        assertEquals(
                new BytesRef(SignatureCodec.valueBytes(signature)),
                doc.getField("field").binaryValue());
        assertNull(doc.getField("field._shingles"));
    }

    /** A format 1 value (a signature over the shingle hashes) is refused, naming both formats. */
    public void testFormatOneValueIsRefusedNamingBothFormats() throws IOException {
        DocumentMapper mapper = mapper();
        int[] set = set(40, 9);
        Map<String, Object> formatOne = FingerprintObject.minhash(
                new int[128], set, SCHEME.schemeHash(), SCHEME.id(), FingerprintFormat.SIGNATURE);
        MapperParsingException e = expectThrows(MapperParsingException.class, () -> parse(mapper, formatOne));
        assertTrue(
                e.getMessage(),
                e.getMessage()
                        .contains(
                                "minhash signature is of fingerprint format 1 (stored signature), expected fingerprint"
                                        + " format 2 (compact), the format of this index; fingerprint the text with a pipeline"
                                        + " whose target is this index"));
    }

    /** A compact document has a set or a signature, never both. */
    public void testSetAndSignatureTogetherAreRefused() throws IOException {
        int[] set = set(40, 9);
        Map<String, Object> both = FingerprintObject.minhash(
                FingerprintFormat.signatureOfSet(set, 128),
                null,
                SCHEME.schemeHash(),
                SCHEME.id(),
                FingerprintFormat.COMPACT);
        both.put("shingles", ShingleSetCodec.encode(set, SCHEME.schemeHash()));
        MapperParsingException e = expectThrows(MapperParsingException.class, () -> parse(mapper(), both));
        assertTrue(
                e.getMessage(),
                e.getMessage()
                        .contains(
                                "in fingerprint format 2 (compact) a document with a shingle set stores no signature"));
    }

    private MinhashFieldMapper.MinhashFieldType fieldType() throws IOException {
        return (MinhashFieldMapper.MinhashFieldType) createMapperService(fieldMapping(b -> b.field("type", "minhash")))
                .fieldType("field");
    }

    private static String targetRefusal(
            MinhashFieldMapper.MinhashFieldType type, String value, String set, String scheme) {
        return expectThrows(IllegalArgumentException.class, () -> type.likeFingerprintOf(value, set, scheme))
                .getMessage();
    }

    /**
     * A {@code like}'s fingerprint ({@code likeFingerprintOf}) is read as a document's value is (issue 40): what the field accepts
     * answers as before, and each check the field makes of a value is made of a {@code like} too.
     */
    public void testTargetOfMakesEveryCheckOfAValue() throws IOException {
        MinhashFieldMapper.MinhashFieldType type = fieldType();
        int hash = SCHEME.schemeHash();
        int[] set = set(40, 9);
        LikeFingerprints.Minhash target =
                type.likeFingerprintOf(null, ShingleSetCodec.encode(set, hash, 128), SCHEME.id());
        assertArrayEquals(FingerprintFormat.signatureOfSet(set, 128), target.signature());
        assertArrayEquals(ShingleSetCodec.payload(set), target.shingleSet());
        assertEquals(hash, target.schemeHash());
        // A format 1 document with its set is compared through the set, whatever its signature's length.
        target = type.likeFingerprintOf(
                SignatureCodec.encode(new int[64], hash), ShingleSetCodec.encode(set, hash), null);
        assertArrayEquals(FingerprintFormat.signatureOfSet(set, 128), target.signature());

        // Refused since issue 40 (derived before at the field's length, or read without the check).
        assertEquals(
                "minhash signature has 64 values, expected 128 (num_hashes)",
                targetRefusal(type, null, ShingleSetCodec.encode(set, hash, 64), null));
        String otherId = "nd1-" + SignatureCodec.hex(hash + 1);
        assertEquals(
                "shingle set header has scheme hash " + SignatureCodec.hex(hash) + " but [scheme] is [" + otherId + "]",
                targetRefusal(type, null, ShingleSetCodec.encode(set, hash, 128), otherId));
        assertEquals(
                "signature header has scheme hash " + SignatureCodec.hex(hash) + " but [scheme] is [" + otherId + "]",
                targetRefusal(
                        type, SignatureCodec.encode(new int[64], hash), ShingleSetCodec.encode(set, hash), otherId));
        assertEquals(
                "the value has [shingles] of fingerprint format 1 (stored signature) and no [value]; fingerprint the text"
                        + " instead ([like.text])",
                targetRefusal(type, null, ShingleSetCodec.encode(set, hash), null));
        assertEquals(
                "the value has [shingles] and a [value]: in fingerprint format 2 (compact) a document with a shingle set"
                        + " stores no signature",
                targetRefusal(
                        type,
                        SignatureCodec.encode(new int[128], hash, FingerprintFormat.COMPACT),
                        ShingleSetCodec.encode(set, hash, 128),
                        null));
        assertEquals(
                "shingle set was made by another fingerprint scheme: scheme hash " + SignatureCodec.hex(hash + 1)
                        + ", expected " + SignatureCodec.hex(hash),
                targetRefusal(
                        type, SignatureCodec.encode(new int[64], hash), ShingleSetCodec.encode(set, hash + 1), null));
    }

    /** What a compact document's {@code fields} show: its set's signature with the compact header, as before. */
    public void testRenderShowsTheSetsSignature() throws IOException {
        MinhashFieldMapper.MinhashFieldType type = fieldType();
        int[] set = set(40, 9);
        Map<String, Object> stored = FingerprintObject.minhash(
                FingerprintFormat.signatureOfSet(set, 128),
                set,
                SCHEME.schemeHash(),
                SCHEME.id(),
                FingerprintFormat.COMPACT);
        assertEquals(
                SignatureCodec.encode(
                        FingerprintFormat.signatureOfSet(set, 128), SCHEME.schemeHash(), FingerprintFormat.COMPACT),
                type.render(stored));
        assertEquals("x", type.render(Map.of("value", "x")));
    }
}
