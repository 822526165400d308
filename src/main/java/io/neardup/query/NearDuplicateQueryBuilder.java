/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.query;

import io.neardup.index.Containment;
import io.neardup.index.FingerprintFieldType;
import io.neardup.index.FingerprintFields;
import io.neardup.index.FingerprintKind;
import io.neardup.index.LikeFingerprints;
import io.neardup.index.MinhashFieldMapper;
import io.neardup.index.NearDupOption;
import io.neardup.index.NearDupOptions;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.SetOnce;
import org.opensearch.action.get.GetRequest;
import org.opensearch.action.ingest.GetPipelineAction;
import org.opensearch.action.ingest.GetPipelineRequest;
import org.opensearch.core.ParseField;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.xcontent.XContentBuilder;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.mapper.IdFieldMapper;
import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.query.AbstractQueryBuilder;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryRewriteContext;
import org.opensearch.index.query.QueryShardContext;
import org.opensearch.index.query.QueryShardException;

/**
 * {@code near_duplicate}: the documents whose {@code simhash} field is within {@code max_distance}
 * bits of a fingerprint, found by Probabilistic Simhash Matching (or exactly), or whose
 * {@code minhash} field has an estimated Jaccard similarity of at least {@code min_similarity},
 * found through LSH bands and verified on the whole signature; or, with {@code min_containment}, the
 * documents containing (or contained in) the {@code like} text by at least that share of its shingles.
 */
public final class NearDuplicateQueryBuilder extends AbstractQueryBuilder<NearDuplicateQueryBuilder> {

    public static final String NAME = NearDupOptions.QUERY;

    private static final ParseField FIELD = new ParseField("field");
    private static final ParseField LIKE = new ParseField("like");
    private static final ParseField INCLUDE_SELF = new ParseField("include_self");
    private static final ParseField IGNORE_UNMAPPED = new ParseField("ignore_unmapped");

    /** The names the processor gives the fingerprint fields of an object it writes, one per kind. */
    private static final List<String> SUBFIELD_NAMES = Arrays.stream(FingerprintKind.values())
            .map(FingerprintKind::typeName)
            .toList();

    private final String field;
    private final Like like;
    private NearDupOptions options = NearDupOptions.DEFAULTS;
    /** Set for a containment match, which takes none of {@link #options}; null for a similarity match. */
    private Containment containment;

    private boolean includeSelf = false;
    private boolean ignoreUnmapped = false;
    private final QueryServices services;
    /** Set while a rewrite waits for {@code like._id}'s document; such a builder cannot be sent anywhere. */
    private Supplier<Like> pendingFetch;
    /** Set while the rewrite checks that the caller may read {@code like.pipeline}. */
    private Supplier<Boolean> pendingPipelineCheck;

    public NearDuplicateQueryBuilder(String field, Like like, QueryServices services) {
        if (field == null || field.isBlank()) {
            throw new IllegalArgumentException("[" + NAME + "] requires a [field]");
        }
        this.field = field;
        this.like = Objects.requireNonNull(like, "[" + NAME + "] requires [like]");
        this.services = services;
    }

    public NearDuplicateQueryBuilder(StreamInput in, QueryServices services) throws IOException {
        super(in);
        this.field = in.readString();
        this.like = Like.readFrom(in);
        this.options = new NearDupOptions(in);
        this.containment = in.readOptionalWriteable(Containment::new);
        this.includeSelf = in.readBoolean();
        this.ignoreUnmapped = in.readBoolean();
        this.services = services;
    }

    @Override
    protected void doWriteTo(StreamOutput out) throws IOException {
        if (pendingFetch != null || pendingPipelineCheck != null) {
            throw new IllegalStateException(
                    "[" + NAME + "] cannot be serialized before its [like] is resolved: rewrite it first");
        }
        out.writeString(field);
        like.writeTo(out);
        options.writeTo(out);
        out.writeOptionalWriteable(containment);
        out.writeBoolean(includeSelf);
        out.writeBoolean(ignoreUnmapped);
    }

