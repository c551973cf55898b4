package io.gpuremediator.pipeline;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;

/**
 * For {@code --verbose}: sits between Alertmanager and the remediator on 127.0.0.1, forwards each
 * webhook unchanged (body, token, content type) and reports its arrival, the raw body and the answer.
 */
final class WebhookTee implements AutoCloseable {
  private final HttpServer server;

  WebhookTee(Http http, String target, PipelineEvents report) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", exchange -> {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      report.webhookArrived(Instant.now(), new String(body, StandardCharsets.UTF_8));
      HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(target)).timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      for (String header : new String[] {"Authorization", "Content-Type"}) {
        String value = exchange.getRequestHeaders().getFirst(header);
        if (value != null) {
          forward.header(header, value);
        }
      }
      int status;
      byte[] answer;
      try {
        HttpResponse<byte[]> r = http.client().send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
        status = r.statusCode();
        answer = r.body();
      } catch (IOException e) {
        status = 502;
        answer = ("remediator unreachable: " + e.getMessage()).getBytes(StandardCharsets.UTF_8);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        status = 503;
        answer = new byte[0];
      }
      report.webhook(Http.pretty(new String(body, StandardCharsets.UTF_8)), status + " " + new String(answer, StandardCharsets.UTF_8));
      exchange.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
      if (answer.length > 0) {
        exchange.getResponseBody().write(answer);
      }
      exchange.close();
    });
    server.start();
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
