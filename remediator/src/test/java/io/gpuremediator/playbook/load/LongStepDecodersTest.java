package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.DiagnoseAction.DiagnoseSpec;
import io.gpuremediator.action.DrainAction.DrainMode;
import io.gpuremediator.action.DrainAction.DrainSpec;
import io.gpuremediator.verdict.Rung;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** drain and diagnose as written in playbooks: defaults, and every mistake named with its line. */
class LongStepDecodersTest {
  @TempDir Path dir;

  private LoadResult load(String... actions) throws IOException {
    Path f = dir.resolve("p.yaml");
    StringBuilder y = new StringBuilder("playbooks:\n  - name: p\n    match: ['alertname=\"A\"']\n    actions:\n");
    for (String a : actions) {
      y.append("      - ").append(a).append('\n');
    }
    y.append("  - name: human\n    match: ['alertname=\"B\"']\n    actions: [{cordon: {}}]\n");
    Files.writeString(f, y.toString());
    return PlaybookLoader.load(List.of(f));
  }

  @Test
  void aDrainWithNoParametersHasSafeDefaults() throws IOException {
    LoadResult r = load("drain: {}");
    assertThat(r.errors()).isEmpty();
    DrainSpec d = (DrainSpec) r.set().named("p").orElseThrow().actions().get(0);
    assertThat(d.mode()).isEqualTo(DrainMode.EVICT);
    assertThat(d.timeout()).isEqualTo(Duration.ofMinutes(30));
    assertThat(d.gracePeriod()).isEqualTo(Duration.ofMinutes(5));
    assertThat(d.skipNamespaces().pattern()).isEqualTo("^(kube-system|gpu-operator|gpu-remediator)$");
    assertThat(d.isLongStep()).isTrue();
  }

  @Test
  void drainMistakesAreNamed() throws IOException {
    String f = dir.resolve("p.yaml").toString();
    assertThat(load("drain: {mode: force, timeout: 0s, skip_namespaces: \"(\", grace: 1m}").errors()).containsExactly(
        f + ":5: drain action: \"mode\" must be one of evict, wait, evict_then_delete, not \"force\"",
        f + ":5: \"timeout\" in drain action: duration must be greater than zero",
        f + ":5: drain action: \"skip_namespaces\" is not a regular expression: Unclosed group",
        f + ":5: unknown key \"grace\" in drain action");
  }

  @Test
  void drainPoliciesSelectAWorkloadAndEachMistakeIsNamed() throws IOException {
    LoadResult ok = load("drain: {timeout: 2h, policies: [{select: {labels: \"app=llm\"}, mode: wait_for_checkpoint,"
        + " checkpoint: {condition: Checkpointed}, deadline: 30m}, {select: {namespace: inference}, mode: evict}]}");
    assertThat(ok.errors()).isEmpty();
    assertThat(((DrainSpec) ok.set().named("p").orElseThrow().actions().get(0)).policies()).hasSize(2);
    String f = dir.resolve("p.yaml").toString();
    assertThat(load("drain: {timeout: 1h, policies: [{select: {}, mode: wait}, {select: {namespace: ml},"
        + " mode: wait_for_checkpoint, deadline: 2h}, {select: {namespace: ml}, mode: evict, checkpoint: {annotation: a}}]}")
        .errors()).containsExactly(
        f + ":5: drain action's policies item: \"select\" needs a namespace or labels (a label selector)",
        f + ":5: drain action's policies item: \"mode\" must be evict, wait_for_completion or wait_for_checkpoint, not"
            + " \"wait\"",
        f + ":5: drain action's policies item: \"deadline\" 2h is past the drain's timeout 1h",
        f + ":5: drain action's policies item: wait_for_checkpoint needs a checkpoint ({annotation: KEY} or {condition:"
            + " TYPE}) and a deadline",
        f + ":5: drain action's policies item: \"checkpoint\" goes with mode wait_for_checkpoint only");
  }

  @Test
  void aDiagnosesOnVerdictNamesAPlaybookForEachRungAndEveryOneMustExist() throws IOException {
    String f = dir.resolve("p.yaml").toString();
    LoadResult ok = load("diagnose: {image: dcgm, command: [dcgmi, diag, -j], on_fail: human, on_verdict: {service: human}}");
    assertThat(ok.errors()).isEmpty();
    DiagnoseSpec d = (DiagnoseSpec) ok.set().named("p").orElseThrow().actions().get(0);
    assertThat(d.onVerdict()).containsExactly(Map.entry(Rung.SERVICE, "human"));
    assertThat(load("diagnose: {image: dcgm, command: [dcgmi], on_verdict: {reset_gpu: nobody, rma: human, reboot: \"\"}}")
        .errors()).containsExactly(
        f + ":5: diagnose action: \"reboot\" must name a playbook",
        f + ":5: unknown key \"rma\" in diagnose action's on_verdict");
    assertThat(load("diagnose: {image: dcgm, command: [dcgmi], on_verdict: {reset_gpu: nobody}}").errors()).containsExactly(
        f + ":2: on_fail or on_verdict \"nobody\" names no other playbook");
  }

  @Test
  void aDiagnoseNeedsAnImageACommandAndAnOnFailThatExists() throws IOException {
    String f = dir.resolve("p.yaml").toString();
    assertThat(load("diagnose: {image: \"a b\", on_fail: nobody}").errors()).containsExactly(
        f + ":5: diagnose action: \"image\" must be an image reference without spaces, at most 512 characters",
        f + ":5: diagnose action: missing required key \"command\"");
    assertThat(load("diagnose: {image: dcgm, command: [dcgmi, diag], on_fail: nobody}").errors()).containsExactly(
        f + ":2: on_fail or on_verdict \"nobody\" names no other playbook");
    LoadResult ok = load("diagnose: {image: dcgm, command: [dcgmi, diag, -r, \"2\"], timeout: 1h, on_fail: human}");
    assertThat(ok.errors()).isEmpty();
    DiagnoseSpec d = (DiagnoseSpec) ok.set().named("p").orElseThrow().actions().get(0);
    assertThat(d.command()).containsExactly("dcgmi", "diag", "-r", "2");
    assertThat(d.onFail()).contains("human");
  }
}
