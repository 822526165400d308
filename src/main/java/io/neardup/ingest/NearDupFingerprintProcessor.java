/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.ingest;

import io.neardup.core.ContentHash;
import io.neardup.core.Fingerprint;
import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.FingerprintScheme;
import io.neardup.core.Fingerprinter;
import io.neardup.core.IdfTable;
import io.neardup.core.TextTokens;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.OffsetAttribute;
import org.opensearch.ingest.AbstractProcessor;
import org.opensearch.ingest.IngestDocument;

/**
 * Writes the near-duplicate fingerprints of a text field: its simhash with per-bit margins, its
 * MinHash signature and the hash of its normalized content, each tagged with the scheme that made
 * it (see {@link FingerprintScheme}).
 */
public final class NearDupFingerprintProcessor extends AbstractProcessor {

    public static final String TYPE = "near_dup_fingerprint";
    /**
     * The key of the token count in the object this processor writes: 0 for a text without tokens (empty, blank, an
     * empty array, only characters the analyzer drops), whose object then holds no simhash and no MinHash.
     */
    public static final String TOKENS = "tokens";

    static final String ANALYZED_FIELD = "_neardup";

    /** The parts of the output a pipeline may ask for. */
    public enum Output {
        SIMHASH,
        MINHASH,
        SHINGLES,
        CONTENT_HASH;

        static final String NAMES = "[simhash, minhash, shingles, content_hash]";

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Output parse(String value) {
            for (Output output : values()) {
                if (output.paramName().equals(value)) {
                    return output;
                }
            }
            throw new IllegalArgumentException("unknown output [" + value + "], expected any of " + NAMES);
        }
    }

    private final String field;
    private final String targetField;
    private final boolean ignoreMissing;
    private final int maxChars;
    private final boolean truncate;
    private final Set<Output> outputs;
    private final int maxShingles;
    private final Analyzer analyzer;
    private final FingerprintScheme scheme;
    /** The scheme's id and hash, written into every document: each hashes the scheme's canonical string. */
    private final String schemeId;

    private final int schemeHash;
    private final IdfTable idfTable;
    /** Ingest runs on many threads at once; each thread reuses its own scratch, shared by every processor. */
    private final FingerprintScratchPool scratchPool;
    /** The format of the index a document goes to, by its {@code _index}: each index keeps the one it was created with. */
    private final Function<String, FingerprintFormat> formatOfIndex;

    NearDupFingerprintProcessor(
            String tag,
            String description,
            String field,
            String targetField,
            boolean ignoreMissing,
            int maxChars,
            boolean truncate,
            Set<Output> outputs,
            int maxShingles,
            Analyzer analyzer,
            FingerprintScheme scheme,
            IdfTable idfTable,
            FingerprintScratchPool scratchPool,
            Function<String, FingerprintFormat> formatOfIndex) {
        super(tag, description);
        this.formatOfIndex = formatOfIndex;
        this.field = field;
        this.targetField = targetField;
        this.ignoreMissing = ignoreMissing;
        this.maxChars = maxChars;
        this.truncate = truncate;
        this.outputs = EnumSet.copyOf(outputs);
        this.maxShingles = maxShingles;
        this.analyzer = analyzer;
        this.scheme = scheme;
        this.schemeId = scheme.id();
        this.schemeHash = scheme.schemeHash();
        this.idfTable = idfTable;
        this.scratchPool = scratchPool;
    }

    @Override
    public String getType() {
        return TYPE;
    }

    public FingerprintScheme scheme() {
        return scheme;
    }

    public String field() {
        return field;
    }

    public String targetField() {
        return targetField;
    }

    boolean ignoreMissing() {
        return ignoreMissing;
    }

    int maxChars() {
        return maxChars;
    }

    boolean truncate() {
        return truncate;
    }

    Set<Output> outputs() {
        return EnumSet.copyOf(outputs);
    }

    int maxShingles() {
        return maxShingles;
    }

    IdfTable idfTable() {
        return idfTable;
    }

