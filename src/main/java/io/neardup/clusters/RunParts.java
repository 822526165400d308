/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import io.neardup.match.NodeRunBreakers;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
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

    private final Map<TaskId, Run> runs = new ConcurrentHashMap<>();
    private final NodeRunBreakers runBreakers;

    public RunParts(NodeRunBreakers runBreakers) {
        this.runBreakers = runBreakers;
    }

    /**
     * One run's parts here, the order its members rank in (set when they are read), and the messages the parts got in
     * the current step of the clustering ({@link TransportPartStepAction}), by part.
     */
    static final class Run {
        final Map<Integer, ShardPart> parts = new ConcurrentHashMap<>();
        /** A run with writes: where each shard's writes from here have got to, by the run's number of the shard. */
        final Map<Integer, PartWriter> writers = new ConcurrentHashMap<>();
        /** A run with a {@code query}: where each shard's scan from here has got to, by the run's number of the shard. */
        final Map<Integer, PartQueryScan> scans = new ConcurrentHashMap<>();

        final EarlierClusters earlierClusters;

        final DeferredOrder order = new DeferredOrder();
        /** By the number of the step that sent them, then by part. */
        private final Map<Integer, Map<Integer, List<Object>>> inbox = new HashMap<>();

        /**
         * A request of the run on this node held open while its parts are here, so that the run's breaker here
         * ({@link NodeRunBreakers}) stays the one every step of the run charges and reports the peak of, parts and all.
         */
        private final NodeRunBreakers.Request holding;

        private final CircuitBreaker breaker;

        Run(NodeRunBreakers.Request holding) {
            this.holding = holding;
            this.breaker = holding.breaker();
            this.earlierClusters = new EarlierClusters(breaker);
        }

        /** The part {@code number}, made (empty) if this node has none yet: one that only other parts' edges reach. */
        ShardPart part(int number, boolean keepEdges) {
            return parts.computeIfAbsent(number, n -> new ShardPart(n, order, keepEdges, breaker));
        }

        private long inboxBytes;

        /** Messages for parts here, kept until the run's next step takes them; charged until then. */
        synchronized void deliver(PartMessages messages) {
            long bytes = (long) messages.size() * PartMessages.BYTES_PER_MESSAGE;
            breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters");
            inboxBytes += bytes;
            Map<Integer, List<Object>> ofStep = inbox.computeIfAbsent(messages.step(), s -> new HashMap<>());
            messages.byPart()
                    .forEach((part, ofPart) ->
                            ofStep.computeIfAbsent(part, p -> new ArrayList<>()).addAll(ofPart));
        }

        /** The messages each part got from the step {@code step}, taken out of the inbox (their charge given back). */
        synchronized Map<Integer, List<Object>> takeInbox(int step) {
            Map<Integer, List<Object>> taken = inbox.remove(step);
            if (taken == null) {
                return Map.of();
            }
            long bytes = 0;
            for (List<Object> messages : taken.values()) {
                bytes += (long) messages.size() * PartMessages.BYTES_PER_MESSAGE;
            }
            breaker.addWithoutBreaking(-bytes);
            inboxBytes -= bytes;
            return taken;
        }

        /** Gives back what the messages not taken hold. */
        synchronized void clearInbox() {
            inbox.clear();
            breaker.addWithoutBreaking(-inboxBytes);
            inboxBytes = 0;
        }
    }

    /**
     * A run with a {@code query}, on this node: the earlier clusters its documents belong to, whose members the query
     * does not match keep their cluster (docs/clusters.md section 8, step 5). Each one this node knows of, met here (by
     * a document the scan or the members read found) or told by another node, is searched once in the shards whose
     * parts are here, and its members found become documents of those parts; each one met here first is told once to
     * every other node that keeps parts. Charged to the run's breaker here, about {@link #BYTES_PER_CLUSTER} and 2 bytes
     * a character of the id for each cluster known.
     */
    static final class EarlierClusters {
        static final int BYTES_PER_CLUSTER = 100;

        private final CircuitBreaker breaker;
        private final Set<String> known = new HashSet<>();
        private final List<String> toTell = new ArrayList<>();
        private final ArrayDeque<String> toSearch = new ArrayDeque<>();
        private long charged;

        /** The search in progress: its clusters, the position of the shard it is in, where it got to there. */
        private List<String> searching;

        private int searchingShard;
        private Object[] searchedAfter;

        EarlierClusters(CircuitBreaker breaker) {
            this.breaker = breaker;
        }

        /** A document of a part here is of the earlier cluster {@code id}: searched here, and told the other nodes. */
        synchronized void met(String id) {
            if (know(id)) {
                toTell.add(id);
                toSearch.add(id);
            }
        }

        /** The clusters met here first since the last call, to tell every other node. */
        synchronized List<String> takeToTell() {
            List<String> taken = List.copyOf(toTell);
            toTell.clear();
            return taken;
        }

        /** Another node met the earlier cluster {@code id}: its members in the shards here are searched, once. */
        synchronized void told(String id) {
            if (know(id)) {
                toSearch.add(id);
            }
        }

        /** Whether {@code id} is new here; it is known (and charged) from now on. */
        private boolean know(String id) {
            if (known.contains(id)) {
                return false;
            }
            charge(id);
            known.add(id);
            return true;
        }

        /**
         * The search to go on with, over {@code shards} shards here: the clusters, the position of the shard and the
         * sort values to search after (null: from the start); null once nothing is left to search.
         */
        synchronized Search search(int shards) {
            if (searching == null || searchingShard >= shards) {
                if (toSearch.isEmpty() || shards == 0) {
                    searching = null;
                    toSearch.clear();
                    return null;
                }
                List<String> next = new ArrayList<>();
                while (toSearch.isEmpty() == false && next.size() < ClusterMembers.MEMBER_CHUNK) {
                    next.add(toSearch.poll());
                }
                searching = next;
                searchingShard = 0;
                searchedAfter = null;
            }
            return new Search(searching, searchingShard, searchedAfter);
        }

        /** The search read a page: the next one is after {@code last}; with {@code last} null, the shard is done. */
        synchronized void searched(Object[] last) {
            if (last == null) {
                searchingShard++;
                searchedAfter = null;
            } else {
                searchedAfter = last;
            }
        }

        synchronized boolean searchLeft() {
            return searching != null || toSearch.isEmpty() == false;
        }

        private void charge(String id) {
            long bytes = BYTES_PER_CLUSTER + 2L * id.length();
            breaker.addEstimateBytesAndMaybeBreak(bytes, "near_dup_clusters");
            charged += bytes;
        }

        /** Gives back what it holds, and returns it. */
        synchronized long release() {
            long released = charged;
            breaker.addWithoutBreaking(-charged);
            charged = 0;
            return released;
        }

        /** Where a search of earlier clusters' members goes on: see {@link #search}. */
        record Search(List<String> clusters, int shard, Object[] after) {}
    }

    /** The run's representative order, which the parts made before it is known compare by once it is set. */
    static final class DeferredOrder implements Comparator<RankKey> {
        private volatile Comparator<RankKey> order;

        void set(Comparator<RankKey> order) {
            this.order = order;
        }

        @Override
        public int compare(RankKey a, RankKey b) {
            Comparator<RankKey> known = order;
            if (known == null) {
                throw new IllegalStateException("the parts are compared before their members are read");
            }
            return known.compare(a, b);
        }
    }

    private final Set<TaskId> released = Collections.newSetFromMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<TaskId, Boolean> eldest) {
            return size() > RELEASED_REMEMBERED;
        }
    });

    /**
     * Records the pairs of a step's answer of the run {@code run}: query {@code q} of {@code joined} is in the part
     * {@code parts[joined.queryIn(q)]}, match {@code i} in {@code parts[joined.matchedIn(i)]}; each pair is kept by its
     * query's part, charged to the run's breaker on this node. Nothing is recorded without parts (a step sent by a node of
     * another version) or for a run already released.
     */
    void record(TaskId run, int[] parts, boolean keepEdges, ShardJoinResponse joined) {
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
            ShardPart part = part(run, entry.getKey(), keepEdges);
            if (part == null) {
                return;
            }
            part.addMatches(
                    matches,
                    entry.getValue().stream().mapToInt(Integer::intValue).toArray(),
                    joined::queryId,
                    joined::querySeqNo,
                    i -> parts[joined.matchedIn(i)]);
        }
    }

    /** The part {@code number} of the run, made if new; null if the run was released. */
    private ShardPart part(TaskId run, int number, boolean keepEdges) {
        Run entry = run(run);
        return entry == null ? null : entry.part(number, keepEdges);
    }

    /** The run's entry here, made if new (charging the run's breaker here); null if the run was released. */
    Run run(TaskId run) {
        synchronized (released) {
            if (released.contains(run)) {
                return null;
            }
            return runs.computeIfAbsent(run, r -> new Run(runBreakers.open(r)));
        }
    }

    /** The run's entry here; null if it has none. */
    Run find(TaskId run) {
        return runs.get(run);
    }

    /** The run's parts on this node, by the run's number of their shard (empty if none). */
    Map<Integer, ShardPart> parts(TaskId run) {
        Run entry = runs.get(run);
        return entry == null ? Map.of() : Collections.unmodifiableMap(entry.parts);
    }

    /** The runs with parts here. */
    public int runs() {
        return runs.size();
    }

    /** Gives back what the run's parts here hold, and returns it; a step of it that ends later records nothing. */
    long release(TaskId run) {
        Run entry;
        synchronized (released) {
            released.add(run);
            entry = runs.remove(run);
        }
        long bytes = 0;
        if (entry != null) {
            for (ShardPart part : entry.parts.values()) {
                bytes += part.charged();
                part.release();
            }
            entry.clearInbox();
            bytes += entry.earlierClusters.release();
            entry.holding.close();
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
