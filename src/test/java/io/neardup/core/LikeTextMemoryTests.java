/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import org.opensearch.test.OpenSearchTestCase;

/**
 * The per-query heap of fingerprinting a {@code like.text} at its cap of 1,000,000 characters,
 * as the README states it: a text of one-character tokens (CJK ideographs are one token each)
 * has up to a million distinct shingles; the scratch then peaks below 2 × 44 bytes × 2^20
 * (charged to its budget), and the outputs (shingle set and its payload) take at most 9 bytes a
 * distinct shingle.
 */
public class LikeTextMemoryTests extends OpenSearchTestCase {

    public void testAMillionDistinctShinglesStayWithinTheStatedFigure() {
        int tokens = 1_000_000;
        CountingBudget budget = new CountingBudget(Long.MAX_VALUE);
        FingerprintScratch scratch = new FingerprintScratch(budget);
        Fingerprinter fingerprinter = new Fingerprinter(FingerprintScheme.defaults("standard"), null, scratch);
        char[] token = new char[1];
        // Tokens drawn at random from 20,000 ideographs: the 3-shingles are then almost all distinct.
        for (int i = 0; i < tokens; i++) {
            token[0] = (char) (0x4E00 + randomIntBetween(0, 19_999));
            fingerprinter.token(token, 0, 1);
        }
        Fingerprint fingerprint = fingerprinter.finish(true);
        int distinct = fingerprint.shingleSet().length;
        assertTrue("distinct shingles " + distinct, distinct > 990_000 && distinct <= tokens);

        long scratchBound = 2 * FingerprintScratch.bytesAtCapacity(1 << 20);
        assertEquals("the README's figure", 92_274_912, scratchBound);
        assertTrue("scratch peak " + budget.peak() + " > " + scratchBound, budget.peak() <= scratchBound);
        assertTrue(
                "scratch peak " + budget.peak() + " is not even one map of a million entries",
                budget.peak() >= LongIndexMap.bytesAtCapacity(1 << 20));

        byte[] payload = ShingleSetCodec.payload(fingerprint.shingleSet());
        long outputs = 4L * distinct + payload.length;
        assertTrue("outputs " + outputs + " bytes for " + distinct + " shingles", outputs <= 9L * distinct);
        scratch.release();
        assertEquals(0, budget.used());
    }
}
