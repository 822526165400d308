/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

public class FeatureWeightingTests {

    @Test
    public void testWeights() {
        assertEquals(1.0, FeatureWeighting.BINARY.weight(7), 0.0);
        assertEquals(7.0, FeatureWeighting.TF.weight(7), 0.0);
        assertEquals(1.0, FeatureWeighting.LOG_TF.weight(1), 0.0);
        assertEquals(1.0 + Math.log(7), FeatureWeighting.LOG_TF.weight(7), 1e-15);
    }

    @Test
    public void testParse() {
        assertSame(FeatureWeighting.BINARY, FeatureWeighting.parse("binary"));
        assertSame(FeatureWeighting.TF, FeatureWeighting.parse("tf"));
        assertSame(FeatureWeighting.LOG_TF, FeatureWeighting.parse("log_tf"));
        assertSame(FeatureWeighting.LOG_TF, FeatureWeighting.parse("LOG_TF"));
        for (FeatureWeighting w : FeatureWeighting.values()) {
            assertSame(w, FeatureWeighting.parse(w.paramName()));
        }
    }

    @Test
    public void testParseNamesTheBadValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FeatureWeighting.parse("foo"));
        assertEquals("unknown weighting [foo], expected one of [binary, tf, log_tf]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> FeatureWeighting.parse(null));
        assertEquals("unknown weighting [null], expected one of [binary, tf, log_tf]", e.getMessage());
    }

    @Test
    public void testRejectsNonPositiveCount() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FeatureWeighting.TF.weight(0));
        assertEquals("count must be >= 1, got 0", e.getMessage());
    }
}
