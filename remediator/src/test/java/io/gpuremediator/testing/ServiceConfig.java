package io.gpuremediator.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A whole-service test's {@code remediator.yaml}: on 127.0.0.1 with an ephemeral port, the test's tokens
 * ({@link Tokens#AUTH}), the shipped playbooks of {@code deploy/playbooks}, no leader election; then the test's own
 * lines, each a line of YAML as it would stand in the file.
 */
public final class ServiceConfig {
  /** The shipped playbooks, as the service reads them from the module's directory. */
  public static final Path SHIPPED_PLAYBOOKS = Path.of("../deploy/playbooks").toAbsolutePath();

  /** The playbooks that act on an alert at once, for tests of the service's edges. */
  public static final Path IMMEDIATE_PLAYBOOKS = Path.of("src/test/resources/playbooks/immediate").toAbsolutePath();

  /** Leader election on, in the namespace and Lease of the shipped manifests. */
  public static final String LEADING = "leader_election: {enabled: true, namespace: gpu-remediator, lease: gpu-remediator}\n";

  private ServiceConfig() {}

  /**
   * Writes to {@code file} a config on 127.0.0.1 with an ephemeral port, the test's tokens, {@code playbooks} (the
   * YAML list's items as written: {@code playbooks.yaml}, or a path) and {@code lines}; answers its path.
   */
  public static Path write(Path file, Object playbooks, String... lines) throws IOException {
    return write(file, Tokens.AUTH, playbooks, lines);
  }

  /** The same, with the read-only token too ({@link Tokens#AUTH_WITH_READER}). */
  public static Path writeWithReader(Path file, Object playbooks, String... lines) throws IOException {
    return write(file, Tokens.AUTH_WITH_READER, playbooks, lines);
  }

  private static Path write(Path file, String auth, Object playbooks, String... lines) throws IOException {
    return Files.writeString(file, "listen: 127.0.0.1:0\n" + auth + "\nplaybooks: [" + playbooks + "]\n"
        + String.join("", lines));
  }

  /**
   * Writes to {@code dir/remediator.yaml} a config with no auth ({@code insecure_no_auth}), the playbooks of
   * {@link #IMMEDIATE_PLAYBOOKS}, no leader election, and {@code lines}; answers its path.
   */
  public static Path writeOpen(Path dir, String... lines) throws IOException {
    return Files.writeString(dir.resolve("remediator.yaml"), "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\n"
        + "playbooks: [" + IMMEDIATE_PLAYBOOKS + "]\nleader_election: {enabled: false}\n" + String.join("", lines));
  }

  /** The config with the shipped playbooks and {@code lines}. */
  public static String shipped(String... lines) {
    return "listen: 127.0.0.1:0\n" + Tokens.AUTH + "\nplaybooks: [" + SHIPPED_PLAYBOOKS + "]\n"
        + "leader_election: {enabled: false}\n" + String.join("", lines);
  }

  /** Writes {@link #shipped} with {@code lines} to {@code dir/remediator.yaml}, and answers its path. */
  public static Path writeShipped(Path dir, String... lines) throws IOException {
    return Files.writeString(dir.resolve("remediator.yaml"), shipped(lines));
  }
}
