/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.lookup;

import static org.opensearch.ingest.ConfigurationUtils.newConfigurationException;

import io.neardup.core.FingerprintFormat;
import io.neardup.core.FingerprintObject;
import io.neardup.core.RecentFingerprints;
import io.neardup.core.SimhashCodec;
import io.neardup.index.Containment;
import io.neardup.index.FingerprintKind;
import io.neardup.index.NearDupOption;
import io.neardup.index.NearDupOptions;
import io.neardup.ingest.NearDupFingerprintProcessor;
import io.neardup.match.ClusterAssignment;
import io.neardup.match.DocumentQueries;
import io.neardup.match.MappingPaths;
import io.neardup.match.MatchSpec;
import io.neardup.match.NearDupLookupAction;
import io.neardup.match.ShardMatchRequest;
import io.neardup.match.ShardMatchResponse;
import io.neardup.match.TransportShardMatchAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.opensearch.ExceptionsHelper;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.IndexNameExpressionResolver;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.rest.RestStatus;
import org.opensearch.ingest.AbstractProcessor;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.ingest.IngestDocument;
import org.opensearch.ingest.IngestDocumentWrapper;
import org.opensearch.ingest.Processor;
import org.opensearch.threadpool.Scheduler;
import org.opensearch.transport.client.Client;

/**
 * {@code near_dup_lookup}: after {@code near_dup_fingerprint}, looks the document's fingerprint up
 * in an index with the {@code near_duplicate} query (asynchronously: no ingest thread waits on the
 * search) and in the fingerprints this processor saw in the last moments (documents of the same
 * bulk request, or not yet refreshed), and writes {@code <target_field>.cluster},
 * {@code .duplicate_of}, {@code .similarity} and {@code .representative}, in the layout of
 * {@code _near_dup_clusters}. With {@code min_containment} it looks instead for the existing document the new one
 * lies inside ({@code contained: like}: {@code .contained_in}) or that lies inside it ({@code contained: document}:
 * {@code .contains}), with {@code .containment}, the exact containment of the two shingle sets
 * ({@link ClusterAssignment}).
 */
public final class NearDupLookupProcessor extends AbstractProcessor {

    public static final String TYPE = "near_dup_lookup";
    public static final TimeValue DEFAULT_TIMEOUT = TimeValue.timeValueSeconds(10);
    public static final TimeValue MAX_TIMEOUT = TimeValue.timeValueMinutes(5);
    public static final int DEFAULT_MAX_CANDIDATES = 10;
    public static final int MAX_MAX_CANDIDATES = TransportShardMatchAction.MAX_MATCHES_PER_DOCUMENT;
    public static final int DEFAULT_RECENT_SIZE = 1_000;
    /**
     * The most documents of a batch in one shard request: enough that a request's fixed cost (a searcher, a query
     * context, the transport hop) is paid once for many, few enough that a bulk of 500 into one shard still spreads
     * over the search threads (8 requests).
     */
    static final int DOCUMENTS_PER_REQUEST = 64;

    public static final int MAX_RECENT_SIZE = 100_000;
    public static final TimeValue DEFAULT_RECENT_TTL = TimeValue.timeValueSeconds(5);
    public static final TimeValue MAX_RECENT_TTL = TimeValue.timeValueMinutes(10);
    /**
     * The thread-context transient in which the Security plugin puts the user an action runs for
     * ({@code ConfigConstants.OPENDISTRO_SECURITY_USER_INFO_THREAD_CONTEXT}); absent without it.
     */
    /** The matching options a lookup takes. */
    static final Set<NearDupOption> OPTIONS = EnumSet.of(
            NearDupOption.MAX_DISTANCE,
            NearDupOption.MIN_SIMILARITY,
            NearDupOption.MIN_CONTAINMENT,
            NearDupOption.CONTAINED);

    static final String NOT_AN_OPTION = "does not apply: a lookup matches with " + NearDupOption.names(OPTIONS)
            + " (a simhash lookup finds every document within [max_distance] through per-segment block tables)";

    static final String SECURITY_USER_INFO = "_opendistro_security_user_info";

    private static final Set<String> METADATA_FIELDS = Set.of(
            "_id",
            "_index",
            "_routing",
            "_version",
            "_version_type",
            "_if_seq_no",
            "_if_primary_term",
            "_source",
            "_ingest");

    private final String field;
    private final String index;
    private final String targetField;
    private final int maxCandidates;
    private final TimeValue timeout;
    private final boolean ignoreMissing;
    /** The indices a document's lookup searches, and the field's kind in their mappings. */
    private final LookupIndices indices;

    private final RecentFingerprints recent;
    /** The node's bound on the lookups' shard requests in flight, shared by every lookup processor. */
    private final ShardRequestLimit shardRequests;

    private final ThreadContext threadContext;
    private final MatchSpec spec;
    /** A containment lookup's threshold and direction; null for a similarity lookup. */
    private final Containment containment;

    private final Client client;
    private final ClusterService clusterService;
    private final BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler;
    private final LongSupplier nanoTime;

