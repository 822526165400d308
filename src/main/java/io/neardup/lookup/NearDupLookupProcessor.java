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
import io.neardup.match.MappingPaths;
import io.neardup.match.MatchSpec;
import io.neardup.match.NearDupLookupAction;
import io.neardup.match.ShardMatchRequest;
import io.neardup.match.ShardMatchResponse;
import io.neardup.match.TransportShardMatchAction;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.opensearch.OpenSearchTimeoutException;
import org.opensearch.cluster.ClusterState;
import org.opensearch.cluster.metadata.IndexAbstraction;
import org.opensearch.cluster.metadata.IndexMetadata;
import org.opensearch.cluster.metadata.MappingMetadata;
import org.opensearch.cluster.service.ClusterService;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.core.action.ActionListener;
import org.opensearch.index.IndexNotFoundException;
import org.opensearch.ingest.AbstractProcessor;
import org.opensearch.ingest.ConfigurationUtils;
import org.opensearch.ingest.IngestDocument;
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
    /** The matching options set, checked against the field's kind in the lookup index's mapping. */
    private final Set<NearDupOption> optionsSet;
    /** The kind of {@link #field} in the lookup index's mapping, as last read (a mapping is read once a version). */
    private volatile MappedKind mappedKind;

    private final RecentFingerprints recent;
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
            RecentFingerprints recent,
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
        this.optionsSet = optionsSet(options, containment);
        this.recent = recent;
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
        final Map<String, Object> fingerprintSource;
        final RecentFingerprints.Entry self;
        final Supplier<RecentFingerprints.Match> recentMatch;
        final IndexMetadata lookupMetadata;
        String id = document.getSourceAndMetadata().get("_id") instanceof String s ? s : null;
        String lookupIndex =
                index != null ? index : (String) document.getSourceAndMetadata().get("_index");
        try {
            Object stored = document.hasField(field) ? document.getFieldValue(field, Object.class) : null;
            if (stored == null) {
                // A text without tokens has no fingerprint to compare: nothing can be its near-duplicate, and failing
                // it would keep it out of the index.
                if (ignoreMissing || fingerprintedWithoutTokens(document)) {
                    handler.accept(document, null);
                    return;
                }
                throw new IllegalArgumentException("[" + TYPE + "] the document has no fingerprint at [" + field
                        + "]; place this " + "processor after [near_dup_fingerprint] (or set [ignore_missing])");
            }
            lookupMetadata = lookupIndex(lookupIndex);
            FingerprintKind kind = mappedKind(lookupMetadata);
            FingerprintObject.Parts parts = FingerprintObject.read(stored, FingerprintObject.ANY_KEYS);
            fingerprintSource =
                    MappingPaths.nest(spec.sourceToMatch(), document.getFieldValue(spec.sourceToMatch(), Object.class));
            String scope = windowScope(lookupMetadata.getIndex().getName());
            long now = nanoTime.getAsLong();
            int scheme = parts.scheme() == null ? 0 : parts.scheme().hashCode();
            if (kind == FingerprintKind.SIMHASH) {
                long value = SimhashCodec.parseHex(parts.value());
                int distance = spec.options().effectiveMaxDistance();
                self = id == null ? null : recent.addSimhash(scope, id, scheme, value, now);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch =
                        () -> recent.closestSimhash(scope, id, scheme, value, distance, before, nanoTime.getAsLong());
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
                self = id == null ? null : recent.addShingleSet(scope, id, formatScheme, shingles, now);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch = () -> recent.mostContaining(
                        scope,
                        id,
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
                self = id == null ? null : recent.addSignature(scope, id, formatScheme, signature, shingles, now);
                long before = self == null ? recent.nextArrival() : self.arrival();
                recentMatch = () -> recent.mostSimilarSignature(
                        scope, id, formatScheme, signature, shingles, tau, before, nanoTime.getAsLong());
            }
        } catch (RuntimeException e) {
            handler.accept(null, e);
            return;
        }
        BiConsumer<IngestDocument, Exception> completion = (done, e) -> {
            if (e != null && self != null) {
                recent.withdraw(self);
            }
            handler.accept(done, e);
        };
        // One request per shard straight to a copy of it, the document's query run there on the shard's structures:
        // no search action around it (can_match, query and fetch phases), which would cost more than the lookup itself.
        // It runs as the user indexing the document: the Security plugin checks the lookup's own action on the lookup
        // index, and the shard reads through that user's reader (DLS, FLS).
        int shards = lookupMetadata.getNumberOfShards();
        ShardMatchResponse[] responses = new ShardMatchResponse[shards];
        AtomicInteger pending = new AtomicInteger(shards);
        AtomicBoolean done = new AtomicBoolean();
        Scheduler.ScheduledCancellable timer = scheduler.apply(timeout.millis(), () -> {
            if (done.compareAndSet(false, true)) {
                completion.accept(
                        null,
                        new OpenSearchTimeoutException(
                                "[" + TYPE + "] the lookup in [" + lookupIndex + "] took more than [" + timeout + "]"));
            }
        });
        for (int shard = 0; shard < shards; shard++) {
            int slot = shard;
            ShardMatchRequest request = new ShardMatchRequest(
                    lookupMetadata.getIndex().getName(),
                    shard,
                    spec,
                    new ShardMatchRequest.Documents(List.of(id == null ? "" : id), List.of(fingerprintSource)),
                    maxCandidates,
                    containment == null ? targetField + "." + ClusterAssignment.CLUSTER : null);
            client.execute(
                    NearDupLookupAction.INSTANCE,
                    request,
                    ActionListener.wrap(
                            response -> {
                                responses[slot] = response;
                                if (pending.decrementAndGet() == 0 && done.compareAndSet(false, true)) {
                                    timer.cancel();
                                    complete(
                                            document,
                                            id,
                                            containment == null ? best(responses) : mostContaining(responses),
                                            recentMatch,
                                            self,
                                            completion);
                                }
                            },
                            e -> {
                                if (done.compareAndSet(false, true)) {
                                    timer.cancel();
                                    completion.accept(null, e);
                                }
                            }));
        }
    }

    /**
     * The window's scope for documents looked up in {@code concreteIndex}: that index and, beside the
     * Security plugin, the identity of the user indexing (name, backend roles, roles, tenant), so
     * that no user's answer names a document only another user has indexed and not yet refreshed.
     */
    private String windowScope(String concreteIndex) {
        Object user = threadContext.getTransient(SECURITY_USER_INFO);
        return user == null ? concreteIndex : concreteIndex + '\u0000' + user;
    }

    /**
     * Writes the answer once the document's own lookup succeeded. A recent match whose document is
     * still being looked up is used only once that document is accepted; if it is withdrawn, the
     * window is asked again without it.
     */
    private void complete(
            IngestDocument document,
            String id,
            Found indexed,
            Supplier<RecentFingerprints.Match> recentMatch,
            RecentFingerprints.Entry self,
            BiConsumer<IngestDocument, Exception> completion) {
        RecentFingerprints.Match match;
        try {
            match = recentMatch.get();
            if (match != null && match.entry().accepted() == false) {
                match.entry().whenDecided(() -> complete(document, id, indexed, recentMatch, self, completion));
                return;
            }
            write(document, id, indexed, match, self);
        } catch (RuntimeException e) {
            completion.accept(null, e);
            return;
        }
        completion.accept(document, null);
    }

    /** The one index {@code name} (an index, or an alias or data stream of one index) names now. */
    private IndexMetadata lookupIndex(String name) {
        ClusterState state = clusterService.state();
        IndexAbstraction abstraction = state.metadata().getIndicesLookup().get(name);
        if (abstraction == null) {
            throw new IndexNotFoundException(name);
        }
        if (abstraction.getIndices().size() != 1) {
            throw new IllegalArgumentException("[" + TYPE + "] [index] [" + name + "] names "
                    + abstraction.getIndices().size() + " indices; the lookup needs one index (or an alias of one)");
        }
        return abstraction.getIndices().get(0);
    }

    private record MappedKind(String indexUuid, long mappingVersion, FingerprintKind kind) {}

    /**
     * {@link #field}'s kind in {@code index}'s mapping, the options checked against it; cached per mapping version. A
     * pipeline does not know the index its documents go to (the default lookup index is each document's own), so this
     * is checked at the document, not when the pipeline is PUT: a document whose lookup index maps the field otherwise
     * fails with a 400 naming the option.
     */
    private FingerprintKind mappedKind(IndexMetadata index) {
        MappedKind known = mappedKind;
        if (known == null
                || known.indexUuid().equals(index.getIndexUUID()) == false
                || known.mappingVersion() != index.getMappingVersion()) {
            try {
                known = new MappedKind(
                        index.getIndexUUID(), index.getMappingVersion(), kindOf(index, field, optionsSet));
            } catch (NearDupOption.Invalid e) {
                throw new IllegalArgumentException("[" + TYPE + "] " + e.getMessage(), e);
            }
            mappedKind = known;
        }
        return known.kind();
    }

    /**
     * The kind of {@code field} as {@code index}'s mapping has it, never guessed from its name; the lookup's options
     * checked against it.
     *
     * @throws NearDupOption.Invalid naming [field] when it is no fingerprint field there, or the option that does not
     *     apply to its kind
     */
    static FingerprintKind kindOf(IndexMetadata index, String field, Set<NearDupOption> options) {
        MappingMetadata mapping = index.mapping();
        Map<?, ?> mapped = mapping == null ? null : MappingPaths.find(mapping.sourceAsMap(), field);
        FingerprintKind kind = mapped == null ? null : FingerprintKind.ofType(mapped.get("type"));
        if (kind == null) {
            throw new NearDupOption.Invalid(
                    "field",
                    "[" + field + "] is not mapped as [simhash] or [minhash] in the lookup index ["
                            + index.getIndex().getName() + "]: name the [simhash] or [minhash] field of a fingerprint"
                            + " object (e.g. [body_fp.minhash])");
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

    private record Found(String id, String cluster, double similarity) {}

    private static Found best(ShardMatchResponse[] responses) {
        Found best = null;
        for (ShardMatchResponse response : responses) {
            for (int i = 0; i < response.size(); i++) {
                if (best == null || response.similarity(i) > best.similarity()) {
                    String cluster = response.matchedCluster(i);
                    best = new Found(
                            response.matchedId(i),
                            cluster == null ? response.matchedId(i) : cluster,
                            response.similarity(i));
                }
            }
        }
        return best;
    }

    /**
     * The part of the recent window a {@code minhash} fingerprint is compared in: one a scheme and a format, since
     * signatures of two formats never meet (the containment lookup keeps the same parts).
     */
    private static int windowPart(FingerprintFormat format, int scheme) {
        return 31 * scheme + format.number();
    }

    /**
     * The shards' match of highest containment, ties to the smallest {@code _id}: the same answer whichever shard
     * answers first.
     */
    private static Found mostContaining(ShardMatchResponse[] responses) {
        Found best = null;
        for (ShardMatchResponse response : responses) {
            for (int i = 0; i < response.size(); i++) {
                Found match = new Found(response.matchedId(i), null, response.similarity(i));
                best = moreContaining(best, match);
            }
        }
        return best;
    }

    /** Of two matches (either may be null), the one of higher containment, compared as the shards score (floats), then the smaller {@code _id}. */
    private static Found moreContaining(Found a, Found b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        int byContainment = Float.compare((float) a.similarity(), (float) b.similarity());
        if (byContainment != 0) {
            return byContainment > 0 ? a : b;
        }
        return a.id().compareTo(b.id()) <= 0 ? a : b;
    }

    private void write(
            IngestDocument document,
            String id,
            Found indexed,
            RecentFingerprints.Match recentMatch,
            RecentFingerprints.Entry self) {
        if (containment != null) {
            writeContainment(document, indexed, recentMatch, self);
            return;
        }
        String duplicateOf = null;
        String cluster = null;
        double similarity = 0;
        if (indexed != null) {
            duplicateOf = indexed.id();
            cluster = indexed.cluster();
            similarity = indexed.similarity();
        }
        if (recentMatch != null && (indexed == null || recentMatch.similarity() > similarity)) {
            duplicateOf = recentMatch.entry().id();
            cluster = recentMatch.entry().cluster();
            similarity = recentMatch.similarity();
        }
        if (duplicateOf == null && id == null) {
            return;
        }
        Map<String, Object> value = duplicateOf != null
                ? ClusterAssignment.duplicate(cluster, duplicateOf, similarity)
                : ClusterAssignment.original(id);
        document.setFieldValue(targetField, value);
        if (self != null) {
            recent.accept(self, ClusterAssignment.clusterOf(value));
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
            RecentFingerprints.Entry self) {
        Found best = moreContaining(
                indexed,
                recentMatch == null ? null : new Found(recentMatch.entry().id(), null, recentMatch.similarity()));
        String idField = targetField + "."
                + (containment.contained() == Containment.Contained.LIKE
                        ? ClusterAssignment.CONTAINED_IN
                        : ClusterAssignment.CONTAINS);
        String scoreField = targetField + "." + ClusterAssignment.CONTAINMENT;
        if (best == null) {
            for (String stale : new String[] {idField, scoreField}) {
                if (document.hasField(stale)) {
                    document.removeField(stale);
                }
            }
        } else {
            document.setFieldValue(idField, best.id());
            // The float the query scores with, written as its shortest decimal (0.9, not 0.8999999761581543).
            document.setFieldValue(scoreField, Double.parseDouble(Float.toString((float) best.similarity())));
        }
        if (self != null) {
            recent.accept(self, null);
        }
    }

    /** Reads the processor's configuration; each bad option fails the pipeline PUT naming it. */
    public static final class Factory implements Processor.Factory {
        private final Client client;
        private final ClusterService clusterService;
        private final ThreadContext threadContext;
        private final BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler;

        public Factory(
                Client client,
                ClusterService clusterService,
                ThreadContext threadContext,
                BiFunction<Long, Runnable, Scheduler.ScheduledCancellable> scheduler) {
            this.client = client;
            this.clusterService = clusterService;
            this.threadContext = threadContext;
            this.scheduler = scheduler;
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
                    new RecentFingerprints(recentSize, recentTtl.nanos()),
                    client,
                    clusterService,
                    threadContext,
                    scheduler,
                    System::nanoTime);
        }

        private static Integer readOptionalInt(String tag, Map<String, Object> config, String name, int min, int max) {
            try {
                return NearDupOption.readInt(config, name, min, max);
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