    public String field() {
        return field;
    }

    public Like like() {
        return like;
    }

    public NearDupOptions options() {
        return options;
    }

    /** Sets every option at once: the record was validated when built. */
    public NearDuplicateQueryBuilder options(NearDupOptions options) {
        this.options = Objects.requireNonNull(options);
        requireOneKindOfMatch();
        return this;
    }

    public Containment containment() {
        return containment;
    }

    /** Makes this a containment match ({@code min_containment}, {@code contained}); null makes it a similarity match. */
    public NearDuplicateQueryBuilder containment(Containment containment) {
        this.containment = containment;
        requireOneKindOfMatch();
        return this;
    }

    /** A containment match takes none of the similarity options: each one set is refused, by name. */
    private void requireOneKindOfMatch() {
        if (containment != null) {
            try {
                Containment.requireNoSimilarityOption(options);
            } catch (NearDupOption.Invalid e) {
                throw new IllegalArgumentException("[" + NAME + "] " + e.getMessage(), e);
            }
        }
    }

    public NearDuplicateQueryBuilder maxDistance(int maxDistance) {
        return options(options.withMaxDistance(maxDistance));
    }

    public NearDuplicateQueryBuilder mode(NearDupOptions.Mode mode) {
        return options(options.withMode(Objects.requireNonNull(mode)));
    }

    public NearDuplicateQueryBuilder maxFlips(int maxFlips) {
        return options(options.withMaxFlips(maxFlips));
    }

    /** @param prefixBits {@link NearDupOptions#AUTO_PREFIX_BITS} or 1 to {@value NearDupOptions#MAX_PREFIX_BITS} */
    public NearDuplicateQueryBuilder prefixBits(int prefixBits) {
        return options(options.withPrefixBits(prefixBits));
    }

    public NearDuplicateQueryBuilder firstMatch(boolean firstMatch) {
        return options(options.withFirstMatch(firstMatch));
    }

    public NearDuplicateQueryBuilder minSimilarity(double minSimilarity) {
        return options(options.withMinSimilarity(minSimilarity));
    }

    public NearDuplicateQueryBuilder minBandMatches(int minBandMatches) {
        return options(options.withMinBandMatches(minBandMatches));
    }

    public NearDuplicateQueryBuilder verification(NearDupOptions.Verification verification) {
        return options(options.withVerification(Objects.requireNonNull(verification)));
    }

    public NearDuplicateQueryBuilder includeSelf(boolean includeSelf) {
        this.includeSelf = includeSelf;
        return this;
    }

    public NearDuplicateQueryBuilder ignoreUnmapped(boolean ignoreUnmapped) {
        this.ignoreUnmapped = ignoreUnmapped;
        return this;
    }

    @Override
    protected void doXContent(XContentBuilder builder, Params params) throws IOException {
        builder.startObject(NAME);
        builder.field(FIELD.getPreferredName(), field);
        builder.field(LIKE.getPreferredName(), like);
        options.toXContent(builder, params);
        if (containment != null) {
            containment.toXContent(builder, params);
        }
        builder.field(INCLUDE_SELF.getPreferredName(), includeSelf);
        builder.field(IGNORE_UNMAPPED.getPreferredName(), ignoreUnmapped);
        printBoostAndQueryName(builder);
        builder.endObject();
    }

