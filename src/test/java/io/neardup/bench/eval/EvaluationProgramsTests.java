/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.eval;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.neardup.bench.TinyCorpus;
import io.neardup.bench.common.Corpus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The evaluation programs that need no node, each run through its {@code main} on tiny inputs (the demo corpus's first
 * lines, a synthetic corpus it writes itself), so that none can rot unnoticed. Those that talk to a node run in
 * {@link NodeProgramsIT}.
 */
public class EvaluationProgramsTests {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void testSyntheticJsonl() throws Exception {
        Path out = tmp.getRoot().toPath().resolve("synthetic.jsonl.gz");
        SyntheticJsonl.main(new String[] {"200", "1", out.toString()});
        List<Corpus.Doc> docs = Corpus.read(out, Integer.MAX_VALUE);
        assertEquals(200, docs.size());
        assertTrue("planted variants have a group", docs.stream().anyMatch(d -> d.group() != null));
    }

    @Test
    public void testSyntheticJsonlVariantShare() throws Exception {
        Path byDefault = tmp.getRoot().toPath().resolve("default.jsonl");
        Path fifth = tmp.getRoot().toPath().resolve("fifth.jsonl");
        Path most = tmp.getRoot().toPath().resolve("most.jsonl");
        SyntheticJsonl.main(new String[] {"1000", "1", byDefault.toString()});
        SyntheticJsonl.main(new String[] {"1000", "1", fifth.toString(), "0.2"});
        SyntheticJsonl.main(new String[] {"1000", "1", most.toString(), "0.75"});
        assertEquals("0.2 is the default", Files.readString(byDefault), Files.readString(fifth));
        long grouped = Corpus.read(byDefault, Integer.MAX_VALUE).stream()
                .filter(d -> d.group() != null)
                .count();
        long groupedAtMost = Corpus.read(most, Integer.MAX_VALUE).stream()
                .filter(d -> d.group() != null)
                .count();
        assertTrue(
                grouped + " documents in a group at 0.2, " + groupedAtMost + " at 0.75", groupedAtMost > 2 * grouped);
    }

    @Test
    public void testIdfTableBuilder() throws Exception {
        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 30);
        Path table = tmp.getRoot().toPath().resolve("idf/tiny-idf.tsv");
        IdfTableBuilder.main(new String[] {table.toString(), "2", corpus.toString()});
        List<String> lines = Files.readAllLines(table, StandardCharsets.UTF_8);
        assertEquals("#docs\t30", lines.get(0));
        assertTrue(lines.size() > 100);
    }

    @Test
    public void testJaccardAccuracy() throws Exception {
        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 40);
        Path report = tmp.getRoot().toPath().resolve("accuracy.md");
        Path export = tmp.newFolder("export").toPath();
        JaccardAccuracy.main(
                new String[] {corpus.toString(), "--out", report.toString(), "--export", export.toString()});
        assertTrue(Files.readString(report).contains("|"));
        assertEquals(40, Files.readAllLines(export.resolve("shingles.tsv")).size());
        assertTrue(Files.exists(export.resolve("truth.tsv")));
    }

    @Test
    public void testJaccardAccuracyFormat2() throws Exception {
        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 40);
        Path report = tmp.getRoot().toPath().resolve("accuracy-format2.md");
        Path misses = tmp.getRoot().toPath().resolve("misses.tsv");
        JaccardAccuracy.main(new String[] {
            corpus.toString(), "--out", report.toString(), "--format", "2", "--misses", misses.toString()
        });
        String text = Files.readString(report);
        assertTrue(text, text.contains("fingerprint format 2 (compact)") && text.contains("Band keys of 4 bytes"));
        assertTrue(Files.exists(misses));
    }

    @Test
    public void testBlockTableCandidates() throws Exception {
        // 100 copies of one fingerprint: each look-up reads all 100 in each of the 4 blocks' tables and finds all 100.
        long[] copies = new long[100];
        Arrays.fill(copies, 0x0123456789ABCDEFL);
        assertEquals(400.0, BlockTableCandidates.candidatesPerLookUp(copies, 100, 4), 0.0);
        // Distinct values in every block: each look-up reads only itself, once a block.
        long[] distinct = new long[1000];
        Arrays.setAll(distinct, i -> i * 0x0001000100010001L);
        assertEquals(4.0, BlockTableCandidates.candidatesPerLookUp(distinct, 1000, 4), 0.0);

        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 40);
        long[] fingerprints = BlockTableCandidates.fingerprints(corpus, 40);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BlockTableCandidates.report(copies, new int[] {100}, 3, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        BlockTableCandidates.report(
                fingerprints, new int[] {20, 40}, 3, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text, text.contains("| 100 | 400.0 | 0.0 | 100.00 |"));
        assertTrue(text, text.contains("| 40 | "));
    }

    @Test
    public void testSignatureSpread() throws Exception {
        Path corpus = TinyCorpus.write(tmp.getRoot().toPath(), "tiny.jsonl", 40);
        Path report = tmp.getRoot().toPath().resolve("spread.md");
        SignatureSpread.main(new String[] {corpus.toString(), "--seeds", "2", "--out", report.toString()});
        String text = Files.readString(report);
        assertTrue(text, text.contains("| format 2 (seed 0) |") && text.contains("| seeds 1–2, min – max |"));
    }

    @Test
    public void testSimhashSchemeEvaluation() throws Exception {
        Path dir = tmp.getRoot().toPath();
        Path manpages = TinyCorpus.write(dir, "manpages.jsonl", 40);
        Path synthetic = dir.resolve("synthetic.jsonl");
        SyntheticJsonl.main(new String[] {"100", "1", synthetic.toString()});
        Path idf = dir.resolve("tiny-idf.tsv");
        IdfTableBuilder.main(new String[] {idf.toString(), "1", manpages.toString()});
        Path report = dir.resolve("schemes.md");
        SimhashSchemeEvaluation.main(new String[] {
            "--out",
            report.toString(),
            "--idf-table",
            idf.toString(),
            "--idf-built-from",
            "manpages",
            "--random-pairs",
            "500",
            "--threads",
            "1",
            manpages.toString(),
            synthetic.toString()
        });
        String text = Files.readString(report);
        assertTrue(text, text.contains("manpages") && text.contains("synthetic"));
    }
}
