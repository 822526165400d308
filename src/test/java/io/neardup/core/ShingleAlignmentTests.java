/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import io.neardup.ShingleTruth;
import io.neardup.ShingleTruth.Word;
import io.neardup.bench.common.Corpus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.opensearch.test.OpenSearchTestCase;

/**
 * {@link ShingleAlignment} against a brute-force alignment made without it: the words of each text with their offsets
 * from Lucene's StandardAnalyzer (what the {@code standard} scheme analyzes with), each shingle as a string. On the
 * man pages and the Debian descriptions (../shared/corpus, else the demo man pages on the test classpath), for
 * near-duplicate pairs (two documents of one group) and random pairs: every reported shared passage holds the same
 * words on both sides, every shingle both texts hold lies in a reported passage on each side, the ranges only one side
 * has are exactly its tokens in no shared shingle, and the measures are the exact ones of the stored sets.
 */
public class ShingleAlignmentTests extends OpenSearchTestCase {
    private static final int PAIRS_PER_KIND = 500;

    public void testManPagesAgainstBruteForce() throws IOException {
        duel(documents("manpages.jsonl.gz"));
    }

    public void testDebianDescriptionsAgainstBruteForce() throws IOException {
        duel(documents("debian-descriptions.jsonl.gz"));
    }

    private void duel(List<Corpus.Doc> docs) {
        Map<String, List<Corpus.Doc>> groups = new LinkedHashMap<>();
        for (Corpus.Doc doc : docs) {
            if (doc.group() != null) {
                groups.computeIfAbsent(doc.group(), g -> new ArrayList<>()).add(doc);
            }
        }
        List<List<Corpus.Doc>> multi =
                groups.values().stream().filter(g -> g.size() > 1).toList();
        assertFalse("no group with two documents", multi.isEmpty());
        Random random = new Random(random().nextLong());
        for (int pair = 0; pair < 2 * PAIRS_PER_KIND; pair++) {
            Corpus.Doc a, b;
            if (pair < PAIRS_PER_KIND) {
                List<Corpus.Doc> group = multi.get(random.nextInt(multi.size()));
                int i = random.nextInt(group.size()), j = random.nextInt(group.size() - 1);
                a = group.get(i);
                b = group.get(j >= i ? j + 1 : j);
            } else {
                a = docs.get(random.nextInt(docs.size()));
                b = docs.get(random.nextInt(docs.size()));
            }
            // Mostly the default scheme's 3-word shingles; sometimes another size.
            int size = random.nextInt(4) == 0 ? 1 + random.nextInt(5) : 3;
            checkPair(a.id() + " / " + b.id() + " (shingles of " + size + ")", a.text(), b.text(), size);
        }
    }

    public void testShortTextsAndEmptyOnes() {
        checkPair("short", "one two", "one two three four", 3);
        checkPair("both short", "One two", "one, two!", 3);
        checkPair("empty", "", "one two three", 3);
        checkPair("both empty", "", " ...", 3);
        checkPair("repeats", "a b a b a b a b c", "a b a b x a b a b a b", 2);
    }

    public void testOddTextsAgainstBruteForce() {
        List<String> texts = List.of(
                "東京は日本の首都であり、世界最大の都市圏の一つです。",
                "東京は日本の首都であり、世界有数の都市圏の一つです。",
                "مرحبا بالعالم هذا نص عربي قصير للاختبار",
                "party time 🎉🎉 with emoji 😀 and more emoji 🚀 everywhere",
                "party time 🎉 with emoji 😀 and more emoji everywhere",
                "control\u0001characters\u0007in\u001bthe\ttext\u0000here",
                "again again again again again again again again again again",
                "again again again",
                "x");
        for (String a : texts) {
            for (String b : texts) {
                for (int size = 1; size <= 4; size++) {
                    checkPair("[" + a + "] / [" + b + "] (shingles of " + size + ")", a, b, size);
                }
            }
        }
    }

