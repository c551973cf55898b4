package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class CanonicalNodeStoreTest {
  /** A node as the JSON parser makes it: every string its own copy. */
  private static Node parsed(String name) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(new String("node.kubernetes.io/instance-type"), new String("p5.48xlarge"));
    labels.put(new String("kubernetes.io/hostname"), name);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(new String("csi.volume.kubernetes.io/nodeid"), new String("{\"ebs.csi.aws.com\":\"i-0" + name + "\"}"));
    return new NodeBuilder().withNewMetadata().withName(name).withLabels(labels).withAnnotations(annotations).endMetadata()
        .withNewStatus().addNewCondition().withType(new String("Ready")).withStatus(new String("True"))
        .withReason(new String("KubeletReady")).withMessage(new String("kubelet is posting ready status")).endCondition()
        .endStatus().build();
  }

  @Test
  void nodesShareTheirRepeatedStringsAndKeepEveryValue() {
    CanonicalNodeStore store = new CanonicalNodeStore();
    store.put("a", parsed("a"));
    Node a = store.get("a");
    Node b = parsed("b");
    Map<String, String> before = new LinkedHashMap<>(b.getMetadata().getLabels());
    store.put("b", b);
    Node stored = store.get("b");

    assertThat(stored.getMetadata().getLabels()).isEqualTo(before);
    Assertions.assertThatThrownBy(() -> stored.getMetadata().getLabels().put("x", "y"))
        .as("immutable: NodeInfo takes it without a copy").isInstanceOf(UnsupportedOperationException.class);
    String type = "node.kubernetes.io/instance-type";
    assertThat(key(stored.getMetadata().getLabels(), type)).isSameAs(key(a.getMetadata().getLabels(), type));
    assertThat(stored.getMetadata().getLabels().get("node.kubernetes.io/instance-type"))
        .isSameAs(a.getMetadata().getLabels().get("node.kubernetes.io/instance-type"));
    String nodeId = "csi.volume.kubernetes.io/nodeid";
    assertThat(key(stored.getMetadata().getAnnotations(), nodeId)).isSameAs(key(a.getMetadata().getAnnotations(), nodeId));
    assertThat(stored.getStatus().getConditions().get(0).getMessage())
        .isSameAs(a.getStatus().getConditions().get(0).getMessage());
  }

  @Test
  void thePoolIsBounded() {
    CanonicalNodeStore store = new CanonicalNodeStore();
    String value = new String("p5.48xlarge");
    assertThat(store.string(value)).as("a string first seen is pooled as it is").isSameAs(value);
    for (int i = 0; i < CanonicalNodeStore.POOLED; i++) {
      store.string("unique-" + i);
    }
    String late = new String("late");
    assertThat(store.string(late)).isSameAs(late);
    assertThat(store.string(new String("late"))).as("no room: kept as it comes").isNotSameAs(late);
  }

  /** The map's own key equal to {@code name}. */
  private static String key(Map<String, String> map, String name) {
    return map.keySet().stream().filter(name::equals).findFirst().orElseThrow();
  }
}
