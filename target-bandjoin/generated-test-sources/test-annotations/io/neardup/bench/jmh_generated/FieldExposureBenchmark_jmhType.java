package io.neardup.bench.jmh_generated;
public class FieldExposureBenchmark_jmhType extends FieldExposureBenchmark_jmhType_B3 {
}

