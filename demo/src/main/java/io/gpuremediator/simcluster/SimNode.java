package io.gpuremediator.simcluster;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** One node of the simulated fleet, as the DCGM simulator's {@code GET /nodes} describes it. */
public record SimNode(String name, Kind kind, String internalIp) {
  /** What accelerators the node carries. */
  public enum Kind {
    GPU, TRAINIUM
  }

  public SimNode {
    if (!name.matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?")) {
      throw new IllegalArgumentException("node name is not an RFC 1123 label: " + name);
    }
  }

  /** The nodes of the simulator's {@code GET /nodes} answer; an unknown kind is an error, not a guess. */
  public static List<SimNode> listFrom(JsonNode answer) {
    List<SimNode> nodes = new ArrayList<>();
    for (JsonNode n : answer.path("nodes")) {
      Kind kind = switch (n.path("kind").asText()) {
        case "gpu" -> Kind.GPU;
        case "trainium" -> Kind.TRAINIUM;
        default -> throw new IllegalArgumentException("node " + n.path("name") + " has unknown kind " + n.path("kind"));
      };
      nodes.add(new SimNode(n.path("name").asText(), kind, n.path("internal_ip").asText()));
    }
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("the simulator lists no nodes");
    }
    return List.copyOf(nodes);
  }
}