    NearDupLookupProcessor(
            String tag,
            String description,
            String field,
            String index,
            String targetField,
            NearDupOptions options,
            Containment containment,
            int maxCandidates,
            TimeValue timeout,
            boolean ignoreMissing,
            int maxIndices,
            TimeValue maxAge,
            RecentFingerprints recent,
            ShardRequestLimit shardRequests,
            Client client,
            ClusterService clusterService,
            ThreadContext threadContext,
            BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler,
            LongSupplier nanoTime) {
        super(tag, description);
        this.field = field;
        this.index = index;
        this.targetField = targetField;
        this.maxCandidates = maxCandidates;
        this.timeout = timeout;
        this.ignoreMissing = ignoreMissing;
        this.indices = new LookupIndices(
                new IndexNameExpressionResolver(threadContext),
                field,
                optionsSet(options, containment),
                maxIndices,
                maxAge);
        this.recent = recent;
        this.shardRequests = shardRequests;
        this.threadContext = threadContext;
        this.containment = containment;
        this.spec = containment == null ? new MatchSpec(field, options) : new MatchSpec(field, containment);
        this.client = client;
        this.clusterService = clusterService;
        this.scheduler = scheduler;
        this.nanoTime = nanoTime;
    }

    @Override
    public String getType() {
        return TYPE;
    }

    /**
     * Whether {@code near_dup_fingerprint} wrote the object {@link #field} belongs to for a text without tokens: that
     * object has {@code tokens: 0} and no fingerprint. A document without the object at all (no fingerprint processor
     * before this one, or one that skipped a missing text) or whose object lacks only this field's kind is not.
     */
    private boolean fingerprintedWithoutTokens(IngestDocument document) {
        int dot = field.lastIndexOf('.');
        String tokens = dot < 0
                ? NearDupFingerprintProcessor.TOKENS
                : field.substring(0, dot + 1) + NearDupFingerprintProcessor.TOKENS;
        return document.hasField(tokens)
                && document.getFieldValue(tokens, Object.class) instanceof Number count
                && count.longValue() == 0;
    }

    @Override
    public IngestDocument execute(IngestDocument document) {
        throw new UnsupportedOperationException("[" + TYPE + "] searches an index and only runs asynchronously");
    }

    @Override
    public void execute(IngestDocument document, BiConsumer<IngestDocument, Exception> handler) {
        lookUp(List.of(document), List.of(handler), null);
    }

    /**
     * A bulk's documents looked up together (core hands a processor the documents of one bulk, index and pipeline as
     * one batch): one shard request for up to {@link #DOCUMENTS_PER_REQUEST} of them instead of one a document, so
     * that a shard's searcher, query context and transport hop are paid once for them all. A document that fails keeps
     * its document beside the exception, for the pipeline's {@code on_failure}.
     */
    @Override
    public void batchExecute(List<IngestDocumentWrapper> wrappers, Consumer<List<IngestDocumentWrapper>> handler) {
        if (wrappers.isEmpty()) {
            handler.accept(List.of());
            return;
        }
        AtomicInteger left = new AtomicInteger(wrappers.size());
        List<IngestDocument> documents = new ArrayList<>(wrappers.size());
        List<BiConsumer<IngestDocument, Exception>> handlers = new ArrayList<>(wrappers.size());
        int[] slots = new int[wrappers.size()];
        for (int i = 0; i < wrappers.size(); i++) {
            IngestDocumentWrapper wrapper = wrappers.get(i);
            slots[i] = wrapper.getSlot();
            IngestDocument original = wrapper.getIngestDocument();
            documents.add(original);
            handlers.add((done, e) -> {
                wrapper.update(e == null ? done : original, e);
                if (left.decrementAndGet() == 0) {
                    handler.accept(wrappers);
                }
            });
        }
        lookUp(documents, handlers, slots);
    }

    /**
     * Prepares each document in order (its fingerprint read, the indices its name stands for chosen, its place taken
     * in the recent window, so that a later document of the batch finds an earlier one there), then looks those of one
     * name up together, {@link #DOCUMENTS_PER_REQUEST} to a shard request.
     *
     * @param slots the documents' places in their bulk, where core gives them ({@link LookupWriteIndices}), else null
     */
    private void lookUp(
            List<IngestDocument> documents, List<BiConsumer<IngestDocument, Exception>> handlers, int[] slots) {
        ClusterState state = clusterService.state();
        long now = System.currentTimeMillis();
        LookupWriteIndices.Bulk bulk = slots == null ? null : LookupWriteIndices.current(threadContext);
        Map<String, List<Lookup>> byName = new LinkedHashMap<>();
        for (int i = 0; i < documents.size(); i++) {
            Lookup lookup = prepare(documents.get(i), handlers.get(i), state, now, bulk, bulk == null ? -1 : slots[i]);
            if (lookup != null) {
                byName.computeIfAbsent(lookup.lookupName(), name -> new ArrayList<>())
                        .add(lookup);
            }
        }
        for (List<Lookup> sameName : byName.values()) {
            for (int from = 0; from < sameName.size(); from += DOCUMENTS_PER_REQUEST) {
                List<Lookup> chunk = sameName.subList(from, Math.min(sameName.size(), from + DOCUMENTS_PER_REQUEST));
                new ShardFanOut(state, chunk).start();
            }
        }
    }

