/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.index;

import java.io.IOException;
import java.util.Locale;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;
import org.opensearch.core.xcontent.ToXContentFragment;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * A containment match: {@code min_containment} and which side is {@code contained}. The containment of A in B is
 * |S(A) ∩ S(B)| / |S(A)| over the shingle sets: the share of A's shingles that B has. Validated when built.
 *
 * @param min the least containment a hit has, in [{@value #FLOOR}, 1]
 * @param contained {@link Contained#LIKE}: the hits contain the query's text ("where is this quoted?");
 *     {@link Contained#DOCUMENT}: the query's text contains the hits ("what is this made of?")
 */
public record Containment(double min, Contained contained) implements Writeable, ToXContentFragment {

    public static final String MIN_CONTAINMENT = "min_containment";
    public static final String CONTAINED = "contained";
    /**
     * The lowest containment a query may ask for: below half, two texts share less than they do not, and a
     * boilerplate sentence makes most of an index a candidate.
     */
    public static final double FLOOR = 0.5;

    /** Which text lies inside the other. */
    public enum Contained {
        /** The query's text lies inside each hit. */
        LIKE,
        /** Each hit lies inside the query's text. */
        DOCUMENT;

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Containment {
        try {
            NearDupOption.MIN_CONTAINMENT.read(min);
        } catch (NearDupOption.Invalid e) {
            throw new IllegalArgumentException("[" + NearDupOptions.QUERY + "] " + e.getMessage(), e);
        }
        if (contained == null) {
            contained = Contained.LIKE;
        }
    }

    /**
     * Refuses a similarity option beside a containment match, naming the first one set: a containment match is
     * verified on the exact shingle sets and takes none of them.
     *
     * @throws NearDupOption.Invalid naming that option; each entry point puts its own name before it
     */
    public static void requireNoSimilarityOption(NearDupOptions options) {
        NearDupOption set = options.set().keySet().stream().findFirst().orElse(null);
        if (set != null) {
            throw new NearDupOption.Invalid(
                    set,
                    "does not apply with [" + MIN_CONTAINMENT + "]: a containment match is verified on the exact"
                            + " shingle sets");
        }
    }

    public Containment(StreamInput in) throws IOException {
        this(in.readDouble(), in.readEnum(Contained.class));
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeDouble(min);
        out.writeEnum(contained);
    }

    @Override
    public XContentBuilder toXContent(XContentBuilder builder, Params params) throws IOException {
        return builder.field(MIN_CONTAINMENT, min).field(CONTAINED, contained.paramName());
    }
}
