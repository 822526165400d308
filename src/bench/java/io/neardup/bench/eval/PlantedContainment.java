/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import io.neardup.bench.common.Corpus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A planted containment corpus: texts of a development corpus embedded, lightly edited, in hosts made of other texts
 * of the same corpus, at size ratios in every band of {@link #BANDS}, at random positions; and negatives that share
 * only part of an embedded text or boilerplate with it. Deterministic for a seed.
 *
 * <p>For each embedded text E of n words:
 *
 * <ul>
 *   <li>E itself;
 *   <li>one host a band: a ratio r drawn uniformly inside the band, a copy of E with an edit rate drawn uniformly in
 *       [0, {@code maxEditRate}] (each word substituted, deleted, or followed by an inserted word, one third each),
 *       inserted at a random word of about (r - 1) n words of filler;
 *   <li>a <em>half</em> negative: a random window of half of E's words, in filler, at a ratio drawn from a random
 *       band (C(E, host) ≈ 0.5: below every threshold evaluated);
 *   <li>a <em>header</em> negative: E's first tenth of words (its title and first line: what man pages and package
 *       descriptions share with their siblings) and filler, at a ratio drawn from a random band.
 * </ul>
 *
 * Every host (positive or negative) also holds, with probability one half, one of a few boilerplate passages (other
 * corpus texts of 20 to 60 words) at another random position: the passages many documents share, which make large
 * candidate lists. Filler comes from the texts neither embedded nor boilerplate, taken in a shuffled order, cycling.
 */
public final class PlantedContainment {
    /** Size ratios host : embedded text, {lower, upper}. */
    public static final double[][] BANDS = {{1.2, 2}, {2, 5}, {5, 10}, {10, 20}};

