/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.neardup.ShingleTruth;
import io.neardup.bench.common.Corpus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.Test;

/**
 * The planted containment corpus: each embedded text lies in one host a band at its planted ratio, mostly contained
 * (edits of at most 5% of words), its negatives hold at most half of it, and the same seed plants the same corpus.
 * Containment checked with {@link ShingleTruth}, not with the evaluation's own truth.
 */
public class PlantedContainmentTests {
    /** Texts of distinct random words, so that containment comes only from the planting. */
    private static List<Corpus.Doc> corpus(int texts, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Corpus.Doc> docs = new ArrayList<>();
        for (int t = 0; t < texts; t++) {
            int length = 20 + random.nextInt(120);
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < length; w++) {
                text.append(w == 0 ? "" : " ").append("w").append(random.nextInt(1_000_000));
            }
            docs.add(new Corpus.Doc(Integer.toString(t), null, text.toString()));
        }
        return docs;
    }

    private static PlantedContainment.Planted plant(long seed) {
        return PlantedContainment.plant(corpus(400, 7), new PlantedContainment.Settings(10, 30, 100, 0.05, 3, seed));
    }

    @Test
    public void testHostsHoldTheirTextAtThePlantedRatio() {
        PlantedContainment.Planted planted = plant(33);
        assertEquals(10, planted.embedded());
        assertEquals(
                10 * (1 + PlantedContainment.BANDS.length + 2),
                planted.documents().size());
        int[] hostsPerBand = new int[PlantedContainment.BANDS.length];
        for (PlantedContainment.Document doc : planted.documents()) {
            if (doc.kind() == PlantedContainment.Kind.EMBEDDED) {
                continue;
            }
            String embedded = planted.documents().get(doc.source()).text();
            Set<String> e = ShingleTruth.shingles(embedded, 3);
            Set<String> h = ShingleTruth.shingles(doc.text(), 3);
            double containment = ShingleTruth.containment(e, h);
            double ratio =
                    (double) PlantedContainment.words(doc.text()).length / PlantedContainment.words(embedded).length;
            double[] band = PlantedContainment.BANDS[doc.band()];
            assertTrue(doc + ": ratio " + ratio, ratio >= band[0] * 0.97 && ratio <= band[1] * 1.03);
            switch (doc.kind()) {
                case HOST -> {
                    hostsPerBand[doc.band()]++;
                    assertTrue("edits of at most 5% keep most shingles: " + containment, containment >= 0.5);
                    assertTrue(doc.editRate() <= 0.05);
                }
                case HALF -> assertTrue("half: " + containment, containment > 0.3 && containment < 0.6);
                case HEADER -> assertTrue("header: " + containment, containment < 0.2);
                default -> throw new AssertionError(doc.kind());
            }
        }
        for (int hosts : hostsPerBand) {
            assertEquals(10, hosts);
        }
    }

    @Test
    public void testSameSeedSameCorpus() {
        assertEquals(plant(5).documents(), plant(5).documents());
        assertTrue(plant(5).documents().equals(plant(6).documents()) == false);
    }

    @Test
    public void testPairBands() {
        assertEquals(0, ContainmentAccuracy.band(100, 110));
        assertEquals(1, ContainmentAccuracy.band(100, 150));
        assertEquals(2, ContainmentAccuracy.band(300, 100));
        assertEquals(4, ContainmentAccuracy.band(100, 1999));
        assertEquals(5, ContainmentAccuracy.band(100, 2000));
    }

    @Test
    public void testBinomialBelow() {
        assertEquals(Math.pow(0.75, 13), ContainmentAccuracy.binomialBelow(13, 0.25, 1), 1e-12);
        assertEquals(1.0, ContainmentAccuracy.binomialBelow(3, 0.5, 4), 1e-12);
    }
}
