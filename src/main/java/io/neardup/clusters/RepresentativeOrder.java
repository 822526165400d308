/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.Comparator;
import java.util.List;
import org.opensearch.search.sort.FieldSortBuilder;
import org.opensearch.search.sort.SortBuilder;
import org.opensearch.search.sort.SortOrder;

/**
 * Representative preference ({@link RankKey}s, lower first): documents that exist; with {@code keep_existing}, the
 * representatives of earlier runs (so that cluster ids stay stable while they survive); then
 * {@code representative.sort}; then {@code _id}; then the older index (as the lookup breaks ties).
 */
final class RepresentativeOrder implements Comparator<RankKey> {

    private final List<SortBuilder<?>> sort;
    private final boolean keepRepresentatives;

    RepresentativeOrder(NearDupClustersRequest request) {
        this.sort = request.representativeSort();
        this.keepRepresentatives = request.keepRepresentatives();
    }

    static boolean isIdSort(SortBuilder<?> sort) {
        return sort instanceof FieldSortBuilder field && "_id".equals(field.getFieldName());
    }

    @Override
    public int compare(RankKey a, RankKey b) {
        int c = Boolean.compare(b.found(), a.found());
        if (c != 0) {
            return c;
        }
        if (keepRepresentatives) {
            c = Boolean.compare(b.keptRepresentative(), a.keptRepresentative());
            if (c != 0) {
                return c;
            }
        }
        int value = 0;
        for (SortBuilder<?> by : sort) {
            if (isIdSort(by)) {
                c = a.id().compareTo(b.id());
            } else {
                c = compareSortValues(
                        value < a.sortValues().length ? a.sortValues()[value] : null,
                        value < b.sortValues().length ? b.sortValues()[value] : null);
                value++;
            }
            if (c != 0) {
                return by.order() == SortOrder.DESC ? -c : c;
            }
        }
        c = a.id().compareTo(b.id());
        return c != 0 ? c : Integer.compare(a.ordinal(), b.ordinal());
    }

    /** Raw sort values of one field compare by their natural order; a missing value sorts last. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareSortValues(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : 1) : -1;
        }
        if (a.getClass() == b.getClass() && a instanceof Comparable comparable) {
            return comparable.compareTo(b);
        }
        if (a instanceof Number x && b instanceof Number y) {
            return Double.compare(x.doubleValue(), y.doubleValue());
        }
        return a.toString().compareTo(b.toString());
    }
}
