/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import static org.hamcrest.Matchers.containsString;

import io.neardup.CountingBreaker;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.FingerprintScratch;
import io.neardup.core.Hamming;
import io.neardup.core.IdfTable;
import io.neardup.core.Margins;
import io.neardup.core.MinHasher;
import io.neardup.core.ShingleSetCodec;
import io.neardup.core.SignatureCodec;
import io.neardup.ingest.NearDupFingerprintProcessor.Output;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.opensearch.core.common.breaker.CircuitBreakingException;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.ingest.IngestDocument;
import org.opensearch.ingest.RandomDocumentPicks;
import org.opensearch.test.OpenSearchTestCase;

public class NearDupFingerprintProcessorTests extends OpenSearchTestCase {

    private static final String TEXT =
            "The quick brown fox jumps over the lazy dog while the farmer sleeps under an old oak tree "
                    + "and the cat watches the birds that sing in the morning light near the quiet river bank";

    private static NearDupFingerprintProcessor processor(
            boolean ignoreMissing, int maxChars, boolean truncate, Output... outputs) {
        return new NearDupFingerprintProcessor(
                "tag",
                null,
                "body",
                "body_fp",
                ignoreMissing,
                maxChars,
                truncate,
                outputs.length == 0 ? EnumSet.allOf(Output.class) : EnumSet.of(outputs[0], outputs),
                100_000,
                new StandardAnalyzer(),
                FingerprintScheme.defaults("standard"),
                (IdfTable) null,
                FingerprintScratchPool.unaccounted(),
                target -> FingerprintFormat.SIGNATURE);
    }

    private static NearDupFingerprintProcessor processor() {
        return processor(false, 1_000_000, false);
    }

    private static IngestDocument document(Object body) {
        Map<String, Object> source = new HashMap<>();
        source.put("title", "t");
        if (body != NOTHING) {
            source.put("body", body);
        }
        return RandomDocumentPicks.randomIngestDocument(random(), source);
    }

    private static final Object NOTHING = new Object();

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fingerprintOf(Object body) throws Exception {
        IngestDocument document = processor().execute(document(body));
        return document.getFieldValue("body_fp", Map.class);
    }

    @SuppressWarnings("unchecked")
    private static long simhashOf(String text) throws Exception {
        Map<String, Object> simhash = (Map<String, Object>) fingerprintOf(text).get("simhash");
        return Long.parseUnsignedLong((String) simhash.get("value"), 16);
    }

    @SuppressWarnings("unchecked")
    public void testWritesEveryOutputTaggedWithTheScheme() throws Exception {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        Map<String, Object> fp = fingerprintOf(TEXT);
        Map<String, Object> simhash = (Map<String, Object>) fp.get("simhash");
        assertTrue(
                simhash.get("value").toString(), simhash.get("value").toString().matches("[0-9a-f]{16}"));
        assertEquals(
                Margins.BITS, Margins.decode((String) simhash.get("margins")).length());
        assertEquals(scheme.id(), simhash.get("scheme"));
        Map<String, Object> minhash = (Map<String, Object>) fp.get("minhash");
        int[] signature = SignatureCodec.decode((String) minhash.get("value"), scheme.numHashes(), scheme.schemeHash());
        assertEquals(scheme.numHashes(), signature.length);
        assertEquals(scheme.id(), minhash.get("scheme"));
        assertTrue(fp.get("content_hash").toString().matches("[0-9a-f]{32}"));
        assertEquals(35L, ((Number) fp.get("tokens")).longValue());
        assertFalse(fp.containsKey("truncated"));
    }

    /** A processor writing some outputs writes each exactly as one writing them all (it computes only those). */
    @SuppressWarnings("unchecked")
    public void testEachOutputIsTheSameWhicheverOthersAreWritten() throws Exception {
        List<Output[]> subsets = List.of(
                new Output[] {Output.CONTENT_HASH, Output.SIMHASH},
                new Output[] {Output.SIMHASH},
                new Output[] {Output.MINHASH},
                new Output[] {Output.MINHASH, Output.SHINGLES},
                new Output[] {Output.CONTENT_HASH});
        for (String text : List.of(TEXT, "one", distinctWords(between(1, 300)), "")) {
            Map<String, Object> all = fingerprintOf(text);
            for (Output[] outputs : subsets) {
                IngestDocument document =
                        processor(false, 1_000_000, false, outputs).execute(document(text));
                Map<String, Object> some = document.getFieldValue("body_fp", Map.class);
                for (String key : some.keySet()) {
                    Object expected = all.get(key);
                    if (key.equals("minhash") && List.of(outputs).contains(Output.SHINGLES) == false) {
                        expected = new HashMap<>((Map<String, Object>) expected);
                        ((Map<String, Object>) expected).remove(FingerprintObject.SHINGLES);
                    }
                    assertEquals(key + " of " + List.of(outputs) + " for [" + text + "]", expected, some.get(key));
                }
            }
        }
    }

