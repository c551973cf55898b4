package io.gpuremediator.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** JSON over HTTP to the pipeline's processes. */
public final class Http {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** GETs JSON; a non-2xx answer is an IOException naming the URL and the body. */
  public JsonNode get(String url, String bearerToken) throws IOException, InterruptedException {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (bearerToken != null) {
      r.header("Authorization", "Bearer " + bearerToken);
    }
    return json(url, client.send(r.build(), HttpResponse.BodyHandlers.ofString()));
  }

  /** Sends {@code body} as JSON with {@code method}; a non-2xx answer is an IOException. */
  public JsonNode send(String method, String url, String body) throws IOException, InterruptedException {
    HttpRequest r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
    return json(url, client.send(r, HttpResponse.BodyHandlers.ofString()));
  }

  /** The status code of a GET, or -1 when nothing answers. */
  public int status(String url) throws InterruptedException {
    try {
      return client.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  HttpClient client() {
    return client;
  }

  static String pretty(String json) {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(json));
    } catch (IOException e) {
      return json;
    }
  }

  private static JsonNode json(String url, HttpResponse<String> r) throws IOException {
    if (r.statusCode() / 100 != 2) {
      throw new IOException(url + " answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }
}