    @Override
    public IngestDocument execute(IngestDocument document) {
        Object value = document.getFieldValue(field, Object.class, true);
        if (value == null) {
            if (ignoreMissing) {
                return document;
            }
            String problem = document.hasField(field, true) ? "is null" : "is missing";
            throw new IllegalArgumentException("field [" + field + "] " + problem + ", cannot fingerprint it");
        }
        String whole = textOf(value);
        String text = withinMaxChars(whole);
        boolean truncated = text.length() < whole.length();
        String target = document.getFieldValue(IngestDocument.Metadata.INDEX.getFieldName(), String.class, true);
        document.setFieldValue(targetField, fingerprintOf(text, truncated, formatOfIndex.apply(target)));
        return document;
    }

    /** The text, or its first {@code max_chars} characters where it is longer and {@code truncate} is set; else refused. */
    public String withinMaxChars(String text) {
        if (text.length() <= maxChars) {
            return text;
        }
        if (truncate == false) {
            throw new IllegalArgumentException(
                    "field [" + field + "] has " + text.length() + " characters, more than max_chars [" + maxChars
                            + "]; raise max_chars or set truncate to fingerprint only the first max_chars characters");
        }
        // Never between the two halves of a surrogate pair: a lone half would make the analyzer drop the word, or
        // more.
        int end =
                Character.isHighSurrogate(text.charAt(maxChars - 1)) && Character.isLowSurrogate(text.charAt(maxChars))
                        ? maxChars - 1
                        : maxChars;
        return text.substring(0, end);
    }

    private String textOf(Object value) {
        if (value instanceof String string) {
            return string;
        }
        if (value instanceof List<?> list) {
            StringBuilder joined = new StringBuilder();
            for (int i = 0; i < list.size(); i++) {
                if (list.get(i) instanceof String element) {
                    if (i > 0) {
                        joined.append('\n');
                    }
                    joined.append(element);
                } else {
                    throw new IllegalArgumentException("field [" + field + "] element [" + i + "] is "
                            + typeName(list.get(i)) + ", expected a string");
                }
            }
            return joined.toString();
        }
        throw new IllegalArgumentException(
                "field [" + field + "] is " + typeName(value) + ", expected a string or an array of strings");
    }

