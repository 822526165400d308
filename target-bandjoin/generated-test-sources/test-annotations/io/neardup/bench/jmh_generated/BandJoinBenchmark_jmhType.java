package io.neardup.bench.jmh_generated;
public class BandJoinBenchmark_jmhType extends BandJoinBenchmark_jmhType_B3 {
}