    /** The set written is the distinct 3-word shingles, checked against shingles built from the words themselves. */
    @SuppressWarnings("unchecked")
    public void testShingleSetIsTheDistinctShinglesOfTheMinhashScheme() throws Exception {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        String text =
                TEXT + " " + TEXT; // every shingle of the second copy repeats one of the first, but one joins the two
        Map<String, Object> minhash = (Map<String, Object>) fingerprintOf(text).get("minhash");
        byte[] payload = ShingleSetCodec.decodePayload((String) minhash.get("shingles"), scheme.schemeHash());
        String[] words = text.toLowerCase(java.util.Locale.ROOT).split(" ");
        java.util.Set<String> shingles = new java.util.HashSet<>();
        for (int i = 0; i + 3 <= words.length; i++) {
            shingles.add(words[i] + " " + words[i + 1] + " " + words[i + 2]);
        }
        assertEquals(shingles.size(), ShingleSetCodec.size(payload, 0, payload.length));
        assertEquals(
                minhash.get("shingles"),
                ((Map<String, Object>) fingerprintOf(text).get("minhash")).get("shingles"));
        // One new word in a text of 33 distinct 3-word shingles replaces the three shingles that held the old one.
        byte[] original = shingleSetOf(TEXT, scheme);
        byte[] edited = shingleSetOf(TEXT.replace("lazy", "sleepy"), scheme);
        assertEquals(33, ShingleSetCodec.size(original, 0, original.length));
        assertEquals(
                30.0 / 36.0, ShingleSetCodec.jaccard(original, 0, original.length, edited, 0, edited.length), 1e-12);
    }

    @SuppressWarnings("unchecked")
    private static byte[] shingleSetOf(String text, FingerprintScheme scheme) throws Exception {
        Map<String, Object> minhash = (Map<String, Object>) fingerprintOf(text).get("minhash");
        return ShingleSetCodec.decodePayload((String) minhash.get("shingles"), scheme.schemeHash());
    }

    @SuppressWarnings("unchecked")
    public void testShingleSetsPastMaxShinglesAreLeftOut() throws Exception {
        NearDupFingerprintProcessor small = new NearDupFingerprintProcessor(
                "t",
                null,
                "body",
                "body_fp",
                false,
                100_000,
                false,
                EnumSet.allOf(Output.class),
                10,
                new StandardAnalyzer(),
                FingerprintScheme.defaults("standard"),
                null,
                FingerprintScratchPool.unaccounted(),
                target -> FingerprintFormat.SIGNATURE);
        Map<String, Object> minhash = (Map<String, Object>) small.execute(document(TEXT))
                .getFieldValue("body_fp", Map.class)
                .get("minhash");
        assertNotNull(minhash.get("value"));
        assertFalse(minhash.containsKey("shingles"));
        minhash = (Map<String, Object>) small.execute(document("only five words here now"))
                .getFieldValue("body_fp", Map.class)
                .get("minhash");
        assertTrue(minhash.containsKey("shingles"));
        minhash = (Map<String, Object>) processor(false, 1000, false, Output.MINHASH)
                .execute(document(TEXT))
                .getFieldValue("body_fp", Map.class)
                .get("minhash");
        assertFalse("shingles are an output of their own", minhash.containsKey("shingles"));
    }

    public void testSameTextSameFingerprintsAndContentHashIgnoresCaseAndSpacing() throws Exception {
        assertEquals(fingerprintOf(TEXT), fingerprintOf(TEXT));
        String respaced = "  " + TEXT.toUpperCase(java.util.Locale.ROOT).replace(" ", "\n\t ") + " ";
        assertEquals(
                fingerprintOf(TEXT).get("content_hash"), fingerprintOf(respaced).get("content_hash"));
        assertNotEquals(
                fingerprintOf(TEXT).get("content_hash"),
                fingerprintOf(TEXT + " extra").get("content_hash"));
    }

    public void testNearDuplicateIsCloserThanUnrelatedText() throws Exception {
        String edited = TEXT.replace("lazy", "sleepy");
        String unrelated = "Configuration files are read at startup; the daemon reloads them when it receives a hangup "
                + "signal and writes its process identifier to a file under the run directory for service managers";
        long original = simhashOf(TEXT);
        int near = Hamming.distance(original, simhashOf(edited));
        int far = Hamming.distance(original, simhashOf(unrelated));
        assertTrue("near " + near + " far " + far, near < far);
    }