    public static NearDuplicateQueryBuilder fromXContent(XContentParser parser, QueryServices services)
            throws IOException {
        String field = null;
        Like like = null;
        NearDupOptions.Reader options = new NearDupOptions.Reader();
        Boolean includeSelf = null, ignoreUnmapped = null;
        float boost = DEFAULT_BOOST;
        String queryName = null;
        String name = null;
        XContentParser.Token token;
        try {
            while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
                if (token == XContentParser.Token.FIELD_NAME) {
                    name = parser.currentName();
                } else if (LIKE.match(name, parser.getDeprecationHandler())) {
                    like = Like.fromXContent(parser);
                } else if (token.isValue() == false && token != XContentParser.Token.VALUE_NULL) {
                    throw new ParsingException(
                            parser.getTokenLocation(),
                            "[" + NAME + "] [" + name + "] must be a value, got [" + token + "]");
                } else if (options.read(name, NearDupOption.valueOf(parser, name))) {
                    continue;
                } else if (FIELD.match(name, parser.getDeprecationHandler())) {
                    field = stringValue(parser, name);
                } else if (INCLUDE_SELF.match(name, parser.getDeprecationHandler())) {
                    includeSelf = NearDupOption.booleanValue(name, NearDupOption.valueOf(parser, name));
                } else if (IGNORE_UNMAPPED.match(name, parser.getDeprecationHandler())) {
                    ignoreUnmapped = NearDupOption.booleanValue(name, NearDupOption.valueOf(parser, name));
                } else if (BOOST_FIELD.match(name, parser.getDeprecationHandler())) {
                    boost = (float) NearDupOption.finiteNumber(name, NearDupOption.valueOf(parser, name));
                } else if (NAME_FIELD.match(name, parser.getDeprecationHandler())) {
                    queryName = stringValue(parser, name);
                } else {
                    throw new ParsingException(
                            parser.getTokenLocation(), "[" + NAME + "] query does not support [" + name + "]");
                }
            }
            if (field == null) {
                throw new ParsingException(parser.getTokenLocation(), "[" + NAME + "] requires a [field]");
            }
            if (like == null) {
                throw new ParsingException(
                        parser.getTokenLocation(),
                        "[" + NAME + "] requires [like]: {\"_id\": …}, {\"text\": …}, "
                                + "{\"simhash\": …} or {\"minhash\": …}");
            }
            NearDuplicateQueryBuilder builder = new NearDuplicateQueryBuilder(field, like, services)
                    .options(options.options())
                    .containment(options.containment());
            if (includeSelf != null) {
                builder.includeSelf(includeSelf);
            }
            if (ignoreUnmapped != null) {
                builder.ignoreUnmapped(ignoreUnmapped);
            }
            builder.boost(boost).queryName(queryName);
            return builder;
        } catch (NearDupOption.Invalid e) {
            throw new ParsingException(parser.getTokenLocation(), "[" + NAME + "] " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new ParsingException(parser.getTokenLocation(), e.getMessage(), e);
        }
    }

    /**
     * {@code field}, {@code _name}: a string (a number or a boolean taken as its text, as OpenSearch's queries take
     * them); null refused, which reading its text would fail with a 500.
     */
    private static String stringValue(XContentParser parser, String name) throws IOException {
        if (parser.currentToken() == XContentParser.Token.VALUE_NULL) {
            throw new NearDupOption.Invalid(name, "must be a string, got [null]");
        }
        return parser.text();
    }

    /**
     * Reads {@code like._id}'s document asynchronously, on the coordinating node, as {@code terms} does for a terms
     * lookup; the rewritten builder carries what was read to the shards, which read nothing. With {@code like._index},
     * once ({@link Like.Fetched}); without it the document lives in "the index being searched", so it is read once in
     * each index the request reads, and each shard takes its own index's answer ({@link Like.ReadInEachIndex},
     * {@link LikeResolver#readInEachIndex}).
     */
    @Override
    protected QueryBuilder doRewrite(QueryRewriteContext context) throws IOException {
        if (like instanceof Like.Text text
                && text.pipeline() != null
                && text.pipelineChecked() == false
                && context.convertToShardContext() == null) {
            return checkPipelineReadable(context);
        }
        if (pendingFetch != null) {
            Like fetched = pendingFetch.get();
            return fetched == null ? this : copyWith(fetched);
        }
        Supplier<Like> fetch;
        if (like instanceof Like.ById byId && byId.index() != null) {
            fetch = fetchFromNamedIndex(byId, context);
        } else if ((like instanceof Like.ById || like instanceof Like.ReadInEachIndex)
                && context.convertToCoordinatorContext() != null) {
            if (services == null) {
                throw new IllegalStateException("[" + NAME + "] was built without its node services");
            }
            if (like instanceof Like.ById
                    && services.resolver().readsOnTheCoordinator(context.convertToCoordinatorContext()) == false) {
                return this; // OpenSearch 3.0.x: each shard reads it (LikeResolver.readOnTheShard)
            }
            Like.ReadInEachIndex known = like instanceof Like.ReadInEachIndex read
                    ? read
                    : new Like.ReadInEachIndex(((Like.ById) like).id(), Map.of());
            fetch = services.resolver().readInEachIndex(known, field, context.convertToCoordinatorContext());
            if (fetch == null) {
                return known == like ? this : copyWith(known);
            }
        } else {
            return this;
        }
        NearDuplicateQueryBuilder pending = copyWith(like);
        pending.pendingFetch = fetch;
        return pending;
    }