    private static String typeName(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof Number) {
            return "a number [" + value + "]";
        }
        if (value instanceof Boolean) {
            return "a boolean [" + value + "]";
        }
        return "of type [" + value.getClass().getSimpleName() + "]";
    }

    private static boolean hasWordCharacters(String text) {
        return text.codePoints().anyMatch(Character::isLetterOrDigit);
    }

    private Map<String, Object> fingerprintOf(String text, boolean truncated, FingerprintFormat format) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (outputs.contains(Output.SIMHASH) || outputs.contains(Output.MINHASH)) {
            Fingerprint fingerprint = fingerprint(text, writesShingleSets(), format);
            // A text without tokens has no simhash or MinHash; writing zeros would make every such
            // document a false near-duplicate of every other.
            if (fingerprint.tokens() > 0) {
                if (outputs.contains(Output.SIMHASH)) {
                    out.put(
                            "simhash",
                            FingerprintObject.simhash(fingerprint.simhash(), fingerprint.margins(), schemeId));
                }
                if (outputs.contains(Output.MINHASH)) {
                    // Past max_shingles the set is left out: that document is verified by the estimate.
                    int[] shingleSet =
                            fingerprint.shingleSet() != null && fingerprint.shingleSet().length <= maxShingles
                                    ? fingerprint.shingleSet()
                                    : null;
                    out.put(
                            "minhash",
                            FingerprintObject.minhash(fingerprint.minhash(), shingleSet, schemeHash, schemeId, format));
                }
            }
            out.put(TOKENS, fingerprint.tokens());
            if (fingerprint.tokens() == 0 && hasWordCharacters(text)) {
                // Words the analyzer turned into nothing (stop words only, a script it drops): said, not a quiet
                // tokens: 0.
                out.put("untokenized", true);
            }
        }
        if (outputs.contains(Output.CONTENT_HASH)) {
            out.put("content_hash", ContentHash.of(text));
        }
        if (truncated) {
            out.put("truncated", true);
        }
        return out;
    }

    /** Whether this processor writes a simhash to {@code field} (the path a query names). */
    public boolean writesSimhashTo(String field) {
        return outputs.contains(Output.SIMHASH) && field.equals(targetField + ".simhash");
    }

    /** Whether this processor writes a MinHash signature to {@code field}. */
    public boolean writesMinhashTo(String field) {
        return outputs.contains(Output.MINHASH) && field.equals(targetField + ".minhash");
    }

    /** Whether this processor writes shingle sets next to its MinHash signatures. */
    public boolean writesShingleSets() {
        return outputs.contains(Output.SHINGLES);
    }

    /** The fingerprints of a text, exactly as {@link #execute} computes them for a document of an index of {@code format}. */
    public Fingerprint fingerprint(String text, FingerprintFormat format) {
        return fingerprint(text, false, format);
    }

    /** As {@link #fingerprint(String, FingerprintFormat)}, with the shingle set when {@code withShingleSet}. */
    public Fingerprint fingerprint(String text, boolean withShingleSet, FingerprintFormat format) {
        return fingerprint(
                text, outputs.contains(Output.SIMHASH), outputs.contains(Output.MINHASH), withShingleSet, format);
    }

    /**
     * As {@link #fingerprint(String, boolean, FingerprintFormat)}, computing only the sides asked for (a query's
     * {@code like.text} needs the side of the field it compares with; the other is a fifth of the work and unused).
     */
    public Fingerprint fingerprint(
            String text, boolean simhash, boolean minhash, boolean withShingleSet, FingerprintFormat format) {
        String analyzed = withoutLoneSurrogates(text);
        return scratchPool.withScratch(scratch -> {
            Fingerprinter fingerprinter = new Fingerprinter(scheme, idfTable, scratch, simhash, minhash, format);
            try (TokenStream tokens = analyzer.tokenStream(ANALYZED_FIELD, analyzed)) {
                CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
                tokens.reset();
                while (tokens.incrementToken()) {
                    fingerprinter.token(term.buffer(), 0, term.length());
                }
                tokens.end();
            } catch (IOException e) {
                throw new UncheckedIOException("analyzing field [" + field + "] failed", e);
            }
            return fingerprinter.finish(withShingleSet);
        });
    }

    /**
     * The simhash of a text from its {@link #tokens}, as {@link #fingerprint} computes it from the text (the same token
     * hashes, fed in the same order): the text is not analyzed again.
     */
    public long simhash(TextTokens tokens) {
        return scratchPool.withScratch(scratch -> {
            Fingerprinter fingerprinter =
                    new Fingerprinter(scheme, idfTable, scratch, true, false, FingerprintFormat.NEW_INDEX_DEFAULT);
            for (int t = 0; t < tokens.size(); t++) {
                fingerprinter.tokenHash(tokens.hash(t));
            }
            return fingerprinter.finish().simhash();
        });
    }

    /**
     * The tokens of {@code text} as {@link #fingerprint} analyzes them, with their character offsets in {@code text},
     * added to {@code into} (hashed with this scheme's seed): what a comparison of two texts shows is what their
     * fingerprints compared. A text past {@code max_chars} is cut, or refused, as {@link #execute} does.
     */
    public void tokens(String text, TextTokens into) {
        String analyzed = withoutLoneSurrogates(withinMaxChars(text));
        try (TokenStream tokens = analyzer.tokenStream(ANALYZED_FIELD, analyzed)) {
            CharTermAttribute term = tokens.addAttribute(CharTermAttribute.class);
            OffsetAttribute offset = tokens.addAttribute(OffsetAttribute.class);
            tokens.reset();
            while (tokens.incrementToken()) {
                into.add(term.buffer(), 0, term.length(), offset.startOffset(), offset.endOffset());
            }
            tokens.end();
        } catch (IOException e) {
            throw new UncheckedIOException("analyzing field [" + field + "] failed", e);
        }
    }

    /**
     * The text with every unpaired surrogate replaced by U+FFFD. Lucene's tokenizers drop a lone
     * surrogate together with the rest of their buffer (a short text then has no token at all), so a
     * stray half of a pair would silently cost a document its fingerprint.
     */
    static String withoutLoneSurrogates(String text) {
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c)
                    ? i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))
                    : Character.isLowSurrogate(c) == false || (i > 0 && Character.isHighSurrogate(text.charAt(i - 1)));
            if (paired == false) {
                if (out == null) {
                    out = new StringBuilder(text);
                }
                out.setCharAt(i, '\uFFFD');
            }
        }
        return out == null ? text : out.toString();
    }
}
