package io.neardup.bench.jmh_generated;
public class FingerprintBenchmark_Bytes_jmhType extends FingerprintBenchmark_Bytes_jmhType_B3 {
}