    public void testOutputsSelectWhatIsWritten() throws Exception {
        IngestDocument document =
                processor(false, 1000, false, Output.CONTENT_HASH).execute(document(TEXT));
        Map<?, ?> fp = document.getFieldValue("body_fp", Map.class);
        assertEquals(List.of("content_hash"), new ArrayList<>(fp.keySet()));
        fp = processor(false, 1000, false, Output.SIMHASH)
                .execute(document(TEXT))
                .getFieldValue("body_fp", Map.class);
        assertTrue(fp.containsKey("simhash"));
        assertFalse(fp.containsKey("minhash"));
        assertFalse(fp.containsKey("content_hash"));
    }

    public void testArrayOfStringsIsFingerprintedAsOneText() throws Exception {
        assertEquals(fingerprintOf("first part\nsecond part"), fingerprintOf(List.of("first part", "second part")));
        IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> fingerprintOf(List.of("a", 3)));
        assertEquals("field [body] element [1] is a number [3], expected a string", e.getMessage());
    }

    public void testMissingAndNullFailUnlessIgnored() throws Exception {
        IllegalArgumentException e =
                expectThrows(IllegalArgumentException.class, () -> processor().execute(document(NOTHING)));
        assertEquals("field [body] is missing, cannot fingerprint it", e.getMessage());
        e = expectThrows(IllegalArgumentException.class, () -> processor().execute(document(null)));
        assertEquals("field [body] is null, cannot fingerprint it", e.getMessage());

        NearDupFingerprintProcessor ignoring = processor(true, 1000, false);
        for (Object body : new Object[] {NOTHING, null}) {
            IngestDocument document = document(body);
            Map<String, Object> before = new HashMap<>(document.getSourceAndMetadata());
            ignoring.execute(document);
            assertEquals(before, document.getSourceAndMetadata());
        }
    }

    public void testNonStringValuesFailWithTheirType() {
        IllegalArgumentException e = expectThrows(IllegalArgumentException.class, () -> fingerprintOf(42));
        assertEquals("field [body] is a number [42], expected a string or an array of strings", e.getMessage());
        e = expectThrows(IllegalArgumentException.class, () -> fingerprintOf(true));
        assertEquals("field [body] is a boolean [true], expected a string or an array of strings", e.getMessage());
        e = expectThrows(IllegalArgumentException.class, () -> fingerprintOf(Map.of("a", "b")));
        assertEquals("field [body] is an object, expected a string or an array of strings", e.getMessage());
    }

    public void testTextWithoutTokensGetsOnlyAContentHash() throws Exception {
        for (String empty : new String[] {"", "   \n\t ", "!!! ... ---"}) {
            Map<String, Object> fp = fingerprintOf(empty);
            assertFalse(empty, fp.containsKey("simhash"));
            assertFalse(empty, fp.containsKey("minhash"));
            assertEquals(0L, ((Number) fp.get("tokens")).longValue());
            assertTrue(fp.containsKey("content_hash"));
            assertFalse("no words, nothing lost", fp.containsKey("untokenized"));
        }
    }

    /** Words that an analyzer turns into nothing are flagged, not a quiet {@code tokens: 0}. */
    @SuppressWarnings("unchecked")
    public void testWordsWithoutTokensAreFlagged() throws Exception {
        NearDupFingerprintProcessor english = new NearDupFingerprintProcessor(
                "tag",
                null,
                "body",
                "body_fp",
                false,
                1_000,
                false,
                EnumSet.allOf(Output.class),
                100_000,
                new org.apache.lucene.analysis.en.EnglishAnalyzer(),
                FingerprintScheme.defaults("english"),
                (IdfTable) null,
                FingerprintScratchPool.unaccounted(),
                target -> FingerprintFormat.SIGNATURE);
        Map<String, Object> stopWordsOnly = (Map<String, Object>)
                english.execute(document("The and of, to be or not to be")).getFieldValue("body_fp", Map.class);
        assertEquals(0L, ((Number) stopWordsOnly.get("tokens")).longValue());
        assertEquals(true, stopWordsOnly.get("untokenized"));
        Map<String, Object> words = (Map<String, Object>)
                english.execute(document("The quick brown fox")).getFieldValue("body_fp", Map.class);
        assertFalse(words.containsKey("untokenized"));
    }

    @SuppressWarnings("unchecked")
    public void testMaxCharsFailsOrTruncatesVisibly() throws Exception {
        String text = "alpha beta gamma delta epsilon";
        IllegalArgumentException e = expectThrows(
                IllegalArgumentException.class,
                () -> processor(false, 10, false).execute(document(text)));
        assertEquals(
                "field [body] has 30 characters, more than max_chars [10]; raise max_chars or set truncate to "
                        + "fingerprint only the first max_chars characters",
                e.getMessage());

        Map<String, Object> truncated =
                processor(false, 10, true).execute(document(text)).getFieldValue("body_fp", Map.class);
        assertEquals(Boolean.TRUE, truncated.get("truncated"));
        Map<String, Object> prefix =
                processor(false, 10, false).execute(document("alpha beta")).getFieldValue("body_fp", Map.class);
        assertEquals(prefix.get("simhash"), truncated.get("simhash"));
        assertEquals(prefix.get("content_hash"), truncated.get("content_hash"));

        // A cut through a surrogate pair keeps the whole character out instead of half of it.
        String emoji = "hello wonderful \uD83D\uDE00 world";
        int inside = emoji.indexOf('\uDE00');
        Map<String, Object> cut =
                processor(false, inside, true).execute(document(emoji)).getFieldValue("body_fp", Map.class);
        Map<String, Object> whole = processor(false, 1000, false)
                .execute(document(emoji.substring(0, inside - 1)))
                .getFieldValue("body_fp", Map.class);
        assertEquals(whole.get("content_hash"), cut.get("content_hash"));
        assertEquals(2L, ((Number) cut.get("tokens")).longValue());
    }

    /** A stray half of a surrogate pair costs only itself, never the document's tokens. */
    @SuppressWarnings("unchecked")
    public void testLoneSurrogatesDoNotCostTheFingerprint() throws Exception {
        assertEquals("a\uFFFDb", NearDupFingerprintProcessor.withoutLoneSurrogates("a\uD83Db"));
        assertEquals("a\uFFFD", NearDupFingerprintProcessor.withoutLoneSurrogates("a\uDE00"));
        String pair = "x\uD83D\uDE00y";
        assertSame(pair, NearDupFingerprintProcessor.withoutLoneSurrogates(pair));
        Map<String, Object> clean = fingerprintOf(TEXT);
        Map<String, Object> dirty = fingerprintOf(TEXT + " \uD83D");
        assertEquals(clean.get("tokens"), dirty.get("tokens"));
        assertEquals(clean.get("simhash"), dirty.get("simhash"));
        Map<String, Object> shortText = fingerprintOf("hello \uD83D");
        assertEquals(1L, ((Number) shortText.get("tokens")).longValue());
    }

    private static NearDupFingerprintProcessor processorWith(FingerprintScratchPool pool) {
        return new NearDupFingerprintProcessor(
                "tag",
                null,
                "body",
                "body_fp",
                false,
                10_000_000,
                false,
                EnumSet.allOf(Output.class),
                100_000,
                new StandardAnalyzer(),
                FingerprintScheme.defaults("standard"),
                null,
                pool,
                target -> FingerprintFormat.SIGNATURE);
    }

    /** A text of {@code words} distinct words. */
    private static String distinctWords(int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append('w').append(i).append(' ');
        }
        return text.toString();
    }

    /**
     * The scratch is charged to the breaker while a thread holds it, exactly what the stats show;
     * an outsized text's scratch is given back afterwards, and its peak stays within the stated
     * bound (twice a full scratch of the next power of two of its distinct shingles).
     */
    public void testScratchIsChargedWhileHeldAndGivenBackAfterAnOutsizedText() throws Exception {
        CountingBreaker breaker = new CountingBreaker(Long.MAX_VALUE);
        FingerprintScratchPool pool = new FingerprintScratchPool(() -> breaker);
        NearDupFingerprintProcessor processor = processorWith(pool);
        io.neardup.core.Fingerprint small = processor.fingerprint(TEXT, true, FingerprintFormat.SIGNATURE);
        long held = breaker.getUsed();
        assertEquals(FingerprintScratch.bytesAtCapacity(256), held);
        assertEquals(new FingerprintScratchPool.Stats(held, 1, 0), pool.stats());

        int words = FingerprintScratchPool.MAX_KEPT_SCRATCH_ENTRIES + 1000;
        io.neardup.core.Fingerprint big =
                processor.fingerprint(distinctWords(words), true, FingerprintFormat.SIGNATURE);
        assertEquals(words, big.tokens());
        assertEquals("an outsized text's scratch is let go", new FingerprintScratchPool.Stats(0, 0, 1), pool.stats());
        assertEquals(0, breaker.getUsed());
        long bound = 2 * FingerprintScratch.bytesAtCapacity(Integer.highestOneBit(words) << 1);
        assertTrue("peak " + breaker.peak() + " > bound " + bound, breaker.peak() <= bound);
        assertTrue("the peak was charged: " + breaker.peak(), breaker.peak() > FingerprintScratchPool.maxKeptBytes());

        // The next document on this thread starts small again, with the same answer as ever.
        assertEquals(small, processor.fingerprint(TEXT, true, FingerprintFormat.SIGNATURE));
        assertEquals(held, breaker.getUsed());
    }

    /** Many pipelines on one thread keep one scratch between them, not one each. */
    public void testProcessorsShareTheirThreadsScratch() throws Exception {
        CountingBreaker breaker = new CountingBreaker(Long.MAX_VALUE);
        FingerprintScratchPool pool = new FingerprintScratchPool(() -> breaker);
        for (int i = 0; i < 20; i++) {
            processorWith(pool).fingerprint(distinctWords(5_000), true, FingerprintFormat.SIGNATURE);
        }
        assertEquals(1, pool.stats().threads());
        assertEquals(breaker.getUsed(), pool.stats().bytes());
        assertTrue(breaker.getUsed() <= FingerprintScratchPool.maxKeptBytes());
    }

    /** Past the breaker's limit a document fails with a 429 before its scratch is allocated, and nothing stays charged. */
    public void testBreakerRefusesAnOutsizedScratch() throws Exception {
        CountingBreaker breaker = new CountingBreaker(1 << 20);
        FingerprintScratchPool pool = new FingerprintScratchPool(() -> breaker);
        NearDupFingerprintProcessor processor = processorWith(pool);
        CircuitBreakingException e =
                expectThrows(CircuitBreakingException.class, () -> processor.execute(document(distinctWords(100_000))));
        assertEquals(RestStatus.TOO_MANY_REQUESTS, e.status());
        assertThat(e.getMessage(), containsString("near_dup_fingerprint scratch"));
        assertEquals(0, breaker.getUsed());
        assertEquals(0, pool.stats().bytes());
        assertNotNull(processor.execute(document(TEXT)).getFieldValue("body_fp.simhash", Object.class));
    }

    public void testConcurrentDocumentsGetTheSameFingerprintsAsSequentialOnes() throws Exception {
        NearDupFingerprintProcessor shared = processor();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            texts.add(TEXT.substring(0, 20 + (i * 7) % (TEXT.length() - 20)) + " document " + i);
        }
        List<Object> sequential = new ArrayList<>();
        for (String text : texts) {
            sequential.add(shared.execute(document(text)).getFieldValue("body_fp", Map.class));
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Object>> futures = new ArrayList<>();
            for (String text : texts) {
                Callable<Object> task = () -> shared.execute(document(text)).getFieldValue("body_fp", Map.class);
                futures.add(pool.submit(task));
            }
            for (int i = 0; i < texts.size(); i++) {
                assertEquals("document " + i, sequential.get(i), futures.get(i).get());
            }
        } finally {
            pool.shutdown();
        }
    }

    public void testMinhashMethodsBothEstimateSimilarity() throws Exception {
        for (MinHasher.Method method : MinHasher.Method.values()) {
            FingerprintScheme scheme = new FingerprintScheme(
                    1,
                    "standard",
                    1,
                    FingerprintScheme.defaults("standard").weighting(),
                    FingerprintScheme.NO_IDF,
                    3,
                    128,
                    method,
                    7L);
            NearDupFingerprintProcessor p = new NearDupFingerprintProcessor(
                    "t",
                    null,
                    "body",
                    "body_fp",
                    false,
                    100_000,
                    false,
                    EnumSet.of(Output.MINHASH),
                    100_000,
                    new StandardAnalyzer(),
                    scheme,
                    null,
                    FingerprintScratchPool.unaccounted(),
                    target -> FingerprintFormat.SIGNATURE);
            int[] a = signature(p, scheme, TEXT);
            int[] b = signature(p, scheme, TEXT.replace("lazy dog", "sleepy dog"));
            assertTrue(method + ": " + MinHasher.jaccard(a, b), MinHasher.jaccard(a, b) > 0.5);
            assertEquals(1.0, MinHasher.jaccard(a, signature(p, scheme, TEXT)), 0.0);
        }
    }

    @SuppressWarnings("unchecked")
    private static int[] signature(NearDupFingerprintProcessor p, FingerprintScheme scheme, String text)
            throws Exception {
        Map<String, Object> fp = p.execute(document(text)).getFieldValue("body_fp", Map.class);
        return SignatureCodec.decode(
                (String) ((Map<String, Object>) fp.get("minhash")).get("value"),
                scheme.numHashes(),
                scheme.schemeHash());
    }
}
