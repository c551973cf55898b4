package io.gpuremediator.workload;

import java.util.Objects;

/** A volume a node's Job mounts: a path of the node's own filesystem, or a PersistentVolumeClaim of the Job's namespace. */
public sealed interface JobVolume {
  /** The volume's name in the pod. */
  String name();

  /** Where the container sees it. */
  String mountPath();

  /** The node's {@code path} (hostPath, type Directory). */
  record HostPath(String name, String mountPath, String path) implements JobVolume {
    /** Validates presence. */
    public HostPath {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(mountPath, "mountPath");
      Objects.requireNonNull(path, "path");
    }
  }

  /** The claim {@code claim} of the Job's namespace. */
  record Claim(String name, String mountPath, String claim) implements JobVolume {
    /** Validates presence. */
    public Claim {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(mountPath, "mountPath");
      Objects.requireNonNull(claim, "claim");
    }
  }
}
