/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.DemoCorpus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.core.xcontent.MediaTypeRegistry;

/**
 * The planted corpus of the containment tests: man pages of the demo corpus (80 to 400 words) as they are
 * ({@code article-<n>}), each inside hosts of the given size ratios made of other pages, at a random word, with about
 * one word in fifty replaced ({@code host-<n>-<ratio>}), its first half alone ({@code half-<n>}, contained at about
 * 0.5), and other pages as they are ({@code page-<i>}).
 */
final class EmbeddedTexts {

    /** A document; {@code ratioIndex} is the index of a host's ratio, -1 for the others. */
    record Doc(String id, String text, int ratioIndex) {}

    private EmbeddedTexts() {}

    static List<Doc> build(Random random, int articles, double[] ratios, int pageStep) throws IOException {
        List<String> texts = new ArrayList<>();
        for (String line : DemoCorpus.lines()) {
            Map<String, Object> page = XContentHelper.convertToMap(MediaTypeRegistry.JSON.xContent(), line, false);
            texts.add((String) page.get("text"));
        }
        List<String> vocabulary = words(String.join(" ", texts.subList(0, 20)));
        List<Doc> docs = new ArrayList<>();
        int made = 0;
        for (int i = 0; i < texts.size() && made < articles; i += 7) {
            List<String> article = words(texts.get(i));
            if (article.size() < 80 || article.size() > 400) {
                continue;
            }
            docs.add(new Doc("article-" + made, String.join(" ", article), -1));
            for (int r = 0; r < ratios.length; r++) {
                List<String> filler = new ArrayList<>();
                int j = i + 1;
                while (filler.size() < article.size() * (ratios[r] - 1)) {
                    filler.addAll(words(texts.get((j += 3) % texts.size())));
                }
                filler = filler.subList(0, (int) (article.size() * (ratios[r] - 1)));
                int at = random.nextInt(filler.size() + 1);
                String host = String.join(" ", filler.subList(0, at)) + " " + edited(article, vocabulary, random) + " "
                        + String.join(" ", filler.subList(at, filler.size()));
                docs.add(new Doc("host-" + made + "-" + ratios[r], host, r));
            }
            docs.add(new Doc("half-" + made, String.join(" ", article.subList(0, article.size() / 2)), -1));
            made++;
        }
        if (made < articles) {
            throw new IllegalStateException("the demo corpus has " + made + " pages of 80 to 400 words at step 7");
        }
        for (int i = 3; i < texts.size(); i += pageStep) {
            docs.add(new Doc("page-" + i, texts.get(i), -1));
        }
        return docs;
    }

    private static List<String> words(String text) {
        return List.of(text.trim().split("\\s+"));
    }

    /**
     * {@code words} with one word in fifty (at least one) replaced by another word of the corpus, at distinct places.
     * Exactly that many, not each word with chance 1/50: a replaced word takes up to 3 shingles with it, and a short
     * article drawing several replacements by chance fell below the containment its hosts are said to have (an
     * 80-word article at 0.79 in its host with one seed).
     */
    private static String edited(List<String> words, List<String> vocabulary, Random random) {
        List<String> out = new ArrayList<>(words);
        List<Integer> places = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) {
            places.add(i);
        }
        Collections.shuffle(places, random);
        for (int i : places.subList(0, Math.max(1, out.size() / 50))) {
            out.set(i, vocabulary.get(random.nextInt(vocabulary.size())));
        }
        return String.join(" ", out);
    }
}
