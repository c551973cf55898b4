package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.gpuremediator.node.NodeInfo;
import org.junit.jupiter.api.Test;

/** The node cache converts each version of a node once; an edit reuses that only for the very version it converted. */
class NodeCacheTest {
  private static Node node(String resourceVersion, String rack) {
    return new NodeBuilder().withNewMetadata().withName("gpu-node-1").withResourceVersion(resourceVersion)
        .addToLabels("topology.kubernetes.io/rack", rack).endMetadata().build();
  }

  @Test
  void anEditStartsFromTheCachedNodeOnlyAtTheVersionTheCacheConverted() {
    NodeCache cache = new NodeCache(LedgerSigning.signedOnly(LedgerSeal.withKey(new byte[32])));
    cache.put(node("7", "r1"));
    NodeInfo cached = cache.node("gpu-node-1").orElseThrow();

    assertThat(cache.info(node("7", "r1"))).as("the version the cache holds: converted once").isSameAs(cached);
    NodeInfo newer = cache.info(node("8", "r2"));
    assertThat(newer).isNotSameAs(cached);
    assertThat(newer.labels()).containsEntry("topology.kubernetes.io/rack", "r2");
    assertThat(newer.resourceVersion()).isEqualTo("8");
    assertThat(cache.info(node("", "r3")).labels()).as("no version: nothing to match, converted")
        .containsEntry("topology.kubernetes.io/rack", "r3");
  }
}
