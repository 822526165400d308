package io.neardup.bench.jmh_generated;
public class FingerprintBenchmark_jmhType extends FingerprintBenchmark_jmhType_B3 {
}

