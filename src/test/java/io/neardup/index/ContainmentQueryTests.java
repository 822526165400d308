/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.NearDupPlugin;
import io.neardup.ShingleTruth;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintObject;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.ShingleSetCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.opensearch.index.mapper.MapperService;
import org.opensearch.index.mapper.MapperServiceTestCase;
import org.opensearch.index.mapper.ParseContext;
import org.opensearch.plugins.Plugin;

/**
 * {@link ContainmentQuery} on segments with and without the sets' sizes as doc values ({@code f._containment_size}):
 * texts fingerprinted as the {@code standard} analyzer splits them, parsed by the real {@code minhash} mapper, half of them indexed, in their own segments, as a segment
 * written before the sizes were indexed holds them (the size dropped). The answers are the exact containments of
 * shingle sets built without the plugin ({@link ShingleTruth}), the same in both kinds of segment.
 */
public class ContainmentQueryTests extends MapperServiceTestCase {
    private static final FingerprintScheme SCHEME = FingerprintScheme.defaults("standard");
    private static final String FIELD = "fp";

    @Override
    protected Collection<? extends Plugin> getPlugins() {
        return List.of(new NearDupPlugin());
    }

    private static Fingerprint fingerprint(Fingerprinter fingerprinter, String text) {
        fingerprinter.reset();
        for (String word : ShingleTruth.words(text)) {
            fingerprinter.token(word);
        }
        return fingerprinter.finish(true);
    }

    private static boolean isSetSize(IndexableField field) {
        return field.name().equals(FingerprintFields.containmentSizeField(FIELD))
                && field.fieldType().docValuesType() == DocValuesType.NUMERIC;
    }

    public void testAnswersAreTheExactContainmentsWithAndWithoutTheSetSizes() throws IOException {
        MapperService mapperService = createMapperService(mapping(b -> b.startObject(FIELD)
                .field("type", "minhash")
                .field("containment", true)
                .endObject()));
        MinhashFieldMapper.MinhashFieldType fieldType =
                (MinhashFieldMapper.MinhashFieldType) mapperService.fieldType(FIELD);
        Random random = new Random(random().nextLong());
        List<EmbeddedTexts.Doc> texts = EmbeddedTexts.build(random, 4, new double[] {1.5, 5, 15}, 11);
        Fingerprinter fingerprinter = new Fingerprinter(SCHEME, null);
        Map<String, Fingerprint> fingerprints = new HashMap<>();
        Map<String, Set<String>> shingles = new HashMap<>();
        List<String> ids = new ArrayList<>();
        try (Directory directory = newDirectory()) {
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                for (int i = 0; i < texts.size(); i++) {
                    EmbeddedTexts.Doc text = texts.get(i);
                    Fingerprint fingerprint = fingerprint(fingerprinter, text.text());
                    fingerprints.put(text.id(), fingerprint);
                    shingles.put(text.id(), ShingleTruth.shingles(text.text(), 3));
                    ids.add(text.id());
                    ParseContext.Document parsed = mapperService
                            .documentMapper()
                            .parse(source(b -> b.field(
                                    FIELD,
                                    FingerprintObject.minhash(
                                            fingerprint.minhash(),
                                            fingerprint.shingleSet(),
                                            SCHEME.schemeHash(),
                                            SCHEME.id()))))
                            .rootDoc();
                    Document doc = new Document();
                    int sizes = 0;
                    boolean withoutSize = i % 2 == 1;
                    for (IndexableField field : parsed.getFields()) {
                        if (isSetSize(field)) {
                            assertEquals(
                                    text.id(),
                                    fingerprint.shingleSet().length,
                                    field.numericValue().intValue());
                            sizes++;
                            if (withoutSize) {
                                continue;
                            }
                        }
                        doc.add(field);
                    }
                    assertEquals("one size a document with a set", 1, sizes);
                    doc.add(new StringField("id", text.id(), Field.Store.YES));
                    writer.addDocument(doc);
                    if (random.nextInt(8) == 0) {
                        writer.commit();
                    }
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                double min = randomFrom(0.7, 0.8, 0.9);
                int hitsSeen = 0;
                for (String likeId : ids) {
                    if (likeId.startsWith("article-") == false && likeId.startsWith("host-") == false) {
                        continue;
                    }
                    byte[] likeSet =
                            ShingleSetCodec.payload(fingerprints.get(likeId).shingleSet());
                    for (Containment.Contained contained : Containment.Contained.values()) {
                        ContainmentQuery query = new ContainmentQuery(
                                fieldType,
                                likeSet,
                                SCHEME.schemeHash(),
                                SCHEME.id(),
                                new Containment(min, contained),
                                null);
                        assertTrue(
                                "a query cache is charged at least the like set it holds",
                                query.ramBytesUsed() > likeSet.length);
                        TopDocs top = searcher.search(query, ids.size());
                        Map<String, Float> hits = new HashMap<>();
                        for (ScoreDoc hit : top.scoreDocs) {
                            hits.put(searcher.storedFields().document(hit.doc).get("id"), hit.score);
                        }
                        for (String id : ids) {
                            double truth = contained == Containment.Contained.LIKE
                                    ? ShingleTruth.containment(shingles.get(likeId), shingles.get(id))
                                    : ShingleTruth.containment(shingles.get(id), shingles.get(likeId));
                            Float score = hits.get(id);
                            String pair = likeId + " " + contained + " " + id;
                            if (score != null) {
                                assertEquals(pair, truth, score, 1e-6);
                                assertTrue(pair, truth >= min);
                            } else {
                                assertFalse(pair + ": containment " + truth + " not found", truth >= min + 0.1);
                            }
                        }
                        hitsSeen += hits.size();
                    }
                }
                assertTrue("hits in both kinds of segment: " + hitsSeen, hitsSeen >= 40);
            }
        }
    }
}
