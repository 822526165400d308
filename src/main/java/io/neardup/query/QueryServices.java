/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.index.SegmentFingerprintCache;

/** The node-local services a {@code near_duplicate} query needs on a shard; never serialized. */
public record QueryServices(LikeResolver resolver, SegmentFingerprintCache cache) {}