    /**
     * One document's lookup, ready to be sent: what it asks the shards ({@code fingerprintSource}, {@code id} left
     * out of {@code writtenTo}'s answers) and the recent window ({@code recentMatch}, its own entry {@code self});
     * where the names it writes are corrected once the write begins ({@code bulk}, its place {@code slot} there, where
     * it is assumed to go {@code placement}), else those three null and -1.
     */
    private record Lookup(
            IngestDocument document,
            String id,
            String writtenTo,
            String lookupName,
            LookupIndices.Selection selection,
            Map<String, Object> fingerprintSource,
            Supplier<RecentFingerprints.Match> recentMatch,
            RecentFingerprints.Entry self,
            BiConsumer<IngestDocument, Exception> completion,
            LookupWriteIndices.Bulk bulk,
            int slot,
            LookupWriteIndices.Placement placement) {}

    /** The document's lookup, or null when it is already answered (no fingerprint to look up, or a clear failure). */
    private Lookup prepare(
            IngestDocument document,
            BiConsumer<IngestDocument, Exception> handler,
            ClusterState state,
            long now,
            LookupWriteIndices.Bulk bulk,
            int slot) {
        final Map<String, Object> fingerprintSource;
        final RecentFingerprints.Entry self;
        final Supplier<RecentFingerprints.Match> recentMatch;
        final LookupIndices.Selection selection;
        final String writtenTo;
        String id = document.getSourceAndMetadata().get("_id") instanceof String s ? s : null;
        String ownIndex = (String) document.getSourceAndMetadata().get("_index");
        String lookupName = index != null ? index : ownIndex;
        try {
            Object stored = document.hasField(field) ? document.getFieldValue(field, Object.class) : null;
            if (stored == null) {
                // A text without tokens has no fingerprint to compare: nothing can be its near-duplicate, and failing
                // it would keep it out of the index.
                if (ignoreMissing || fingerprintedWithoutTokens(document)) {
                    handler.accept(document, null);
                    return null;
                }
                throw new IllegalArgumentException("[" + TYPE + "] the document has no fingerprint at [" + field
                        + "]; place this " + "processor after [near_dup_fingerprint] (or set [ignore_missing])");
            }
            selection = indices.select(state, lookupName, index == null, now);
            FingerprintKind kind = selection.kind();
            // The document is left out of its own index's answers only: the same _id in another index (a data stream's
            // older generation, the index a lookup searches beside the one written) is another document.
            writtenTo = indices.homeOf(state, ownIndex);
            String home = selection.spansIndices() ? writtenTo : null;
            FingerprintObject.Parts parts = FingerprintObject.read(stored, FingerprintObject.ANY_KEYS);
            fingerprintSource =
                    MappingPaths.nest(spec.sourceToMatch(), document.getFieldValue(spec.sourceToMatch(), Object.class));
            String scope = windowScope(lookupName);
            long arrived = nanoTime.getAsLong();
            int scheme = parts.scheme() == null ? 0 : parts.scheme().hashCode();
            if (kind == FingerprintKind.SIMHASH) {
                long value = SimhashCodec.parseHex(parts.value());
                int distance = spec.options().effectiveMaxDistance();
                self = id == null ? null : recent.addSimhash(scope, id, home, scheme, value, arrived);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch = () ->
                        recent.closestSimhash(scope, id, home, scheme, value, distance, before, nanoTime.getAsLong());
            } else if (containment != null) {
                if (parts.shingles() == null) {
                    throw new IllegalArgumentException("[" + TYPE + "] [" + Containment.MIN_CONTAINMENT
                            + "] compares shingle sets, and the fingerprint at [" + field + "] has none: "
                            + "let [near_dup_fingerprint] write them (its default [outputs])");
                }
                FingerprintObject.Minhash read = FingerprintObject.readMinhash(parts, 0, null);
                byte[] shingles = read.shingleSet();
                int formatScheme = windowPart(read.format(), scheme);
                boolean documentInsideRecent = containment.contained() == Containment.Contained.LIKE;
                self = id == null ? null : recent.addShingleSet(scope, id, home, formatScheme, shingles, arrived);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch = () -> recent.mostContaining(
                        scope,
                        id,
                        home,
                        formatScheme,
                        shingles,
                        documentInsideRecent,
                        containment.min(),
                        before,
                        nanoTime.getAsLong());
            } else {
                // A compact document with a set stores no signature: the window's, a prefilter before the sets are
                // compared, is the set's at the length its header gives.
                FingerprintObject.Minhash read = FingerprintObject.readMinhash(parts, 0, null);
                byte[] shingles = read.shingleSet();
                int[] signature = read.signature();
                int formatScheme = windowPart(read.format(), scheme);
                double tau = spec.options().effectiveMinSimilarity();
                self = id == null
                        ? null
                        : recent.addSignature(scope, id, home, formatScheme, signature, shingles, arrived);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch = () -> recent.mostSimilarSignature(
                        scope, id, home, formatScheme, signature, shingles, tau, before, nanoTime.getAsLong());
            }
        } catch (RuntimeException e) {
            handler.accept(null, e);
            return null;
        }
        BiConsumer<IngestDocument, Exception> completion = (done, e) -> {
            if (e != null && self != null) {
                recent.withdraw(self);
            }
            handler.accept(done, e);
        };
        // Only a name that spans indices has index names written, and only a named write index can be assumed wrong.
        LookupWriteIndices.Placement placement = bulk == null || selection.spansIndices() == false || writtenTo == null
                ? null
                : bulk.placement(ownIndex, writtenTo);
        return new Lookup(
                document,
                id,
                writtenTo,
                lookupName,
                selection,
                fingerprintSource,
                recentMatch,
                self,
                completion,
                placement == null ? null : bulk,
                slot,
                placement);
    }

