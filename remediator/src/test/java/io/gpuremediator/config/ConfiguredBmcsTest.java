package io.gpuremediator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.outbound.OutboundException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's BMC list: the config's entries and a mounted ConfigMap's, read again at each lookup (an edit needs no
 * restart); a node found by name or providerID; two entries that disagree, or none, refused; a file that does not
 * decode is not used (asked again later), naming its line.
 */
class ConfiguredBmcsTest {
  @TempDir Path dir;

  private ConfiguredBmcs bmcs(Path file) {
    return new ConfiguredBmcs(new RemediatorConfig.Redfish(dir.resolve("credentials"), Optional.of(dir.resolve("ca.pem")),
        false, List.of(new RemediatorConfig.Bmc(Optional.of("gpu-a-01"), Optional.empty(),
            new BmcAddress(URI.create("https://10.0.10.1"), Optional.empty(), "remediator.yaml:20"))), Optional.of(file)));
  }

  @Test
  void aNodeIsFoundByNameOrProviderIdInTheConfigOrTheFileReadAgainAtEachLookup() throws Exception {
    Path file = dir.resolve("bmcs.yaml");
    Files.writeString(file, "bmcs:\n  - {provider_id: \"aws:///us-west-2a/i-0b\", url: \"https://10.0.10.2\","
        + " credentials_file: rack-b}\n");
    ConfiguredBmcs bmcs = bmcs(file);
    assertThat(bmcs.find("gpu-a-01", Optional.empty()).url()).isEqualTo(URI.create("https://10.0.10.1"));
    BmcAddress b = bmcs.find("gpu-b-01", Optional.of("aws:///us-west-2a/i-0b"));
    assertThat(b.url()).isEqualTo(URI.create("https://10.0.10.2"));
    assertThat(b.credentialsFile()).contains(dir.resolve("rack-b"));
    assertThat(b.source()).isEqualTo(file + ":2");

    Files.writeString(file, "bmcs:\n  - {node: gpu-c-01, url: \"https://10.0.10.3\"}\n"); // the ConfigMap was edited
    assertThat(bmcs.find("gpu-c-01", Optional.empty()).url()).isEqualTo(URI.create("https://10.0.10.3"));
    assertThatThrownBy(() -> bmcs.find("gpu-b-01", Optional.of("aws:///us-west-2a/i-0b")))
        .isInstanceOfSatisfying(OutboundException.class, e -> assertThat(e.retriable()).isFalse())
        .hasMessage("no BMC is written for gpu-b-01 (providerID aws:///us-west-2a/i-0b) in cloud.redfish.bmcs or " + file);
  }

  @Test
  void twoEntriesThatGiveANodeDifferentBmcsAreRefused() throws Exception {
    Path file = dir.resolve("bmcs.yaml");
    Files.writeString(file, "bmcs:\n  - {node: gpu-a-01, url: \"https://10.0.10.9\"}\n");
    assertThatThrownBy(() -> bmcs(file).find("gpu-a-01", Optional.empty())).isInstanceOf(OutboundException.class)
        .hasMessage("two BMCs are written for gpu-a-01: 10.0.10.1 (remediator.yaml:20) and 10.0.10.9 (" + file + ":2)");
  }

  @Test
  void aFileThatDoesNotDecodeIsNotUsedAndNamesItsLine() throws Exception {
    Path file = dir.resolve("bmcs.yaml");
    Files.writeString(file, "bmcs:\n  - {node: gpu-a-02, url: \"http://10.0.10.2\"}\n");
    assertThatThrownBy(() -> bmcs(file).find("gpu-a-01", Optional.empty()))
        .isInstanceOfSatisfying(OutboundException.class, e -> assertThat(e.retriable()).isTrue())
        .hasMessageContaining(file + ":2: \"url\" in bmcs is plain http");
    assertThatThrownBy(() -> bmcs(dir.resolve("missing.yaml")).find("gpu-a-01", Optional.empty()))
        .isInstanceOfSatisfying(OutboundException.class, e -> assertThat(e.retriable()).isTrue())
        .hasMessageContaining("cannot read file");
  }
}
