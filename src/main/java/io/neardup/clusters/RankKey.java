/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.io.IOException;
import java.util.Arrays;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.common.io.stream.Writeable;

/**
 * What ranks a document of a run's graph as a representative ({@link RepresentativeOrder}): whether it was found when
 * its members were read, whether an earlier run made it a representative, its {@code representative.sort} values
 * (raw, as a search returns them), its {@code _id} and the ordinal of its index. Unique over a run: no two documents
 * share an {@code _id} and an index.
 */
record RankKey(boolean found, boolean keptRepresentative, Object[] sortValues, String id, int ordinal)
        implements Writeable {

    RankKey(StreamInput in) throws IOException {
        this(
                in.readBoolean(),
                in.readBoolean(),
                in.readArray(StreamInput::readGenericValue, Object[]::new),
                in.readString(),
                in.readVInt());
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        out.writeBoolean(found);
        out.writeBoolean(keptRepresentative);
        out.writeArray(StreamOutput::writeGenericValue, sortValues);
        out.writeString(id);
        out.writeVInt(ordinal);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RankKey key
                && found == key.found
                && keptRepresentative == key.keptRepresentative
                && Arrays.equals(sortValues, key.sortValues)
                && id.equals(key.id)
                && ordinal == key.ordinal;
    }

    @Override
    public int hashCode() {
        return 31 * id.hashCode() + ordinal;
    }

    @Override
    public String toString() {
        return "[" + ordinal + "][" + id + "]" + Arrays.toString(sortValues) + (found ? "" : " missing")
                + (keptRepresentative ? " kept" : "");
    }
}
