/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The inputs of the bench's runs in the suite: the real corpora are not there, so the programs read the first lines of
 * the demo corpus (man pages, several releases of a page being near-duplicates), on the test classpath.
 */
public final class TinyCorpus {
    private TinyCorpus() {}

    /** The demo corpus's first {@code docs} lines as {@code dir/name} (JSON lines: id, group, text). */
    public static Path write(Path dir, String name, int docs) throws IOException {
        List<String> lines;
        try (InputStream in = TinyCorpus.class.getResourceAsStream("/manpages-demo.jsonl")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .limit(docs)
                    .toList();
        }
        if (lines.size() < docs) {
            throw new IllegalStateException("the demo corpus has " + lines.size() + " lines, not " + docs);
        }
        Path file = dir.resolve(name);
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }
}
