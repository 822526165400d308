/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.LeadCostQuery;
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
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntPredicate;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.IndexableField;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.Weight;
import org.apache.lucene.store.Directory;
import org.apache.lucene.tests.index.RandomIndexWriter;
import org.apache.lucene.tests.util.TestUtil;
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

    private MapperService containmentMapping() throws IOException {
        return createMapperService(mapping(b -> b.startObject(FIELD)
                .field("type", "minhash")
                .field("containment", true)
                .endObject()));
    }

    /** The texts as indexed: ids in the order written, fingerprints and true shingle sets by id. */
    private record Indexed(List<String> ids, Map<String, Fingerprint> fingerprints, Map<String, Set<String>> shingles) {
        byte[] likeSet(String id) {
            return ShingleSetCodec.payload(fingerprints.get(id).shingleSet());
        }
    }

    /**
     * Writes {@code texts} as the real mapper parses them, with a stored {@code id}; the {@code i}th text without its
     * set's size where {@code withoutSize} says so; a commit after about one text in {@code commitOneIn}.
     */
    private Indexed index(
            MapperService mapperService,
            RandomIndexWriter writer,
            Random random,
            List<EmbeddedTexts.Doc> texts,
            IntPredicate withoutSize,
            int commitOneIn,
            BiConsumer<String, Document> extraFields)
            throws IOException {
        Fingerprinter fingerprinter = new Fingerprinter(SCHEME, null);
        Indexed indexed = new Indexed(new ArrayList<>(), new HashMap<>(), new HashMap<>());
        for (int i = 0; i < texts.size(); i++) {
            EmbeddedTexts.Doc text = texts.get(i);
            Fingerprint fingerprint = fingerprint(fingerprinter, text.text());
            indexed.fingerprints().put(text.id(), fingerprint);
            indexed.shingles().put(text.id(), ShingleTruth.shingles(text.text(), 3));
            indexed.ids().add(text.id());
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
            for (IndexableField field : parsed.getFields()) {
                if (isSetSize(field)) {
                    assertEquals(
                            text.id(),
                            fingerprint.shingleSet().length,
                            field.numericValue().intValue());
                    sizes++;
                    if (withoutSize.test(i)) {
                        continue;
                    }
                }
                doc.add(field);
            }
            assertEquals("one size a document with a set", 1, sizes);
            doc.add(new StringField("id", text.id(), Field.Store.YES));
            extraFields.accept(text.id(), doc);
            writer.addDocument(doc);
            if (random.nextInt(commitOneIn) == 0) {
                writer.commit();
            }
        }
        return indexed;
    }

    public void testAnswersAreTheExactContainmentsWithAndWithoutTheSetSizes() throws IOException {
        MapperService mapperService = containmentMapping();
        MinhashFieldMapper.MinhashFieldType fieldType =
                (MinhashFieldMapper.MinhashFieldType) mapperService.fieldType(FIELD);
        Random random = new Random(random().nextLong());
        List<EmbeddedTexts.Doc> texts = EmbeddedTexts.build(random, 4, new double[] {1.5, 5, 15}, 11);
        try (Directory directory = newDirectory()) {
            Indexed indexed;
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory)) {
                indexed = index(mapperService, writer, random, texts, i -> i % 2 == 1, 8, (id, doc) -> {});
            }
            List<String> ids = indexed.ids();
            Map<String, Set<String>> shingles = indexed.shingles();
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                double min = randomFrom(0.7, 0.8, 0.9);
                int hitsSeen = 0;
                for (String likeId : ids) {
                    if (likeId.startsWith("article-") == false && likeId.startsWith("host-") == false) {
                        continue;
                    }
                    byte[] likeSet = indexed.likeSet(likeId);
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

    /**
     * The containment query as a required clause beside a much cheaper one (a term on a value a few documents have):
     * Lucene asks it for a scorer with a small lead cost, and it answers two-phase where the lead is that much
     * cheaper, and in one pass elsewhere. Either way the hits are the query's own hits among the lead's documents,
     * with the same scores, on shuffled texts with and without their sets' sizes and with deletions. Each segment's
     * two scorers (led and not) also agree document for document, deleted ones included.
     */
    public void testACheaperLeadingClauseGivesTheQuerysOwnHitsAndScores() throws IOException {
        MapperService mapperService = containmentMapping();
        MinhashFieldMapper.MinhashFieldType fieldType =
                (MinhashFieldMapper.MinhashFieldType) mapperService.fieldType(FIELD);
        Random random = new Random(random().nextLong());
        double[] ratios = {1.5, 5, 15};
        List<EmbeddedTexts.Doc> texts = new ArrayList<>(EmbeddedTexts.build(random, 4, ratios, 1));
        // Shuffled, so that a segment holds a few of the planted documents among pages, not a whole group of them.
        Collections.shuffle(texts, random);
        // Rare: one host of each article and its first half, hits of the article's query in each direction.
        Set<String> rare = new HashSet<>();
        for (int n = 0; n < 4; n++) {
            rare.add("host-" + n + "-" + ratios[n % ratios.length]);
            rare.add("half-" + n);
        }
        Set<String> deleted = new HashSet<>();
        try (Directory directory = newDirectory()) {
            Indexed indexed;
            IndexWriterConfig config = newIndexWriterConfig().setMaxBufferedDocs(TestUtil.nextInt(random, 40, 200));
            try (RandomIndexWriter writer = new RandomIndexWriter(random, directory, config)) {
                int withoutSizesFrom = random.nextInt(texts.size());
                indexed = index(
                        mapperService,
                        writer,
                        random,
                        texts,
                        // A run of texts without sizes: whole segments of them, and segments of both kinds.
                        i -> i >= withoutSizesFrom && i < withoutSizesFrom + texts.size() / 3,
                        48,
                        (id, doc) ->
                                doc.add(new StringField(TAG, rare.contains(id) ? RARE : "common", Field.Store.NO)));
                // About one in ten, and always one of the rare hits.
                for (String id : indexed.ids()) {
                    if (random.nextInt(10) == 0 || id.equals("host-0-1.5")) {
                        deleted.add(id);
                        writer.deleteDocuments(new Term("id", id));
                    }
                }
            }
            try (IndexReader reader = DirectoryReader.open(directory)) {
                IndexSearcher searcher = new IndexSearcher(reader);
                // A cached clause is read whole, in one pass, whatever leads.
                searcher.setQueryCache(null);
                double min = randomFrom(0.7, 0.8, 0.9);
                int[] paths = new int[2];
                int ledHits = 0;
                for (String likeId : indexed.ids()) {
                    if (likeId.startsWith("page-")) {
                        continue;
                    }
                    for (Containment.Contained contained : Containment.Contained.values()) {
                        ContainmentQuery query = new ContainmentQuery(
                                fieldType,
                                indexed.likeSet(likeId),
                                SCHEME.schemeHash(),
                                SCHEME.id(),
                                new Containment(min, contained),
                                null);
                        String what = likeId + " " + contained;
                        assertSameScorersLedOrNot(what, searcher, query);
                        Map<String, Float> expected = hits(searcher, query);
                        assertTrue(
                                what + " finds itself or is deleted",
                                expected.containsKey(likeId) || deleted.contains(likeId));
                        expected.keySet().retainAll(rare);
                        Query rareTag = new TermQuery(new Term(TAG, RARE));
                        Map<String, Float> led = hits(
                                searcher,
                                new BooleanQuery.Builder()
                                        .add(
                                                new LeadCostQuery(query, "paths", (supplier, leadCost) -> {
                                                    Scorer scorer = supplier.get(leadCost);
                                                    paths[scorer.twoPhaseIterator() == null ? ONE_PASS : TWO_PHASE]++;
                                                    return scorer;
                                                }),
                                                BooleanClause.Occur.MUST)
                                        .add(rareTag, BooleanClause.Occur.FILTER)
                                        .build());
                        assertEquals(what + ", scored beside a rare term", expected, led);
                        Map<String, Float> filtered = hits(
                                searcher,
                                new BooleanQuery.Builder()
                                        .add(rareTag, BooleanClause.Occur.MUST)
                                        .add(query, BooleanClause.Occur.FILTER)
                                        .build());
                        assertEquals(what + ", a filter beside a rare term", expected.keySet(), filtered.keySet());
                        ledHits += led.size();
                    }
                }
                assertTrue("hits beside the rare term: " + ledHits, ledHits >= 8);
                assertTrue(
                        "segments answered two-phase beside the rare term: " + paths[TWO_PHASE], paths[TWO_PHASE] > 0);
            }
        }
    }

    private static final String TAG = "tag";
    private static final String RARE = "rare";
    private static final int ONE_PASS = 0;
    private static final int TWO_PHASE = 1;

    private static Map<String, Float> hits(IndexSearcher searcher, Query query) throws IOException {
        Map<String, Float> hits = new HashMap<>();
        for (ScoreDoc hit : searcher.search(query, searcher.getIndexReader().maxDoc()).scoreDocs) {
            hits.put(searcher.storedFields().document(hit.doc).get("id"), hit.score);
        }
        return hits;
    }

    /**
     * In each segment, the scorer for a lead of cost 0 (two-phase where the segment holds eight postings of the
     * query's sampled values or more) and the one for no lead (one pass) give the same documents and scores, deleted
     * documents included: both leave them to the collector.
     */
    private static void assertSameScorersLedOrNot(String what, IndexSearcher searcher, Query query) throws IOException {
        Weight weight = searcher.createWeight(query, ScoreMode.COMPLETE, 1f);
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            ScorerSupplier unled = weight.scorerSupplier(leaf);
            if (unled == null) {
                continue;
            }
            Scorer onePass = unled.get(Long.MAX_VALUE);
            assertNull(what + ": one pass without a lead", onePass.twoPhaseIterator());
            ScorerSupplier ledSupplier = weight.scorerSupplier(leaf);
            Scorer led = ledSupplier.get(0);
            assertEquals(
                    what + ": two-phase where the segment's postings cost " + ledSupplier.cost(),
                    ledSupplier.cost() >= 8,
                    led.twoPhaseIterator() != null);
            String segment = what + " in segment " + leaf.ord;
            DocIdSetIterator ledDocs = led.iterator();
            DocIdSetIterator onePassDocs = onePass.iterator();
            for (int doc = onePassDocs.nextDoc(); ; doc = onePassDocs.nextDoc()) {
                assertEquals(segment, doc, ledDocs.nextDoc());
                if (doc == DocIdSetIterator.NO_MORE_DOCS) {
                    break;
                }
                assertEquals(segment + " doc " + doc, onePass.score(), led.score(), 0f);
            }
        }
    }
}
