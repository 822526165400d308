/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.Test;

public class FingerprintSchemeTests {

    /** The defaults (the first ones, again since docs/simhash-schemes.md); a scheme whose id must never change. */
    private static final FingerprintScheme BASE = new FingerprintScheme(
            1, "standard", 1, FeatureWeighting.LOG_TF, "none", 3, 128, MinHasher.Method.ONE_PERMUTATION, 0);

    @Test
    public void testDescribeAndIdArePinned() {
        // A plugin upgrade must not silently change fingerprints: these strings never change
        // for this scheme. Change them only together with FingerprintScheme.CURRENT_VERSION.
        assertEquals(
                "neardup/v1;hash=murmur3_x64_128;analyzer=standard;simhash_bits=64;simhash_shingle_size=1"
                        + ";weighting=log_tf;idf=none;margins=maxnorm_sqrt_u8;minhash_shingle_size=3;num_hashes=128"
                        + ";minhash_method=one_permutation;seed=0",
                BASE.describe());
        assertEquals(GOLDEN_ID, BASE.id());
        assertEquals(Integer.parseUnsignedInt(GOLDEN_ID.substring(4), 16), BASE.schemeHash());
    }

    // Checked with the reference C murmur3 on the describe() string: first 8 hex digits of h1.
    private static final String GOLDEN_ID = "nd1-75205b5f";

    @Test
    public void testDefaultsArePinned() {
        // The processor's defaults (chosen in docs/simhash-schemes.md). Changing them changes the
        // scheme of every pipeline that does not set these options: do it on purpose only. The
        // first defaults (word pairs, tf) were scheme nd1-2586f90f; their fingerprints stay valid
        // under that id, and pipelines that set simhash_shingle_size 2 and weighting tf make them.
        FingerprintScheme defaults = FingerprintScheme.defaults("standard");
        assertEquals(BASE, defaults);
        assertEquals(GOLDEN_ID, defaults.id());
        assertEquals(
                "nd1-2586f90f",
                new FingerprintScheme(
                                1,
                                "standard",
                                2,
                                FeatureWeighting.TF,
                                "none",
                                3,
                                128,
                                MinHasher.Method.ONE_PERMUTATION,
                                0)
                        .id());
    }

    @Test
    public void testEveryParameterChangesTheId() {
        List<FingerprintScheme> variants = List.of(
                BASE,
                new FingerprintScheme(
                        1, "english", 1, FeatureWeighting.LOG_TF, "none", 3, 128, MinHasher.Method.ONE_PERMUTATION, 0),
                new FingerprintScheme(
                        1, "standard", 2, FeatureWeighting.LOG_TF, "none", 3, 128, MinHasher.Method.ONE_PERMUTATION, 0),
                new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.TF, "none", 3, 128, MinHasher.Method.ONE_PERMUTATION, 0),
                new FingerprintScheme(
                        1,
                        "standard",
                        1,
                        FeatureWeighting.LOG_TF,
                        "idf@0123456789abcdef",
                        3,
                        128,
                        MinHasher.Method.ONE_PERMUTATION,
                        0),
                new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.LOG_TF, "none", 4, 128, MinHasher.Method.ONE_PERMUTATION, 0),
                new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.LOG_TF, "none", 3, 64, MinHasher.Method.ONE_PERMUTATION, 0),
                new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.LOG_TF, "none", 3, 128, MinHasher.Method.CLASSIC, 0),
                new FingerprintScheme(
                        1,
                        "standard",
                        1,
                        FeatureWeighting.LOG_TF,
                        "none",
                        3,
                        128,
                        MinHasher.Method.ONE_PERMUTATION,
                        1));
        Set<String> ids = new HashSet<>();
        for (FingerprintScheme s : variants) {
            ids.add(s.id());
        }
        assertEquals(variants.size(), ids.size());
        assertNotEquals(
                FingerprintScheme.defaults("standard").id(),
                FingerprintScheme.defaults("whitespace").id());
    }

    @Test
    public void testValidation() {
        assertEquals(
                "num_hashes must be in [1, 1024], got 0",
                error(() -> new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.BINARY, "none", 3, 0, MinHasher.Method.CLASSIC, 0)));
        assertEquals(
                "simhash_shingle_size must be in [1, 8], got 9",
                error(() -> new FingerprintScheme(
                        1, "standard", 9, FeatureWeighting.BINARY, "none", 3, 8, MinHasher.Method.CLASSIC, 0)));
        assertEquals(
                "minhash_shingle_size must be in [1, 8], got 0",
                error(() -> new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.BINARY, "none", 0, 8, MinHasher.Method.CLASSIC, 0)));
        assertEquals(
                "scheme version must be in [1, 1], got 2",
                error(() -> new FingerprintScheme(
                        2, "standard", 1, FeatureWeighting.BINARY, "none", 3, 8, MinHasher.Method.CLASSIC, 0)));
        assertEquals(
                "analyzer must match [A-Za-z0-9._-]{1,128}, got [a;b]",
                error(() -> new FingerprintScheme(
                        1, "a;b", 1, FeatureWeighting.BINARY, "none", 3, 8, MinHasher.Method.CLASSIC, 0)));
        assertEquals(
                "idf must be [none] or an idf table identity name@<16 hex>, got [idf.tsv]",
                error(() -> new FingerprintScheme(
                        1, "standard", 1, FeatureWeighting.BINARY, "idf.tsv", 3, 8, MinHasher.Method.CLASSIC, 0)));
    }

    private static String error(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }

    @Test
    public void testSchemeHashOfIdReadsBackTheIdsHash() {
        FingerprintScheme scheme = FingerprintScheme.defaults("standard");
        assertEquals(Integer.valueOf(scheme.schemeHash()), FingerprintScheme.schemeHashOfId(scheme.id()));
        assertNull(FingerprintScheme.schemeHashOfId("my-own-scheme"));
        assertNull(FingerprintScheme.schemeHashOfId("nd1-0123abc"));
        assertNull(FingerprintScheme.schemeHashOfId(null));
    }
}
