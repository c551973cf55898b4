package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.gpuremediator.node.NodeInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads nodes from a file as {@code kubectl get nodes -o yaml} writes it (a List, or Node documents). */
public final class NodeFiles {
  private NodeFiles() {}

  /** Every Node in the file. */
  public static List<NodeInfo> read(Path file) throws IOException {
    List<NodeInfo> nodes = new ArrayList<>();
    try (InputStream in = Files.newInputStream(file)) {
      Object parsed = Serialization.unmarshal(in);
      List<?> items = parsed instanceof List<?> list ? list
          : parsed instanceof KubernetesList kl ? kl.getItems() : List.of(parsed);
      for (Object item : items) {
        if (item instanceof Node node) {
          nodes.add(LedgerSigning.readOnly().handOut(NodeMapper.toInfo(node, LedgerSeal.offline())));
        } else if (item instanceof HasMetadata other) {
          throw new IOException(file + ": expected only Node objects, found " + other.getKind());
        }
      }
    } catch (RuntimeException e) {
      throw new IOException(file + ": not a Kubernetes Node list: " + e.getMessage(), e);
    }
    return nodes;
  }
}