    /**
     * One request per shard of every index searched for a batch of documents (of one lookup name), straight to a copy
     * of the shard, each document's query run there on the shard's structures: no search action around it (can_match,
     * query and fetch phases), which would cost more than the lookup itself. At most {@link
     * LookupIndices#MAX_SHARD_REQUESTS_IN_FLIGHT} at once a batch, and those of all batches within the node's {@link
     * ShardRequestLimit} (the others wait there instead of being rejected by a full search queue; the batch's timeout
     * counts from its first request sent). It runs as the user indexing the documents: the Security plugin checks the
     * lookup's own action on each index, and the shard reads through that user's reader (DLS, FLS). Where the name
     * stands for many indices, one the user may not read is left out (its shards answer nothing); where it forbids
     * them all, the documents fail as with one index. A shard that fails fails every document of the batch, as it
     * would have failed each.
     */
    private final class ShardFanOut {
        private final List<Lookup> lookups;
        private final String lookupName;
        private final LookupIndices.Selection selection;
        /**
         * Per request, in order (oldest index first, then by shard): its index's position, and its shard. A shard that
         * cannot hold a document yet has none ({@link LookupIndices#mayHoldDocuments}).
         */
        private final int[] indexOf;

        private final int[] shardOf;
        /** The documents' fingerprint objects, and the queries built for them, the same in every shard request. */
        private final List<Map<String, Object>> sources;

        private final DocumentQueries queries = new DocumentQueries();
        private final ShardMatchResponse[] responses;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger pending;
        private final AtomicInteger forbidden = new AtomicInteger();
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile Exception firstForbidden;
        /** Per request: 1 while it holds a place of {@link #shardRequests}, given back once (answer or timeout). */
        private final AtomicIntegerArray holdsPlace;

        private final AtomicBoolean timerStarted = new AtomicBoolean();
        private volatile Scheduler.ScheduledCancellable timer;

        /** @param lookups documents of one lookup name, prepared with one cluster state and time: one selection */
        ShardFanOut(ClusterState state, List<Lookup> lookups) {
            this.lookups = lookups;
            this.lookupName = lookups.get(0).lookupName();
            this.selection = lookups.get(0).selection();
            List<Map<String, Object>> fingerprintSources = new ArrayList<>(lookups.size());
            for (Lookup lookup : lookups) {
                fingerprintSources.add(lookup.fingerprintSource());
            }
            this.sources = Collections.unmodifiableList(fingerprintSources);
            int requests = 0;
            for (IndexMetadata index : selection.oldestFirst()) {
                requests += index.getNumberOfShards();
            }
            int[] indexOfSlot = new int[requests];
            int[] shardOfSlot = new int[requests];
            requests = 0;
            for (int i = 0; i < selection.oldestFirst().size(); i++) {
                IndexMetadata index = selection.oldestFirst().get(i);
                for (int shard = 0; shard < index.getNumberOfShards(); shard++) {
                    if (LookupIndices.mayHoldDocuments(state, index, shard)) {
                        indexOfSlot[requests] = i;
                        shardOfSlot[requests++] = shard;
                    }
                }
            }
            indexOf = Arrays.copyOf(indexOfSlot, requests);
            shardOf = Arrays.copyOf(shardOfSlot, requests);
            responses = new ShardMatchResponse[requests];
            holdsPlace = new AtomicIntegerArray(requests);
            pending = new AtomicInteger(requests);
        }

        void start() {
            if (responses.length == 0) {
                // The documents' own index does not exist yet, or has no started shard: nothing is searchable, only
                // the recent window.
                done.set(true);
                completeAll(new Found[lookups.size()]);
                return;
            }
            for (int i = 0; i < Math.min(responses.length, LookupIndices.MAX_SHARD_REQUESTS_IN_FLIGHT); i++) {
                sendNext();
            }
        }

        private void sendNext() {
            int slot = next.getAndIncrement();
            if (slot >= responses.length || done.get()) {
                return;
            }
            shardRequests.submit(threadContext.preserveContext(() -> send(slot)));
        }

        /** Sends the request of {@code slot} once the node's bound allows it; nothing when the batch is done. */
        private void send(int slot) {
            if (done.get()) {
                // Failed or timed out while this request waited: its place goes to the next one.
                shardRequests.release();
                return;
            }
            String shardIndex =
                    selection.oldestFirst().get(indexOf[slot]).getIndex().getName();
            List<String> leftOut = new ArrayList<>(lookups.size());
            for (Lookup lookup : lookups) {
                leftOut.add(lookup.id() != null && shardIndex.equals(lookup.writtenTo()) ? lookup.id() : "");
            }
            ShardMatchRequest request = new ShardMatchRequest(
                    shardIndex,
                    shardOf[slot],
                    spec,
                    new ShardMatchRequest.Documents(leftOut, sources, queries),
                    maxCandidates,
                    containment == null ? targetField + "." + ClusterAssignment.CLUSTER : null);
            holdsPlace.set(slot, 1);
            if (timerStarted.compareAndSet(false, true)) {
                startTimer();
            }
            ActionListener<ShardMatchResponse> listener = ActionListener.runBefore(
                    ActionListener.wrap(response -> answered(slot, response), e -> failed(slot, e)),
                    () -> givePlaceBack(slot));
            try {
                client.execute(NearDupLookupAction.INSTANCE, request, listener);
            } catch (RuntimeException e) {
                listener.onFailure(e);
            }
        }

