package io.gpuremediator.simapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Watches of pods by {@code fieldSelector=spec.nodeName=NODE}, which the mock's CRUD dispatcher cannot filter (it knows
 * no pod fields): as the API server does (and each kubelet relies on), such a watch gets the ADDED, MODIFIED and DELETED
 * events of the pods on that node and of no other. No initial events: the API server sends none to a watch without a
 * resourceVersion of 0 either.
 */
final class NodePodWatches {
  private final ObjectMapper json;
  private final Map<String, Set<WebSocket>> byNode = new ConcurrentHashMap<>();

  NodePodWatches(ObjectMapper json) {
    this.json = json;
  }

  /** The answer to a watch of the pods on {@code node}: a WebSocket that is told of them from now on. */
  MockResponse open(String node) {
    return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
      @Override
      public void onOpen(WebSocket socket, Response response) {
        byNode.computeIfAbsent(node, k -> ConcurrentHashMap.newKeySet()).add(socket);
      }

      @Override
      public void onClosing(WebSocket socket, int code, String reason) {
        forget(node, socket);
      }

      @Override
      public void onClosed(WebSocket socket, int code, String reason) {
        forget(node, socket);
      }

      @Override
      public void onFailure(WebSocket socket, Throwable t, Response response) {
        forget(node, socket);
      }
    });
  }

  private void forget(String node, WebSocket socket) {
    Set<WebSocket> sockets = byNode.get(node);
    if (sockets != null) {
      sockets.remove(socket);
    }
  }

  /** A pod was created, changed or deleted ({@code type} ADDED, MODIFIED, DELETED): its node's watches hear of it. */
  void changed(String type, JsonNode pod) {
    if (pod == null || !"Pod".equals(pod.path("kind").asText("Pod"))) {
      return;
    }
    Set<WebSocket> sockets = byNode.get(pod.path("spec").path("nodeName").asText(""));
    if (sockets == null || sockets.isEmpty()) {
      return;
    }
    String event = json.createObjectNode().put("type", type).set("object", pod).toString();
    sockets.forEach(s -> s.send(event));
  }
}
