package io.gpuremediator.action;

import java.util.Optional;

/** What a cluster-api replacement does to the Machine ({@code via}): delete it, or hand it to its MachineHealthCheck. */
public enum ReplaceVia {
  DELETE("delete"), REMEDIATE_ANNOTATION("remediate_annotation");

  final String key;

  ReplaceVia(String key) {
    this.key = key;
  }

  static Optional<ReplaceVia> of(String key) {
    for (ReplaceVia v : values()) {
      if (v.key.equals(key)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }
}