        /**
         * The timeout counts from the batch's first request sent, not from its arrival: with a bulk's lookups into
         * many indices, a batch may first wait for a place among the node's requests (see {@link ShardRequestLimit}),
         * and that wait is the other batches' lookups, not its own. On timeout the places of its requests still in
         * flight are given back, so that a shard that never answers cannot hold the node's places.
         */
        private void startTimer() {
            timer = scheduler.apply(timeout.millis(), () -> {
                if (done.compareAndSet(false, true)) {
                    for (int slot = 0; slot < responses.length; slot++) {
                        givePlaceBack(slot);
                    }
                    failAll(new OpenSearchTimeoutException(
                            "[" + TYPE + "] the lookup in [" + lookupName + "] took more than [" + timeout + "]"));
                }
            });
        }

        private void cancelTimer() {
            Scheduler.ScheduledCancellable started = timer;
            if (started != null) {
                started.cancel();
            }
        }

        private void givePlaceBack(int slot) {
            if (holdsPlace.compareAndSet(slot, 1, 0)) {
                shardRequests.release();
            }
        }

        private void answered(int slot, ShardMatchResponse response) {
            responses[slot] = response;
            if (pending.decrementAndGet() == 0) {
                finish();
            } else {
                sendNext();
            }
        }

        private void failed(int slot, Exception e) {
            if (selection.spansIndices() && ExceptionsHelper.status(e) == RestStatus.FORBIDDEN) {
                if (firstForbidden == null) {
                    firstForbidden = e;
                }
                forbidden.incrementAndGet();
                answered(slot, null);
                return;
            }
            if (done.compareAndSet(false, true)) {
                cancelTimer();
                failAll(e);
            }
        }

        private void failAll(Exception e) {
            for (Lookup lookup : lookups) {
                lookup.completion().accept(null, e);
            }
        }

        private void finish() {
            if (done.compareAndSet(false, true) == false) {
                return;
            }
            cancelTimer();
            if (forbidden.get() == responses.length) {
                failAll(firstForbidden);
                return;
            }
            completeAll(containment == null ? best() : mostContaining());
        }

        /** In the documents' order, so that one found in the recent window by a later one is decided first. */
        private void completeAll(Found[] found) {
            for (int q = 0; q < lookups.size(); q++) {
                complete(lookups.get(q), found[q]);
            }
        }

        /**
         * Each document's match of highest similarity; ties to the older index, then the lower shard, then the shard's
         * order.
         */
        private Found[] best() {
            Found[] best = new Found[lookups.size()];
            for (int slot = 0; slot < responses.length; slot++) {
                ShardMatchResponse response = responses[slot];
                for (int i = 0; response != null && i < response.size(); i++) {
                    int q = response.query(i);
                    if (best[q] == null || response.similarity(i) > best[q].similarity()) {
                        String cluster = response.matchedCluster(i);
                        // A cluster whose assignment names no index is of the matched document's own index.
                        String clusterIndex = cluster == null ? null : response.matchedClusterIndex(i);
                        best[q] = new Found(
                                response.matchedId(i),
                                indexName(slot),
                                indexOf[slot],
                                cluster == null ? response.matchedId(i) : cluster,
                                clusterIndex == null ? indexName(slot) : clusterIndex,
                                response.similarity(i));
                    }
                }
            }
            return best;
        }

        /**
         * Each document's match of highest containment, ties to the older index, then to the smallest {@code _id}: the
         * same answer whichever shard answers first.
         */
        private Found[] mostContaining() {
            Found[] best = new Found[lookups.size()];
            for (int slot = 0; slot < responses.length; slot++) {
                ShardMatchResponse response = responses[slot];
                for (int i = 0; response != null && i < response.size(); i++) {
                    int q = response.query(i);
                    best[q] = moreContaining(
                            best[q],
                            new Found(
                                    response.matchedId(i),
                                    indexName(slot),
                                    indexOf[slot],
                                    null,
                                    null,
                                    response.similarity(i)));
                }
            }
            return best;
        }

        /** The index of the request's shard, written beside a match's {@code _id} where the name spans indices. */
        private String indexName(int slot) {
            return selection.spansIndices()
                    ? selection.oldestFirst().get(indexOf[slot]).getIndex().getName()
                    : null;
        }
    }

    /**
     * The window's scope for documents looked up in {@code lookupName}: that name (a data stream's or an alias's,
     * not the index it stands for now, so that a copy indexed right after a rollover finds its original indexed right
     * before it) and, beside the Security plugin, the identity of the user indexing (name, backend roles, roles,
     * tenant), so that no user's answer names a document only another user has indexed and not yet refreshed.
     */
    private String windowScope(String lookupName) {
        Object user = threadContext.getTransient(SECURITY_USER_INFO);
        return user == null ? lookupName : lookupName + '\u0000' + user;
    }