    public void testRepeatedShinglesCostAtMostTheCandidatesTried() {
        String a = "la ".repeat(20_000), b = "la ".repeat(15_000);
        long started = System.nanoTime();
        ShingleAlignment.Result result = align(a, b, 3, Integer.MAX_VALUE, MemoryBudget.NONE);
        assertEquals(1.0, result.jaccard(), 0.0);
        // A's first 15,000 words are B; its last 5,000 repeat B's start
        assertEquals(
                List.of(
                        new ShingleAlignment.Passage(
                                new ShingleAlignment.Range(0, 44_999), new ShingleAlignment.Range(0, 44_999)),
                        new ShingleAlignment.Passage(
                                new ShingleAlignment.Range(44_994, 59_999), new ShingleAlignment.Range(0, 15_005))),
                result.shared());
        assertTrue(result.onlyA().isEmpty() && result.onlyB().isEmpty());
        assertTrue("took " + (System.nanoTime() - started) / 1_000_000 + " ms", System.nanoTime() - started < 5e9);
    }

    public void testCapKeepsTheMeasuresAndSaysSo() {
        String a = "the quick brown fox jumps over the lazy dog and runs far away from the farm";
        String b = "a quick brown fox jumps over the lazy dog and walks far away from the town";
        ShingleAlignment.Result whole = align(a, b, 3, Integer.MAX_VALUE, MemoryBudget.NONE);
        assertFalse(whole.truncated());
        for (int cap : new int[] {0, 5, 20, 40, a.length() - 1}) {
            ShingleAlignment.Result capped = align(a, b, 3, cap, MemoryBudget.NONE);
            assertTrue("cap " + cap, capped.truncated());
            assertEquals(whole.jaccard(), capped.jaccard(), 0.0);
            assertEquals(whole.containmentAInB(), capped.containmentAInB(), 0.0);
            assertEquals(whole.containmentBInA(), capped.containmentBInA(), 0.0);
            for (ShingleAlignment.Passage passage : capped.shared()) {
                assertTrue(
                        "cap " + cap + ": " + passage,
                        passage.a().end() <= cap && passage.b().end() <= cap);
            }
            for (ShingleAlignment.Range range : capped.onlyA()) {
                assertTrue("cap " + cap + ": " + range, range.end() <= cap);
            }
        }
        assertEquals(0, align(a, b, 3, 0, MemoryBudget.NONE).shared().size());
        // "quick brown fox jumps over the lazy dog and", once the cap reaches "and" on both sides
        assertEquals(
                new ShingleAlignment.Passage(new ShingleAlignment.Range(4, 47), new ShingleAlignment.Range(2, 45)),
                align(a, b, 3, 47, MemoryBudget.NONE).shared().get(0));
        assertEquals(
                new ShingleAlignment.Passage(new ShingleAlignment.Range(4, 39), new ShingleAlignment.Range(2, 37)),
                align(a, b, 3, 40, MemoryBudget.NONE).shared().get(0));
        expectThrows(IllegalArgumentException.class, () -> align(a, b, 3, -1, MemoryBudget.NONE));
    }

    public void testScratchIsChargedAndGivenBack() {
        CountingBudget budget = new CountingBudget(Long.MAX_VALUE);
        String text = "words of a text that is long enough to need some room ".repeat(200);
        TextTokens a = tokens(text, budget), b = tokens(text + " and more", budget);
        long held = budget.used();
        ShingleAlignment.align(a, b, 3, 0L, Integer.MAX_VALUE, budget);
        assertEquals("scratch released", held, budget.used());
        assertTrue("scratch charged: peak " + budget.peak() + ", tokens " + held, budget.peak() > held + 8L * 1000);
        a.close();
        b.close();
        assertEquals(0, budget.used());
        CountingBudget small = new CountingBudget(held + 1000);
        TextTokens c = tokens(text, MemoryBudget.NONE), d = tokens(text, MemoryBudget.NONE);
        expectThrows(IllegalStateException.class, () -> ShingleAlignment.align(c, d, 3, 0L, Integer.MAX_VALUE, small));
        assertEquals("a refused reservation leaves nothing held", 0, small.used());
    }

