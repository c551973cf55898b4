package io.gpuremediator.simapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The fakes a Job's container finds on its PATH are the NVIDIA tools the container runtime injects, no more
 * (libnvidia-container's {@code utility_bins} and {@code compute_bins}, recorded in tests/real): nvidia-bug-report.sh is
 * not one of them, so the kubelet installs it only where a node's driver puts it; nor is dcgmi, which only the DCGM
 * image holds.
 */
class NodeToolsTest {
  private static final Path TOOLS = Path.of("node-tools");

  private static List<String> injected() throws IOException {
    String c = Files.readString(Path.of("../tests/real/nvidia-container-toolkit/nvc_info-utility-bins.c.txt"));
    Matcher m = Pattern.compile("(?m)^\\s+\"([a-z-]+)\",").matcher(c);
    List<String> out = new ArrayList<>();
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  void aContainerSeesOnlyTheNvidiaToolsTheRuntimeInjects() throws IOException {
    assertThat(injected()).contains("nvidia-smi", "nvidia-debugdump", "nvidia-persistenced")
        .doesNotContain("nvidia-bug-report.sh", "nvidia-modprobe");
    try (Stream<Path> bin = Files.list(TOOLS.resolve("bin"))) {
      assertThat(bin.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("nvidia")))
          .isSubsetOf(injected()).contains("nvidia-smi");
    }
    assertThat(TOOLS.resolve("driver/nvidia-bug-report.sh")).isRegularFile();
    assertThat(TOOLS.resolve("bin/nvidia-bug-report.sh")).doesNotExist();
  }

  @Test
  void dcgmiIsTheDcgmImagesNotTheRuntimes() throws IOException {
    assertThat(injected()).doesNotContain("dcgmi");
    assertThat(TOOLS.resolve("bin/dcgmi")).doesNotExist();
    assertThat(TOOLS.resolve("images/dcgm/bin/dcgmi")).isExecutable();
  }
}
