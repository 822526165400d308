/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.opensearch.common.lifecycle.Lifecycle;
import org.opensearch.test.InternalTestCluster;
import org.opensearch.test.transport.MockTransportService;
import org.opensearch.transport.TransportRequest;
import org.opensearch.transport.TransportService;

/**
 * The requests of one transport action (its node-side name, such as {@code …[s]} or {@code …[n]}) held on their way to
 * the handler on every node of a test cluster whose nodes run {@link MockTransportService}, until let go.
 */
final class HeldRequests {

    private final InternalTestCluster cluster;
    private final List<TransportRequest> seen = new ArrayList<>();
    private final List<Runnable> held = new ArrayList<>();

    private HeldRequests(InternalTestCluster cluster) {
        this.cluster = cluster;
    }

    static HeldRequests hold(InternalTestCluster cluster, String action) {
        return hold(cluster, action, request -> true);
    }

    /** As {@link #hold(InternalTestCluster, String)}, only the requests {@code which} accepts; the others go through. */
    static HeldRequests hold(InternalTestCluster cluster, String action, Predicate<TransportRequest> which) {
        HeldRequests requests = new HeldRequests(cluster);
        for (TransportService node : cluster.getInstances(TransportService.class)) {
            ((MockTransportService) node).addRequestHandlingBehavior(action, (handler, request, channel, task) -> {
                if (which.test(request) == false) {
                    handler.messageReceived(request, channel, task);
                    return;
                }
                synchronized (requests) {
                    requests.seen.add(request);
                    requests.held.add(() -> {
                        // A node stopped meanwhile answers nothing: its held requests fail with it.
                        if (node.lifecycleState() == Lifecycle.State.STARTED) {
                            try {
                                handler.messageReceived(request, channel, task);
                            } catch (Exception e) {
                                throw new AssertionError(e);
                            }
                        }
                    });
                }
            });
        }
        return requests;
    }

    /** Every request held so far, also those let go since. */
    synchronized List<TransportRequest> seen() {
        return List.copyOf(seen);
    }

    /** The requests held and not let go yet. */
    synchronized int waiting() {
        return held.size();
    }

    /** Holds no more requests: those that come from now on go through. */
    void stopHolding() {
        for (TransportService node : cluster.getInstances(TransportService.class)) {
            ((MockTransportService) node).clearAllRules();
        }
    }

    /** Lets the requests held so far go to their handlers. */
    void letGo() {
        List<Runnable> go;
        synchronized (this) {
            go = new ArrayList<>(held);
            held.clear();
        }
        go.forEach(Runnable::run);
    }
}
