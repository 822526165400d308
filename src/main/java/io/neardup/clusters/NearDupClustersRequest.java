/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.clusters;

import static org.opensearch.action.ValidateActions.addValidationError;

import io.neardup.index.NearDupOption;
import io.neardup.index.NearDupOptions;
import io.neardup.match.AddedWireFields;
import io.neardup.match.MatchSpec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.ActionRequestValidationException;
import org.opensearch.action.IndicesRequest;
import org.opensearch.action.bulk.BulkShardRequest;
import org.opensearch.action.support.IndicesOptions;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.core.common.ParsingException;
import org.opensearch.core.common.Strings;
import org.opensearch.core.common.io.stream.StreamInput;
import org.opensearch.core.common.io.stream.StreamOutput;
import org.opensearch.core.tasks.TaskId;
import org.opensearch.core.xcontent.XContentParser;
import org.opensearch.index.query.AbstractQueryBuilder;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.search.sort.FieldSortBuilder;
import org.opensearch.search.sort.SortBuilder;
import org.opensearch.tasks.Task;

/**
 * {@code POST /<index>/_near_dup_clusters}: which documents of an index are near-duplicates of
 * each other, written into each of them as {@code <target_field>.cluster}, {@code .size} and
 * {@code .representative}, or with {@code dest} as one record a document into a new index ({@link AssignmentRecords}).
 */
public final class NearDupClustersRequest extends ActionRequest implements IndicesRequest.Replaceable {

    public static final int DEFAULT_SCROLL_SIZE = 1_000;
    public static final int MAX_SCROLL_SIZE = 10_000;
    public static final int MAX_SLICES = 64;
    /** {@code slices=auto}: one slice per shard, at most {@link #MAX_SLICES}. */
    public static final int AUTO_SLICES = 0;

    public static final int MAX_SORT_FIELDS = 8;
    public static final int MAX_TARGET_FIELD_LENGTH = 255;

    /** How the near-duplicate pairs are cut into clusters. */
    public enum Linkage {
        /** Connected components: a chain of near-duplicates is one cluster. */
        SINGLE,
        /** Each document joins its most similar representative, or represents a new cluster: no chaining. */
        LEADER;

        public String paramName() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Linkage parse(String value) {
            for (Linkage linkage : values()) {
                if (linkage.paramName().equals(value)) {
                    return linkage;
                }
            }
            throw new IllegalArgumentException("[linkage] must be [single] or [leader], got [" + value + "]");
        }
    }

    private String[] indices;
    private final MatchSpec spec;
    /** Where each document's assignment is written in it; null with {@link #dest}. */
    private final String targetField;
    /** The new index each document's assignment is written into as a record ({@link AssignmentRecords}); or null. */
    private final String dest;

    private final Linkage linkage;
    private final List<SortBuilder<?>> representativeSort;
    private final boolean keepRepresentatives;
    private final QueryBuilder query;
    private final boolean singletons;
    /** The names as the request gave them, kept when the Security plugin replaces {@link #indices} by the indices they stand for. */
    private final String[] named;
    // URL parameters, as _update_by_query takes them.
    private boolean dryRun;
    private int scrollSize = DEFAULT_SCROLL_SIZE;
    private int slices = 1;
    private float requestsPerSecond = Float.POSITIVE_INFINITY;
    private boolean abortOnVersionConflict = true;
    private boolean refresh;
    private TimeValue bulkTimeout = BulkShardRequest.DEFAULT_TIMEOUT;
    private boolean shouldStoreResult;

    public NearDupClustersRequest(
            String index,
            MatchSpec spec,
            String targetField,
            Linkage linkage,
            List<SortBuilder<?>> representativeSort,
            boolean keepRepresentatives,
            QueryBuilder query,
            boolean singletons) {
        this(index, spec, targetField, null, linkage, representativeSort, keepRepresentatives, query, singletons);
    }

    /** With {@code dest} (and no {@code targetField}): the assignments go into that new index as records. */
    public NearDupClustersRequest(
            String index,
            MatchSpec spec,
            String targetField,
            String dest,
            Linkage linkage,
            List<SortBuilder<?>> representativeSort,
            boolean keepRepresentatives,
            QueryBuilder query,
            boolean singletons) {
        // A comma list, as a search's path names indices.
        this.indices = Strings.splitStringByCommaToArray(index);
        this.named = indices.clone();
        this.spec = spec;
        this.targetField = targetField;
        this.dest = dest;
        this.linkage = linkage;
        this.representativeSort = List.copyOf(representativeSort);
        this.keepRepresentatives = keepRepresentatives;
        this.query = query;
        this.singletons = singletons;
    }

