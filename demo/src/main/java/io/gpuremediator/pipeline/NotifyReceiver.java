package io.gpuremediator.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Slack-compatible incoming webhook on 127.0.0.1 for the demo's {@code gpu-oncall} receiver: takes
 * {@code {"text": ...}}, keeps each message and reports it as it arrives.
 */
final class NotifyReceiver implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final List<String> received = new CopyOnWriteArrayList<>();

  NotifyReceiver(PipelineEvents report) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", exchange -> {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      String text;
      try {
        text = JSON.readTree(body).path("text").asText("");
      } catch (IOException e) {
        text = "";
      }
      int status = text.isEmpty() ? 400 : 200;
      if (status == 200) {
        received.add(text);
        report.notified(text);
      }
      exchange.sendResponseHeaders(status, -1);
      exchange.close();
    });
    server.start();
  }

  /** The webhook URL, as a Slack incoming webhook's would be. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/services/T0DEMO/B0DEMO/demo";
  }

  /** Every message received, oldest first. */
  List<String> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