    /**
     * Writes the answer once the document's own lookup succeeded. A recent match whose document is
     * still being looked up is used only once that document is accepted; if it is withdrawn, the
     * window is asked again without it.
     */
    private void complete(Lookup lookup, Found indexed) {
        RecentFingerprints.Match match;
        try {
            match = lookup.recentMatch().get();
            if (match != null && match.entry().accepted() == false) {
                match.entry().whenDecided(() -> complete(lookup, indexed));
                return;
            }
            write(lookup, indexed, match);
        } catch (RuntimeException e) {
            lookup.completion().accept(null, e);
            return;
        }
        lookup.completion().accept(lookup.document(), null);
    }

    /**
     * The kind of {@code field} as {@code index}'s mapping has it, never guessed from its name; the lookup's options
     * checked against it.
     *
     * @throws NearDupOption.Invalid naming [field] when it is no fingerprint field there, or the option that does not
     *     apply to its kind
     */
    static FingerprintKind kindOf(Map<String, Object> mapping, String where, String field, Set<NearDupOption> options) {
        Map<?, ?> mapped = mapping == null ? null : MappingPaths.find(mapping, field);
        FingerprintKind kind = mapped == null ? null : FingerprintKind.ofType(mapped.get("type"));
        if (kind == null) {
            throw new NearDupOption.Invalid(
                    "field",
                    "[" + field + "] is not mapped as [simhash] or [minhash] in " + where
                            + ": name the [simhash] or [minhash] field of a fingerprint object (e.g. [body_fp.minhash])");
        }
        NearDupOption.requireApplicable(options, kind, field);
        if (kind == FingerprintKind.SIMHASH && options.contains(NearDupOption.MIN_SIMILARITY)) {
            // The recent window compares simhashes alone; the query would verify on the sibling minhash.
            throw new NearDupOption.Invalid(
                    NearDupOption.MIN_SIMILARITY,
                    "applies to [minhash] fields; [" + field + "] is a [simhash] field: use [max_distance]");
        }
        return kind;
    }

    private static Set<NearDupOption> optionsSet(NearDupOptions options, Containment containment) {
        Set<NearDupOption> set = EnumSet.noneOf(NearDupOption.class);
        set.addAll(options.set().keySet());
        if (containment != null) {
            set.add(NearDupOption.MIN_CONTAINMENT);
            set.add(NearDupOption.CONTAINED);
        }
        return set;
    }

    /**
     * A match: the document's {@code _id} and index ({@code indexOrder} its index's place, oldest first, among those
     * searched; -1 for a document of the recent window), its cluster (and that cluster's index) and its similarity or
     * containment.
     */
    private record Found(
            String id, String index, int indexOrder, String cluster, String clusterIndex, double similarity) {}

    /**
     * The part of the recent window a {@code minhash} fingerprint is compared in: one a scheme and a format, since
     * signatures of two formats never meet (the containment lookup keeps the same parts).
     */
    private static int windowPart(FingerprintFormat format, int scheme) {
        return 31 * scheme + format.number();
    }

    /**
     * Of two matches (either may be null), the one of higher containment, compared as the shards score (floats), then
     * the one in the older of two indices searched, then the smaller {@code _id}.
     */
    private static Found moreContaining(Found a, Found b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        int byContainment = Float.compare((float) a.similarity(), (float) b.similarity());
        if (byContainment != 0) {
            return byContainment > 0 ? a : b;
        }
        if (a.indexOrder() >= 0 && b.indexOrder() >= 0 && a.indexOrder() != b.indexOrder()) {
            return a.indexOrder() < b.indexOrder() ? a : b;
        }
        return a.id().compareTo(b.id()) <= 0 ? a : b;
    }

    private void write(Lookup lookup, Found indexed, RecentFingerprints.Match recentMatch) {
        List<LookupWriteIndices.Correction> corrections = new ArrayList<>(2);
        if (containment != null) {
            writeContainment(lookup.document(), indexed, recentMatch, corrections);
            accept(lookup, null, null, null);
        } else {
            writeSimilarity(lookup, indexed, recentMatch, corrections);
        }
        if (lookup.placement() != null) {
            lookup.bulk().record(lookup.slot(), lookup.placement(), corrections);
        }
    }

    /**
     * The document's entry in the recent window accepted, with the cluster its lookup chose, and where the document and
     * that cluster's index are assumed to be written ({@code clusterPlacement}, null where the index is known).
     */
    private void accept(
            Lookup lookup, LookupWriteIndices.Placement clusterPlacement, String cluster, String clusterIndex) {
        RecentFingerprints.Entry self = lookup.self();
        if (self == null) {
            return;
        }
        if (lookup.placement() != null) {
            self.attach(new LookupWriteIndices.Placed(lookup.placement(), clusterPlacement));
        }
        recent.accept(self, cluster, clusterIndex);
    }

    /**
     * Where a match found in the recent window is written, as far as is known now: an entry of a bulk whose write
     * began is named where it went ({@link LookupWriteIndices}), else where its lookup assumed it would go.
     */
    private static LookupWriteIndices.Placed placed(RecentFingerprints.Entry entry) {
        return entry.attachment() instanceof LookupWriteIndices.Placed placed ? placed : null;
    }

