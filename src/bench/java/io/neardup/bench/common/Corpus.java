/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.neardup.core.ShingleHasher;
import io.neardup.core.TokenHasher;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Reads JSON-lines corpora, gzipped or not ({@code id}, optional {@code group}, {@code text}) and
 * tokenizes texts with Lucene's {@link StandardAnalyzer} without stop words, which is what
 * OpenSearch's {@code standard} analyzer (the processor's default) runs.
 */
public final class Corpus {
    private Corpus() {}

    /** One document; {@code group} is null where the corpus has none. */
    public record Doc(String id, String group, String text) {
        public int utf8Bytes() {
            return text.getBytes(StandardCharsets.UTF_8).length;
        }
    }

    /** Tokens of one text, packed: token i is {@code chars[starts[i], starts[i+1])}. */
    public record Tokens(char[] chars, int[] starts) {
        public int size() {
            return starts.length - 1;
        }

        public int start(int i) {
            return starts[i];
        }

        public int length(int i) {
            return starts[i + 1] - starts[i];
        }

        public String term(int i) {
            return new String(chars, starts[i], length(i));
        }
    }

    public static List<Doc> read(Path path, int limit) throws IOException {
        JsonFactory json = new JsonFactory();
        List<Doc> docs = new ArrayList<>();
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(open(path), StandardCharsets.UTF_8), 1 << 16)) {
            String line;
            while ((line = in.readLine()) != null && docs.size() < limit) {
                if (line.isBlank()) {
                    continue;
                }
                String id = null, group = null, text = null;
                try (JsonParser p = json.createParser(line)) {
                    if (p.nextToken() != JsonToken.START_OBJECT) {
                        throw new IOException("not a JSON object: " + line.substring(0, Math.min(80, line.length())));
                    }
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        JsonToken v = p.nextToken();
                        if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                            p.skipChildren();
                            continue;
                        }
                        switch (name) {
                            case "id" -> id = p.getValueAsString();
                            case "group" -> group = p.getValueAsString();
                            case "text" -> text = p.getValueAsString();
                            default -> {}
                        }
                    }
                }
                if (text != null) {
                    docs.add(new Doc(id, group, text));
                }
            }
        }
        return docs;
    }

    /** The file's bytes, gunzipped when it starts with the gzip magic (so .jsonl and .jsonl.gz both work). */
    public static java.io.InputStream open(Path path) throws IOException {
        java.io.BufferedInputStream in = new java.io.BufferedInputStream(Files.newInputStream(path), 1 << 16);
        in.mark(2);
        int b0 = in.read(), b1 = in.read();
        in.reset();
        return b0 == 0x1f && b1 == 0x8b ? new GZIPInputStream(in, 1 << 16) : in;
    }

    public static Analyzer analyzer() {
        return new StandardAnalyzer(); // Lucene 10: no stop words, max token length 255
    }

    public static Tokens tokenize(Analyzer analyzer, String text) {
        char[] chars = new char[Math.max(16, text.length())];
        int[] starts = new int[64];
        int n = 0;
        int pos = 0;
        try (TokenStream ts = analyzer.tokenStream("text", text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                int len = term.length();
                if (pos + len > chars.length) {
                    chars = Arrays.copyOf(chars, Math.max(chars.length * 2, pos + len));
                }
                System.arraycopy(term.buffer(), 0, chars, pos, len);
                if (n + 2 > starts.length) {
                    starts = Arrays.copyOf(starts, starts.length * 2);
                }
                starts[n++] = pos;
                pos += len;
            }
            ts.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        starts[n] = pos;
        return new Tokens(Arrays.copyOf(chars, pos), Arrays.copyOf(starts, n + 1));
    }

    /**
     * Ground truth shingles, independent of the plugin's hashing: the sorted distinct FNV-1a 64
     * hashes of the text's word {@code size}-shingles (the words joined by a space, which analyzer
     * tokens never hold), one shingle of all words for a shorter text, none for a text without words.
     */
    public static long[] truthShingles(Tokens tokens, int size) {
        int words = tokens.size();
        int count = words == 0 ? 0 : Math.max(1, words - size + 1);
        long[] set = new long[count];
        char[] chars = tokens.chars();
        for (int s = 0; s < count; s++) {
            long h = 0xcbf29ce484222325L;
            for (int k = s; k < Math.min(words, s + size); k++) {
                if (k > s) {
                    h = (h ^ ' ') * 0x100000001b3L;
                }
                for (int c = tokens.start(k), e = c + tokens.length(k); c < e; c++) {
                    h = (h ^ chars[c]) * 0x100000001b3L;
                }
            }
            set[s] = h;
        }
        return sortedDistinct(set);
    }

    /**
     * Every unordered pair of {@code sets} (each sorted and distinct) with exact Jaccard >= {@code floor},
     * keyed {@code i << 32 | j} with i < j, by counting intersections over an inverted index.
     */
    public static Map<Long, Double> exactPairs(long[][] sets, double floor) {
        int n = sets.length;
        Postings index = Postings.of(sets);
        int[][] ids = index.ids();
        int[] start = index.start();
        int[] postings = index.postings();
        Map<Long, Double> pairs = new HashMap<>();
        int[] common = new int[n];
        int[] touched = new int[n];
        for (int i = 0; i < n; i++) {
            int touchedCount = 0;
            for (int id : ids[i]) {
                // Only later documents: each unordered pair once. Postings are ascending, so skip to j > i.
                int from = Arrays.binarySearch(postings, start[id], start[id + 1], i + 1);
                from = from < 0 ? -from - 1 : from;
                for (int p = from; p < start[id + 1]; p++) {
                    int j = postings[p];
                    if (common[j]++ == 0) {
                        touched[touchedCount++] = j;
                    }
                }
            }
            for (int t = 0; t < touchedCount; t++) {
                int j = touched[t];
                double jaccard = (double) common[j] / (sets[i].length + sets[j].length - common[j]);
                if (jaccard >= floor) {
                    pairs.put((long) i << 32 | j, jaccard);
                }
                common[j] = 0;
            }
        }
        return pairs;
    }

    /** For each query, the position of its nearest set (-1: none shares a shingle) and their exact Jaccard (0 then). */
    public record Nearest(int[] position, double[] jaccard) {}

    /**
     * For each of {@code queries}, the set of {@code against} with the highest exact Jaccard (the first of equals), all
     * sorted and distinct, by counting intersections over an inverted index as {@link #exactPairs} does: exact, since a
     * set that shares no shingle with the query has Jaccard 0 with it.
     */
    public static Nearest nearest(long[][] against, long[][] queries) {
        int n = against.length;
        long[][] all = Arrays.copyOf(against, n + queries.length);
        System.arraycopy(queries, 0, all, n, queries.length);
        Postings index = Postings.of(all);
        int[] start = index.start();
        int[] postings = index.postings();
        int[] position = new int[queries.length];
        double[] jaccard = new double[queries.length];
        int[] common = new int[n];
        int[] touched = new int[n];
        for (int q = 0; q < queries.length; q++) {
            int touchedCount = 0;
            for (int id : index.ids()[n + q]) {
                // Postings are ascending: the sets of against come first.
                for (int p = start[id]; p < start[id + 1] && postings[p] < n; p++) {
                    if (common[postings[p]]++ == 0) {
                        touched[touchedCount++] = postings[p];
                    }
                }
            }
            position[q] = -1;
            for (int t = 0; t < touchedCount; t++) {
                int j = touched[t];
                double similarity = (double) common[j] / (queries[q].length + against[j].length - common[j]);
                if (similarity > jaccard[q] || (similarity == jaccard[q] && j < position[q])) {
                    jaccard[q] = similarity;
                    position[q] = j;
                }
                common[j] = 0;
            }
        }
        return new Nearest(position, jaccard);
    }

    /**
     * The set the processor's MinHash side hashes: the sorted distinct shingle hashes of {@code t}'s tokens, with the
     * plugin's own {@link TokenHasher} and {@link ShingleHasher} (whose size and seed the caller chose).
     */
    public static long[] shingleSet(Tokens t, TokenHasher th, ShingleHasher sh) {
        sh.reset();
        long[] set = new long[Math.max(1, t.size())];
        int m = 0;
        for (int k = 0; k < t.size(); k++) {
            if (sh.add(th.hash(t.chars(), t.start(k), t.length(k)))) {
                set[m++] = sh.shingle();
            }
        }
        if (sh.finish()) {
            set[m++] = sh.shingle();
        }
        return sortedDistinct(Arrays.copyOf(set, m));
    }

    /** Exact Jaccard of two sorted sets; two empty sets are equal (1). */
    public static double jaccard(long[] a, long[] b) {
        if (a.length == 0 && b.length == 0) {
            return 1;
        }
        int i = 0, j = 0, inter = 0;
        while (i < a.length && j < b.length) {
            if (a[i] == b[j]) {
                inter++;
                i++;
                j++;
            } else if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return (double) inter / (a.length + b.length - inter);
    }

    /** The distinct values, ascending (sorts {@code values} in place). */
    public static long[] sortedDistinct(long[] values) {
        Arrays.sort(values);
        int u = 0;
        for (int i = 0; i < values.length; i++) {
            if (i == 0 || values[i] != values[i - 1]) {
                values[u++] = values[i];
            }
        }
        return u == values.length ? values : Arrays.copyOf(values, u);
    }

    /**
     * An inverted index over sets of shingle hashes, for exact Jaccard joins: {@code ids[i]} are set
     * i's shingles as dictionary positions, and shingle s's documents (ascending) are
     * {@code postings[start[s], start[s + 1])}; {@code df[s]} is their number.
     */
    public record Postings(int dictionarySize, int[][] ids, int[] df, int[] start, int[] postings) {
        public static Postings of(long[][] sets) {
            long[] dictionary = Arrays.stream(sets)
                    .flatMapToLong(Arrays::stream)
                    .sorted()
                    .distinct()
                    .toArray();
            int[] df = new int[dictionary.length];
            int[][] ids = new int[sets.length][];
            for (int i = 0; i < sets.length; i++) {
                ids[i] = new int[sets[i].length];
                for (int k = 0; k < sets[i].length; k++) {
                    ids[i][k] = Arrays.binarySearch(dictionary, sets[i][k]);
                    df[ids[i][k]]++;
                }
            }
            int[] start = new int[dictionary.length + 1];
            for (int s = 0; s < dictionary.length; s++) {
                start[s + 1] = start[s] + df[s];
            }
            int[] postings = new int[start[dictionary.length]];
            int[] fill = Arrays.copyOf(start, dictionary.length);
            for (int i = 0; i < sets.length; i++) {
                for (int id : ids[i]) {
                    postings[fill[id]++] = i;
                }
            }
            return new Postings(dictionary.length, ids, df, start, postings);
        }
    }
}
