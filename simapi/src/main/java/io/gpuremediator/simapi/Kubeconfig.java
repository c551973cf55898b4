package io.gpuremediator.simapi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** A kubeconfig for a simulated API server, as a real cluster's would be: one cluster, one user with a token. */
public final class Kubeconfig {
  private Kubeconfig() {}

  /** Writes {@code file} (atomically: a reader never sees half of it) pointing at {@code serverUrl}; returns it. */
  public static Path write(Path file, String serverUrl) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, String.join("\n",
        "apiVersion: v1", "kind: Config", "current-context: gpu-sim",
        "clusters: [{name: gpu-sim, cluster: {server: '" + serverUrl + "'}}]",
        "contexts: [{name: gpu-sim, context: {cluster: gpu-sim, user: gpu-remediator}}]",
        "users: [{name: gpu-remediator, user: {token: simulated-cluster}}]", ""));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return file;
  }
}
