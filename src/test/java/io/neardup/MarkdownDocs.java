/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.FencedCodeBlock;
import org.commonmark.node.Heading;
import org.commonmark.node.HtmlBlock;
import org.commonmark.node.Link;
import org.commonmark.node.Node;
import org.commonmark.node.Text;
import org.commonmark.parser.Parser;

/**
 * The README and the docs/ pages as a Markdown renderer reads them (commonmark-java with GitHub's tables):
 * their code blocks, headings and links. The files come from the test classpath (pom.xml copies them there):
 * the test sandbox does not let tests read the checkout's files.
 */
public final class MarkdownDocs {

    /** The request line of a request block: {@code POST manpages/_search?…}. */
    public static final Pattern REQUEST_LINE = Pattern.compile("^(GET|PUT|POST|DELETE|HEAD) (\\S+)$");

    /** A comment before a block of requests that the README test must not send, with the reason after it. */
    public static final String NOT_RUN = "not run:";

    private static final Pattern DOCS_LINK = Pattern.compile("^(?:\\.\\./)?(?:docs/)?([a-z0-9_-]+\\.md)(?:#.*)?$");

    private MarkdownDocs() {}

    public static Parser parser() {
        return Parser.builder().extensions(List.of(TablesExtension.create())).build();
    }

    /** The text of a file on the test classpath: {@code README.md}, {@code docs/clusters.md}. */
    public static String read(String path) {
        try (InputStream in = MarkdownDocs.class.getResourceAsStream("/" + path)) {
            if (in == null) {
                throw new AssertionError(path + " is not on the test classpath (pom.xml testResources)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fenced code block: its info string, its text, and whether a {@code <!-- not run: … -->} comment precedes it. */
    public record Block(String info, String literal, boolean notRun) {}

    public static List<Block> blocks(Node document) {
        List<Block> blocks = new ArrayList<>();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(FencedCodeBlock block) {
                Node previous = block.getPrevious();
                boolean notRun =
                        previous instanceof HtmlBlock html && html.getLiteral().contains(NOT_RUN);
                blocks.add(
                        new Block(block.getInfo() == null ? "" : block.getInfo().trim(), block.getLiteral(), notRun));
            }
        });
        return blocks;
    }

    /** Every heading's text as rendered, code spans included. */
    public static List<String> headings(Node document) {
        List<String> headings = new ArrayList<>();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Heading heading) {
                headings.add(text(heading));
            }
        });
        return headings;
    }

    /** Every link destination. */
    public static List<String> links(Node document) {
        List<String> links = new ArrayList<>();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Link link) {
                links.add(link.getDestination());
                visitChildren(link);
            }
        });
        return links;
    }

    /** The docs/ pages {@code links} point to, as classpath paths ({@code docs/clusters.md}). */
    public static Set<String> linkedDocs(List<String> links) {
        Set<String> docs = new LinkedHashSet<>();
        for (String link : links) {
            Matcher m = DOCS_LINK.matcher(link);
            if (m.matches() && link.contains("README") == false) {
                docs.add("docs/" + m.group(1));
            }
        }
        return docs;
    }

    /** The anchor GitHub gives a heading: lower case, punctuation but '-' and '_' dropped, spaces as '-'. */
    public static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    private static String text(Node node) {
        StringBuilder text = new StringBuilder();
        node.accept(new AbstractVisitor() {
            @Override
            public void visit(Text t) {
                text.append(t.getLiteral());
            }

            @Override
            public void visit(Code code) {
                text.append(code.getLiteral());
            }
        });
        return text.toString();
    }
}
