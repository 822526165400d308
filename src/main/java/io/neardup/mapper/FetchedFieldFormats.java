package io.neardup.mapper;

import org.opensearch.index.mapper.MappedFieldType;
import org.opensearch.index.mapper.MapperService;
import org.opensearch.index.shard.SearchOperationListener;
import org.opensearch.search.fetch.subphase.FieldAndFormat;
import org.opensearch.search.internal.SearchContext;

import java.util.List;

/**
 * The {@code format}s that {@code docvalue_fields} and {@code fields} accept on fingerprint fields,
 * checked before a shard's query phase. OpenSearch asks a field for its format only in the fetch
 * phase, where a refusal fails just the shards that had hits to fetch: their hits drop out of a
 * 200 response. Checked before the query phase, a bad format fails every shard alike, so the
 * search is a 400 that names it.
 */
public final class FetchedFieldFormats implements SearchOperationListener {

    /** The one format a {@code simhash} field renders: its default, 16 lowercase hex digits. */
    public static final String HEX = "hex";
    /** What OpenSearch 7.x used to ask for the default format; still accepted by the fetch phase. */
    private static final String USE_FIELD_MAPPING = "use_field_mapping";

    @Override
    public void onPreQueryPhase(SearchContext context) {
        MapperService mapperService = context.mapperService();
        if (context.docValuesContext() != null) {
            check(mapperService, context.docValuesContext().fields());
        }
        if (context.fetchFieldsContext() != null) {
            check(mapperService, context.fetchFieldsContext().fields());
        }
    }

    private static void check(MapperService mapperService, List<FieldAndFormat> fields) {
        for (FieldAndFormat requested : fields) {
            if (requested.format == null) {
                continue;
            }
            for (String name : mapperService.simpleMatchToFullName(requested.field)) {
                MappedFieldType type = mapperService.fieldType(name);
                if (type instanceof SimhashFieldMapper.SimhashFieldType || type instanceof MinhashFieldMapper.MinhashFieldType) {
                    // The field type's own check, so that this one and the fetch phase can never disagree.
                    type.docValueFormat(requested.format, null);
                }
            }
        }
    }

    static void requireHex(MappedFieldType type, String format) {
        if (format != null && HEX.equals(format) == false && USE_FIELD_MAPPING.equals(format) == false) {
            throw new IllegalArgumentException("[format] [" + format + "] is not supported on [" + type.typeName() + "] field ["
                + type.name() + "]: its values are 16 hex characters; leave [format] out or set it to [" + HEX + "]");
        }
    }

    static void requireDefault(MappedFieldType type, String format) {
        if (format != null && USE_FIELD_MAPPING.equals(format) == false) {
            throw new IllegalArgumentException("[format] [" + format + "] is not supported on [" + type.typeName() + "] field ["
                + type.name() + "]: its values are signature strings; leave [format] out");
        }
    }
}
