/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.CustomBlock;
import org.commonmark.node.Node;
import org.opensearch.test.OpenSearchTestCase;

/**
 * The README and the docs/ pages it links render as written: a renderer (commonmark-java with GitHub's
 * tables) sees every heading, table and code block the text has, and every link to a heading finds it.
 * "As written" is what a line-by-line reading sees, where a line starting with three backticks opens or
 * closes a block: the old README's closing fence with a sentence after it (not a fence to a renderer)
 * turned the rest of the file inside out, 8 of its 14 headings and 8 of its 12 tables gone.
 */
public class MarkdownRenderTests extends OpenSearchTestCase {

    private static final Pattern FENCE = Pattern.compile("^ {0,3}```.*");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6}) +(.*?)#*\\s*$");
    private static final Pattern TABLE_DELIMITER = Pattern.compile("^\\|?\\s*:?-+:?\\s*(\\|\\s*:?-+:?\\s*)*\\|?\\s*$");

    /** README.md and every docs/ page it links, with their text. */
    private static Map<String, String> pages() {
        Map<String, String> pages = new HashMap<>();
        String readme = MarkdownDocs.read("README.md");
        pages.put("README.md", readme);
        for (String doc :
                MarkdownDocs.linkedDocs(MarkdownDocs.links(MarkdownDocs.parser().parse(readme)))) {
            pages.put(doc, MarkdownDocs.read(doc));
        }
        return pages;
    }

    public void testReadmeAndDocsRenderAsWritten() {
        Map<String, String> pages = pages();
        Map<String, Set<String>> anchors = new HashMap<>();
        Map<String, Node> documents = new HashMap<>();
        List<String> problems = new ArrayList<>();
        pages.forEach((name, text) -> {
            problems.addAll(renderProblems(name, text));
            Node document = MarkdownDocs.parser().parse(text);
            documents.put(name, document);
            Set<String> pageAnchors = new LinkedHashSet<>();
            MarkdownDocs.headings(document).forEach(h -> pageAnchors.add(MarkdownDocs.anchor(h)));
            anchors.put(name, pageAnchors);
        });
        documents.forEach((name, document) -> {
            for (String link : MarkdownDocs.links(document)) {
                int hash = link.indexOf('#');
                if (hash < 0 || link.startsWith("http")) {
                    continue;
                }
                String target = hash == 0 ? name : resolve(name, link.substring(0, hash));
                Set<String> targetAnchors = anchors.get(target);
                if (targetAnchors != null && targetAnchors.contains(link.substring(hash + 1)) == false) {
                    problems.add(name + ": link [" + link + "] names no heading of " + target);
                }
            }
        });
        assertEquals("problems:\n" + String.join("\n", problems), List.of(), problems);
        assertTrue("the README links its docs/ pages: " + pages.keySet(), pages.size() > 5);
    }

    /** A sentence on a closing fence, as the old README had it, is found: the check can fail. */
    public void testASentenceOnAClosingFenceIsFound() {
        String broken = """
            # Title
            ```
            PUT index
            ``` Do not exclude the fingerprints.

            ## A section
            | a | b |
            |---|---|
            | 1 | 2 |

            ```
            GET index/_search
            ```
            """;
        List<String> problems = renderProblems("broken.md", broken);
        assertTrue(problems.toString(), problems.stream().anyMatch(p -> p.contains("[A section]")));
        assertTrue(problems.toString(), problems.stream().anyMatch(p -> p.contains("tables")));
        assertTrue(problems.toString(), problems.stream().anyMatch(p -> p.contains("fence")));
        assertEquals(List.of(), renderProblems("fixed.md", broken.replace("``` Do not", "```\nDo not")));
    }

    /** What a line-by-line reading of {@code text} has that the rendered document lacks. */
    static List<String> renderProblems(String name, String text) {
        List<String> written = new ArrayList<>();
        int writtenTables = 0;
        int writtenBlocks = 0;
        boolean inFence = false;
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (FENCE.matcher(line).matches()) {
                inFence = inFence == false;
                writtenBlocks += inFence ? 1 : 0;
                continue;
            }
            if (inFence) {
                continue;
            }
            var heading = HEADING.matcher(line);
            if (heading.matches()) {
                written.add(heading.group(2).replace("`", "").trim());
            }
            if (line.startsWith("|")
                    && i + 1 < lines.length
                    && TABLE_DELIMITER.matcher(lines[i + 1]).matches()) {
                writtenTables++;
            }
        }
        List<String> problems = new ArrayList<>();
        if (inFence) {
            problems.add(name + ": a code fence is never closed");
        }
        Node document = MarkdownDocs.parser().parse(text);
        List<String> rendered = MarkdownDocs.headings(document);
        for (String heading : written) {
            if (rendered.contains(heading) == false) {
                problems.add(name + ": heading [" + heading + "] is not in the rendered outline " + rendered);
            }
        }
        int[] tables = {0};
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(CustomBlock block) {
                if (block instanceof TableBlock) {
                    tables[0]++;
                }
                visitChildren(block);
            }
        });
        if (tables[0] != writtenTables) {
            problems.add(name + ": " + writtenTables + " tables written, " + tables[0] + " rendered");
        }
        List<MarkdownDocs.Block> blocks = MarkdownDocs.blocks(document);
        if (blocks.size() != writtenBlocks) {
            problems.add(name + ": " + writtenBlocks + " code blocks written, " + blocks.size() + " rendered");
        }
        for (MarkdownDocs.Block block : blocks) {
            if (block.literal().lines().anyMatch(l -> FENCE.matcher(l).matches())) {
                problems.add(name + ": a code block swallows a fence that is not one (text after ```?): "
                        + block.literal()
                                .lines()
                                .filter(l -> FENCE.matcher(l).matches())
                                .toList());
            }
        }
        return problems;
    }

    private static String resolve(String from, String path) {
        if (path.startsWith("../")) {
            path = path.substring(3);
        } else if (from.startsWith("docs/") && path.startsWith("docs/") == false && path.equals("README.md") == false) {
            path = "docs/" + path;
        }
        return path;
    }
}
