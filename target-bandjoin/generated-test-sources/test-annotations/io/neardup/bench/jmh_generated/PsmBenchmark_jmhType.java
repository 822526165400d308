package io.neardup.bench.jmh_generated;
public class PsmBenchmark_jmhType extends PsmBenchmark_jmhType_B3 {
}

