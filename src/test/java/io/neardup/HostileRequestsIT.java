/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup;

import io.neardup.index.FingerprintKind;
import io.neardup.index.NearDupOption;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;

/**
 * A sample of {@link HostileRequestsTests}' generated requests sent to a real node, through each entry point's REST
 * API (a search, {@code _near_dup_clusters?dry_run}, a pipeline PUT and a document through it, a search pipeline PUT
 * and a search through it): none is a 500, and each that the entry point refuses in a JVM is a 400 here. The
 * options of the other field kind that only the node can tell (the lookup's, collapse's) are 400s too.
 */
public class HostileRequestsIT extends NearDupRestTestCase {

    private static final int REQUESTS = 200;
    private static final String TEXT = "A heat wave will reach the northern valleys on Thursday, with afternoon"
            + " temperatures near 38 degrees. Cooler air is expected from the coast on Sunday.";

    private static void createIndex() throws IOException {
        String fingerprints =
                "{\"processors\": [{\"near_dup_fingerprint\": {\"field\": \"body\", \"target_field\": \"fp\"}}]}";
        send("PUT", "/_ingest/pipeline/fingerprints", fingerprints);
        send("PUT", "/hostile", """
            {"settings": {"index.default_pipeline": "fingerprints", "number_of_replicas": 0},
             "mappings": {"properties": {"body": {"type": "text"}, "tag": {"type": "keyword"},
               "date": {"type": "date"}, "fp": {"properties": {
               "simhash": {"type": "simhash"}, "minhash": {"type": "minhash"}, "content_hash": {"type": "keyword"}}}}}}""");
        send(
                "PUT",
                "/hostile/_doc/d1?refresh=true",
                "{\"body\": \"" + TEXT + "\", \"tag\": \"x\", \"date\": \"2026-11-27\"}");
    }

    public void testNoGeneratedRequestIsA500AndEachRefusedOneIsA400() throws IOException {
        createIndex();
        HostileRequests inJvm = new HostileRequests(createTempDir());
        Random random = random();
        List<String> violations = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < REQUESTS && violations.size() < 10; i++) {
            HostileRequests.EntryPoint entryPoint =
                    HostileRequests.EntryPoint.values()[i % HostileRequests.EntryPoint.values().length];
            HostileRequests.Request request =
                    HostileRequests.generate(random, entryPoint, random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(3));
            boolean refusedInJvm = inJvm.apply(entryPoint, request.body).refusal() != null;
            String json = request.json();
            String violation = switch (entryPoint) {
                case QUERY ->
                    check(refusedInJvm, "POST", "/hostile/_search", "{\"query\": {\"near_duplicate\": " + json + "}}");
                case CLUSTERS -> check(refusedInJvm, "POST", "/hostile/_near_dup_clusters?dry_run=true", json);
                case LOOKUP ->
                    then(
                            check(
                                    refusedInJvm,
                                    "PUT",
                                    "/_ingest/pipeline/hostile-lookup",
                                    "{\"processors\": [{\"near_dup_lookup\": " + json + "}]}"),
                            otherKind(request),
                            // The kind is read from the mapping of the indices the name stands for: a name made
                            // hostile may stand for none, a 404 before any kind is known.
                            request.touched.contains("index") ? 404 : 400,
                            "POST",
                            "/hostile/_doc?pipeline=hostile-lookup",
                            "{\"body\": \"t\", \"fp\": {\"simhash\": \"00000000000000ff\"}}");
                case FINGERPRINT ->
                    then(
                            check(
                                    refusedInJvm,
                                    "PUT",
                                    "/_ingest/pipeline/hostile-fingerprint",
                                    "{\"processors\": [{\"near_dup_fingerprint\": " + json + "}]}"),
                            false,
                            "POST",
                            "/hostile-ingest/_doc?pipeline=hostile-fingerprint",
                            "{\"body\": \"" + TEXT + "\"}");
                case COLLAPSE ->
                    then(
                            check(
                                    refusedInJvm,
                                    "PUT",
                                    "/_search/pipeline/hostile-collapse",
                                    "{\"response_processors\": [{\"near_dup_collapse\": " + json + "}]}"),
                            otherKind(request),
                            "POST",
                            "/hostile/_search?search_pipeline=hostile-collapse",
                            "{\"query\": {\"match_all\": {}}}");
            };
            if (violation != null && violation.equals(REFUSED) == false && violation.equals(ACCEPTED) == false) {
                violations.add(request + "\n  -> " + violation);
            } else if (REFUSED.equals(violation)) {
                refused++;
            }
        }
        assertTrue(String.join("\n", violations), violations.isEmpty());
        assertTrue("refused " + refused + " of " + REQUESTS, refused > REQUESTS / 3);
    }

    private static final String REFUSED = "refused";
    private static final String ACCEPTED = "accepted";

    /** Whether the request holds an option that does not apply to its field's kind (by the field's name here). */
    private static boolean otherKind(HostileRequests.Request request) {
        FingerprintKind kind = request.body.get("field") instanceof String field ? HostileRequests.kindOf(field) : null;
        return kind != null
                && request.body.keySet().stream()
                        .map(NearDupOption::named)
                        .anyMatch(option -> option != null && option.appliesTo(kind) == false);
    }

    /** {@link #REFUSED} (a 400, as in the JVM), {@link #ACCEPTED}, or what went wrong. */
    private static String check(boolean refusedInJvm, String method, String path, String body) throws IOException {
        int status = status(method, path, body);
        if (status >= 500) {
            return method + " " + path + " answered " + status;
        }
        if (refusedInJvm) {
            return status == 400 ? REFUSED : method + " " + path + " answered " + status + " where the JVM refused it";
        }
        return status < 300 ? ACCEPTED : REFUSED;
    }

    /** After an accepted pipeline, a request through it: never a 500; a 400 where an option is of the other kind. */
    private static String then(String first, boolean otherKind, String method, String path, String body)
            throws IOException {
        return then(first, otherKind, 400, method, path, body);
    }

    /** The same, where {@code orElse} may answer for an option of the other kind instead of the 400. */
    private static String then(String first, boolean otherKind, int orElse, String method, String path, String body)
            throws IOException {
        if (ACCEPTED.equals(first) == false) {
            return first;
        }
        int status = status(method, path, body);
        if (status >= 500 || (otherKind && status != 400 && status != orElse)) {
            return "accepted, then " + method + " " + path + " answered " + status
                    + (otherKind ? " with an option of the other kind" : "");
        }
        return ACCEPTED;
    }

    private static int status(String method, String path, String body) throws IOException {
        Request request = request(method, path, body);
        request.setOptions(TOLERATING_WARNINGS);
        try {
            Response response = client().performRequest(request);
            return response.getStatusLine().getStatusCode();
        } catch (ResponseException e) {
            return e.getResponse().getStatusLine().getStatusCode();
        }
    }
}
