package io.gpuremediator.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
  @TempDir Path dir;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args[0], List.of(args).subList(1, args.length), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void validateAcceptsTheShippedPlaybooks() throws IOException {
    assertThat(run("validate", "../deploy/playbooks")).isZero();
    assertThat(out().lines()).hasSize(shippedPlaybookFiles()).allMatch(l -> l.startsWith("SUCCESS: ../deploy/playbooks/"));
  }

  @Test
  void validateWarnsOfWhatThePlaybooksNeedAndTheConfigLacks() throws IOException {
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "auth: {insecure_no_auth: true}\n");
    assertThat(run("validate", "../deploy/playbooks", config.toString())).isZero();
    assertThat(out().lines().filter(l -> l.startsWith("WARNING: "))).containsExactly(
        "WARNING: " + config + ": notify receiver gpu-oncall is not defined in notify.receivers (used by cloud-maintenance, gpu-count-dropped,"
            + " gpu-dra-recovery-reset, gpu-dra-xid-reset, gpu-ecc-uncorrectable, gpu-fabric, gpu-hardware-xid, gpu-needs-human, gpu-nvlink-down, gpu-pcie-link-degraded,"
            + " gpu-recovery-drain, gpu-recovery-reboot, gpu-recovery-reset, gpu-recovery-service,"
            + " gpu-repeat-offender, gpu-row-remap-failure, gpu-sweep, gpu-telemetry-wedged, gpu-xid-application-repeated, gpu-xid-reboot,"
            + " gpu-xid-reset, gpu-xid-service,"
            + " infiniband-link-down, neuron-hardware-error, neuron-health-unclassified, node-condition-reboot,"
            + " node-condition-replace, node-memory-uncorrectable): its messages are counted as"
            + " unknown_receiver and not sent",
        "WARNING: " + config + ": silence steps with no alertmanager configured: gpu-count-dropped, gpu-ecc-uncorrectable,"
            + " gpu-fabric, gpu-hardware-xid, gpu-nvlink-down, gpu-pcie-link-degraded, gpu-recovery-drain, gpu-recovery-reboot,"
            + " gpu-recovery-reset, gpu-recovery-service, gpu-repeat-offender, gpu-row-remap-failure,"
            + " gpu-telemetry-wedged, gpu-xid-application-repeated, gpu-xid-reboot, gpu-xid-reset, gpu-xid-service, infiniband-link-down, neuron-hardware-error,"
            + " node-condition-reboot, node-condition-replace, node-memory-uncorrectable: each is a silence_failed"
            + " decision, and the episodes go on unsilenced",
        "WARNING: " + config + ": replace or reboot steps by aws with no cloud.aws configured: gpu-repeat-offender,"
            + " neuron-hardware-error, node-condition-replace: each is a replace_failed or repair_failed decision, nothing is called, and the node"
            + " waits for a human (or its on_fail)",
        "WARNING: " + config + ": collect steps with no store, and no evidence.store configured: gpu-recovery-reboot,"
            + " gpu-repeat-offender, gpu-verdict-reboot, gpu-xid-reboot, neuron-hardware-error, neuron-health-unclassified,"
            + " node-condition-reboot, node-condition-replace:"
            + " each report stays only as its Job's pod log, on the node that is then rebooted or replaced",
        "WARNING: " + config + ": safety.max_unavailable 10% rounds down to 0 for fewer than 10 selected nodes: on such a"
            + " fleet nothing is ever quarantined (an integer, such as 1, allows a node in a small pool)",
        "WARNING: " + config + ": accept_alerts is empty: every alert that reaches the service is acted on; behind a shared"
            + " Alertmanager (Thanos, Mimir, a central one) another cluster's alert for a node of the same name would"
            + " quarantine this cluster's node. List matchers every alert of this cluster carries, such as"
            + " ['cluster=\"prod-a\"']");
  }

  @Test
  void repairStepsNameTheFieldThatCannotWork() throws IOException {
    Path playbooks = dir.resolve("a-bmc.yaml");
    Files.writeString(playbooks, String.join("\n",
        "playbooks:",
        "  - name: bare-metal-reboot",
        "    match: ['alertname=\"GpuXidHardwareError\"']",
        "    actions:",
        "      - cordon: {}",
        "      - reboot: {method: redfish}",
        "      - gpu_reset: {gpus: \"all\", timeout: 1m}", ""));
    assertThat(run("validate", playbooks.toString())).isEqualTo(1);
    assertThat(out().lines()).contains(playbooks + ":7: gpu_reset action: \"gpus\": \"all\" is not comma-separated GPU"
        + " indices (0 or 0,3)");

    Files.writeString(playbooks, Files.readString(playbooks).replace("{gpus: \"all\", timeout: 1m}", "{gpus: \"0,3\"}"));
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "auth: {insecure_no_auth: true}\n");
    assertThat(run("validate", playbooks.toString(), config.toString())).as("redfish without a credentials file").isEqualTo(1);
    assertThat(out().lines()).contains("FAILED: " + config, playbooks + ":2: playbook bare-metal-reboot, actions step 2"
        + " (reboot): method redfish needs cloud.redfish.credentials_file in the service config, which has no cloud.redfish");

    Files.writeString(config, "auth: {insecure_no_auth: true}\ncloud:\n  redfish: {credentials_file: bmc-credentials,"
        + " ca_file: bmc-ca.pem, bmcs_file: bmcs.yaml}\n");
    assertThat(run("validate", playbooks.toString(), config.toString())).isZero();
  }

  @Test
  void validateWarnsOfReplaceProvidersNotDeployedAndChecksThePreflightGate() throws IOException {
    Path playbooks = dir.resolve("a-replace.yaml");
    Files.writeString(playbooks, String.join("\n",
        "playbooks:",
        "  - name: through-karpenter",
        "    match: ['alertname=\"A\"']",
        "    actions: [{cordon: {}}, {replace: {provider: karpenter}}]",
        "  - name: through-cluster-api",
        "    match: ['alertname=\"B\"']",
        "    actions: [{cordon: {}}, {replace: {provider: cluster-api, via: remediate_annotation}}]", ""));
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "auth: {insecure_no_auth: true}\nsafety: {max_unavailable: 1}\naccept_alerts: ['cluster=\"a\"']\n");
    assertThat(run("validate", playbooks.toString(), config.toString())).isZero();
    assertThat(out().lines().filter(l -> l.startsWith("WARNING: "))).containsExactly(
        "WARNING: " + config + ": replace steps by cluster-api with no cloud.cluster_api configured: through-cluster-api:"
            + " the deploy/cluster-api overlay sets it and grants the RBAC the provider needs; without it each is a"
            + " replace_failed decision, nothing is called, and the node waits for a human (or its on_fail)",
        "WARNING: " + config + ": replace steps by karpenter with no cloud.karpenter configured: through-karpenter: the"
            + " deploy/karpenter overlay sets it and grants the RBAC the provider needs; without it each is a replace_failed"
            + " decision, nothing is called, and the node waits for a human (or its on_fail)");

    out.reset();
    Files.writeString(config, String.join("\n",
        "auth: {insecure_no_auth: true}",
        "safety: {max_unavailable: 1}",
        "accept_alerts: ['cluster=\"a\"', 'cluster=~\"(\"']",
        "cloud: {karpenter: {}, cluster_api: {}}",
        "preflight:",
        "  taint: node.kubernetes.io/preflight",
        "  max_concurrent: 0",
        "  on_fail: gpu-needs-human", ""));
    assertThat(run("validate", playbooks.toString(), config.toString())).isEqualTo(1);
    assertThat(out().lines()).containsExactly("SUCCESS: " + playbooks, "FAILED: " + config,
        config + ":6: \"taint\" in preflight must be a taint key under gpu-remediator.io/ (the one taint the gate removes),"
            + " not \"node.kubernetes.io/preflight\"",
        config + ":6: preflight: missing required key \"diagnose\" (image, command, timeout)",
        config + ":7: \"max_concurrent\" in preflight must allow at least 1 node",
        config + ":3: accept_alerts: matcher \"cluster=~\"(\"\": invalid regex: Unclosed group");

    out.reset();
    Files.writeString(config, Files.readString(config).replace(", 'cluster=~\"(\"'", "")
        .replace("node.kubernetes.io/preflight", "gpu-remediator.io/preflight")
        .replace("max_concurrent: 0", "max_concurrent: 10%\n  diagnose: {image: dcgm, command: [dcgmi, diag, -r, \"2\"]}"));
    assertThat(run("validate", playbooks.toString(), config.toString())).as("on_fail names no playbook").isEqualTo(1);
    assertThat(out().lines()).contains("preflight.on_fail names playbook gpu-needs-human, which no playbook file defines: a"
        + " failed pre-flight would have nowhere to escalate");
    out.reset();
    assertThat(run("validate", playbooks.toString(), "../deploy/playbooks/99-gpu-needs-human.yaml", config.toString()))
        .isZero();
    assertThat(out().lines().filter(l -> l.startsWith("WARNING: "))).singleElement().asString()
        .contains("notify receiver gpu-oncall is not defined");
  }

  @Test
  void validatePrintsOneLinePerFileThenEveryErrorAndExits1() throws IOException {
    Path good = dir.resolve("a-good.yaml");
    Files.copy(Path.of("src/test/resources/playbooks/immediate/10-gpu-xid-hardware.yaml"), good);
    Path bad = dir.resolve("b-bad.yaml");
    Files.writeString(bad, String.join("\n",
        "playbooks:",
        "  - name: bad",
        "    match: ['alertname=~\"(\"']",
        "    colour: red",
        "    actions:",
        "      - taint: {key: gpu-remediator.io/x, effect: Maybe, value: \"{{ labels.xid }}-{{ host }}\"}",
        "      - reboot: {method: kexec}", ""));
    Path config = dir.resolve("c-remediator.yaml");
    Files.writeString(config, "auth: {insecure_no_auth: true}\nlisten: 127.0.0.1:8080\nsafety: {rate_limit: often}\n");
    assertThat(run("validate", dir.toString())).isEqualTo(1);
    assertThat(out().lines()).containsExactly(
        "SUCCESS: " + good,
        "FAILED: " + bad,
        "FAILED: " + config,
        bad + ":3: matcher \"alertname=~\"(\"\": invalid regex: Unclosed group",
        bad + ":6: taint action: \"value\": unknown template variable \"host\" (known: labels.NAME, annotations.NAME, node, alertname, fingerprint)",
        bad + ":6: taint action: \"effect\" must be one of NoSchedule, PreferNoSchedule, NoExecute, not \"Maybe\"",
        bad + ":7: reboot action: \"method\" must be one of job, aws, redfish, not \"kexec\"",
        bad + ":4: unknown key \"colour\" in playbook",
        config + ":3: \"rate_limit\" in safety: \"often\" is not a rate (like 10/1h)");
  }

  @Test
  void validateWithoutArgumentsIsAUsageError() {
    assertThat(run("validate")).isEqualTo(2);
  }

  @Test
  void explainShowsNodePlaybookActionsAndVerdictPerAlert() {
    assertThat(run("explain", "--config", "src/test/resources/config/explain.yaml", "--alerts",
        "src/test/resources/webhook/xid-and-app-xid.json", "--nodes", "src/test/resources/config/nodes.yaml")).isZero();
    String text = out();
    assertThat(text).contains("explain: 3 alert(s); a dry-run: nothing is written to Kubernetes");
    assertThat(text).contains("alert 1/3: GpuXidHardwareError (firing) fingerprint=1a2b3c4d5e6f7a8b");
    assertThat(text).contains("  node:     gpu-node-1\n  playbook: gpu-hardware-xid\n  decision: dry_run (dry_run_global)");
    assertThat(text).contains("  - taint      dry_run    add taint gpu-remediator.io/unhealthy=xid-79:NoSchedule");
    assertThat(text).contains("  - cordon     dry_run    cordon (spec.unschedulable=true)");
    assertThat(text).contains("alert 2/3: GpuXidApplicationError (firing)");
    assertThat(text).contains("  decision: ignored (no_playbook): no playbook matches the alert's labels");
    assertThat(text).contains("  decision: ignored (node_not_selected): node cpu-node-1 does not match node_selector [nvidia.com/gpu.present=true,");
  }

  /**
   * A resolved alert whose node has no episode of it: the live path starts no long step and records {@code not_run}, so
   * the dry-run must say the same, not plan a diagnose Job. The body is a real Alertmanager resolved body
   * (tests/real/alertmanager/0.2x-resolved-body.json) with the alert's labels made those of a hardware XID.
   */
  @Test
  void explainOfAResolutionWithNoEpisodePlansNoDiagnoseJobAsTheLivePathDoes() throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode body =
        (ObjectNode) json.readTree(Path.of("../tests/real/alertmanager/0.2x-resolved-body.json").toFile());
    ObjectNode labels = json.createObjectNode().put("alertname", "GpuXidHardwareError")
        .put("node", "gpu-node-1").put("gpu", "3").put("xid", "79").put("severity", "critical").put("remediate", "true");
    ((ObjectNode) body.path("alerts").get(0)).set("labels", labels);
    Path payload = dir.resolve("resolved.json");
    json.writeValue(payload.toFile(), body);
    assertThat(run("explain", "--config", "src/test/resources/config/explain.yaml", "--alerts", payload.toString(),
        "--nodes", "src/test/resources/config/nodes.yaml")).isZero();
    assertThat(out()).contains("alert 1/1: GpuXidHardwareError (resolved) fingerprint=fbab788ec4c1018b")
        .contains("  - diagnose   not_run    no episode of this alert is active on the node")
        .doesNotContain("diagnose   dry_run");
  }

  @Test
  void explainWithoutNodesSaysNodesWereAssumed() {
    assertThat(run("explain", "--config", "src/test/resources/config/explain.yaml", "--alerts",
        "src/test/resources/webhook/xid-and-app-xid.json")).isZero();
    assertThat(out()).contains("nodes: not checked (no --nodes)");
  }

  @Test
  void explainRejectsAnInvalidPayload() throws IOException {
    Path payload = dir.resolve("p.json");
    Files.writeString(payload, "{\"version\":\"4\"}");
    assertThat(run("explain", "--config", "src/test/resources/config/explain.yaml", "--alerts", payload.toString())).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("status: required");
  }

  @Test
  void serveWithABadConfigExitsWithAOneLineReason() throws IOException {
    Path config = dir.resolve("r.yaml");
    Files.writeString(config, "listen: nowhere\n");
    assertThat(run("serve", "--config", config.toString())).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo("remediator serve: invalid config: " + config
        + ":1: \"listen\" must be HOST:PORT, not \"nowhere\" (and 1 more; run validate)");
  }

  @Test
  void unknownCommandIsAUsageError() {
    assertThat(run("reboot")).isEqualTo(2);
  }

  /** The playbook files deploy/playbooks ships (its Kustomization is not one). */
  private static int shippedPlaybookFiles() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("../deploy/playbooks"))) {
      return (int) files.filter(f -> f.toString().endsWith(".yaml")).count();
    }
  }
}
