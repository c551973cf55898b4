package io.gpuremediator.deploy;

import io.gpuremediator.pipeline.Dirs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * deploy/'s kustomizations rendered offline by {@code kubectl kustomize}, as tools/check-deploy renders them: from a
 * copy of deploy/ holding a webhook token, so the work tree is never touched.
 */
final class Kustomize {
  private static final long DEADLINE_SECONDS = 120;
  /** The files of the webhook's TLS Secret, each written as {@link #tlsFile} says. */
  static final List<String> TLS_FILES = List.of("tls.crt", "tls.key", "ca.crt");

  private final Path deploy;

  private Kustomize(Path deploy) {
    this.deploy = deploy;
  }

  /**
   * A copy of {@code root}/deploy in {@code work}, its webhook token file holding {@code token} and its operator token
   * file {@code operator-<token>}.
   */
  static Kustomize copy(Path root, Path work, String token) throws IOException {
    Path deploy = work.resolve("deploy");
    Dirs.copyTree(root.resolve("deploy"), deploy);
    Files.writeString(deploy.resolve("base/webhook-token"), token);
    Files.writeString(deploy.resolve("base/operator-token"), "operator-" + token);
    Files.writeString(deploy.resolve("base/ledger-key"), "ledger-key-of-" + token);
    for (String file : TLS_FILES) {
      Files.writeString(deploy.resolve("base/" + file), tlsFile(file));
    }
    return new Kustomize(deploy);
  }

  /** What a rendering test puts in the TLS file {@code file}: a stand-in (only a running server reads it). */
  static String tlsFile(String file) {
    return "stand-in " + file; // short: kustomize writes a longer value's base64 folded, the chart's on one line
  }

  /** The objects of deploy/{@code overlay}, as {@code kubectl apply -k} would send them. */
  String render(String overlay) throws IOException, InterruptedException {
    Path out = Files.createTempFile(deploy.getParent(), overlay, ".yaml");
    Process p = new ProcessBuilder(List.of("kubectl", "kustomize", deploy.resolve(overlay).toString()))
        .redirectErrorStream(false).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    if (!p.waitFor(DEADLINE_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException("kubectl kustomize deploy/" + overlay + " still running after " + DEADLINE_SECONDS + " s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("kubectl kustomize deploy/" + overlay + " exited " + p.exitValue());
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }
}
