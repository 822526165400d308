/*
 * Copyright opensearch-neardup contributors.
 * SPDX-License-Identifier: Apache-2.0
 */
package io.neardup.bench.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP client of the evaluation programs that talk to a node: one JDK {@link HttpClient} (HTTP/1.1, keep-alive),
 * JSON bodies ({@code application/x-ndjson} where the path holds {@code _bulk}), each answer timed. Failures are
 * unchecked: a program that cannot reach its node stops.
 */
public final class Node {
    /** An answer: its status, headers and body, and the client's time from sending to the whole body read. */
    public record Response(int status, HttpHeaders headers, String body, long nanos) {
        public boolean ok() {
            return status / 100 == 2;
        }
    }

    private final HttpClient http;
    private final String url;
    private final Duration timeout;

    /** A node at {@code url} (a trailing slash is dropped), HTTP/1.1, requests timed out after {@code timeout}. */
    public Node(String url, Duration timeout) {
        this(
                url,
                timeout,
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(10))
                        .build());
    }

    public Node(String url, Duration timeout, HttpClient http) {
        this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.timeout = timeout;
        this.http = http;
    }

    public String url() {
        return url;
    }

    public Response call(String method, String path, String body) {
        return call(method, path, body, timeout);
    }

    public Response call(String method, String path, String body, Duration timeout) {
        return callRaw(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), timeout);
    }

    public Response callRaw(String method, String path, byte[] body, Duration timeout) {
        long t0 = System.nanoTime();
        try {
            HttpResponse<String> r = http.send(
                    request(method, path, body, timeout), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(r.statusCode(), r.headers(), r.body(), System.nanoTime() - t0);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " " + path + ": interrupted", e);
        }
    }

    /**
     * {@link #call} on a blocking {@link HttpURLConnection} (keep-alive), for timing one request at a time: the JDK
     * {@link HttpClient} hands each exchange between its threads, which adds about a millisecond a request on a
     * 2-core machine (measured: {@code match_all}, median 2.35 ms against 1.32 ms here), time that is the client's,
     * not the node's. Fails unless the status is 2xx.
     */
    public Response okBlocking(String method, String path, String body) {
        long t0 = System.nanoTime();
        try {
            HttpURLConnection connection =
                    (HttpURLConnection) URI.create(url + path).toURL().openConnection();
            connection.setRequestMethod(method);
            connection.setConnectTimeout(10_000);
            connection.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            if (body != null) {
                connection.setDoOutput(true);
                connection.setRequestProperty("Content-Type", "application/json");
                try (OutputStream out = connection.getOutputStream()) {
                    out.write(body.getBytes(StandardCharsets.UTF_8));
                }
            }
            int status = connection.getResponseCode();
            InputStream stream = status / 100 == 2 ? connection.getInputStream() : connection.getErrorStream();
            String answer;
            try (InputStream in = stream) {
                answer = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Map<String, List<String>> headers = new HashMap<>(connection.getHeaderFields());
            headers.remove(null); // the status line
            Response r = new Response(
                    status, HttpHeaders.of(headers, (name, value) -> true), answer, System.nanoTime() - t0);
            return check(method, path, body, r, false);
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + path + ": " + e, e);
        }
    }

    /** {@link #call} without waiting: the future completes with the answer or the failure. */
    public CompletableFuture<Response> callAsync(String method, String path, String body, Duration timeout) {
        long t0 = System.nanoTime();
        return http.sendAsync(
                        request(method, path, body.getBytes(StandardCharsets.UTF_8), timeout),
                        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
                .thenApply(r -> new Response(r.statusCode(), r.headers(), r.body(), System.nanoTime() - t0));
    }

    private HttpRequest request(String method, String path, byte[] body, Duration timeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(timeout);
        if (body != null) {
            b.header("Content-Type", path.contains("_bulk") ? "application/x-ndjson" : "application/json");
            b.method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return b.build();
    }

    /** {@link #call}, failing unless the status is 2xx. */
    public Response ok(String method, String path, String body) {
        return ok(method, path, body, timeout);
    }

    public Response ok(String method, String path, String body, Duration timeout) {
        return check(method, path, body, call(method, path, body, timeout), false);
    }

    /** {@link #call} without a body, failing unless the status is 2xx or 404 (a DELETE of what may not be there). */
    public Response okOr404(String method, String path) {
        return check(method, path, null, call(method, path, null, timeout), true);
    }

    private static Response check(String method, String path, String body, Response r, boolean allow404) {
        if (r.ok() == false && (allow404 == false || r.status() != 404)) {
            throw new IllegalStateException(method + " " + path + " -> " + r.status() + ": "
                    + abbreviate(r.body(), 2000) + (body == null ? "" : "\nrequest: " + abbreviate(body, 2000)));
        }
        return r;
    }

    public static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