    private Supplier<Like> fetchFromNamedIndex(Like.ById byId, QueryRewriteContext context) {
        SetOnce<Like> fetched = new SetOnce<>();
        String id = byId.id();
        String index = byId.index();
        GetRequest get = LikeResolver.getLiked(id, index, fingerprintObject());
        context.registerAsyncAction((client, listener) -> client.get(get, ActionListener.map(listener, response -> {
            if (response.isExists() == false) {
                throw new IllegalArgumentException(
                        "[like._id] document [" + id + "] not found in index [" + index + "]");
            }
            fetched.set(
                    Like.fetched(id, index, response.getSourceAsMap() == null ? Map.of() : response.getSourceAsMap()));
            return null;
        })));
        return fetched::get;
    }

    /**
     * A pipeline named in {@code like.pipeline} is read as the caller, once, by the rewrite on the coordinating node
     * (or, for a request that reaches a shard without it, by the shard's own rewrite), asynchronously, from that
     * node's cluster state: with the Security plugin a user without {@code cluster:admin/ingest/pipeline/get} is
     * refused (403) before any shard runs, rather than learning whether the pipeline exists. The rewritten text says
     * it was read ({@link Like.Text#pipelineChecked}, carried to the shards), so no shard waits on a read of its own;
     * one that was never read is refused there ({@link LikeResolver}).
     */
    private QueryBuilder checkPipelineReadable(QueryRewriteContext context) {
        if (pendingPipelineCheck != null) {
            if (pendingPipelineCheck.get() == null) {
                return this;
            }
            return copyWith(((Like.Text) like).pipelineCheckedText());
        }
        SetOnce<Boolean> readable = new SetOnce<>();
        String pipeline = ((Like.Text) like).pipeline();
        context.registerAsyncAction((client, listener) -> client.execute(
                GetPipelineAction.INSTANCE,
                new GetPipelineRequest(pipeline).local(true),
                ActionListener.map(listener, response -> {
                    if (response.isFound() == false) {
                        throw new IllegalArgumentException("[like.text] pipeline [" + pipeline + "] does not exist");
                    }
                    readable.set(true);
                    return null;
                })));
        NearDuplicateQueryBuilder pending = copyWith(like);
        pending.pendingPipelineCheck = readable::get;
        return pending;
    }

    /** The object holding the queried field and its siblings (a {@code simhash} query with {@code min_similarity} reads both). */
    private String fingerprintObject() {
        return LikeResolver.fingerprintObjectOf(field);
    }

    private NearDuplicateQueryBuilder copyWith(Like other) {
        NearDuplicateQueryBuilder copy = new NearDuplicateQueryBuilder(field, other, services);
        copy.options = options;
        copy.containment = containment;
        copy.includeSelf = includeSelf;
        copy.ignoreUnmapped = ignoreUnmapped;
        return copy.boost(boost).queryName(queryName);
    }

