/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Inverse document frequencies of terms, keyed by the 64-bit {@link TokenHasher} hash of the term
 * with the fingerprint scheme's seed, so that a lookup costs one probe on the token hash the
 * fingerprinter already has. Immutable and thread-safe.
 *
 * <p>{@code idf = ln((N + 1) / (df + 1)) + 1} (smoothed, always >= 1 for df <= N). A term that is
 * not in the table gets {@link #defaultIdf()} = the idf of df = 0: an unseen term is treated as
 * rare.
 *
 * <p>IDF is per term (unigram). The fingerprinter weighs a shingle of several tokens by the
 * <em>maximum</em> idf of its tokens: a shingle is at most as frequent as its rarest token, so the
 * max is the tightest lower bound on the shingle's own idf that the table can give (a mean would let
 * stop words dilute "the cat" below "cat").
 *
 * <p>Text format (UTF-8, '\n' or "\r\n" line ends, blank lines ignored):
 * <pre>
 * #docs&lt;TAB&gt;N
 * term&lt;TAB&gt;df
 * ...
 * </pre>
 * Terms must be spelled as the analyzer emits them.
 */
public final class IdfTable {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final String HEADER = "#docs\t";

    private final String name;
    private final long seed;
    private final long docCount;
    private final float defaultIdf;
    private final LongIndexMap entries; // value: Float.floatToIntBits(idf)
    private final String contentHash;

    private IdfTable(String name, long seed, long docCount, LongIndexMap entries) {
        this.name = name;
        this.seed = seed;
        this.docCount = docCount;
        this.defaultIdf = idf(docCount, 0);
        this.entries = entries;
        this.contentHash = contentHash(docCount, entries);
    }

    /** {@code ln((N + 1) / (df + 1)) + 1}, computed with StrictMath so it is the same on every JVM. */
    public static float idf(long docCount, long df) {
        return (float) (StrictMath.log((docCount + 1.0) / (df + 1.0)) + 1.0);
    }

    /** Builds a table from parallel arrays of terms and their document frequencies. */
    public static IdfTable of(String name, long seed, long docCount, String[] terms, long[] dfs) {
        checkName(name);
        checkDocCount(docCount);
        if (terms.length != dfs.length) {
            throw new IllegalArgumentException("terms and dfs differ in length: " + terms.length + " vs " + dfs.length);
        }
        TokenHasher hasher = new TokenHasher(seed);
        LongIndexMap map = new LongIndexMap(terms.length);
        for (int i = 0; i < terms.length; i++) {
            String where = "entry " + i;
            put(map, hasher, name, terms[i], dfs[i], docCount, where);
        }
        return new IdfTable(name, seed, docCount, map);
    }

    /** Parses the text format; the stream is read to its end but not closed. */
    public static IdfTable load(String name, long seed, InputStream in) throws IOException {
        checkName(name);
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(in.readAllBytes()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("idf table [" + name + "] is not valid UTF-8", e);
        }
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String[] lines = text.split("\n", -1);
        String first = stripCr(lines[0]);
        if (!first.startsWith(HEADER)) {
            throw new IllegalArgumentException(
                    "idf table [" + name + "] line 1 must be [#docs<TAB>N], got [" + abbreviate(first) + "]");
        }
        long docCount;
        try {
            docCount = Long.parseLong(first.substring(HEADER.length()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("idf table [" + name + "] line 1: N must be an integer, got ["
                    + abbreviate(first.substring(HEADER.length())) + "]");
        }
        checkDocCount(docCount);
        TokenHasher hasher = new TokenHasher(seed);
        LongIndexMap map = new LongIndexMap(lines.length);
        for (int i = 1; i < lines.length; i++) {
            String line = stripCr(lines[i]);
            if (line.isEmpty()) {
                continue;
            }
            String where = "line " + (i + 1);
            int tab = line.indexOf('\t');
            if (tab <= 0 || line.indexOf('\t', tab + 1) >= 0) {
                throw new IllegalArgumentException(
                        "idf table [" + name + "] " + where + " must be [term<TAB>df], got [" + abbreviate(line) + "]");
            }
            long df;
            try {
                df = Long.parseLong(line.substring(tab + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("idf table [" + name + "] " + where
                        + ": df must be an integer, got [" + abbreviate(line.substring(tab + 1)) + "]");
            }
            put(map, hasher, name, line.substring(0, tab), df, docCount, where);
        }
        return new IdfTable(name, seed, docCount, map);
    }

    private static void put(
            LongIndexMap map, TokenHasher hasher, String name, String term, long df, long docCount, String where) {
        if (term == null || term.isEmpty()) {
            throw new IllegalArgumentException("idf table [" + name + "] " + where + ": term must not be empty");
        }
        if (df < 0 || df > docCount) {
            throw new IllegalArgumentException("idf table [" + name + "] " + where + ": df of [" + abbreviate(term)
                    + "] must be in [0, " + docCount + "], got " + df);
        }
        int before = map.size();
        int index = map.add(hasher.hash(term));
        if (map.size() == before) {
            throw new IllegalArgumentException(
                    "idf table [" + name + "] " + where + ": duplicate term [" + abbreviate(term) + "]");
        }
        map.setValueAt(index, Float.floatToIntBits(idf(docCount, df)));
    }

    /** The idf of the term whose {@link TokenHasher} hash (with {@link #seed()}) is given. */
    public float idf(long termHash) {
        int index = entries.indexOf(termHash);
        return index < 0 ? defaultIdf : Float.intBitsToFloat(entries.valueAt(index));
    }

    public String name() {
        return name;
    }

    /** The seed the term hashes were made with; must equal the fingerprint scheme's seed. */
    public long seed() {
        return seed;
    }

    public long docCount() {
        return docCount;
    }

    public int size() {
        return entries.size();
    }

    public float defaultIdf() {
        return defaultIdf;
    }

    /**
     * {@code name@hash}: what {@link FingerprintScheme#idf()} records. The hash covers N and the
     * (term hash, idf) pairs in key order, so the same data in another line order has the same
     * identity, and any change of a df, of N or of the seed changes it.
     */
    public String identity() {
        return name + "@" + contentHash;
    }

    private static String contentHash(long docCount, LongIndexMap entries) {
        int n = entries.size();
        long[] sorted = new long[n];
        for (int i = 0; i < n; i++) {
            sorted[i] = entries.keyAt(i);
        }
        Arrays.sort(sorted);
        ByteBuffer buf = ByteBuffer.allocate(8 + 12 * n);
        buf.putLong(docCount);
        for (long key : sorted) {
            buf.putLong(key).putInt(entries.valueAt(entries.indexOf(key)));
        }
        long h = Murmur3.hash64(buf.array(), 0, buf.capacity(), 0);
        return HexFormat.of().toHexDigits(h);
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("idf table name must match [A-Za-z0-9._-]{1,128}, got [" + name + "]");
        }
    }

    private static void checkDocCount(long docCount) {
        if (docCount < 1) {
            throw new IllegalArgumentException("idf table #docs must be >= 1, got " + docCount);
        }
    }

    private static String stripCr(String line) {
        return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }
}