    public enum Kind {
        EMBEDDED,
        HOST,
        HALF,
        HEADER;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A document of the planted corpus.
     *
     * @param source the position of the embedded text it holds (all or part of), in {@link Planted#documents}
     * @param band the band of its planted ratio, -1 for an embedded text
     * @param ratio its planted size ratio in words (host words / embedded words), 1 for an embedded text
     * @param editRate the word edit rate of the embedded copy it holds
     */
    public record Document(String text, Kind kind, int source, int band, double ratio, double editRate) {}

    /** The documents; embedded text i's hosts follow it. */
    public record Planted(List<Document> documents, int embedded, int boilerplates, int fillerTexts) {}

    /**
     * @param embedded how many texts to embed (fewer where the corpus has fewer of their length)
     * @param minWords the least words of an embedded text
     * @param maxWords the most words of an embedded text
     * @param maxEditRate the highest word edit rate of an embedded copy
     * @param boilerplates how many boilerplate passages the hosts share
     */
    public record Settings(int embedded, int minWords, int maxWords, double maxEditRate, int boilerplates, long seed) {}

    private PlantedContainment() {}

    static String[] words(String text) {
        String trimmed = text.trim();
        return trimmed.isEmpty() ? new String[0] : trimmed.split("\\s+");
    }

    public static Planted plant(List<Corpus.Doc> corpus, Settings settings) {
        SplittableRandom random = new SplittableRandom(settings.seed());
        int[] order = io.neardup.bench.common.Stats.permutation(corpus.size(), settings.seed());
        List<String[]> embedded = new ArrayList<>();
        List<String[]> boilerplate = new ArrayList<>();
        List<String[]> filler = new ArrayList<>();
        for (int position : order) {
            String[] w = words(corpus.get(position).text());
            if (w.length == 0) {
                continue;
            }
            if (embedded.size() < settings.embedded()
                    && w.length >= settings.minWords()
                    && w.length <= settings.maxWords()) {
                embedded.add(w);
            } else if (boilerplate.size() < settings.boilerplates() && w.length >= 20 && w.length <= 60) {
                boilerplate.add(w);
            } else {
                filler.add(w);
            }
        }
        if (filler.isEmpty()) {
            throw new IllegalArgumentException("the corpus leaves no filler texts");
        }
        Filler fill = new Filler(filler);
        List<Document> documents = new ArrayList<>();
        for (String[] text : embedded) {
            int source = documents.size();
            documents.add(new Document(String.join(" ", text), Kind.EMBEDDED, source, -1, 1, 0));
            for (int band = 0; band < BANDS.length; band++) {
                double ratio = ratioIn(band, random);
                double editRate = settings.maxEditRate() * random.nextDouble();
                String[] copy = edited(text, editRate, fill, random);
                documents.add(new Document(
                        host(copy, text.length, ratio, fill, boilerplate, random),
                        Kind.HOST,
                        source,
                        band,
                        ratio,
                        editRate));
            }
            int halfBand = random.nextInt(BANDS.length);
            int half = Math.max(1, text.length / 2);
            int from = random.nextInt(text.length - half + 1);
            double halfRatio = ratioIn(halfBand, random);
            documents.add(new Document(
                    host(
                            Arrays.copyOfRange(text, from, from + half),
                            text.length,
                            halfRatio,
                            fill,
                            boilerplate,
                            random),
                    Kind.HALF,
                    source,
                    halfBand,
                    halfRatio,
                    0));
            int headerBand = random.nextInt(BANDS.length);
            double headerRatio = ratioIn(headerBand, random);
            String[] header = Arrays.copyOf(text, Math.max(1, text.length / 10));
            documents.add(new Document(
                    host(header, text.length, headerRatio, fill, boilerplate, random),
                    Kind.HEADER,
                    source,
                    headerBand,
                    headerRatio,
                    0));
        }
        return new Planted(documents, embedded.size(), boilerplate.size(), filler.size());
    }

    /** A ratio drawn uniformly from the middle 96% of the band, so that the ratio of shingle counts stays in it. */
    static double ratioIn(int band, SplittableRandom random) {
        double lower = BANDS[band][0], upper = BANDS[band][1];
        return lower + (upper - lower) * (0.02 + 0.96 * random.nextDouble());
    }

    /**
     * {@code part} at a random word of filler, the whole ratio × {@code embeddedWords} words long, and with probability
     * one half a boilerplate passage (where it fits in that length) at another random word of the filler.
     */
    private static String host(
            String[] part,
            int embeddedWords,
            double ratio,
            Filler fill,
            List<String[]> boilerplate,
            SplittableRandom random) {
        int total = (int) Math.round(ratio * embeddedWords);
        String[] passage = boilerplate.isEmpty() || random.nextBoolean()
                ? new String[0]
                : boilerplate.get(random.nextInt(boilerplate.size()));
        if (passage.length > total - part.length - 1) {
            passage = new String[0]; // it would push the host out of its band
        }
        List<String> filler = fill.take(Math.max(1, total - part.length - passage.length));
        int at = random.nextInt(filler.size() + 1);
        int passageAt = random.nextInt(filler.size() + 1);
        List<String> out = new ArrayList<>(total + part.length);
        for (int i = 0; i <= filler.size(); i++) {
            if (i == passageAt) {
                out.addAll(Arrays.asList(passage));
            }
            if (i == at) {
                out.addAll(Arrays.asList(part));
            }
            if (i < filler.size()) {
                out.add(filler.get(i));
            }
        }
        return String.join(" ", out);
    }

    /** {@code text} with each word, at {@code rate}, substituted by a filler word, deleted, or followed by one. */
    static String[] edited(String[] text, double rate, Filler fill, SplittableRandom random) {
        List<String> out = new ArrayList<>(text.length + 8);
        for (String word : text) {
            if (random.nextDouble() >= rate) {
                out.add(word);
                continue;
            }
            switch (random.nextInt(3)) {
                case 0 -> out.add(fill.word(random));
                case 1 -> {} // deleted
                default -> {
                    out.add(word);
                    out.add(fill.word(random));
                }
            }
        }
        return out.toArray(new String[0]);
    }

    /** The filler texts, handed out in order, cycling; words of them for edits. */
    static final class Filler {
        private final List<String[]> texts;
        private int next;

        Filler(List<String[]> texts) {
            this.texts = texts;
        }

        /** The next {@code count} words of the filler texts in order (the last one cut where it reaches count). */
        List<String> take(int count) {
            List<String> out = new ArrayList<>(count);
            while (out.size() < count) {
                String[] text = texts.get(next);
                next = (next + 1) % texts.size();
                for (int i = 0; i < text.length && out.size() < count; i++) {
                    out.add(text[i]);
                }
            }
            return out;
        }

        String word(SplittableRandom random) {
            String[] text = texts.get(random.nextInt(texts.size()));
            return text[random.nextInt(text.length)];
        }
    }
}