    public void testSetsAreTheFingerprintersStoredSets() {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        for (String text : List.of("a b c d a b c d", "one", "Some text, with words; and some more words.")) {
            Fingerprinter fingerprinter = new Fingerprinter(scheme, null);
            for (Word word : ShingleTruth.located(text)) {
                fingerprinter.token(word.term());
            }
            int[] set = fingerprinter.finish(true).shingleSet();
            ShingleAlignment.Result result = align(text, "", scheme.minhashShingleSize(), 100, MemoryBudget.NONE);
            assertEquals(text, set.length, result.shinglesA());
        }
    }

    private static ShingleAlignment.Result align(String a, String b, int size, int maxChars, MemoryBudget budget) {
        try (TextTokens ta = tokens(a, budget);
                TextTokens tb = tokens(b, budget)) {
            return ShingleAlignment.align(ta, tb, size, 0L, maxChars, budget);
        }
    }

    private static TextTokens tokens(String text, MemoryBudget budget) {
        TextTokens tokens = new TextTokens(0L, budget);
        for (Word word : ShingleTruth.located(text)) {
            tokens.add(word.term(), word.start(), word.end());
        }
        return tokens;
    }

    /** The brute-force checks of one pair. */
    private static void checkPair(String what, String textA, String textB, int size) {
        List<Word> a = ShingleTruth.located(textA), b = ShingleTruth.located(textB);
        ShingleAlignment.Result result = align(textA, textB, size, Integer.MAX_VALUE, MemoryBudget.NONE);
        assertFalse(what, result.truncated());
        List<String> shinglesA = shingleStrings(a, size), shinglesB = shingleStrings(b, size);
        Set<String> setA = new HashSet<>(shinglesA), setB = new HashSet<>(shinglesB);

        // the measures: exact, of the stored (32-bit) sets, built here from the hashes of the shingle strings
        long[] hashesA = hashes(a, size), hashesB = hashes(b, size);
        assertEquals(what, ShingleTruth.storedJaccard(hashesA, hashesB), result.jaccard(), 1e-12);
        assertEquals(
                what,
                ShingleTruth.containment(ShingleTruth.highHalves(hashesA), ShingleTruth.highHalves(hashesB)),
                result.containmentAInB(),
                1e-12);
        assertEquals(
                what,
                ShingleTruth.containment(ShingleTruth.highHalves(hashesB), ShingleTruth.highHalves(hashesA)),
                result.containmentBInA(),
                1e-12);
        assertEquals(what, ShingleTruth.highHalves(hashesA).size(), result.shinglesA());
        // and the words' Jaccard, but for 32-bit collisions
        int union = setA.size() + setB.size();
        assertEquals(what, ShingleTruth.jaccard(setA, setB), result.jaccard(), union == 0 ? 0 : 3.0 / union);

        boolean[] coveredA = new boolean[shinglesA.size()], coveredB = new boolean[shinglesB.size()];
        for (ShingleAlignment.Passage passage : result.shared()) {
            int[] inA = tokensIn(a, passage.a(), what), inB = tokensIn(b, passage.b(), what);
            List<String> wordsA = terms(a, inA), wordsB = terms(b, inB);
            assertEquals(what + ": passage " + passage + " holds other words", wordsA, wordsB);
            assertTrue(
                    what + ": passage " + passage + " of " + wordsA.size() + " words",
                    wordsA.size() >= Math.min(size, Math.min(a.size(), b.size())));
            cover(coveredA, inA, a.size(), size);
            cover(coveredB, inB, b.size(), size);
        }
        checkCoverage(what + " (A)", shinglesA, setB, coveredA);
        checkCoverage(what + " (B)", shinglesB, setA, coveredB);
        checkOnly(what + " (only A)", a, shinglesA, setB, result.onlyA(), size);
        checkOnly(what + " (only B)", b, shinglesB, setA, result.onlyB(), size);
    }