    @Override
    protected Query doToQuery(QueryShardContext context) throws IOException {
        MappedFieldType fieldType = context.fieldMapper(field);
        if (fieldType == null) {
            if (ignoreUnmapped) {
                return new MatchNoDocsQuery("[" + NAME + "] field [" + field + "] is not mapped");
            }
            String subfields = fingerprintSubfields(context);
            if (subfields.isEmpty() == false) {
                throw new QueryShardException(
                        context,
                        "[" + NAME + "] field [" + field + "] is a fingerprint object; query one of its fields: "
                                + subfields);
            }
            throw new QueryShardException(
                    context,
                    "[" + NAME + "] field [" + field + "] is not mapped; set [ignore_unmapped] to match "
                            + "nothing in indices without it");
        }
        if (fieldType instanceof FingerprintFieldType == false) {
            throw new QueryShardException(
                    context,
                    "[" + NAME + "] field [" + field + "] is of type [" + fieldType.typeName()
                            + "], expected [simhash] or [minhash]");
        }
        if (fieldType.hasDocValues() == false) {
            throw new QueryShardException(
                    context, "[" + NAME + "] field [" + field + "] has no doc values; map it with [doc_values: true]");
        }
        if (services == null) {
            throw new IllegalStateException("[" + NAME + "] was built without its node services");
        }
        FingerprintFieldType fingerprint = (FingerprintFieldType) fieldType;
        String selfId = includeSelf ? null : likedId();
        Query query;
        try {
            if (containment != null) {
                query = fingerprint.containmentQuery(containment, new Targets(), selfId, context, services.cache());
            } else {
                try {
                    options.requireApplicableTo(fingerprint.kind(), field);
                } catch (NearDupOption.Invalid e) {
                    throw new IllegalArgumentException("[" + NAME + "] " + e.getMessage(), e);
                }
                query = fingerprint.nearDuplicateQuery(options, new Targets(), selfId, context, services.cache());
            }
        } catch (IllegalArgumentException e) {
            throw new QueryShardException(context, e.getMessage(), e);
        }
        if (selfId == null) {
            return query;
        }
        MappedFieldType idField = context.fieldMapper(IdFieldMapper.NAME);
        return new BooleanQuery.Builder()
                .add(query, BooleanClause.Occur.MUST)
                .add(idField.termQuery(selfId, context), BooleanClause.Occur.MUST_NOT)
                .build();
    }

    /**
     * {@code [f.simhash], [f.minhash]} for those of {@link #field}'s subfields named as the processor names
     * them and mapped as such, or empty.
     */
    private String fingerprintSubfields(QueryShardContext context) {
        return FingerprintFields.fingerprintSubfields(field, SUBFIELD_NAMES, kind -> {
            MappedFieldType subfield = context.fieldMapper(field + "." + kind);
            return subfield != null && kind.equals(subfield.typeName()) ? kind : null;
        });
    }

    /** The {@code _id} of the document {@code like} names, left out of the hits unless {@code include_self}; null for a text or a bare fingerprint. */
    private String likedId() {
        if (like instanceof Like.ById byId) {
            return byId.id();
        }
        if (like instanceof Like.Fetched fetched) {
            return fetched.id();
        }
        if (like instanceof Like.ReadInEachIndex read) {
            return read.id();
        }
        return null; // Text, Simhash, Minhash
    }

    /** {@code like}, resolved on this shard for each field the field type asks for. */
    private final class Targets implements LikeFingerprints {
        @Override
        public Simhash simhash(String field, QueryShardContext context) {
            return services.resolver().resolveSimhash(like, field, context);
        }

        @Override
        public Minhash minhash(MinhashFieldMapper.MinhashFieldType field, QueryShardContext context) {
            return services.resolver().resolveMinhash(like, field, context);
        }

        @Override
        public boolean bareSimhash() {
            return like instanceof Like.Simhash;
        }
    }

    @Override
    protected boolean doEquals(NearDuplicateQueryBuilder other) {
        return field.equals(other.field)
                && like.equals(other.like)
                && options.equals(other.options)
                && Objects.equals(containment, other.containment)
                && includeSelf == other.includeSelf
                && ignoreUnmapped == other.ignoreUnmapped;
    }

    @Override
    protected int doHashCode() {
        return Objects.hash(field, like, options, containment, includeSelf, ignoreUnmapped);
    }

    @Override
    public String getWriteableName() {
        return NAME;
    }
}