    /**
     * A similarity lookup's answer, and the document's entry accepted with it; the names that came from an assumed
     * write index are added to {@code corrections}.
     */
    private void writeSimilarity(
            Lookup lookup,
            Found indexed,
            RecentFingerprints.Match recentMatch,
            List<LookupWriteIndices.Correction> corrections) {
        String duplicateOf = null;
        String duplicateOfIndex = null;
        String cluster = null;
        String clusterIndex = null;
        double similarity = 0;
        LookupWriteIndices.Placement duplicatePlacement = null;
        LookupWriteIndices.Placement clusterPlacement = null;
        if (indexed != null) {
            duplicateOf = indexed.id();
            duplicateOfIndex = indexed.index();
            cluster = indexed.cluster();
            clusterIndex = indexed.clusterIndex();
            similarity = indexed.similarity();
        }
        if (recentMatch != null && (indexed == null || recentMatch.similarity() > similarity)) {
            RecentFingerprints.Entry entry = recentMatch.entry();
            LookupWriteIndices.Placed placed = placed(entry);
            duplicateOf = entry.id();
            duplicatePlacement = placed == null ? null : placed.home();
            duplicateOfIndex = duplicatePlacement == null ? entry.home() : duplicatePlacement.index();
            cluster = entry.cluster();
            clusterPlacement = placed == null ? null : placed.clusterIndex();
            clusterIndex = clusterPlacement == null ? entry.clusterIndex() : clusterPlacement.index();
            similarity = recentMatch.similarity();
        }
        String id = lookup.id();
        if (duplicateOf == null && id == null) {
            return; // nothing can refer to a document without an _id, and it has no entry in the window
        }
        Map<String, Object> value;
        if (duplicateOf != null) {
            value = ClusterAssignment.duplicate(
                    cluster, duplicateOfIndex == null ? null : clusterIndex, duplicateOf, duplicateOfIndex, similarity);
        } else {
            RecentFingerprints.Entry self = lookup.self();
            clusterPlacement = lookup.placement();
            value = ClusterAssignment.original(
                    id, clusterPlacement != null ? clusterPlacement.index() : self == null ? null : self.home());
        }
        addCorrection(corrections, ClusterAssignment.CLUSTER_INDEX, clusterPlacement, value);
        addCorrection(
                corrections,
                ClusterAssignment.DUPLICATE_OF + ClusterAssignment.INDEX_SUFFIX,
                duplicatePlacement,
                value);
        lookup.document().setFieldValue(targetField, value);
        accept(lookup, clusterPlacement, ClusterAssignment.clusterOf(value), ClusterAssignment.clusterIndexOf(value));
    }

    private void addCorrection(
            List<LookupWriteIndices.Correction> corrections,
            String key,
            LookupWriteIndices.Placement placement,
            Map<String, Object> value) {
        if (placement != null && value.get(key) instanceof String written) {
            corrections.add(new LookupWriteIndices.Correction(targetField + "." + key, placement, written));
        }
    }

    /**
     * A containment lookup's answer, beside whatever else {@code target_field} holds: the best match's {@code _id}
     * ({@code .contained_in} or {@code .contains}, by direction) and its containment, to the precision the query
     * scores it; none found, neither field (any the document arrived with are removed, so no stale answer stays).
     */
    private void writeContainment(
            IngestDocument document,
            Found indexed,
            RecentFingerprints.Match recentMatch,
            List<LookupWriteIndices.Correction> corrections) {
        LookupWriteIndices.Placed placed = recentMatch == null ? null : placed(recentMatch.entry());
        Found best = moreContaining(
                indexed,
                recentMatch == null
                        ? null
                        : new Found(
                                recentMatch.entry().id(),
                                placed == null
                                        ? recentMatch.entry().home()
                                        : placed.home().index(),
                                -1,
                                null,
                                null,
                                recentMatch.similarity()));
        String idKey = containment.contained() == Containment.Contained.LIKE
                ? ClusterAssignment.CONTAINED_IN
                : ClusterAssignment.CONTAINS;
        String idField = targetField + "." + idKey;
        String indexField = idField + ClusterAssignment.INDEX_SUFFIX;
        String scoreField = targetField + "." + ClusterAssignment.CONTAINMENT;
        for (String stale : new String[] {idField, indexField, scoreField}) {
            if (document.hasField(stale)) {
                document.removeField(stale);
            }
        }
        if (best != null) {
            document.setFieldValue(idField, best.id());
            if (best.index() != null) {
                document.setFieldValue(indexField, best.index());
                if (best.indexOrder() < 0 && placed != null) {
                    corrections.add(new LookupWriteIndices.Correction(indexField, placed.home(), best.index()));
                }
            }
            // The float the query scores with, written as its shortest decimal (0.9, not 0.8999999761581543).
            document.setFieldValue(scoreField, Double.parseDouble(Float.toString((float) best.similarity())));
        }
    }

    /** Reads the processor's configuration; each bad option fails the pipeline PUT naming it. */
    public static final class Factory implements Processor.Factory {
        /** The node setting of the search thread pool's queue, which the lookups' shard requests wait in. */
        static final String SEARCH_QUEUE_SIZE = "thread_pool.search.queue_size";

        static final int DEFAULT_SEARCH_QUEUE_SIZE = 1_000;

        private final Client client;
        private final ClusterService clusterService;
        private final ThreadContext threadContext;
        private final BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler;
        private final ShardRequestLimit shardRequests;

