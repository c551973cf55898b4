package io.gpuremediator.pipeline;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** The DCGM simulator's fault API. */
public final class Simulator {
  private final Http http;
  private final String base;

  public Simulator(Http http, int port) {
    this.http = http;
    this.base = "http://127.0.0.1:" + port;
  }

  /** Injects a fault ({@code gpu} null for node-level kinds, {@code value} null for the default). */
  public void inject(String node, Integer gpu, String kind, String value) throws IOException, InterruptedException {
    ObjectNode body = JsonNodeFactory.instance.objectNode().put("node", node).put("kind", kind);
    if (gpu != null) {
      body.put("gpu", gpu);
    }
    if (value != null) {
      body.put("value", value);
    }
    http.send("POST", base + "/faults", body.toString());
  }

  /** Clears every fault of {@code kind} on {@code node}. */
  public void clear(String node, String kind) throws IOException, InterruptedException {
    http.send("DELETE", base + "/faults?node=" + URLEncoder.encode(node, StandardCharsets.UTF_8) + "&kind=" + kind, null);
  }

  String nodesUrl() {
    return base + "/nodes";
  }
}
