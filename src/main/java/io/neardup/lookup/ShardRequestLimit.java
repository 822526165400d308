/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import java.util.ArrayDeque;
import java.util.Queue;

/**
 * The shard requests of every lookup on a node in flight at once, across documents: the others wait here, in the order
 * they came, until one answers. Without it a bulk's lookups into many indices send (documents x shards) requests at
 * once (500 documents into a data stream of 30 backing indices: 15,000), and the search thread pool's queue rejects
 * most of them, failing the documents. Each waiting request is a {@link Runnable} that restores its own thread context.
 */
final class ShardRequestLimit {
    private final int max;
    private final Queue<Runnable> waiting = new ArrayDeque<>();
    private int inFlight;
    /**
     * The requests this thread is to send after the one it is sending: a request that fails at once (on the sending
     * thread) releases its place and sends the next from inside the send, and so on down the queue; they are sent one
     * after another instead, so that the stack does not grow with the queue.
     */
    private final ThreadLocal<Queue<Runnable>> sendingHere = new ThreadLocal<>();

    ShardRequestLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("at least one shard request in flight, got " + max);
        }
        this.max = max;
    }

    /**
     * The most requests in flight for a search thread pool queue of {@code searchQueueSize}: a quarter of it, so that
     * the searches of users and of other plugins still find room beside the lookups.
     */
    static int forSearchQueue(int searchQueueSize) {
        return Math.max(1, searchQueueSize / 4);
    }

    /** Runs {@code send} now if fewer than the most are in flight, else once enough have answered. */
    void submit(Runnable send) {
        synchronized (this) {
            if (inFlight >= max) {
                waiting.add(send);
                return;
            }
            inFlight++;
        }
        sendAll(send);
    }

    /** One request sent through {@link #submit} answered (or failed): the next waiting one is sent. */
    void release() {
        Runnable next;
        synchronized (this) {
            next = waiting.poll();
            if (next == null) {
                inFlight--;
                return;
            }
        }
        sendAll(next);
    }

    private void sendAll(Runnable first) {
        Queue<Runnable> later = sendingHere.get();
        if (later != null) {
            later.add(first);
            return;
        }
        later = new ArrayDeque<>();
        sendingHere.set(later);
        try {
            for (Runnable send = first; send != null; send = later.poll()) {
                send.run();
            }
        } finally {
            sendingHere.remove();
        }
    }

    /** Requests in flight now (for tests). */
    synchronized int inFlight() {
        return inFlight;
    }
}
