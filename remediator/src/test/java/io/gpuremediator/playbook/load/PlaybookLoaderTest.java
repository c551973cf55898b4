package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PlaybookLoaderTest {
  private static final String DIR = "src/test/resources/playbooks/";

  static Stream<Arguments> invalidFiles() {
    return Stream.of(
        Arguments.of("unknown-key.yaml", List.of(
            "6: unknown key \"efect\" in cordon action",
            "4: unknown key \"matchers\" in playbook")),
        Arguments.of("bad-matcher-regex.yaml", List.of(
            "5: matcher \"severity=~\"critical|(page\"\": invalid regex: Unclosed group")),
        Arguments.of("unknown-action.yaml", List.of(
            "6: unknown action \"reimage\" (known: taint, untaint, cordon, uncordon, label, unlabel, annotate, condition, event, collect, fence_gpu, unfence_gpu, drain, diagnose, gpu_reset, reboot, replace, silence, notify)")),
        Arguments.of("bad-taint-effect.yaml", List.of(
            "8: taint action: \"effect\" must be one of NoSchedule, PreferNoSchedule, NoExecute, not \"NoScheduleEver\"")),
        Arguments.of("unknown-template-variable.yaml", List.of(
            "7: event action: \"message\": unknown template variable \"hostname\" (known: labels.NAME, annotations.NAME, node, alertname, fingerprint)")),
        Arguments.of("duplicate-name.yaml", List.of(
            "5: playbook name \"quarantine\" is already used at " + DIR + "duplicate-name.yaml:2")),
        Arguments.of("undo-in-actions.yaml", List.of(
            "5: action \"uncordon\" cannot be used in actions (it only undoes; use it in on_resolved, or in actions after a diagnose step)",
            "7: action \"cordon\" cannot be used in on_resolved (it changes the node; on_resolved only undoes)")),
        Arguments.of("key-outside-our-domain.yaml", List.of(
            "5: taint action: key \"node.kubernetes.io/unschedulable\" must start with gpu-remediator.io/ and not be one the service reserves (gpu-remediator.io/exclude, gpu-remediator.io/state, gpu-remediator.io/managed)",
            "6: label action: key \"gpu-remediator.io/exclude\" must start with gpu-remediator.io/ and not be one the service reserves (gpu-remediator.io/exclude, gpu-remediator.io/state, gpu-remediator.io/managed)")),
        Arguments.of("invalid-constant-values.yaml", List.of(
            "5: taint action: \"value\": \"xid 79\" is not a label value (at most 63 of A-Z, a-z, 0-9, '-', '_', '.', starting and ending alphanumeric)",
            "6: condition action: \"type\": \"Ready\" is owned by the kubelet",
            "6: condition action: \"status\" must be one of True, False, Unknown, not \"Maybe\"",
            "6: condition action: \"reason\": \"gpu broken\" is not a CamelCase reason (a letter, then letters, digits, '_', ',', ':')")),
        Arguments.of("bad-outbound-steps.yaml", List.of(
            "5: silence action: these matchers would silence remediation alerts (remediate=\"true\"); add remediate!=\"true\"",
            "6: silence action: these matchers would silence remediation alerts (remediate=\"true\"); add remediate!=\"true\"",
            "7: silence action: matcher \"node=~\"{{ node }}.*\"\": a regex matcher's value must be literal (a rendered label value must not become a regex)",
            "8: silence action: at least one matcher must be = or =~ (Alertmanager refuses a silence that matches every alert)",
            "8: silence action: \"duration\" must be at least 5m (it is renewed before it ends)",
            "9: replace action: \"provider\" must be one of aws, karpenter, cluster-api, not \"gce\"",
            "10: notify action: \"receiver\" must name a receiver of the service config (lower-case letters, digits and -)")),
        Arguments.of("bad-replace-and-preflight.yaml", List.of(
            "2: playbook name \"preflight\" is the pre-flight gate's own (preflight in the service config); choose another",
            "5: replace action: \"via\" is for provider cluster-api only, not karpenter",
            "6: replace action: \"via\" must be delete or remediate_annotation, not \"reimage\"",
            "7: preflight is the pre-flight gate's own step, configured under preflight in the service config; a playbook"
                + " runs diagnose")),
        Arguments.of("bad-collect.yaml", List.of(
            "5: collect action: \"image\" must be an image reference without spaces, at most 512 characters",
            "6: collect action: \"command\" must list 1 to 64 strings",
            "6: collect action: \"timeout\" must be more than 0 and at most 2h",
            "6: \"keep\" in collect action: duration must be greater than zero",
            "7: \"pvc\" in collect.store must be a PersistentVolumeClaim name, not \"Evidence_Claim\"",
            "9: collect.store must name one of \"s3\" or \"pvc\"",
            "10: unknown key \"acl\" in collect.store.s3")),
        Arguments.of("bad-fence.yaml", List.of(
            "5: missing required key \"gpus\" in fence_gpu action",
            "5: fence_gpu action: \"effect\" must be one of NoExecute, NoSchedule, None, not \"PreferNoSchedule\"",
            "5: fence_gpu action: key \"example.com/unhealthy\" must start with gpu-remediator.io/ and not be one the"
                + " service reserves (gpu-remediator.io/exclude, gpu-remediator.io/state, gpu-remediator.io/managed)",
            "6: fence_gpu action: \"gpus\": \"GPU 3\" is not a label value (at most 63 of A-Z, a-z, 0-9, '-', '_', '.',"
                + " starting and ending alphanumeric)",
            "6: fence_gpu action: \"on_fail\" must name a playbook",
            "7: unknown key \"all\" in unfence_gpu action")),
        Arguments.of("bad-match-node.yaml", List.of(
            "6: match_node: matcher \"karpenter.sh/nodepool=~\"metal|(gpu\"\": invalid regex: Unclosed group",
            "11: \"match_node\" in playbook must list at least one matcher")),
        Arguments.of("duplicate-key.yaml", List.of("5: duplicate key \"dry_run\" in playbook")),
        Arguments.of("syntax-error.yaml", List.of("4: YAML syntax error: expected ',' or ']', but got <scalar>")),
        Arguments.of("missing-required.yaml", List.of(
            "2: missing required key \"name\" in playbook",
            "2: missing required key \"match\" in playbook",
            "2: missing required key \"actions\" in playbook")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidFiles")
  void reportsEveryErrorWithFileAndLine(String file, List<String> errors) {
    PlaybookFile result = PlaybookLoader.loadFile(Path.of(DIR + file));
    assertThat(result.errors()).containsExactlyElementsOf(errors.stream().map(e -> DIR + file + ":" + e).toList());
    assertThat(result.isValid()).isFalse();
  }

  @Test
  void decodesEveryFieldOfAValidFile() {
    PlaybookFile result = PlaybookLoader.loadFile(Path.of(DIR + "two-playbooks-in-order.yaml"));
    assertThat(result.errors()).isEmpty();
    Playbook specific = result.playbooks().get(0);
    assertThat(specific.name()).isEqualTo("specific");
    assertThat(specific.dryRun()).isTrue();
    assertThat(specific.rateLimit().orElseThrow()).hasToString("5/1h");
    assertThat(specific.cooldown()).contains(Duration.ofMinutes(30));
    assertThat(specific.actions()).extracting(ActionSpec::kind, ActionSpec::dryRun)
        .containsExactly(Tuple.tuple("taint", true), Tuple.tuple("cordon", false));
  }

  @Test
  void firstMatchWinsInFileOrder() {
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of(DIR + "two-playbooks-in-order.yaml")));
    assertThat(loaded.set().firstMatch(Map.of("alertname", "GpuXidHardwareError", "xid", "79")).orElseThrow().name())
        .isEqualTo("specific");
    assertThat(loaded.set().firstMatch(Map.of("alertname", "GpuXidHardwareError", "xid", "48")).orElseThrow().name())
        .isEqualTo("general");
    assertThat(loaded.set().firstMatch(Map.of("alertname", "NeuronHardwareError"))).isEmpty();
  }

  @Test
  void nodeMatchersChooseAmongPlaybooksOfTheSameAlertByTheNodesLabels() {
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of(DIR + "node-groups.yaml")));
    assertThat(loaded.errors()).isEmpty();
    Map<String, String> alert = Map.of("alertname", "GpuXidHardwareError", "xid", "79");
    assertThat(loaded.set().firstMatch(alert, Map.of("karpenter.sh/nodepool", "metal", "nvidia.com/gpu.present", "true"))
        .orElseThrow().name()).isEqualTo("metal-pool");
    assertThat(loaded.set().firstMatch(alert, Map.of("karpenter.sh/nodepool", "metal")).orElseThrow().name())
        .as("every node matcher must hold").isEqualTo("any-pool");
    assertThat(loaded.set().firstMatch(alert, Map.of("karpenter.sh/nodepool", "observe")).orElseThrow().name())
        .isEqualTo("observe-only");
    assertThat(loaded.set().firstMatch(alert).orElseThrow().name()).as("a node not known: no node group matches")
        .isEqualTo("any-pool");
  }

  /** Dotted label names as Alertmanager 0.28+ sends them (tests/real/alertmanager): matched in their quoted form. */
  @Test
  void quotedLabelNamesInMatchAndSilenceMatchers() {
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of(DIR + "utf8-label-names")));
    assertThat(loaded.errors()).isEmpty();
    Map<String, String> alert = Map.of("alertname", "GpuXidHardwareError", "k8s.cluster.name", "prod-a", "host.name", "gpu-node-1");
    assertThat(loaded.set().firstMatch(alert).orElseThrow().name()).isEqualTo("this-cluster");
    assertThat(loaded.set().firstMatch(Map.of("alertname", "GpuXidHardwareError", "k8s.cluster.name", "prod-b"))).isEmpty();
  }

  @Test
  void shippedPlaybooksAreValidAndOrderedByFileName() {
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks")));
    assertThat(loaded.errors()).isEmpty();
    assertThat(loaded.set().playbooks()).extracting(Playbook::name).containsExactly("gpu-dra-xid-reset",
        "gpu-dra-recovery-reset", "gpu-xid-reset", "gpu-xid-reboot", "gpu-xid-service", "gpu-hardware-xid", "gpu-recovery-reset", "gpu-recovery-reboot",
        "gpu-recovery-drain", "gpu-recovery-service", "gpu-xid-application-repeated", "gpu-ecc-uncorrectable", "gpu-row-remap-failure", "gpu-nvlink-down", "gpu-fabric",
        "gpu-count-dropped", "gpu-telemetry-wedged", "neuron-hardware-error", "neuron-health-unclassified",
        "node-memory-uncorrectable", "infiniband-link-down", "gpu-pcie-link-degraded", "node-condition-reboot",
        "node-condition-replace", "gpu-verdict-reboot", "cloud-maintenance", "gpu-sweep", "gpu-repeat-offender",
        "gpu-needs-human");
  }

  @Test
  void theShippedPlaybooksThatEscalateToReplacementAreOneLadder() {
    PlaybookSet set = PlaybookLoader.load(List.of(Path.of("../deploy/playbooks"))).set();
    assertThat(set.ladderOf(set.named("gpu-xid-reset").orElseThrow())).containsExactly("gpu-count-dropped",
        "gpu-dra-recovery-reset", "gpu-dra-xid-reset", "gpu-hardware-xid", "gpu-nvlink-down", "gpu-pcie-link-degraded", "gpu-recovery-drain", "gpu-recovery-reboot",
        "gpu-recovery-reset", "gpu-telemetry-wedged", "gpu-verdict-reboot", "gpu-xid-reboot", "gpu-xid-reset", "infiniband-link-down", "node-condition-reboot");
    assertThat(set.ladderOf(set.named("gpu-xid-service").orElseThrow())).as("no escalate: a rung of its own")
        .containsExactly("gpu-xid-service");
  }

  @Test
  void escalationMustNameAnotherPlaybookAndARepeat() {
    String f = DIR + "escalate-to-nowhere.yaml";
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of(f)));
    assertThat(loaded.errors()).containsExactly(
        f + ":8: \"after\" in escalate must be at least 2 (the 2nd episode is the first repeat)",
        f + ":12: escalate needs after, within and to",
        f + ":2: escalate.to \"nobody\" names no other playbook");
  }

  @Test
  void namesMustBeUniqueAcrossFiles() {
    LoadResult loaded = PlaybookLoader.load(List.of(Path.of(DIR + "two-playbooks-in-order.yaml"),
        Path.of(DIR + "two-playbooks-in-order.yaml")));
    assertThat(loaded.isValid()).isFalse();
    assertThat(loaded.errors()).first().asString().contains("playbook name \"specific\" is already used at");
  }
}
