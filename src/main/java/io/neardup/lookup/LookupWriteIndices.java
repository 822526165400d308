/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.bulk.BulkAction;
import org.opensearch.action.bulk.BulkItemRequest;
import org.opensearch.action.bulk.BulkShardRequest;
import org.opensearch.action.bulk.TransportShardBulkAction;
import org.opensearch.action.index.IndexRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.action.support.ActionFilterChain;
import org.opensearch.action.support.ContextPreservingActionListener;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.common.xcontent.XContentHelper;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.tasks.Task;

/**
 * The index a lookup's document is written to, as its lookup assumed it and as core then writes it.
 *
 * <p>A lookup names indices it cannot see yet: an original's {@code cluster_index} is the index the document goes to,
 * and a copy found in the recent window names its original's ({@code duplicate_of_index}, {@code cluster_index}). For
 * a data stream or an alias that is the write index when the document is looked up; core resolves the write index
 * again when it writes, after every document of the bulk has run its pipeline, and a rollover in between sends the
 * whole bulk to the next generation. This filter sees both moments. Around a bulk it gives the bulk's lookups a
 * {@link Bulk} to record what they assumed, a thread-context transient, which core carries to the ingest threads and on
 * to the shard requests of the write (all on the node that runs the pipelines). On each shard request of the write,
 * where the index is concrete, it resolves the assumptions and rewrites the few names that were wrong, before anything
 * is written. A document matched later in the recent window is named where it really went once its own bulk's write
 * began ({@link Placement}); a copy looked up while its original's bulk is still running its pipelines is corrected
 * when its own bulk writes, if the original's bulk has begun writing by then.
 *
 * <p>Core hands a processor the documents of a bulk together, with their places in it, on OpenSearch 3.x; where it
 * hands them one at a time (2.19 without {@code batch_size}), nothing is recorded and the names stay as looked up.
 */
public final class LookupWriteIndices implements ActionFilter {

    static final String TRANSIENT = "_neardup_lookup_write_indices";

    private final Supplier<ThreadContext> threadContext;

    /** A supplier because the plugin's services are created after its action filters. */
    public LookupWriteIndices(Supplier<ThreadContext> threadContext) {
        this.threadContext = threadContext;
    }

    /** The bulk the current thread's lookups run for; null outside a bulk. */
    static Bulk current(ThreadContext context) {
        return context.getTransient(TRANSIENT);
    }

    @Override
    public int order() {
        return 0;
    }

    @Override
    public <Request extends ActionRequest, Response extends ActionResponse> void apply(
            Task task,
            String action,
            Request request,
            ActionListener<Response> listener,
            ActionFilterChain<Request, Response> chain) {
        ThreadContext context = threadContext.get();
        if (context != null && BulkAction.NAME.equals(action) && current(context) == null) {
            ActionListener<Response> restoring =
                    ContextPreservingActionListener.wrapPreservingContext(listener, context);
            try (ThreadContext.StoredContext outside = context.newStoredContext(true)) {
                context.putTransient(TRANSIENT, new Bulk());
                chain.proceed(task, action, request, restoring);
            }
            return;
        }
        if (context != null
                && TransportShardBulkAction.ACTION_NAME.equals(action)
                && request instanceof BulkShardRequest shardRequest) {
            Bulk bulk = current(context);
            if (bulk != null && bulk.slots.isEmpty() == false) {
                try {
                    bulk.correct(shardRequest);
                } catch (RuntimeException e) {
                    listener.onFailure(e);
                    return;
                }
            }
        }
        chain.proceed(task, action, request, listener);
    }

    /**
     * Where the documents of one bulk into one name (a data stream, an alias) were assumed to go: the write index when
     * they were looked up, until the write tells where they went.
     */
    static final class Placement {
        private final String assumed;
        private volatile String actual;

        Placement(String assumed) {
            this.assumed = Objects.requireNonNull(assumed, "assumed");
        }

        /** The index the documents went to, once their write began; until then the one assumed. */
        String index() {
            String written = actual;
            return written == null ? assumed : written;
        }
    }

    /**
     * Kept beside a document's entry in the recent window: its placement, and that of its cluster's index where that
     * too was assumed (its cluster is an original of a bulk not yet written), else null.
     */
    record Placed(Placement home, Placement clusterIndex) {}

    /** A field of a document's lookup answer that names {@code placement}'s index, written as {@code written}. */
    record Correction(String field, Placement placement, String written) {}

    /** A document's own placement and the fields of its answer to correct. */
    private record Slot(Placement own, List<Correction> corrections) {}

    /** What the lookups of one bulk assumed, by the documents' places in the bulk. */
    static final class Bulk {
        private final Map<String, Placement> placements = new ConcurrentHashMap<>();
        private final Map<Integer, Slot> slots = new ConcurrentHashMap<>();

        /** The placement of the bulk's documents written to {@code name} (as indexed) and assumed to go to {@code assumed}. */
        Placement placement(String name, String assumed) {
            return placements.computeIfAbsent(name + '\u0000' + assumed, key -> new Placement(assumed));
        }

        /** Records the document at {@code slot}: it goes where {@code own} says, and {@code corrections} name indices. */
        void record(int slot, Placement own, List<Correction> corrections) {
            slots.put(slot, new Slot(own, List.copyOf(corrections)));
        }

        /**
         * The write of a shard's items has begun: each recorded item's placement is the shard's index, and a field
         * that names a placement's index otherwise than it is now is rewritten in the item's source.
         */
        void correct(BulkShardRequest request) {
            String index = request.shardId().getIndexName();
            // Every placement of the shard's items first: an item may name another item's.
            for (BulkItemRequest item : request.items()) {
                Slot slot = item == null ? null : slots.get(item.id());
                if (slot != null) {
                    slot.own().actual = index;
                }
            }
            for (BulkItemRequest item : request.items()) {
                Slot slot = item == null ? null : slots.get(item.id());
                if (slot != null && item.request() instanceof IndexRequest indexRequest) {
                    rewrite(indexRequest, slot.corrections());
                }
            }
        }

        private static void rewrite(IndexRequest request, List<Correction> corrections) {
            Map<String, Object> source = null;
            for (Correction correction : corrections) {
                String now = correction.placement().index();
                if (now.equals(correction.written())) {
                    continue;
                }
                if (source == null) {
                    source = XContentHelper.convertToMap(request.source(), true, request.getContentType())
                            .v2();
                }
                replace(source, correction.field(), correction.written(), now);
            }
            if (source != null) {
                request.source(source, request.getContentType());
            }
        }

        /** Sets the dotted {@code field} to {@code now} where it still holds {@code written}. */
        @SuppressWarnings("unchecked")
        private static void replace(Map<String, Object> source, String field, String written, String now) {
            String[] path = field.split("\\.");
            Map<String, Object> object = source;
            for (int i = 0; i < path.length - 1; i++) {
                if (object.get(path[i]) instanceof Map<?, ?> inner) {
                    object = (Map<String, Object>) inner;
                } else {
                    return; // another processor moved or removed the answer: nothing of ours to correct
                }
            }
            String last = path[path.length - 1];
            if (written.equals(object.get(last))) {
                object.put(last, now);
            }
        }
    }
}
