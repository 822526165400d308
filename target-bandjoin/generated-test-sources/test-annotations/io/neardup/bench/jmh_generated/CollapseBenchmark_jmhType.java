package io.neardup.bench.jmh_generated;
public class CollapseBenchmark_jmhType extends CollapseBenchmark_jmhType_B3 {
}

