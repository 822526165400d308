package io.neardup.bench.jmh_generated;
public class PsmAtScaleBenchmark_jmhType extends PsmAtScaleBenchmark_jmhType_B3 {
}

