/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.match;

import java.io.IOException;
import org.opensearch.Version;
import org.opensearch.common.io.stream.BytesStreamOutput;
import org.opensearch.core.common.bytes.BytesReference;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.Writeable;

/** A message written to, and read back from, a node of a given OpenSearch version. */
public final class WireAt {

    /** The oldest version a node of this one talks to: one whose build predates the added fields. */
    public static final Version OTHER = Version.CURRENT.minimumCompatibilityVersion();

    private WireAt() {}

    public static BytesReference bytes(Writeable message, Version version) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            out.setVersion(version);
            message.writeTo(out);
            return out.bytes();
        }
    }

    /** Fails if the reader leaves bytes unread, as the transport layer does. */
    public static <T> T roundTrip(Writeable message, Version version, Writeable.Reader<T> reader) throws IOException {
        try (StreamInput in = bytes(message, version).streamInput()) {
            in.setVersion(version);
            T read = reader.read(in);
            if (in.read() != -1) {
                throw new AssertionError("message not fully read");
            }
            return read;
        }
    }
}
