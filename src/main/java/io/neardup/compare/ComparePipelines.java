/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import io.neardup.ingest.NearDupFingerprintProcessor;
import java.util.ArrayList;
import java.util.List;
import org.opensearch.ingest.ConditionalProcessor;
import org.opensearch.ingest.Pipeline;
import org.opensearch.ingest.Processor;

/** Which {@code near_dup_fingerprint} processor of a pipeline a comparison analyzes its texts with: one rule for {@code _compare} and the per-hit explanation. */
final class ComparePipelines {
    private ComparePipelines() {}

    /**
     * The {@code near_dup_fingerprint} processor of the pipeline that writes {@code fingerprint}, else the one that
     * reads a compared document's field, else the pipeline's only one; it must write shingle sets, whose shingles are
     * what the comparison explains.
     */
    static NearDupFingerprintProcessor processorOf(
            Pipeline pipeline, String pipelineId, String fingerprint, List<String> comparedFields) {
        if (pipeline == null) {
            throw new IllegalArgumentException("[pipeline] [" + pipelineId + "] does not exist");
        }
        List<NearDupFingerprintProcessor> all = new ArrayList<>();
        for (Processor candidate : pipeline.flattenAllProcessors()) {
            Processor unwrapped =
                    candidate instanceof ConditionalProcessor conditional ? conditional.getInnerProcessor() : candidate;
            if (unwrapped instanceof NearDupFingerprintProcessor fingerprinting) {
                all.add(fingerprinting);
            }
        }
        List<NearDupFingerprintProcessor> chosen;
        if (fingerprint != null) {
            chosen = all.stream().filter(p -> p.writesMinhashTo(fingerprint)).toList();
            if (chosen.isEmpty()) {
                throw new IllegalArgumentException("[fingerprint] [" + fingerprint + "]: pipeline ["
                        + pipelineId + "] has no [" + NearDupFingerprintProcessor.TYPE
                        + "] processor writing a MinHash signature to it");
            }
        } else {
            List<NearDupFingerprintProcessor> reading =
                    all.stream().filter(p -> comparedFields.contains(p.field())).toList();
            chosen = reading.isEmpty() ? all : reading;
        }
        if (chosen.isEmpty()) {
            throw new IllegalArgumentException(
                    "[pipeline] [" + pipelineId + "] has no [" + NearDupFingerprintProcessor.TYPE + "] processor");
        }
        if (chosen.size() > 1) {
            throw new IllegalArgumentException("[pipeline] [" + pipelineId + "] has " + chosen.size() + " ["
                    + NearDupFingerprintProcessor.TYPE + "] processors: name the MinHash field of the one to compare "
                    + "with in [fingerprint], one of "
                    + chosen.stream().map(p -> p.targetField() + ".minhash").toList());
        }
        NearDupFingerprintProcessor processor = chosen.get(0);
        String field = fingerprint != null ? fingerprint : processor.targetField() + ".minhash";
        if (processor.writesMinhashTo(processor.targetField() + ".minhash") == false
                || processor.writesShingleSets() == false) {
            throw new IllegalArgumentException("[fingerprint] [" + field + "] has no shingle sets: the ["
                    + NearDupFingerprintProcessor.TYPE + "] processor of pipeline [" + pipelineId
                    + "] writes [outputs] without [minhash] and [shingles]");
        }
        return processor;
    }
}
