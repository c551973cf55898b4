package io.gpuremediator.action;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default {@code collect} command, run as its Job runs it ({@code sh -c SCRIPT collect-evidence.sh}) with a node's
 * root at {@code $HOST_ROOT}, against simapi's fakes (nvidia-smi and chroot on the PATH, the recorded R580
 * nvidia-bug-report.sh where a driver install puts it): found in the GPU Operator's driver root and in the host's
 * /usr/bin, the gzip between the markers the service stores; nowhere, a refusal that says where it looked.
 */
class CollectScriptTest {
  private static final Path TOOLS = Path.of("../simapi/node-tools");
  @TempDir Path host;

  private record Run(int exit, String out) {}

  private Run collect() throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder("sh", "-c", CollectAction.DEFAULT_SCRIPT, CollectAction.SCRIPT)
        .redirectErrorStream(true);
    pb.environment().put("PATH", TOOLS.resolve("bin").toAbsolutePath() + ":" + System.getenv("PATH"));
    pb.environment().put("HOST_ROOT", host.toString());
    pb.environment().put("FAKE_RECORDED", Path.of("../tests/real").toAbsolutePath().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out);
  }

  private void driverIn(String root) throws IOException {
    Path bin = Files.createDirectories(host.resolve(root).resolve("usr/bin"));
    Files.createDirectories(host.resolve(root).resolve("tmp"));
    Files.copy(TOOLS.resolve("driver/nvidia-bug-report.sh"), bin.resolve("nvidia-bug-report.sh"),
        StandardCopyOption.REPLACE_EXISTING);
    assertThat(bin.resolve("nvidia-bug-report.sh").toFile().setExecutable(true)).isTrue();
  }

  private static String report(String log) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(StoredReport.body(log)))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void onAGpuOperatorNodeTheDriverContainersScriptRunsAndItsGzipIsWhatIsStored() throws Exception {
    driverIn("run/nvidia/driver");
    Run r = collect();
    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(r.out()).contains("running nvidia-bug-report.sh from /run/nvidia/driver/usr/bin",
        "nvidia-bug-report.sh will now collect information about your", StoredReport.BEGIN, StoredReport.END);
    assertThat(report(r.out())).contains("Start of NVIDIA bug report log file.", "command line flags: --safe-mode");
    try (var left = Files.list(host.resolve("run/nvidia/driver/tmp"))) {
      assertThat(left).as("the report is not left on the node").isEmpty();
    }
  }

  @Test
  void withADriverOnTheHostTheHostsScriptRuns() throws Exception {
    driverIn("");
    Run r = collect();
    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(r.out()).contains("running nvidia-bug-report.sh from /usr/bin");
  }

  @Test
  void withNoDriverInstalledItSaysWhereItLooked() throws Exception {
    Run r = collect();
    assertThat(r.exit()).isEqualTo(127);
    assertThat(r.out()).contains("nvidia-bug-report.sh is neither in " + host + "/run/nvidia/driver/usr/bin (the GPU"
        + " Operator's driver container) nor in " + host + "/usr/bin (a driver installed on the host)");
  }
}