    /** The shingle of each position, as a string; a text shorter than a shingle has one of all its words. */
    private static List<String> shingleStrings(List<Word> words, int size) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < shingleCount(words.size(), size); p++) {
            out.add(String.join(" ", terms(words, new int[] {p, lastToken(p, words.size(), size)})));
        }
        return out;
    }

    private static long[] hashes(List<Word> words, int size) {
        TokenHasher tokenHasher = new TokenHasher(0L);
        ShingleHasher shingleHasher = new ShingleHasher(size, 0L);
        long[] out = new long[shingleCount(words.size(), size)];
        for (int p = 0; p < out.length; p++) {
            int last = lastToken(p, words.size(), size);
            long[] window = new long[last - p + 1];
            for (int t = p; t <= last; t++) {
                window[t - p] = tokenHasher.hash(words.get(t).term());
            }
            out[p] = shingleHasher.hashOf(window);
        }
        return out;
    }

    private static int shingleCount(int words, int size) {
        return words == 0 ? 0 : Math.max(1, words - size + 1);
    }

    private static int lastToken(int shingle, int words, int size) {
        return Math.min(shingle + size, words) - 1;
    }

    /** The first and last token exactly spanning {@code range}: it must start at a token's start and end at one's end. */
    private static int[] tokensIn(List<Word> words, ShingleAlignment.Range range, String what) {
        int first = -1, last = -1;
        for (int t = 0; t < words.size(); t++) {
            if (words.get(t).start() == range.start() && first < 0) {
                first = t;
            }
            if (words.get(t).end() == range.end()) {
                last = t;
            }
        }
        assertTrue(what + ": " + range + " is not a range of whole tokens", first >= 0 && last >= first);
        return new int[] {first, last};
    }

    private static List<String> terms(List<Word> words, int[] firstLast) {
        return words.subList(firstLast[0], firstLast[1] + 1).stream()
                .map(Word::term)
                .toList();
    }

    private static void cover(boolean[] covered, int[] firstLast, int words, int size) {
        for (int p = firstLast[0]; p < covered.length && p <= firstLast[1]; p++) {
            if (lastToken(p, words, size) <= firstLast[1]) {
                covered[p] = true;
            }
        }
    }

    private static void checkCoverage(String what, List<String> shingles, Set<String> other, boolean[] covered) {
        for (int p = 0; p < shingles.size(); p++) {
            if (other.contains(shingles.get(p))) {
                assertTrue(
                        what + ": shared shingle [" + shingles.get(p) + "] at " + p + " is in no passage", covered[p]);
            }
        }
    }

    /** The tokens in the reported ranges are exactly those in no shared shingle. */
    private static void checkOnly(
            String what,
            List<Word> words,
            List<String> shingles,
            Set<String> other,
            List<ShingleAlignment.Range> only,
            int size) {
        boolean[] shared = new boolean[words.size()];
        for (int p = 0; p < shingles.size(); p++) {
            if (other.contains(shingles.get(p))) {
                for (int t = p; t <= lastToken(p, words.size(), size); t++) {
                    shared[t] = true;
                }
            }
        }
        boolean[] reported = new boolean[words.size()];
        for (ShingleAlignment.Range range : only) {
            int[] firstLast = tokensIn(words, range, what);
            for (int t = firstLast[0]; t <= firstLast[1]; t++) {
                assertFalse(what + ": " + range + " reported twice", reported[t]);
                reported[t] = true;
            }
        }
        for (int t = 0; t < words.size(); t++) {
            assertEquals(what + ": token " + t + " [" + words.get(t).term() + "]", shared[t] == false, reported[t]);
        }
    }

    /** The real corpus where the shared folder has it; else the demo man pages (the suite's own copy). */
    private static List<Corpus.Doc> documents(String name) throws IOException {
        Path copy = createTempDir().resolve(name);
        // The shared corpus folder is on the test class path where it exists (pom.xml), which the sandbox lets a test
        // read.
        InputStream shared = ShingleAlignmentTests.class.getResourceAsStream("/" + name);
        try (InputStream in =
                shared != null ? shared : ShingleAlignmentTests.class.getResourceAsStream("/manpages-demo.jsonl")) {
            Files.copy(in, copy);
        }
        List<Corpus.Doc> docs = Corpus.read(copy, Integer.MAX_VALUE);
        LogManager.getLogger(ShingleAlignmentTests.class)
                .info("{}: {} documents{}", name, docs.size(), shared == null ? " (the demo corpus in its place)" : "");
        return docs;
    }
}
