/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.compare;

import java.io.IOException;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.ActionType;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;

/**
 * {@code _near_dup/_compare} of two texts: a cluster action, since it reads no index (the Security plugin would check an
 * index action that names none against every index). The pipeline it names is read as the caller, as for documents.
 */
public final class NearDupCompareTextsAction extends ActionType<NearDupCompareResponse> {

    public static final String NAME = "cluster:monitor/neardup/compare";
    public static final NearDupCompareTextsAction INSTANCE = new NearDupCompareTextsAction();

    private NearDupCompareTextsAction() {
        super(NAME, NearDupCompareResponse::new);
    }

    /** A comparison of two texts, as a request that names no index. */
    public static final class Request extends ActionRequest {
        private final NearDupCompareRequest compare;

        public Request(NearDupCompareRequest compare) {
            if (compare.comparesDocuments()) {
                throw new IllegalArgumentException("a comparison of documents is [" + NearDupCompareAction.NAME + "]");
            }
            this.compare = compare;
        }

        public Request(StreamInput in) throws IOException {
            super(in);
            compare = new NearDupCompareRequest(in);
        }

        @Override
        public void writeTo(StreamOutput out) throws IOException {
            super.writeTo(out);
            compare.writeTo(out);
        }

        public NearDupCompareRequest compare() {
            return compare;
        }

        @Override
        public ActionRequestValidationException validate() {
            return null;
        }
    }
}