    public NearDupClustersRequest(StreamInput in) throws IOException {
        super(in);
        indices = in.readStringArray();
        spec = new MatchSpec(in);
        if (AddedWireFields.read(in)) {
            targetField = in.readOptionalString();
            dest = in.readOptionalString();
        } else {
            targetField = in.readString();
            dest = null;
        }
        linkage = in.readEnum(Linkage.class);
        representativeSort = new ArrayList<>();
        int sorts = in.readVInt();
        for (int i = 0; i < sorts; i++) {
            representativeSort.add(in.readNamedWriteable(SortBuilder.class));
        }
        keepRepresentatives = in.readBoolean();
        query = in.readOptionalNamedWriteable(QueryBuilder.class);
        singletons = in.readBoolean();
        dryRun = in.readBoolean();
        scrollSize = in.readVInt();
        slices = in.readVInt();
        requestsPerSecond = in.readFloat();
        abortOnVersionConflict = in.readBoolean();
        refresh = in.readBoolean();
        bulkTimeout = in.readTimeValue();
        named = in.readStringArray();
    }

    @Override
    public void writeTo(StreamOutput out) throws IOException {
        super.writeTo(out);
        out.writeStringArray(indices);
        spec.writeTo(out);
        if (AddedWireFields.written(out)) {
            out.writeOptionalString(targetField);
            out.writeOptionalString(dest);
        } else {
            // A node of another version knows no records: it only scans and joins for this run, never writes.
            out.writeString(targetField == null ? "" : targetField);
        }
        out.writeEnum(linkage);
        out.writeVInt(representativeSort.size());
        for (SortBuilder<?> sort : representativeSort) {
            out.writeNamedWriteable(sort);
        }
        out.writeBoolean(keepRepresentatives);
        out.writeOptionalNamedWriteable(query);
        out.writeBoolean(singletons);
        out.writeBoolean(dryRun);
        out.writeVInt(scrollSize);
        out.writeVInt(slices);
        out.writeFloat(requestsPerSecond);
        out.writeBoolean(abortOnVersionConflict);
        out.writeBoolean(refresh);
        out.writeTimeValue(bulkTimeout);
        out.writeStringArray(named);
    }