        /** @param nodeSettings the node's settings, which size the search thread pool's queue */
        public Factory(
                Client client,
                ClusterService clusterService,
                ThreadContext threadContext,
                BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler,
                Settings nodeSettings) {
            this.client = client;
            this.clusterService = clusterService;
            this.threadContext = threadContext;
            this.scheduler = scheduler;
            this.shardRequests = new ShardRequestLimit(ShardRequestLimit.forSearchQueue(
                    nodeSettings.getAsInt(SEARCH_QUEUE_SIZE, DEFAULT_SEARCH_QUEUE_SIZE)));
        }

        @Override
        public NearDupLookupProcessor create(
                Map<String, Processor.Factory> registry, String tag, String description, Map<String, Object> config) {
            String field = ConfigurationUtils.readStringProperty(TYPE, tag, config, "field");
            if (field.isBlank()) {
                throw newConfigurationException(TYPE, tag, "field", "must not be empty");
            }
            String index = ConfigurationUtils.readOptionalStringProperty(TYPE, tag, config, "index");
            String targetField = ConfigurationUtils.readStringProperty(TYPE, tag, config, "target_field");
            if (targetField.isBlank() || METADATA_FIELDS.contains(targetField.split("\\.", 2)[0])) {
                throw newConfigurationException(
                        TYPE,
                        tag,
                        "target_field",
                        "must be a field path outside the metadata, got [" + targetField + "]");
            }
            NearDupOptions.Reader options = new NearDupOptions.Reader(OPTIONS, NOT_AN_OPTION);
            Containment containment;
            try {
                options.readFrom(config);
                if (options.has(NearDupOption.MAX_DISTANCE)) {
                    // One field, one kind: a simhash lookup matches by max_distance, a minhash one by the others.
                    for (NearDupOption minhashOnly : OPTIONS) {
                        if (minhashOnly != NearDupOption.MAX_DISTANCE && options.has(minhashOnly)) {
                            throw new NearDupOption.Invalid(
                                    minhashOnly,
                                    "cannot be combined with [max_distance]: [max_distance] is for a [simhash] field,"
                                            + " [" + minhashOnly.paramName() + "] for a [minhash] field");
                        }
                    }
                }
                containment = options.containment();
            } catch (NearDupOption.Invalid e) {
                throw newConfigurationException(TYPE, tag, e.option(), e.reason());
            }
            NearDupOptions matching = options.options();
            Integer maxCandidatesSet = readOptionalInt(tag, config, "max_candidates", 1, MAX_MAX_CANDIDATES);
            int maxCandidates = maxCandidatesSet != null ? maxCandidatesSet : DEFAULT_MAX_CANDIDATES;
            TimeValue timeout = readTime(tag, config, "timeout", DEFAULT_TIMEOUT, MAX_TIMEOUT);
            if (timeout.nanos() == 0) {
                throw newConfigurationException(TYPE, tag, "timeout", "must be more than [0s]");
            }
            Integer recentSizeSet = readOptionalInt(tag, config, "recent_size", 0, MAX_RECENT_SIZE);
            int recentSize = recentSizeSet != null ? recentSizeSet : DEFAULT_RECENT_SIZE;
            TimeValue recentTtl = readTime(tag, config, "recent_ttl", DEFAULT_RECENT_TTL, MAX_RECENT_TTL);
            boolean ignoreMissing = ConfigurationUtils.readBooleanProperty(TYPE, tag, config, "ignore_missing", false);
            Integer maxIndicesSet = readOptionalInt(tag, config, "max_indices", 1, LookupIndices.MAX_MAX_INDICES);
            int maxIndices = maxIndicesSet != null ? maxIndicesSet : LookupIndices.DEFAULT_MAX_INDICES;
            TimeValue maxAge = readTime(tag, config, "max_age", null, LookupIndices.MAX_MAX_AGE);
            if (maxAge != null && maxAge.millis() == 0) {
                throw newConfigurationException(TYPE, tag, "max_age", "must be more than [0s]");
            }
            return new NearDupLookupProcessor(
                    tag,
                    description,
                    field,
                    index,
                    targetField,
                    matching,
                    containment,
                    maxCandidates,
                    timeout,
                    ignoreMissing,
                    maxIndices,
                    maxAge,
                    new RecentFingerprints(recentSize, recentTtl.nanos()),
                    shardRequests,
                    client,
                    clusterService,
                    threadContext,
                    scheduler,
                    System::nanoTime);
        }

        private static Integer readOptionalInt(String tag, Map<String, Object> config, String name, int min, int max) {
            try {
                return NearDupOption.removeIntSetting(config, name, min, max);
            } catch (NearDupOption.Invalid e) {
                throw newConfigurationException(TYPE, tag, e.option(), e.reason());
            }
        }

        private static TimeValue readTime(
                String tag, Map<String, Object> config, String name, TimeValue defaultValue, TimeValue max) {
            Object value = config.remove(name);
            if (value == null) {
                return defaultValue;
            }
            TimeValue parsed;
            try {
                parsed = TimeValue.parseTimeValue(value.toString(), name);
            } catch (RuntimeException e) {
                throw newConfigurationException(
                        TYPE, tag, name, "must be a time value such as [10s], got [" + value + "]");
            }
            if (parsed.nanos() < 0 || parsed.compareTo(max) > 0) {
                throw newConfigurationException(TYPE, tag, name, "must be in [0s, " + max + "], got [" + value + "]");
            }
            return parsed;
        }
    }
}
