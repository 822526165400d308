/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.core;

/**
 * Turns a query's per-bit {@link Margins} into per-bit flip log-probabilities for
 * {@link FlipSetGenerator}: {@code out[i] = ln P(a near-duplicate differs in prefix index i)},
 * index i being fingerprint bit {@code 63 - i} (MSB first, as in {@link Margins}).
 *
 * <p>Within one flip-set size only the order of the per-bit values matters. Across sizes their
 * actual values matter: the generator compares {@code P(a) P(b)} with {@code P(c)}, so a model
 * whose values sit close to 1 (eq. 4.5) interleaves sizes, one whose values are small visits
 * all single flips before most pairs. Logs, not products, because the calibrated model's
 * probabilities of strong bits underflow a double (Φ(−40) ≈ 1e-350).
 *
 * <p>Implementations are immutable and thread-safe; {@code out} is the caller's scratch.
 */
public interface FlipModel {

    /** Fills {@code out[0, prefixBits)} with log flip probabilities (all {@code <= 0}, never NaN). */
    void logFlipProbabilities(Margins margins, int prefixBits, double[] out);

    /** A short name for reports. */
    String name();

    /**
     * Eq. 4.5 of Sood, "Probabilistic Simhash Matching" (2011): {@code P_i = 1 − margin_i}. Not calibrated (on synthetic text the values average
     * 0.76–0.997 while real flip rates are 0–0.46), so sizes interleave far more than real flips
     * do; the order within a size is the margins' order. The strongest bit has margin exactly 1
     * under the max norm, i.e. P = 0: it is clamped to {@value #MIN_PROBABILITY} so that sums of
     * logs stay finite and comparable (it still ranks last).
     */
    static FlipModel marginComplement() {
        return MarginComplement.INSTANCE;
    }

    /**
     * A calibrated alternative after eq. 4.4: the change {@code dist_j} of W_j between near
     * duplicates is roughly normal with mean 0 (the thesis' Fig. 1), so
     * {@code P_i = Φ(−|W_i| / σ)}. On synthetic text σ = 0.2·sqrt(Σ w²) ranked best (w: feature weights).
     * The margins only keep {@code |W_i| / max_j |W_j|}; but for hashed features
     * {@code Var(W_j) = Σ w²}, so the root mean square of W over the 64 bits estimates
     * {@code sqrt(Σ w²)}, and the scale cancels: {@code |W_i| / σ = m_i / (c · rms(m))} with
     * {@code c = relativeSigma}. c reflects the expected share of changed weight (c² ≈ changed
     * mass: 0.2 ≈ 4%). docs/psm.md compares values on synthetic text (h = 3, n = 2^20): c = 0.5
     * reached recall 0.95 / 0.99 at k = 21 / 65, against 25 / 82 for eq. 4.5; 0.2–1.0 are all
     * close, 0.1 and 2.0 worse.
     *
     * @param relativeSigma c in (0, 10]
     */
    static FlipModel gaussian(double relativeSigma) {
        return new Gaussian(relativeSigma);
    }

    /** Every bit equally likely (P = 1/2): the "no weak bits" baseline. Ties resolve by index. */
    static FlipModel uniform() {
        return Uniform.INSTANCE;
    }

    /** The floor of eq. 4.5's probabilities: keeps {@code ln P} finite for margin 1. */
    double MIN_PROBABILITY = 1e-9;

    private static void check(Margins margins, int prefixBits, double[] out) {
        if (margins == null) {
            throw new IllegalArgumentException("margins must not be null");
        }
        if (prefixBits < 1 || prefixBits > margins.length()) {
            throw new IllegalArgumentException(
                    "prefix_bits must be in [1, " + margins.length() + "], got " + prefixBits);
        }
        if (out.length < prefixBits) {
            throw new IllegalArgumentException("out must have length >= " + prefixBits + ", got " + out.length);
        }
    }

    /** Eq. 4.5. */
    final class MarginComplement implements FlipModel {
        static final MarginComplement INSTANCE = new MarginComplement();

        private MarginComplement() {}

        @Override
        public void logFlipProbabilities(Margins margins, int prefixBits, double[] out) {
            check(margins, prefixBits, out);
            for (int i = 0; i < prefixBits; i++) {
                out[i] = Math.log(Math.max(MIN_PROBABILITY, 1.0 - margins.margin(i)));
            }
        }

        @Override
        public String name() {
            return "eq4.5(1-m)";
        }
    }

    /** Φ(−m / (c · rms(m))). */
    final class Gaussian implements FlipModel {
        private final double relativeSigma;

        Gaussian(double relativeSigma) {
            if (!(relativeSigma > 0 && relativeSigma <= 10)) {
                throw new IllegalArgumentException("relative_sigma must be in (0, 10], got " + relativeSigma);
            }
            this.relativeSigma = relativeSigma;
        }

        public double relativeSigma() {
            return relativeSigma;
        }

        @Override
        public void logFlipProbabilities(Margins margins, int prefixBits, double[] out) {
            check(margins, prefixBits, out);
            // rms over all bits, not just the prefix: it estimates sqrt(Σ w²), a property of the document.
            double sumSq = 0;
            for (int i = 0; i < margins.length(); i++) {
                double m = margins.margin(i);
                sumSq += m * m;
            }
            double rms = Math.sqrt(sumSq / margins.length());
            // rms = 0 only when W = 0 (no features): every bit is a coin flip, Φ(0) = 1/2.
            double scale = rms > 0 ? 1.0 / (relativeSigma * rms) : 0.0;
            for (int i = 0; i < prefixBits; i++) {
                out[i] = logPhiOfMinus(margins.margin(i) * scale);
            }
        }

        @Override
        public String name() {
            return "gauss(c=" + relativeSigma + ")";
        }
    }

    /** P = 1/2 for every bit. */
    final class Uniform implements FlipModel {
        static final Uniform INSTANCE = new Uniform();

        private Uniform() {}

        @Override
        public void logFlipProbabilities(Margins margins, int prefixBits, double[] out) {
            check(margins, prefixBits, out);
            java.util.Arrays.fill(out, 0, prefixBits, Math.log(0.5));
        }

        @Override
        public String name() {
            return "uniform";
        }
    }

    /**
     * {@code ln Φ(−x)} for {@code x >= 0}, computed in log space so it never underflows:
     * {@code Φ(−x) = erfc(x / √2) / 2} with the Chebyshev fit of erfc from Numerical Recipes
     * (fractional error below 1.2e-7 everywhere; ranking needs no more).
     */
    static double logPhiOfMinus(double x) {
        double z = Math.abs(x) / Math.sqrt(2.0);
        double t = 1.0 / (1.0 + 0.5 * z);
        double poly = -z * z
                - 1.26551223
                + t
                        * (1.00002368
                                + t
                                        * (0.37409196
                                                + t
                                                        * (0.09678418
                                                                + t
                                                                        * (-0.18628806
                                                                                + t
                                                                                        * (0.27886807
                                                                                                + t
                                                                                                        * (-1.13520398
                                                                                                                + t
                                                                                                                        * (1.48851587
                                                                                                                                + t
                                                                                                                                        * (-0.82215223
                                                                                                                                                + t
                                                                                                                                                        * 0.17087277))))))));
        double logErfc = Math.log(t) + poly;
        if (x < 0) {
            // Φ(−x) = 1 − Φ(x) for negative x; never used by the models above (margins are >= 0).
            return Math.log1p(-0.5 * Math.exp(logErfc));
        }
        return Math.log(0.5) + logErfc;
    }
}