    /**
     * Parses the body: the matching options of {@code near_duplicate} ({@code field},
     * {@code max_distance}, {@code mode}, {@code max_flips}, {@code min_similarity},
     * {@code verification}), {@code target_field} or {@code dest} ({@code index}), {@code linkage},
     * {@code representative} ({@code sort}, {@code keep_existing}), {@code query} and {@code singletons}.
     */
    public static NearDupClustersRequest parse(String index, XContentParser parser) throws IOException {
        String field = null;
        String targetField = null;
        String dest = null;
        NearDupOptions.Reader options = new NearDupOptions.Reader(MatchSpec.RUN_OPTIONS, MatchSpec.NOT_A_RUN_OPTION);
        Linkage linkage = Linkage.SINGLE;
        List<SortBuilder<?>> sort = List.of();
        Boolean keepExisting = null;
        QueryBuilder query = null;
        boolean singletons = false;
        if (parser.currentToken() == null) {
            parser.nextToken();
        }
        if (parser.currentToken() != XContentParser.Token.START_OBJECT) {
            throw new ParsingException(parser.getTokenLocation(), "[_near_dup_clusters] the body must be an object");
        }
        String name = null;
        XContentParser.Token token;
        while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
            if (token == XContentParser.Token.FIELD_NAME) {
                name = parser.currentName();
                continue;
            }
            try {
                if ((token.isValue() || token == XContentParser.Token.VALUE_NULL)
                        && options.read(name, NearDupOption.valueOf(parser, name))) {
                    continue;
                }
                switch (name) {
                    case "query" -> {
                        expect(parser, token, XContentParser.Token.START_OBJECT, name);
                        query = named(parser, name, () -> AbstractQueryBuilder.parseInnerQueryBuilder(parser));
                    }
                    case "representative" -> {
                        expect(parser, token, XContentParser.Token.START_OBJECT, name);
                        String inner = null;
                        while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
                            if (token == XContentParser.Token.FIELD_NAME) {
                                inner = parser.currentName();
                            } else if ("sort".equals(inner)) {
                                sort = named(parser, "representative.sort", () -> SortBuilder.fromXContent(parser));
                            } else if ("keep_existing".equals(inner)) {
                                keepExisting = booleanValue(parser, token, "representative.keep_existing");
                            } else {
                                throw new IllegalArgumentException("[representative] has unknown option [" + inner
                                        + "], expected [sort] or [keep_existing]");
                            }
                        }
                    }
                    case "dest" -> {
                        expect(parser, token, XContentParser.Token.START_OBJECT, name);
                        String inner = null;
                        while ((token = parser.nextToken()) != XContentParser.Token.END_OBJECT) {
                            if (token == XContentParser.Token.FIELD_NAME) {
                                inner = parser.currentName();
                            } else if ("index".equals(inner)) {
                                dest = text(parser, token, "dest.index");
                            } else {
                                throw new IllegalArgumentException(
                                        "[dest] has unknown option [" + inner + "], expected [index]");
                            }
                        }
                        if (dest == null) {
                            throw new IllegalArgumentException(
                                    "[dest] requires [index]: the new index the assignments are written into");
                        }
                    }
                    case "field" -> field = text(parser, token, name);
                    case "target_field" -> targetField = text(parser, token, name);
                    case "linkage" -> linkage = Linkage.parse(text(parser, token, name));
                    case "singletons" -> singletons = booleanValue(parser, token, name);
                    default -> throw new IllegalArgumentException("[_near_dup_clusters] unknown option [" + name + "]");
                }
            } catch (ParsingException e) {
                throw e;
            } catch (NearDupOption.Invalid e) {
                throw new ParsingException(parser.getTokenLocation(), "[_near_dup_clusters] " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new ParsingException(parser.getTokenLocation(), e.getMessage(), e);
            }
        }
        if (targetField == null && dest == null) {
            throw new ParsingException(
                    parser.getTokenLocation(),
                    "[_near_dup_clusters] requires [target_field]: where each document's cluster is written (or"
                            + " [dest]: a new index it is written into)");
        }
        if (dest != null) {
            String refused = targetField != null
                    ? "[target_field] does not apply with [dest]: each document's assignment is written into [dest]"
                            + " as a record, not into the document"
                    : query != null
                            ? "[query] does not apply with [dest]: a run with [dest] records every document of the"
                                    + " indices named into a new index; a run with [query] (re)assigns some of them"
                                    + " in place, with [target_field]"
                            : keepExisting != null
                                    ? "[representative.keep_existing] does not apply with [dest]: a new index holds"
                                            + " no representatives of an earlier run"
                                    : null;
            if (refused != null) {
                throw new ParsingException(parser.getTokenLocation(), "[_near_dup_clusters] " + refused);
            }
        }
        try {
            return new NearDupClustersRequest(
                    index,
                    new MatchSpec(field, options.options()),
                    targetField,
                    dest,
                    linkage,
                    sort,
                    keepExisting == null || keepExisting,
                    query,
                    singletons);
        } catch (IllegalArgumentException e) {
            throw new ParsingException(parser.getTokenLocation(), e.getMessage(), e);
        }
    }

    /** What OpenSearch's parser of a query or a sort reads here. */
    private interface Part<T> {
        T read() throws IOException;
    }

    /**
     * {@code part}'s value, read by OpenSearch's own parser, whose refusals ("query malformed, must start with
     * start_object", "malformed sort format") do not say which key of the body they are about: they get its name.
     */
    private static <T> T named(XContentParser parser, String name, Part<T> part) throws IOException {
        try {
            return part.read();
        } catch (ParsingException | IllegalArgumentException e) {
            String message = e.getMessage();
            if (message != null && message.startsWith("[" + name + "]")) {
                throw e;
            }
            throw new ParsingException(parser.getTokenLocation(), "[" + name + "] " + message, e);
        }
    }

    private static void expect(
            XContentParser parser, XContentParser.Token token, XContentParser.Token expected, String name) {
        if (token != expected) {
            throw new ParsingException(
                    parser.getTokenLocation(),
                    "[" + name + "] must be " + describe(expected) + ", got [" + token + "]");
        }
    }

    private static String describe(XContentParser.Token token) {
        return switch (token) {
            case START_OBJECT -> "an object";
            case VALUE_NUMBER -> "a number";
            case VALUE_BOOLEAN -> "true or false";
            default -> "a string";
        };
    }

    private static String text(XContentParser parser, XContentParser.Token token, String name) throws IOException {
        expect(parser, token, XContentParser.Token.VALUE_STRING, name);
        return parser.text();
    }

    private static int intValue(XContentParser parser, XContentParser.Token token, String name) throws IOException {
        expect(parser, token, XContentParser.Token.VALUE_NUMBER, name);
        double value = parser.doubleValue();
        if (value != Math.rint(value) || value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new ParsingException(
                    parser.getTokenLocation(), "[" + name + "] must be an integer, got [" + parser.text() + "]");
        }
        return (int) value;
    }

    private static boolean booleanValue(XContentParser parser, XContentParser.Token token, String name)
            throws IOException {
        expect(parser, token, XContentParser.Token.VALUE_BOOLEAN, name);
        return parser.booleanValue();
    }

    @Override
    public ActionRequestValidationException validate() {
        ActionRequestValidationException e = null;
        if (indices.length == 0 || Arrays.stream(indices).anyMatch(index -> index == null || index.isBlank())) {
            e = addValidationError(
                    "an index (or an alias, a data stream, a pattern) is required, got " + Arrays.toString(indices), e);
        }
        if (dest != null) {
            e = validateDest(e);
        } else if (targetField.isBlank()
                || targetField.length() > MAX_TARGET_FIELD_LENGTH
                || targetField.startsWith("_")
                || targetField.startsWith(".")
                || targetField.endsWith(".")
                || targetField.contains("..")) {
            e = addValidationError(
                    "[target_field] must be a field path of at most " + MAX_TARGET_FIELD_LENGTH
                            + " characters, not starting with [_], got [" + targetField + "]",
                    e);
        }
        if (targetField != null
                && (targetField.equals(spec.field())
                        || targetField.equals(spec.fingerprintObject())
                        || spec.field().startsWith(targetField + ".")
                        || targetField.startsWith(spec.fingerprintObject() + "."))) {
            e = addValidationError(
                    "[target_field] [" + targetField + "] would overwrite the fingerprints of [" + spec.field() + "]",
                    e);
        }
        if (scrollSize < 1 || scrollSize > MAX_SCROLL_SIZE) {
            e = addValidationError(
                    "[scroll_size] must be in [1, " + MAX_SCROLL_SIZE + "], got [" + scrollSize + "]", e);
        }
        if (slices < AUTO_SLICES || slices > MAX_SLICES) {
            e = addValidationError(slicesOutOfRange(slices), e);
        }
        e = validateRequestsPerSecond(requestsPerSecond, e);
        if (representativeSort.size() > MAX_SORT_FIELDS) {
            e = addValidationError(
                    "[representative.sort] has " + representativeSort.size() + " fields, more than " + MAX_SORT_FIELDS,
                    e);
        }
        for (SortBuilder<?> sort : representativeSort) {
            if (sort instanceof FieldSortBuilder == false) {
                e = addValidationError(
                        "[representative.sort] takes fields (or [_id]), got [" + sort.getWriteableName() + "]", e);
            }
        }
        return e;
    }

    /** {@code dest}'s own checks (the name itself is checked as the index is created, as any index's). */
    private ActionRequestValidationException validateDest(ActionRequestValidationException e) {
        if (dest.isBlank()) {
            e = addValidationError("[dest.index] must name an index, got [" + dest + "]", e);
        }
        if (targetField != null || query != null) {
            e = addValidationError("[dest] goes without [target_field] and [query]", e);
        }
        if (dryRun) {
            e = addValidationError("[dest] does not apply to a dry run, which writes nothing", e);
        }
        return e;
    }

    public TimeValue bulkTimeout() {
        return bulkTimeout;
    }

    /** How long each bulk write waits for an unavailable shard ({@code timeout}, as {@code _update_by_query} takes it). */
    public NearDupClustersRequest bulkTimeout(TimeValue bulkTimeout) {
        this.bulkTimeout = bulkTimeout;
        return this;
    }

    /** With {@code wait_for_completion=false}: the result is kept in the tasks index for {@code GET _tasks/<task>}. */
    public NearDupClustersRequest setShouldStoreResult(boolean shouldStoreResult) {
        this.shouldStoreResult = shouldStoreResult;
        return this;
    }

    @Override
    public boolean getShouldStoreResult() {
        return shouldStoreResult;
    }

    @Override
    public Task createTask(long id, String type, String action, TaskId parentTaskId, Map<String, String> headers) {
        return new NearDupClustersTask(id, type, action, getDescription(), parentTaskId, headers);
    }

    @Override
    public String getDescription() {
        return "near_dup_clusters " + Arrays.toString(indices) + " " + spec
                + (dest == null ? " into [" + targetField + "]" : " into index [" + dest + "]") + " linkage ["
                + linkage.paramName() + "]" + (dryRun ? " (dry run)" : "");
    }

    /**
     * The indices it reads and writes (an index, an alias, a data stream, a pattern, a list), so that index-level
     * permissions apply to the run as to {@code _update_by_query}; replaceable, so that the Security plugin resolves
     * them to the indices named that the user may use (and checks the user's permissions there).
     */
    @Override
    public String[] indices() {
        return indices;
    }

    /** The indices, aliases, data streams or patterns as the request named them (the path's). */
    public String[] named() {
        return named.clone();
    }

    @Override
    public NearDupClustersRequest indices(String... indices) {
        this.indices = indices;
        return this;
    }

    @Override
    public IndicesOptions indicesOptions() {
        // As a search: patterns expand to open indices, a missing name or a closed index is an error.
        return IndicesOptions.strictExpandOpenAndForbidClosed();
    }

    /** A data stream resolves to its backing indices: a run writes into each by its name, as {@code _update_by_query} does. */
    @Override
    public boolean includeDataStreams() {
        return true;
    }

    public MatchSpec spec() {
        return spec;
    }

    /** Where each document's assignment is written in it; null when it goes into {@link #dest}. */
    public String targetField() {
        return targetField;
    }

    /** The new index each document's assignment is written into as a record; null when it goes into the document. */
    public String dest() {
        return dest;
    }

    /** Whether the run writes into the documents it clusters (not a dry run, nor one writing records into {@link #dest}). */
    public boolean writesIntoDocuments() {
        return dryRun == false && dest == null;
    }

    public Linkage linkage() {
        return linkage;
    }

    public List<SortBuilder<?>> representativeSort() {
        return representativeSort;
    }

    public boolean keepRepresentatives() {
        return keepRepresentatives;
    }

    /** The documents to (re)assign, or null for all of them. */
    public QueryBuilder query() {
        return query;
    }

    public boolean singletons() {
        return singletons;
    }

    public boolean dryRun() {
        return dryRun;
    }

    public NearDupClustersRequest dryRun(boolean dryRun) {
        this.dryRun = dryRun;
        return this;
    }

    public int scrollSize() {
        return scrollSize;
    }

    public NearDupClustersRequest scrollSize(int scrollSize) {
        this.scrollSize = scrollSize;
        return this;
    }

    public int slices() {
        return slices;
    }

    public NearDupClustersRequest slices(int slices) {
        this.slices = slices;
        return this;
    }

    /**
     * The {@code slices} URL parameter: {@code auto}, or a number in [1, {@value #MAX_SLICES}]. 0 is refused there
     * as {@code _update_by_query} refuses it, though it is how {@code auto} is held ({@link #AUTO_SLICES}): a
     * caller asking for no slices did not ask for one per shard.
     *
     * @throws IllegalArgumentException naming {@code [slices]}
     */
    static int parseSlices(String value) {
        if ("auto".equals(value)) {
            return AUTO_SLICES;
        }
        int slices;
        try {
            slices = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("[slices] must be an integer or [auto], got [" + value + "]", e);
        }
        if (slices < 1 || slices > MAX_SLICES) {
            throw new IllegalArgumentException(slicesOutOfRange(slices));
        }
        return slices;
    }

    private static String slicesOutOfRange(int slices) {
        return "[slices] must be in [1, " + MAX_SLICES + "] or [auto], got [" + slices + "]";
    }

    /** {@code requests_per_second} of a run and of its rethrottle: above 0 ({@link Float#POSITIVE_INFINITY}: unlimited). */
    static ActionRequestValidationException validateRequestsPerSecond(
            float requestsPerSecond, ActionRequestValidationException e) {
        return requestsPerSecond > 0
                ? e
                : addValidationError(
                        "[requests_per_second] must be > 0 or -1 (unlimited), got [" + requestsPerSecond + "]", e);
    }

    public float requestsPerSecond() {
        return requestsPerSecond;
    }

    /** Documents written per second at most; {@link Float#POSITIVE_INFINITY} for no limit. */
    public NearDupClustersRequest requestsPerSecond(float requestsPerSecond) {
        this.requestsPerSecond = requestsPerSecond;
        return this;
    }

    public boolean abortOnVersionConflict() {
        return abortOnVersionConflict;
    }

    public NearDupClustersRequest abortOnVersionConflict(boolean abortOnVersionConflict) {
        this.abortOnVersionConflict = abortOnVersionConflict;
        return this;
    }

    public boolean refresh() {
        return refresh;
    }

    public NearDupClustersRequest refresh(boolean refresh) {
        this.refresh = refresh;
        return this;
    }
}
