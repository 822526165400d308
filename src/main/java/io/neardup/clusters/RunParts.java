/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.opensearch.cluster.ClusterChangedEvent;
import org.opensearch.cluster.ClusterStateListener;
import org.opensearch.core.common.breaker.CircuitBreaker;
import org.opensearch.core.tasks.TaskId;

/**
 * The parts of the runs' graphs this node keeps ({@link ShardPart}, docs/clusters.md section 8), by run (the task of
 * the {@code _near_dup_clusters} run, the parent of its steps) and the run's number of the shard. A step records the
 * pairs of its answer here before it answers ({@link #record}); the run releases its parts on every node when it ends
 * ({@link ReleaseRunPartsAction}), and a run whose coordinating node left the cluster is released here, so that no
 * part outlives its run. A step of a released run (one that outlasted its timeout) records nothing.
 */
public final class RunParts implements ClusterStateListener {

    /** How many released runs are remembered, so that a late step of one records nothing. */
    static final int RELEASED_REMEMBERED = 1_000;

    private final Map<TaskId, Map<Integer, ShardPart>> runs = new ConcurrentHashMap<>();

    private final Set<TaskId> released = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TaskId, Boolean> eldest) {
            return size() > RELEASED_REMEMBERED;
        }
    });

    /**
     * Records the pairs of a step's answer of the run {@code run}: query {@code q} of {@code joined} is in the part
     * {@code parts[joined.queryIn(q)]}, match {@code i} in {@code parts[joined.matchedIn(i)]}; each pair is kept by its
     * query's part, charged to {@code breaker} (the run's on this node). Nothing is recorded without parts (a step sent
     * by a node of another version) or for a run already released.
     */
    void record(TaskId run, int[] parts, boolean keepEdges, ShardJoinResponse joined, CircuitBreaker breaker) {
        if (parts.length == 0 || run == null || run.isSet() == false) {
            return;
        }
        Map<Integer, List<Integer>> byPart = new LinkedHashMap<>();
        var matches = joined.matches();
        for (int i = 0; i < matches.size(); i++) {
            byPart.computeIfAbsent(parts[joined.queryIn(matches.query(i))], p -> new ArrayList<>())
                    .add(i);
        }
        for (Map.Entry<Integer, List<Integer>> entry : byPart.entrySet()) {
            ShardPart part = part(run, entry.getKey(), keepEdges, breaker);
            if (part == null) {
                return;
            }
            List<Integer> ofPart = entry.getValue();
            int n = ofPart.size();
            String[] ids = new String[n];
            long[] seqNos = new long[n];
            int[] otherParts = new int[n];
            String[] otherIds = new String[n];
            long[] otherSeqNos = new long[n];
            float[] similarities = new float[n];
            for (int k = 0; k < n; k++) {
                int i = ofPart.get(k);
                int query = matches.query(i);
                ids[k] = joined.queryId(query);
                seqNos[k] = joined.querySeqNo(query);
                otherParts[k] = parts[joined.matchedIn(i)];
                otherIds[k] = matches.matchedId(i);
                otherSeqNos[k] = matches.matchedSeqNo(i);
                similarities[k] = matches.similarity(i);
            }
            part.addPairs(ids, seqNos, otherParts, otherIds, otherSeqNos, similarities);
        }
    }

    /** The part {@code number} of the run, made if new; null if the run was released. */
    private ShardPart part(TaskId run, int number, boolean keepEdges, CircuitBreaker breaker) {
        synchronized (released) {
            if (released.contains(run)) {
                return null;
            }
            return runs.computeIfAbsent(run, r -> new ConcurrentHashMap<>())
                    .computeIfAbsent(number, n -> new ShardPart(n, keepEdges, breaker));
        }
    }

    /** The run's parts on this node, by the run's number of their shard (empty if none). */
    Map<Integer, ShardPart> parts(TaskId run) {
        Map<Integer, ShardPart> parts = runs.get(run);
        return parts == null ? Map.of() : Collections.unmodifiableMap(parts);
    }

    /** The runs with parts here. */
    public int runs() {
        return runs.size();
    }

    /** Gives back what the run's parts here hold, and returns it; a step of it that ends later records nothing. */
    long release(TaskId run) {
        Map<Integer, ShardPart> parts;
        synchronized (released) {
            released.add(run);
            parts = runs.remove(run);
        }
        long bytes = 0;
        if (parts != null) {
            for (ShardPart part : parts.values()) {
                bytes += part.charged();
                part.release();
            }
        }
        return bytes;
    }

    /** A run whose coordinating node left the cluster ends without releasing its parts: they are released here. */
    @Override
    public void clusterChanged(ClusterChangedEvent event) {
        if (event.nodesRemoved()) {
            for (TaskId run : List.copyOf(runs.keySet())) {
                if (event.state().nodes().nodeExists(run.getNodeId()) == false) {
                    release(run);
                }
            }
        }
    }
}
