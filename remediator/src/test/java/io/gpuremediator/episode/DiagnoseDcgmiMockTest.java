package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.Pod;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Playbooks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The diagnose step through the closed loop against the emulated API server, its Job's {@code dcgmi diag -r 2 -j} run
 * by simapi's kubelet against the fake dcgmi of the DCGM image, which answers with the recorded real DCGM 4 document
 * (tests/real/dcgm): a healthy node's every GPU passes and the node returns; a GPU with faulty memory fails the
 * {@code diagnostic} test with DCGM's own error (52, ISOLATE) and dcgmi's exit status 205, the decision names DCGM's
 * warning (not the document's closing brackets), and the step escalates to its {@code on_fail}; an image without dcgmi
 * cannot start the command at all.
 */
class DiagnoseDcgmiMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-diagnose", """
            - diagnose: {image: "%s", command: [dcgmi, diag, -r, "2", -j], timeout: 10m, on_fail: gpu-service}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
        - name: gpu-service
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/needs-human, value: "true"}
      """);
  private static final String DCGM_IMAGE = "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04";
  /** The diagnose with a rung for each verdict, and a playbook for each. */
  private static final String VERDICT_PLAYBOOKS = Playbooks.quarantining("gpu-diagnose", """
            - diagnose: {image: "DCGM", command: [dcgmi, diag, -r, "2", -j], timeout: 10m, on_fail: gpu-service,
                         on_verdict: {reset_gpu: gpu-reset, reboot: gpu-reboot, service: gpu-service}}
            - untaint: {key: gpu-remediator.io/unhealthy}
            - uncordon: {}
        - name: gpu-reset
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/next, value: reset}
        - name: gpu-reboot
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/next, value: reboot}
        - name: gpu-service
          match: ['alertname="NeverFires"']
          actions:
            - label: {key: gpu-remediator.io/next, value: service}
      """).replace("DCGM", DCGM_IMAGE);
  @TempDir Path dir;
  private ClosedLoopHarness h;
  private JobKubelet kubelet;

  @AfterEach
  void close() {
    if (kubelet != null) {
      kubelet.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private void start(String image, String faultyGpu) {
    startWith(String.format(PLAYBOOKS, image), faultyGpu == null ? Map.of() : Map.of(JobKubelet.FAULTY_MEMORY_LABEL,
        faultyGpu));
  }

  private void startWith(String playbooks, Map<String, String> simLabels) {
    h = new ClosedLoopHarness(dir, playbooks, OutboundPorts.NONE,
        new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    if (!simLabels.isEmpty()) {
      h.client.nodes().withName(NODE).edit(n -> {
        n.getMetadata().getLabels().putAll(simLabels);
        return n;
      });
    }
    kubelet = new JobKubelet(h.server, "gpu-remediator", Path.of("../simapi/node-tools"), Path.of("../tests/real"),
        dir.resolve("kubelet"), j -> "diagnose".equals(j.getMetadata().getLabels().get("gpu-remediator.io/step")))
        .start();
  }

  /** Looks at the node until {@code done}, within a deadline: the kubelet runs beside. */
  private void lookUntil(BooleanSupplier done) {
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
      h.look(NODE);
      return done.getAsBoolean();
    });
  }

  private String diagnoseLog() {
    return kubelet.log(h.jobs("diagnose").get(0).getMetadata().getName());
  }

  private ContainerStateTerminated terminated() {
    Pod pod = h.client.pods().inNamespace("gpu-remediator").withLabel("job-name", h.jobs("diagnose").get(0)
        .getMetadata().getName()).list().getItems().get(0);
    return pod.getStatus().getContainerStatuses().get(0).getState().getTerminated();
  }

  private int diagnoseExitCode() {
    return terminated().getExitCode();
  }

  /** Each GPU's status in the document's {@code diagnostic} test, by entity id. */
  private static List<String> statuses(JsonNode test) {
    List<String> out = new ArrayList<>();
    test.path("results").forEach(r -> out.add(r.path("entity_id").asInt() + " " + r.path("status").asText()));
    return out;
  }

  private static JsonNode diagnosticTest(String log) throws Exception {
    JsonNode doc = new ObjectMapper().readTree(log);
    return doc.path("DCGM Diagnostic").path("test_categories").get(0).path("tests").get(0);
  }

  @Test
  void aHealthyNodePassesTheRecordedDiagnosticAndReturns() throws Exception {
    start(DCGM_IMAGE, null);
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.DIAGNOSTICS_PASSED).isEmpty() && !h.node(NODE).unschedulable());

    JsonNode recorded = new ObjectMapper().readTree(Files.readString(
        Path.of("../tests/real/dcgm/diag-v4-diagnostic-8-gpus-pass.json")));
    assertThat(diagnosticTest(diagnoseLog())).as("the recorded test, whole").isEqualTo(recorded);
    assertThat(diagnoseExitCode()).isZero();
    assertThat(h.node(NODE).taints()).noneMatch(t -> t.key().equals("gpu-remediator.io/unhealthy"));
  }

  @Test
  void aGpuWithFaultyMemoryFailsWithDcgmsIsolateErrorAndEscalates() throws Exception {
    start(DCGM_IMAGE, "2");
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.ESCALATED).isEmpty());

    JsonNode test = diagnosticTest(diagnoseLog());
    assertThat(statuses(test)).containsExactly("0 Pass", "1 Pass", "2 Fail", "3 Pass", "4 Pass", "5 Pass", "6 Pass",
        "7 Pass");
    JsonNode warning = test.path("results").get(2).path("warnings").get(0);
    assertThat(warning.path("error_id").asInt()).as("DCGM_FR_FAULTY_MEMORY").isEqualTo(52);
    assertThat(warning.path("error_severity").asInt()).as("DCGM_ERROR_ISOLATE").isEqualTo(2);
    assertThat(warning.path("warning").asText()).isEqualTo("Found 1 faulty memory elements on GPU 2");
    assertThat(test.path("test_summary").path("status").asText()).isEqualTo("Fail");
    assertThat(diagnoseExitCode()).as("DCGM_ST_NVVS_ISOLATE_ERROR (-51)").isEqualTo(205);
    assertThat(h.decisions(Reason.DIAGNOSTICS_FAILED)).as("the verdict, from the middle of the document")
        .singleElement().satisfies(d -> assertThat(d.detail())
        .contains("failed; dcgmi diag: Found 1 faulty memory elements on GPU 2"));
    assertThat(h.decisions(Reason.ESCALATED)).singleElement().satisfies(d -> assertThat(d.detail())
        .endsWith("gpu-service"));
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }

  /**
   * {@code on_verdict}: the recorded fault documents each choose their rung: faulty memory (the fake's GpuBurn failure)
   * goes to service, not a reboot; a host-side PCIe replay violation reboots; NVLinks down reset the GPU, not a human.
   */
  @ParameterizedTest(name = "{0} -> {2}")
  @CsvSource({"faulty memory, " + JobKubelet.FAULTY_MEMORY_LABEL + "=2, gpu-service, 205",
      "PCIe replays, " + JobKubelet.DIAG_DOCUMENT_LABEL + "=pcie-replay-fail, gpu-reboot, 205",
      "NVLinks down, " + JobKubelet.DIAG_DOCUMENT_LABEL + "=nvlink-down-fail, gpu-reset, 226"})
  void eachFaultsVerdictChoosesItsRung(String fault, String simLabel, String playbook, int exit) {
    String[] kv = simLabel.split("=");
    startWith(VERDICT_PLAYBOOKS, Map.of(kv[0], kv[1]));
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.ESCALATED).isEmpty());
    assertThat(diagnoseExitCode()).isEqualTo(exit);
    String rung = playbook.equals("gpu-reset") ? "reset_gpu" : playbook.substring(4);
    assertThat(h.decisions(Reason.DIAGNOSTICS_FAILED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("verdict " + rung + " (").contains("on_verdict " + rung + " escalates to " + playbook));
    assertThat(h.decisions(Reason.ESCALATED)).singleElement().satisfies(d -> assertThat(d.detail()).endsWith(playbook));
    assertThat(h.episode(NODE).playbook()).isEqualTo(playbook);
  }

  @Test
  void aDiagnoseWhoseImageHasNoDcgmiFailsToStart() {
    start("busybox:1.36", null);
    h.fire(Alerts.xid(NODE, "48"));
    lookUntil(() -> !h.decisions(Reason.DIAGNOSTICS_FAILED).isEmpty());
    assertThat(diagnoseLog()).as("a container that never started writes no log").isEmpty();
    assertThat(diagnoseExitCode()).as("the container never started").isEqualTo(128);
    assertThat(terminated().getReason()).isEqualTo("StartError");
    assertThat(terminated().getMessage()).contains("exec: \"dcgmi\": executable file not found in $PATH");
    assertThat(h.node(NODE).unschedulable()).isTrue();
  }
}
