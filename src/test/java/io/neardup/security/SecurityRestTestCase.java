/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.security;

import io.neardup.NearDupRestTestCase;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.nio.ssl.TlsStrategy;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.junit.After;
import org.junit.AfterClass;
import org.junit.Before;
import org.opensearch.client.Request;
import org.opensearch.client.Response;
import org.opensearch.client.ResponseException;
import org.opensearch.client.RestClient;
import org.opensearch.client.RestClientBuilder;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.util.concurrent.ThreadContext;
import org.opensearch.common.xcontent.json.JsonXContent;
import org.opensearch.core.xcontent.XContentBuilder;

/**
 * Tests over HTTPS against the node beside the Security plugin (demo configuration, see {@code node.sh
 * start-secure}): {@link #client()} is the demo {@code admin}, {@link #userClient(String)} any user made with
 * {@link #putUser}. Roles, users and mappings go through the Security REST API as admin.
 *
 * <p>The demo certificates are trusted in code (any certificate, any host name): the tests run under the
 * security agent, which may not let them read the demo CA from the node's directory. After each test the
 * roles, users and mappings it made, the indices (neither hidden nor starting with a dot) and the ingest and
 * search pipelines that appeared during it are deleted; OpenSearchRestTestCase's own wipe of all indices
 * ({@code DELETE *}) is turned off, since Security refuses it even to admin (it would take its own index).
 */
@SuppressWarnings("deprecation") // RestClient (deprecated in 3.8) is what OpenSearchRestTestCase builds on
public abstract class SecurityRestTestCase extends NearDupRestTestCase {

    /** The demo configuration's administrator. */
    protected static final String ADMIN = "admin";

    /**
     * The password of users made without one: the Security plugin wants strong passwords that are not like the
     * user's name.
     */
    protected static final String USER_PASSWORD = "Tq8#Lantern-Cobalt.51";

    /** The audit log of the demo configuration writes into these: not a test's own indices. */
    private static final String AUDIT_LOG_PREFIX = "security-auditlog-";

    private static final Map<String, String> PASSWORDS = new HashMap<>();
    private static final Map<String, RestClient> USER_CLIENTS = new HashMap<>();

    /** Role → its mapping before the test first mapped it (null: none), restored after the test. */
    private final Map<String, String> replacedMappings = new LinkedHashMap<>();

    private final List<String> createdUsers = new ArrayList<>();
    private final List<String> createdRoles = new ArrayList<>();
    private Set<String> indicesBefore;
    private Set<String> ingestPipelinesBefore;
    private Set<String> searchPipelinesBefore;

    /** The admin password of the demo configuration, from {@code tests.security.admin.password} (pom.xml). */
    protected static String adminPassword() {
        String password = System.getProperty("tests.security.admin.password");
        if (password == null || password.isEmpty()) {
            throw new IllegalStateException(
                    "set tests.security.admin.password to the admin password of the node beside the Security plugin");
        }
        return password;
    }

    @Override
    protected String getProtocol() {
        return "https";
    }

    @Override
    protected Settings restClientSettings() {
        return basicAuth(ADMIN, adminPassword());
    }

