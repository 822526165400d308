/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;

/**
 * Ground truth for near-duplicate tests and evaluations, computed without the plugin's code: the
 * set of word shingles of a text as strings, from Lucene's StandardAnalyzer (what OpenSearch's
 * {@code standard} analyzer runs), and the exact Jaccard similarity of two sets. A text of fewer
 * words than the shingle size has one shingle of all its words, as the fingerprints do.
 */
public final class ShingleTruth {
    private ShingleTruth() {}

    public static Set<String> shingles(String text, int size) {
        List<String> words = words(text);
        Set<String> shingles = new HashSet<>();
        if (words.isEmpty() == false && words.size() < size) {
            shingles.add(String.join(" ", words));
        }
        for (int i = 0; i + size <= words.size(); i++) {
            shingles.add(String.join(" ", words.subList(i, i + size)));
        }
        return shingles;
    }

    /** The words of a text as the {@code standard} analyzer gives them. */
    public static List<String> words(String text) {
        return located(text).stream().map(Word::term).toList();
    }

    /** A word and the characters {@code [start, end)} of the text it came from. */
    public record Word(String term, int start, int end) {}

    /** The words of a text as the {@code standard} analyzer gives them, with their offsets. */
    public static List<Word> located(String text) {
        List<Word> words = new ArrayList<>();
        try (Analyzer analyzer = new StandardAnalyzer();
                TokenStream tokens = analyzer.tokenStream("text", text)) {
            CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
            OffsetAttribute offset = tokens.addAttribute(OffsetAttribute.class);
            tokens.reset();
            while (tokens.incrementToken()) {
                words.add(new Word(term.toString(), offset.startOffset(), offset.endOffset()));
            }
            tokens.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return words;
    }

    /** Jaccard with Java's own sets; two empty sets are equal. */
    public static <T> double jaccard(Set<T> a, Set<T> b) {
        if (a.isEmpty() && b.isEmpty()) {
            return 1.0;
        }
        Set<T> smaller = a.size() <= b.size() ? a : b, larger = smaller == a ? b : a;
        int common = 0;
        for (T s : smaller) {
            common += larger.contains(s) ? 1 : 0;
        }
        return (double) common / (a.size() + b.size() - common);
    }

    /** The containment of A in B, |A ∩ B| / |A|, with Java's own sets; an empty A is contained in nothing. */
    public static <T> double containment(Set<T> a, Set<T> b) {
        if (a.isEmpty()) {
            return 0.0;
        }
        int common = 0;
        for (T s : a) {
            common += b.contains(s) ? 1 : 0;
        }
        return (double) common / a.size();
    }

    /** The distinct high 32 bits of 64-bit shingle hashes: the set the plugin stores, built without its code. */
    public static Set<Long> highHalves(long[] shingleHashes) {
        Set<Long> set = new HashSet<>();
        for (long hash : shingleHashes) {
            set.add(hash >>> 32);
        }
        return set;
    }

    /** The exact Jaccard of two documents' 64-bit shingle hashes as the plugin stores them (their high halves). */
    public static double storedJaccard(long[] a, long[] b) {
        return jaccard(highHalves(a), highHalves(b));
    }

    /**
     * The similarity a verification reports: the exact Jaccard of the stored shingle sets when
     * {@code exact} (both documents have one and verification is exact), else the signature estimate.
     */
    public static double verifiedSimilarity(boolean exact, long[] a, long[] b, int[] aSignature, int[] bSignature) {
        return exact ? storedJaccard(a, b) : io.neardup.core.MinHasher.jaccard(aSignature, bSignature);
    }

    /** How many of the bands of two signatures agree on all their rows: what makes them LSH candidates. */
    public static int sharedBands(int[] a, int[] b, io.neardup.core.LshBanding banding) {
        int shared = 0;
        for (int band = 0; band < banding.bands(); band++) {
            int from = band * banding.rows();
            shared += java.util.Arrays.equals(a, from, from + banding.rows(), b, from, from + banding.rows()) ? 1 : 0;
        }
        return shared;
    }
}
