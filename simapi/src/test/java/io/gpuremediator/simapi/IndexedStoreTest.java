package io.gpuremediator.simapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The indexed store answers every read as the stock mock's scan of its whole store answers it: the same writes sent to
 * both, then the same reads (by name, lists by resource, namespace, label and field, a missing name, deletes with and
 * without finalizers) compared body for body, less the ids and times each server draws itself.
 */
class IndexedStoreTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private final EmulatedApiServer indexed = EmulatedApiServer.start();
  private final KubernetesMockServer stock = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
      new KubernetesCrudDispatcher(), false);
  private final List<KubernetesClient> clients = new ArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(KubernetesClient::close);
    indexed.close();
    stock.destroy();
  }

  @Test
  void answersEveryReadAsTheMocksScanOfItsWholeStoreDoes() throws Exception {
    stock.init(InetAddress.getByName("127.0.0.1"), 0);
    KubernetesClient a = indexed.client();
    KubernetesClient b = stock.createClient();
    clients.addAll(List.of(a, b));
    for (KubernetesClient c : List.of(a, b)) {
      write(c);
    }
    String stockUrl = b.getConfiguration().getMasterUrl();
    List<String> reads = List.of("/api/v1/nodes", "/api/v1/nodes?labelSelector=gpu%3Dtrue",
        "/api/v1/nodes?labelSelector=gpu%21%3Dtrue", "/api/v1/nodes?labelSelector=zone", "/api/v1/nodes/node-3",
        "/api/v1/nodes/node-absent", "/api/v1/nodes?fieldSelector=metadata.name%3Dnode-5", "/api/v1/pods",
        "/api/v1/namespaces/a/pods", "/api/v1/namespaces/b/pods?labelSelector=app%3Dtrain", "/api/v1/namespaces/a/pods/p-1",
        "/api/v1/pods?fieldSelector=metadata.name%3Dp-2", "/api/v1/namespaces/a/events/same",
        "/apis/events.k8s.io/v1/namespaces/a/events/same", "/apis/events.k8s.io/v1/events", "/api/v1/namespaces",
        "/apis/batch/v1/namespaces/a/jobs");
    for (String read : reads) {
      assertThat(get(indexed.url(), read)).as(read).isEqualTo(get(stockUrl, read));
    }
    assertThat(a.pods().inNamespace("a").withName("p-0").get().getMetadata().getDeletionTimestamp())
        .as("a pod holding a finalizer, only marked").isNotNull();
    assertThat(a.pods().inAnyNamespace().withField("spec.nodeName", "node-1").list().getItems())
        .as("the pods of node-1, the one deleted gone").extracting(p -> p.getMetadata().getNamespace() + "/"
            + p.getMetadata().getName()).containsExactly("a/p-1", "b/p-1", "b/p-3");
  }

  /** The same writes, in the same order, to either server. */
  private static void write(KubernetesClient c) {
    for (int i = 0; i < 8; i++) {
      c.nodes().resource(node(i)).create();
    }
    Node changed = c.nodes().withName("node-3").get();
    changed.getMetadata().getLabels().put("gpu", "false");
    c.nodes().resource(changed).update();
    c.nodes().withName("node-6").delete();
    for (String ns : List.of("a", "b")) {
      c.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
      for (int p = 0; p < 4; p++) {
        PodBuilder pod = new PodBuilder().withNewMetadata().withName("p-" + p).withNamespace(ns)
            .addToLabels("app", p % 2 == 0 ? "train" : "serve").endMetadata().withNewSpec().withNodeName("node-" + (p % 2))
            .endSpec();
        if (p == 0) {
          pod.editMetadata().addToFinalizers("example.com/hold").endMetadata();
        }
        c.pods().resource(pod.build()).create();
      }
    }
    c.pods().inNamespace("a").withName("p-0").delete();
    c.pods().inNamespace("a").withName("p-3").delete();
    Event core = new Event();
    core.setMetadata(new ObjectMetaBuilder().withName("same").build());
    core.setReason("core");
    c.v1().events().inNamespace("a").resource(core).create();
    c.events().v1().events().inNamespace("a").resource(new EventBuilder().withNewMetadata().withName("same").endMetadata()
        .withReason("events.k8s.io").build()).create();
  }

  private static Node node(int i) {
    NodeBuilder n = new NodeBuilder().withNewMetadata().withName("node-" + i).addToLabels("gpu", i % 2 == 0 ? "true" : "x")
        .endMetadata();
    if (i < 4) {
      n.editMetadata().addToLabels("zone", "z" + i).endMetadata();
    }
    return n.build();
  }

  /** A read's status and body, less what each server draws itself (uids, creation and deletion times). */
  private static String get(String base, String path) throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(base.replaceAll("/$", "") + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.body().isEmpty()) {
      return r.statusCode() + "";
    }
    JsonNode body = JSON.readTree(r.body());
    strip(body);
    for (JsonNode item : body.path("items")) {
      strip(item);
    }
    return r.statusCode() + " " + body;
  }

  private static void strip(JsonNode object) {
    JsonNode metadata = object.path("metadata");
    if (metadata instanceof ObjectNode m) {
      m.remove(List.of("uid", "creationTimestamp", "deletionTimestamp"));
    }
  }
}
