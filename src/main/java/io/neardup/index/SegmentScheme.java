/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import io.neardup.core.FingerprintScheme;
import java.io.IOException;
import java.util.Locale;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.SortedDocValues;

/** The fingerprint scheme of a field in one segment, and the check that a query's fingerprint shares it. */
public final class SegmentScheme {

    private SegmentScheme() {}

    /** The one scheme the segment's documents were fingerprinted with; null if none recorded one; fails on several. */
    public static String of(LeafReader reader, String field, String schemeField) throws IOException {
        SortedDocValues schemes = reader.getSortedDocValues(schemeField);
        if (schemes == null || schemes.getValueCount() == 0) {
            return null;
        }
        if (schemes.getValueCount() > 1) {
            StringBuilder all = new StringBuilder();
            for (int ord = 0; ord < schemes.getValueCount(); ord++) {
                all.append(ord == 0 ? "" : ", ").append(schemes.lookupOrd(ord).utf8ToString());
            }
            throw new IllegalArgumentException("field [" + field + "] holds fingerprints of several schemes [" + all
                    + "]; they are not " + "comparable: reindex through one pipeline");
        }
        return schemes.lookupOrd(0).utf8ToString();
    }

    public static void requireSame(String field, String queryScheme, String segmentScheme) {
        if (queryScheme != null && segmentScheme != null && queryScheme.equals(segmentScheme) == false) {
            throw mismatch(field, queryScheme, segmentScheme);
        }
    }

    /** For a MinHash signature, whose header carries the 32-bit hash of its scheme. */
    static void requireSameHash(String field, int querySchemeHash, String segmentScheme) {
        Integer segmentHash = FingerprintScheme.schemeHashOfId(segmentScheme);
        if (segmentHash != null && segmentHash != querySchemeHash) {
            throw mismatch(field, String.format(Locale.ROOT, "scheme hash %08x", querySchemeHash), segmentScheme);
        }
    }

    private static IllegalArgumentException mismatch(String field, String query, String segment) {
        return new IllegalArgumentException("the query fingerprint has scheme [" + query + "] but field [" + field
                + "] holds scheme [" + segment + "]; fingerprints of different schemes are not comparable");
    }
}
