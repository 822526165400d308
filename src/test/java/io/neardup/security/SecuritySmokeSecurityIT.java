/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;
import org.opensearch.client.RestClient;

/**
 * The harness itself: both plugins on the node, and the Security plugin's document- and field-level security
 * and its refusals in effect for users made through {@link SecurityRestTestCase}.
 */
@SuppressWarnings("deprecation") // RestClient, deprecated in 3.8
public class SecuritySmokeSecurityIT extends SecurityRestTestCase {

    private static final String INDEX = "smoke-teams";

    /** As admin: three documents of team a and two of team b, each with a secret. */
    private static void indexTeams() throws IOException {
        send("PUT", "/" + INDEX, """
            {"settings": {"number_of_shards": 1, "number_of_replicas": 0},
             "mappings": {"properties": {
               "team": {"type": "keyword"}, "secret": {"type": "keyword"}, "text": {"type": "text"}}}}""");
        StringBuilder bulk = new StringBuilder();
        String[] teams = {"a", "a", "b", "a", "b"};
        for (int i = 0; i < teams.length; i++) {
            bulk.append("{\"index\": {\"_id\": \"")
                    .append(i)
                    .append("\"}}\n{\"team\": \"")
                    .append(teams[i])
                    .append("\", \"secret\": \"s")
                    .append(i)
                    .append("\", \"text\": \"page ")
                    .append(i)
                    .append("\"}\n");
        }
        Map<String, Object> response = send("POST", "/" + INDEX + "/_bulk?refresh=true", bulk.toString());
        assertEquals(response.toString(), false, response.get("errors"));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> sources(RestClient client) throws IOException {
        List<Map<String, Object>> sources = new ArrayList<>();
        for (Map<String, Object> hit : hits(send(client, "GET", "/" + INDEX + "/_search?size=100", null))) {
            sources.add((Map<String, Object>) hit.get("_source"));
        }
        return sources;
    }

    private static List<String> field(List<Map<String, Object>> sources, String field) {
        List<String> values = new ArrayList<>();
        for (Map<String, Object> source : sources) {
            values.add((String) source.get(field));
        }
        values.sort(null);
        return values;
    }

    public void testBothPluginsAreOnTheNode() throws IOException {
        Request request = new Request("GET", "/_cat/plugins");
        request.addParameter("h", "component");
        Response response = client().performRequest(request);
        List<String> components =
                Arrays.asList(new String(response.getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8)
                        .trim()
                        .split("\\s*\n\\s*"));
        assertTrue(components.toString(), components.contains("opensearch-neardup"));
        assertTrue(components.toString(), components.contains("opensearch-security"));
    }

    public void testAdminSeesEverything() throws IOException {
        indexTeams();
        List<Map<String, Object>> sources = sources(client());
        assertEquals(List.of("a", "a", "a", "b", "b"), field(sources, "team"));
        assertEquals(List.of("s0", "s1", "s2", "s3", "s4"), field(sources, "secret"));
    }

    public void testDocumentLevelSecurityShowsOnlyTheRolesTeam() throws IOException {
        indexTeams();
        putRole("smoke_team_a", role().index(INDEX).allow("read").dls("{\"term\":{\"team\":\"a\"}}"));
        putUser("smoke_dls");
        mapRole("smoke_team_a", "smoke_dls");
        assertEquals(List.of("a", "a", "a"), field(sources(userClient("smoke_dls")), "team"));
        assertEquals(5, sources(client()).size());
    }

    public void testFieldLevelSecurityHidesTheSecret() throws IOException {
        indexTeams();
        putRole("smoke_no_secret", role().index(INDEX).allow("read").fls("~secret"));
        putUser("smoke_fls", "smoke_no_secret");
        List<Map<String, Object>> sources = sources(userClient("smoke_fls"));
        assertEquals(List.of("a", "a", "a", "b", "b"), field(sources, "team"));
        for (Map<String, Object> source : sources) {
            assertFalse(source.toString(), source.containsKey("secret"));
            assertTrue(source.toString(), source.containsKey("text"));
        }
    }

    public void testMaskedFieldIsHashed() throws IOException {
        indexTeams();
        putRole("smoke_masked", role().index(INDEX).allow("read").masked("secret"));
        putUser("smoke_masked_user", "smoke_masked");
        List<String> secrets = field(sources(userClient("smoke_masked_user")), "secret");
        assertEquals(secrets.toString(), 5, secrets.size());
        for (String secret : secrets) {
            assertTrue(secrets.toString(), secret.matches("[0-9a-f]{16,}"));
        }
    }

    /** The demo configuration maps the backend role {@code readall} to the role {@code readall}. */
    public void testMappingABuiltInRoleLastsForTheTestOnly() throws IOException {
        indexTeams();
        Map<String, Object> demoMapping = mapping("readall");
        assertEquals(demoMapping.toString(), List.of("readall"), demoMapping.get("backend_roles"));
        putUser("smoke_reader");
        mapRole("readall", "smoke_reader");
        assertEquals(5, sources(userClient("smoke_reader")).size());
        assertEquals(List.of("smoke_reader"), mapping("readall").get("users"));
        deleteTestsOwnState(); // what runs after each test
        assertEquals(demoMapping, mapping("readall"));
        assertFalse(indexExists(INDEX));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mapping(String role) throws IOException {
        return (Map<String, Object>) send("GET", "/_plugins/_security/api/rolesmapping/" + role, null)
                .get(role);
    }

    /** The demo configuration maps every user to {@code own_index} (an index named after the user): not this one. */
    public void testUserWithoutIndexPermissionIsForbidden() throws IOException {
        indexTeams();
        putUser("smoke_nobody");
        ResponseException e = expectThrows(ResponseException.class, () -> sources(userClient("smoke_nobody")));
        assertEquals(e.getMessage(), 403, e.getResponse().getStatusLine().getStatusCode());
        assertEquals(5, sources(client()).size());
    }
}