    @Override
    protected RestClient buildClient(Settings settings, HttpHost[] hosts) throws IOException {
        RestClientBuilder builder = RestClient.builder(hosts);
        configureClient(builder, settings); // headers (the credentials), time-outs; no trust store is set
        builder.setHttpClientConfigCallback(
                http -> http.setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setTlsStrategy(trustAll())
                        // HTTP/1.1: closing a client that spoke HTTP/2 to the node took ~5 s (1 s with HTTP/1.1)
                        .setDefaultTlsConfig(TlsConfig.custom()
                                .setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1)
                                .build())
                        .build()));
        builder.setStrictDeprecationMode(true);
        return builder.build();
    }

    @Override
    protected boolean preserveIndicesUponCompletion() {
        return true; // see the class comment: the test's own indices go in deleteTestsOwnState()
    }

    /** A client that authenticates as {@code user} (made by {@link #putUser}); closed after the class. */
    protected RestClient userClient(String user) throws IOException {
        String password = PASSWORDS.get(user);
        if (password == null) {
            throw new IllegalArgumentException("no password known for [" + user + "]: make it with putUser first");
        }
        RestClient client = USER_CLIENTS.get(user);
        if (client == null) {
            client = buildClient(basicAuth(user, password), getClusterHosts().toArray(new HttpHost[0]));
            USER_CLIENTS.put(user, client);
        }
        return client;
    }

    /** Creates or replaces the internal user {@code user} ({@link #USER_PASSWORD}) with the security roles {@code roles}. */
    protected void putUser(String user, String... roles) throws IOException {
        putUser(user, USER_PASSWORD, List.of(), List.of(roles));
    }

    /**
     * Creates or replaces the internal user {@code user}. {@code backendRoles} are matched by role mappings'
     * {@code backend_roles}, {@code roles} are security roles given to the user directly.
     */
    protected void putUser(String user, String password, List<String> backendRoles, List<String> roles)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("password", password);
        body.put("backend_roles", backendRoles);
        body.put("opendistro_security_roles", roles);
        putSecurityResource("internalusers", user, json(body), createdUsers);
        String previous = PASSWORDS.put(user, password);
        if (previous != null && previous.equals(password) == false) {
            RestClient stale = USER_CLIENTS.remove(user);
            if (stale != null) {
                stale.close();
            }
        }
    }

    /** Creates or replaces a role from its Security REST API body. */
    protected void putRole(String name, String roleJson) throws IOException {
        putSecurityResource("roles", name, roleJson, createdRoles);
    }

    /** Creates or replaces a role: {@code putRole("r", role().cluster(...).index("logs-*").allow("read").dls(...))}. */
    protected void putRole(String name, Role role) throws IOException {
        putRole(name, role.toJson());
    }

    /** Maps the role to these users, replacing the role's mapping until the end of the test. */
    protected void mapRole(String role, String... users) throws IOException {
        mapRole(role, List.of(users), List.of());
    }

    /**
     * Maps the role to these users and backend roles, replacing the role's mapping until the end of the test
     * (then the demo configuration's mapping of a built-in role such as {@code readall} comes back).
     */
    protected void mapRole(String role, List<String> users, List<String> backendRoles) throws IOException {
        if (replacedMappings.containsKey(role) == false) {
            replacedMappings.put(role, currentMapping(role));
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("users", users);
        body.put("backend_roles", backendRoles);
        putSecurityResource("rolesmapping", role, json(body), new ArrayList<>());
    }

    /** A role for {@link #putRole(String, Role)}. */
    protected static Role role() {
        return new Role();
    }

    /**
     * A role's cluster permissions and index permissions; {@link #index} starts an index permission, and
     * {@link #allow}, {@link #dls}, {@link #fls} and {@link #masked} add to the last one started.
     */
    protected static final class Role {
        private final List<String> clusterPermissions = new ArrayList<>();
        private final List<IndexPermission> indexPermissions = new ArrayList<>();

        /** Cluster permissions or action groups, e.g. {@code cluster_composite_ops_ro}. */
        public Role cluster(String... permissions) {
            clusterPermissions.addAll(Arrays.asList(permissions));
            return this;
        }

        /** Starts an index permission on these index patterns. */
        public Role index(String... indexPatterns) {
            indexPermissions.add(new IndexPermission(List.of(indexPatterns)));
            return this;
        }

        /** Actions or action groups allowed on the index patterns, e.g. {@code read}, {@code indices:data/write/index}. */
        public Role allow(String... actions) {
            last().allowedActions.addAll(Arrays.asList(actions));
            return this;
        }

        /** Document-level security: the query (JSON) a document must match to be seen. */
        public Role dls(String query) {
            last().dls = query;
            return this;
        }

        /** Field-level security: fields to show, or with a leading {@code ~} fields to hide. */
        public Role fls(String... fields) {
            last().fls = List.of(fields);
            return this;
        }

        /** Fields whose values are shown hashed. */
        public Role masked(String... fields) {
            last().maskedFields = List.of(fields);
            return this;
        }

        private IndexPermission last() {
            if (indexPermissions.isEmpty()) {
                throw new IllegalStateException("call index(patterns...) first");
            }
            return indexPermissions.get(indexPermissions.size() - 1);
        }

        /** The body for {@code PUT _plugins/_security/api/roles/<name>}. */
        public String toJson() throws IOException {
            List<Map<String, Object>> indices = new ArrayList<>();
            for (IndexPermission permission : indexPermissions) {
                Map<String, Object> index = new LinkedHashMap<>();
                index.put("index_patterns", permission.indexPatterns);
                index.put("allowed_actions", permission.allowedActions);
                if (permission.dls != null) {
                    index.put("dls", permission.dls);
                }
                if (permission.fls != null) {
                    index.put("fls", permission.fls);
                }
                if (permission.maskedFields != null) {
                    index.put("masked_fields", permission.maskedFields);
                }
                indices.add(index);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("cluster_permissions", clusterPermissions);
            body.put("index_permissions", indices);
            return json(body);
        }

        private static final class IndexPermission {
            private final List<String> indexPatterns;
            private final List<String> allowedActions = new ArrayList<>();
            private String dls;
            private List<String> fls;
            private List<String> maskedFields;

            private IndexPermission(List<String> indexPatterns) {
                this.indexPatterns = indexPatterns;
            }
        }
    }

    @Before
    public void recordStateBeforeTest() throws IOException {
        indicesBefore = indices();
        ingestPipelinesBefore = pipelines("/_ingest/pipeline");
        searchPipelinesBefore = pipelines("/_search/pipeline");
    }

    /** Runs before OpenSearchRestTestCase's own clean-up (subclass {@code @After} methods run first). */
    @After
    public void deleteTestsOwnState() throws IOException {
        if (indicesBefore == null) {
            return; // the clients could not be set up: OpenSearchRestTestCase reports that
        }
        for (Map.Entry<String, String> mapping : replacedMappings.entrySet()) {
            if (mapping.getValue() == null) {
                deleteSecurityResource("rolesmapping", mapping.getKey());
            } else {
                putSecurityResource("rolesmapping", mapping.getKey(), mapping.getValue(), new ArrayList<>());
            }
        }
        for (String user : createdUsers) {
            deleteSecurityResource("internalusers", user);
        }
        for (String role : createdRoles) {
            deleteSecurityResource("roles", role);
        }
        replacedMappings.clear();
        createdUsers.clear();
        createdRoles.clear();

        Set<String> newIndices = indices();
        newIndices.removeAll(indicesBefore);
        newIndices.removeIf(index -> index.startsWith(AUDIT_LOG_PREFIX));
        if (newIndices.isEmpty() == false) {
            adminClient().performRequest(new Request("DELETE", "/" + String.join(",", newIndices)));
        }
        deleteNewPipelines("/_ingest/pipeline", ingestPipelinesBefore);
        deleteNewPipelines("/_search/pipeline", searchPipelinesBefore);
        indicesBefore = null;
    }

    /**
     * Closes the users' clients and OpenSearchRestTestCase's two at once (it closes its own again, which does
     * nothing): closing a client waits ~1 s for the node to answer its TLS close_notify.
     */
    @AfterClass
    public static void closeClientsTogether() throws Exception {
        List<RestClient> clients = new ArrayList<>(USER_CLIENTS.values());
        clients.add(client());
        clients.add(adminClient());
        USER_CLIENTS.clear();
        PASSWORDS.clear();
        List<Thread> closers = new ArrayList<>();
        List<Exception> failures = new ArrayList<>();
        for (RestClient client : clients) {
            if (client == null) {
                continue;
            }
            Thread closer = new Thread(
                    () -> {
                        try {
                            client.close();
                        } catch (IOException | RuntimeException e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "close-rest-client");
            closer.start();
            closers.add(closer);
        }
        for (Thread closer : closers) {
            closer.join();
        }
        if (failures.isEmpty() == false) {
            throw failures.get(0);
        }
    }

    private static Settings basicAuth(String user, String password) {
        String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        return Settings.builder()
                .put(ThreadContext.PREFIX + ".Authorization", "Basic " + token)
                .build();
    }

    private static void putSecurityResource(String type, String name, String body, List<String> created)
            throws IOException {
        Request request = new Request("PUT", "/_plugins/_security/api/" + type + "/" + name);
        request.setJsonEntity(body);
        Response response = adminClient().performRequest(request);
        assertOK(response);
        if (created.contains(name) == false) {
            created.add(name);
        }
    }

    /** The role's mapping as a body for PUT, or null if it has none. */
    @SuppressWarnings("unchecked")
    private static String currentMapping(String role) throws IOException {
        Map<String, Object> response;
        try {
            response = entityAsMap(
                    adminClient().performRequest(new Request("GET", "/_plugins/_security/api/rolesmapping/" + role)));
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() == 404) {
                return null;
            }
            throw e;
        }
        Map<String, Object> mapping = (Map<String, Object>) response.get(role);
        Map<String, Object> body = new LinkedHashMap<>();
        for (String key : List.of("users", "backend_roles", "and_backend_roles", "hosts", "description")) {
            if (mapping.containsKey(key)) {
                body.put(key, mapping.get(key));
            }
        }
        return json(body);
    }

    private static void deleteSecurityResource(String type, String name) throws IOException {
        try {
            adminClient().performRequest(new Request("DELETE", "/_plugins/_security/api/" + type + "/" + name));
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() != 404) {
                throw e;
            }
        }
    }

    /** The names of the indices that are neither hidden nor system indices. */
    private static Set<String> indices() throws IOException {
        Request request = new Request("GET", "/_cat/indices");
        request.addParameter("h", "index");
        request.addParameter("expand_wildcards", "open,closed");
        String body = new String(
                adminClient().performRequest(request).getEntity().getContent().readAllBytes(), StandardCharsets.UTF_8);
        Set<String> names = new HashSet<>();
        for (String line : body.split("\n")) {
            String name = line.trim();
            if (name.isEmpty() == false && name.startsWith(".") == false) {
                names.add(name);
            }
        }
        return names;
    }

    private static Set<String> pipelines(String endpoint) throws IOException {
        try {
            return new HashSet<>(entityAsMap(adminClient().performRequest(new Request("GET", endpoint)))
                    .keySet());
        } catch (ResponseException e) {
            if (e.getResponse().getStatusLine().getStatusCode() == 404) {
                return new HashSet<>(); // none yet
            }
            throw e;
        }
    }

    private static void deleteNewPipelines(String endpoint, Set<String> before) throws IOException {
        Set<String> created = pipelines(endpoint);
        created.removeAll(before);
        for (String pipeline : created) {
            adminClient().performRequest(new Request("DELETE", endpoint + "/" + pipeline));
        }
    }

    private static String json(Map<String, Object> body) throws IOException {
        try (XContentBuilder builder = JsonXContent.contentBuilder()) {
            return builder.map(body).toString();
        }
    }

    /** Trusts any certificate for any host: the node's are the demo certificates. */
    private static TlsStrategy trustAll() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustAllManager()}, null);
            return ClientTlsStrategyBuilder.create()
                    .setSslContext(context)
                    .setHostVerificationPolicy(HostnameVerificationPolicy.CLIENT)
                    .setHostnameVerifier(NoopHostnameVerifier.INSTANCE)
                    .buildAsync();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS for the tests", e);
        }
    }

    /** Extended, so that the JDK does not wrap it in its own host name and constraint checks. */
    private static final class TrustAllManager extends X509ExtendedTrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
