/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FilterDirectoryReader;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * Hides the documents whose stored {@code id} is marked, in each segment's live docs only, as the
 * Security plugin's document-level security does: numDocs (and the whole reader's deletions) do not say so.
 */
final class HidingReader extends FilterDirectoryReader {
    private final boolean[] hidden;

    HidingReader(DirectoryReader in, boolean[] hidden) throws IOException {
        super(in, new SubReaderWrapper() {
            @Override
            public LeafReader wrap(LeafReader leaf) {
                FixedBitSet live = new FixedBitSet(leaf.maxDoc());
                try {
                    var stored = leaf.storedFields();
                    Bits deletes = leaf.getLiveDocs();
                    for (int doc = 0; doc < leaf.maxDoc(); doc++) {
                        if ((deletes == null || deletes.get(doc))
                                && hidden[Integer.parseInt(stored.document(doc).get("id"))] == false) {
                            live.set(doc);
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return new FilterLeafReader(leaf) {
                    @Override
                    public Bits getLiveDocs() {
                        return live;
                    }

                    @Override
                    public CacheHelper getCoreCacheHelper() {
                        return in.getCoreCacheHelper();
                    }

                    @Override
                    public CacheHelper getReaderCacheHelper() {
                        return null;
                    }
                };
            }
        });
        this.hidden = hidden;
    }

    @Override
    protected DirectoryReader doWrapDirectoryReader(DirectoryReader in) throws IOException {
        return new HidingReader(in, hidden);
    }

    @Override
    public CacheHelper getReaderCacheHelper() {
        return null;
    }
}
