package io.gpuremediator.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Reason;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeResolverTest {
  private static final Map<String, String> GPU = Map.of("nvidia.com/gpu.present", "true");
  private static final InMemoryCluster CLUSTER = new InMemoryCluster(List.of(
      withIp(NodeInfo.named("gpu-node-1", GPU), "10.0.0.11"),
      withIp(NodeInfo.named("gpu-node-2", GPU), "fd00::12"),
      NodeInfo.named("cpu-node-1", Map.of()),
      NodeInfo.named("gpu-node-x", Map.of("nvidia.com/gpu.present", "true", NodeKeys.EXCLUDE_LABEL, "true"))));
  private static final NodeResolver RESOLVER = new NodeResolver(List.of("node", "Hostname", "hostname", "instance"),
      LabelSelector.parse("nvidia.com/gpu.present=true").value(), CLUSTER);

  private static NodeInfo withIp(NodeInfo n, String ip) {
    return new NodeInfo(n.name(), n.labels(), n.annotations(), n.taints(), false, n.conditions(), List.of(ip), "", "", n.ledger(),
        Optional.empty());
  }

  static Stream<Arguments> eligible() {
    return Stream.of(
        Arguments.of("node label", Map.of("node", "gpu-node-1"), "gpu-node-1"),
        Arguments.of("Hostname label of dcgm-exporter", Map.of("Hostname", "gpu-node-1"), "gpu-node-1"),
        Arguments.of("instance IP:port", Map.of("instance", "10.0.0.11:9400"), "gpu-node-1"),
        Arguments.of("instance bare IP", Map.of("instance", "10.0.0.11"), "gpu-node-1"),
        Arguments.of("instance IPv6 in brackets", Map.of("instance", "[fd00:0:0::12]:9400"), "gpu-node-2"),
        Arguments.of("node wins over instance", Map.of("node", "gpu-node-1", "instance", "[fd00::12]:9400"), "gpu-node-1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("eligible")
  void resolvesTheNodeThroughTheChain(String name, Map<String, String> labels, String node) {
    assertThat(RESOLVER.resolve(labels)).isInstanceOfSatisfying(Resolution.Eligible.class,
        e -> assertThat(e.node().name()).isEqualTo(node));
  }

  static Stream<Arguments> ineligible() {
    return Stream.of(
        Arguments.of("no label of the chain", Map.of("gpu", "0"), Reason.NODE_UNRESOLVED),
        Arguments.of("path traversal", Map.of("node", "../../etc/passwd"), Reason.NODE_UNRESOLVED),
        Arguments.of("shell injection", Map.of("node", "$(reboot)"), Reason.NODE_UNRESOLVED),
        Arguments.of("uppercase name", Map.of("node", "GPU-NODE-1"), Reason.NODE_UNRESOLVED),
        Arguments.of("Cyrillic look-alike", Map.of("node", "gpu-n\u043ede-1"), Reason.NODE_UNRESOLVED),
        Arguments.of("trailing newline", Map.of("node", "gpu-node-1\n"), Reason.NODE_UNRESOLVED),
        Arguments.of("invalid node label does not fall through to a valid Hostname",
            Map.of("node", "GPU-NODE-1", "Hostname", "gpu-node-1"), Reason.NODE_UNRESOLVED),
        Arguments.of("instance that is a hostname", Map.of("instance", "gpu-node-1:9400"), Reason.NODE_UNRESOLVED),
        Arguments.of("instance with a bad port", Map.of("instance", "10.0.0.11:http"), Reason.NODE_UNRESOLVED),
        Arguments.of("unknown node", Map.of("node", "gpu-node-9"), Reason.NODE_NOT_FOUND),
        Arguments.of("unknown InternalIP", Map.of("instance", "10.0.0.99:9400"), Reason.NODE_NOT_FOUND),
        Arguments.of("not selected", Map.of("node", "cpu-node-1"), Reason.NODE_NOT_SELECTED),
        Arguments.of("excluded", Map.of("node", "gpu-node-x"), Reason.NODE_EXCLUDED));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ineligible")
  void refusesWithReasonCode(String name, Map<String, String> labels, Reason reason) {
    assertThat(RESOLVER.resolve(labels)).isInstanceOfSatisfying(Resolution.Ineligible.class,
        i -> assertThat(i.reason()).isEqualTo(reason));
  }

  @Test
  void neverEchoesAnInvalidNameAsTheNode() {
    assertThat(RESOLVER.resolve(Map.of("node", "$(reboot)")).nodeName()).isEmpty();
  }
}
