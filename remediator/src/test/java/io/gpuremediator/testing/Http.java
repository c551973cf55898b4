package io.gpuremediator.testing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The one HTTP client of the tests that drive a service on 127.0.0.1: every request is built here. */
public final class Http {
  /** How long any answer may take: a service that hangs fails its test with a timeout, not a hang. */
  private static final Duration ANSWER = Duration.ofSeconds(60);
  private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  /**
   * Sends one request to {@code http://127.0.0.1:port/path} and returns the answer as text.
   *
   * @param body empty for none (a GET)
   * @param contentType sent when there is a body
   * @param token sent as {@code Authorization: Bearer} when present
   */
  public static HttpResponse<String> send(int port, String method, String path, byte[] body, String contentType,
      Optional<String> token) throws IOException, InterruptedException {
    return CLIENT.send(request(port, method, path, body, contentType, token, ANSWER), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(int port, String method, String path, byte[] body, String contentType,
      Optional<String> token, Duration answerWithin) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(answerWithin)
        .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    if (body.length > 0) {
      b.header("Content-Type", contentType);
    }
    token.ifPresent(t -> b.header("Authorization", "Bearer " + t));
    return b.build();
  }

  /** The same request as {@link #send}, answered later (many at once, each on the client's own threads). */
  public static CompletableFuture<HttpResponse<String>> sendAsync(int port, String method, String path, byte[] body,
      String contentType, Optional<String> token) {
    return CLIENT.sendAsync(request(port, method, path, body, contentType, token, ANSWER), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The same request as {@link #send} on a connection of its own (a new HTTP/1.1 client): for a test of connection
   * limits, where a pooled connection the service closed as the one idle longest would fail the request.
   */
  public static CompletableFuture<HttpResponse<String>> sendAlone(int port, String method, String path, byte[] body,
      String contentType, Optional<String> token) {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build()
        .sendAsync(request(port, method, path, body, contentType, token, ANSWER), HttpResponse.BodyHandlers.ofString());
  }

  /** A text body. */
  public static byte[] text(String body) {
    return body.getBytes(StandardCharsets.UTF_8);
  }

  /** A GET without a token. */
  public static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return send(port, "GET", path, new byte[0], "", Optional.empty());
  }

  /** A GET with a token. */
  public static HttpResponse<String> get(int port, String path, String token) throws IOException, InterruptedException {
    return send(port, "GET", path, new byte[0], "", Optional.of(token));
  }

  /** A POST of JSON with a token. */
  public static HttpResponse<String> postJson(int port, String path, String json, String token) throws IOException, InterruptedException {
    return send(port, "POST", path, text(json), "application/json", Optional.of(token));
  }

  /** The status of a GET without a token, or -1 when nothing answers. */
  public static int status(int port, String path) {
    return status(port, path, ANSWER);
  }

  /** The status of a GET without a token, or -1 when nothing answers within {@code answerWithin} (a paused process). */
  public static int status(int port, String path, Duration answerWithin) {
    try {
      return CLIENT.send(request(port, "GET", path, new byte[0], "", Optional.empty(), answerWithin),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }
}
