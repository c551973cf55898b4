package io.gpuremediator.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.playbook.EvidenceStore;
import io.gpuremediator.safety.DomainBudget;
import io.gpuremediator.state.LedgerLimits;
import io.gpuremediator.testing.Tokens;
import io.gpuremediator.value.Rate;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigLoaderTest {
  @TempDir Path dir;

  private ConfigLoader.Result load(String yaml) throws IOException {
    Path f = dir.resolve("remediator.yaml");
    Files.writeString(f, yaml);
    return ConfigLoader.load(f);
  }

  /**
   * Every shipped service config (deploy/, and the chart's values as the CI renders them) selects the GPU and Neuron
   * nodes of every install: the example spells out the default, the others take it.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"../deploy/remediator.example.yaml", "../deploy/base/remediator.yaml", "../deploy/aws/remediator.yaml",
      "../deploy/karpenter/remediator.yaml", "../deploy/cluster-api/remediator.yaml", "../deploy/redfish/remediator.yaml"})
  void everyShippedConfigSelectsGpuAndNeuronNodes(String file) {
    RemediatorConfig c = ConfigLoader.load(Path.of(file)).config().orElseThrow();
    assertThat(c.nodeSelector().alternatives()).isEqualTo(LabelSelector.gpuNodes().alternatives());
    assertThat(c.nodeSelector().matches(Map.of("node.kubernetes.io/instance-type", "trn1.32xlarge"))).isTrue();
    assertThat(c.nodeSelector().matches(Map.of("nvidia.com/gpu.present", "true"))).isTrue();
  }

  @Test
  void appliesTheDocumentedDefaults() throws IOException {
    RemediatorConfig c = load(Tokens.AUTH + "\n").config().orElseThrow();
    assertThat(c.listenHost()).isEqualTo("0.0.0.0");
    assertThat(c.listenPort()).isEqualTo(8080);
    assertThat(c.auth().webhookTokenFile()).contains(dir.resolve("token"));
    assertThat(c.auth().operatorTokenFile()).contains(dir.resolve("operator-token"));
    assertThat(c.maxBodyBytes()).isEqualTo(4_194_304);
    assertThat(c.playbooks()).containsExactly(Path.of("/etc/remediator/playbooks"));
    assertThat(c.nodeSelector().toString()).startsWith("[nvidia.com/gpu.present=true, cloud.google.com/gke-accelerator,"
        + " kubernetes.azure.com/accelerator=nvidia, karpenter.k8s.aws/instance-gpu-manufacturer=nvidia, k8s.amazonaws.com/accelerator,"
        + " karpenter.k8s.aws/instance-accelerator-manufacturer=aws, node.kubernetes.io/instance-type in (trn1.2xlarge,");
    assertThat(c.nodeFrom()).containsExactly("node", "Hostname", "hostname", "instance");
    assertThat(c.safety().limits().maxUnavailable()).hasToString("10%");
    assertThat(c.safety().limits().rate()).hasToString("10/1h");
    assertThat(List.of(c.safety().limits().breakerNodes(), c.safety().limits().breakerWindow(), c.safety().limits().autoResetAfter()))
        .containsExactly(5, Duration.ofMinutes(10), Optional.empty());
    assertThat(c.safety().limits().cooldown()).isEqualTo(Duration.ofHours(1));
    assertThat(c.leaderElection().enabled()).isTrue();
    assertThat(c.dryRun()).isFalse();
    assertThat(c.limits()).isEqualTo(RemediatorConfig.Limits.DEFAULTS);
    assertThat(c.logFormat()).isEqualTo(LogFormat.TEXT);
    assertThat(c.safety().limits().maxUnavailableGpus()).hasToString("10%");
    assertThat(c.safety().limits().maxFencedPerNode()).isEqualTo(1);
    assertThat(c.dra().driver()).isEqualTo("gpu.nvidia.com");
    assertThat(c.dra().keepNamespaces()).as("the GPU Operator's and ours").containsExactlyInAnyOrder("gpu-operator",
        "gpu-remediator");
  }

  @Test
  void decodesTheGpuLimitsAndTheDraDriverAndNamesEachMistakeWithItsLine() throws IOException {
    RemediatorConfig c = load(String.join("\n", "auth: {insecure_no_auth: true}",
        "safety: {max_unavailable_gpus: 16, max_fenced_per_node: 2}", "dra: {driver: gpu.example.com, keep_namespaces: [nvidia-gpu-operator]}", ""))
        .config().orElseThrow();
    assertThat(c.safety().limits().maxUnavailableGpus().of(1000)).isEqualTo(16);
    assertThat(c.safety().limits().maxFencedPerNode()).isEqualTo(2);
    assertThat(c.dra().driver()).isEqualTo("gpu.example.com");
    assertThat(c.dra().keepNamespaces()).containsExactly("nvidia-gpu-operator");
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "safety:", "  max_unavailable_gpus: lots",
        "  max_fenced_per_node: -1", "dra:", "  driver: Not A Driver", "  pools: x", "  keep_namespaces: [GPU_Operator]", "")).errors()).containsExactly(
        f + ":3: \"max_unavailable_gpus\" in safety: \"lots\" is not a GPU count or a percentage from 0% to 100%",
        f + ":4: \"max_fenced_per_node\" in safety must be a non-negative integer, not \"-1\"",
        f + ":6: \"driver\" in dra must be a DRA driver's name (a DNS subdomain), not \"Not A Driver\"",
        f + ":8: \"keep_namespaces\" entry \"GPU_Operator\" in dra is not a namespace name (a DNS label)",
        f + ":7: unknown key \"pools\" in dra");
  }

  @Test
  void theEvidenceStoreIsABucketOrAClaimAndSaysExactlyWhatIsWrong() throws IOException {
    RemediatorConfig c = load(String.join("\n", "auth: {insecure_no_auth: true}", "evidence:", "  store:",
        "    s3: {bucket: gpu-evidence, prefix: west, endpoint: \"https://minio.storage.svc:9000\", region: eu-west-1}",
        "")).config().orElseThrow();
    assertThat(c.evidenceStore()).contains(new EvidenceStore.S3("gpu-evidence", "west/",
        Optional.of(URI.create("https://minio.storage.svc:9000")), Optional.of("eu-west-1")));
    assertThat(load("auth: {insecure_no_auth: true}\nevidence: {store: {pvc: gpu-remediator-evidence}}\n").config()
        .orElseThrow().evidenceStore()).contains(new EvidenceStore.Pvc("gpu-remediator-evidence"));
    assertThat(load("auth: {insecure_no_auth: true}\n").config().orElseThrow().evidenceStore()).isEmpty();
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "evidence:", "  store:", "    pvc: x",
        "    s3: {bucket: b}", "")).errors()).containsExactly(
        f + ":4: evidence.store must name one of \"s3\" or \"pvc\"");
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "evidence:", "  store:",
        "    s3: {bucket: Not_A_Bucket, endpoint: \"ftp://x\"}", "")).errors()).containsExactly(
        f + ":4: \"endpoint\" in evidence.store.s3: must be an http(s) URL without credentials, not \"ftp://x\"");
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "evidence:", "  store:",
        "    s3: {bucket: Not_A_Bucket}", "")).errors()).containsExactly(
        f + ":4: \"bucket\" in evidence.store.s3 must be an S3 bucket name (3 to 63 of a-z, 0-9, '.', '-'), not"
        + " \"Not_A_Bucket\"");
  }

  @Test
  void logFormatIsTextOrJsonAndNothingElse() throws IOException {
    assertThat(load(Tokens.AUTH + "\nlog_format: json\n").config().orElseThrow().logFormat())
        .isEqualTo(LogFormat.JSON);
    assertThat(load(Tokens.AUTH + "\nlog_format: text\n").config().orElseThrow().logFormat())
        .isEqualTo(LogFormat.TEXT);
    assertThat(load(Tokens.AUTH + "\nlog_format: JSON\n").errors()).containsExactly(
        dir.resolve("remediator.yaml") + ":2: \"log_format\" must be text or json, not \"JSON\"");
  }

  @Test
  void decodesTheOutboundKeysAndNamesEachMistake() throws IOException {
    RemediatorConfig c = load(Tokens.AUTH + "\n"
        + "safety: {replace_rate_limit: 1/12h}\n"
        + "alertmanager: {url: \"http://alertmanager-operated.monitoring:9093\", bearer_token_file: am-token}\n"
        + "notify:\n  receivers:\n    - {name: gpu-oncall, type: slack, url_file: slack-url}\n"
        + "    - {name: bot, type: webhook, url_file: /etc/bot-url}\n"
        + "cloud:\n  aws: {region: us-west-2, endpoint: \"http://127.0.0.1:4566\"}\n"
        + "  redfish:\n    credentials_file: redfish/credentials\n    ca_file: /etc/bmc-ca.pem\n"
        + "    bmcs_file: /etc/remediator/bmcs/bmcs.yaml\n"
        + "    bmcs:\n      - {node: gpu-a-01, url: \"https://10.0.0.11\"}\n"
        + "      - {provider_id: \"aws:///us-west-2a/i-0123\", url: \"https://bmc-7/redfish/v1/Systems/1\","
        + " credentials_file: rack-7}\n").config().orElseThrow();
    assertThat(c.safety().limits().replaceRate()).hasToString("1/12h");
    assertThat(c.alertmanager()).contains(new RemediatorConfig.Alertmanager(
        URI.create("http://alertmanager-operated.monitoring:9093"), Optional.of(dir.resolve("am-token"))));
    assertThat(c.receivers()).containsExactly(
        new RemediatorConfig.Receiver("gpu-oncall", RemediatorConfig.ReceiverType.SLACK, dir.resolve("slack-url")),
        new RemediatorConfig.Receiver("bot", RemediatorConfig.ReceiverType.WEBHOOK, Path.of("/etc/bot-url")));
    assertThat(c.aws()).contains(new RemediatorConfig.Aws("us-west-2", Optional.of(URI.create("http://127.0.0.1:4566")),
        Optional.empty()));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(c.redfish()).contains(new RemediatorConfig.Redfish(dir.resolve("redfish/credentials"),
        Optional.of(Path.of("/etc/bmc-ca.pem")), false, List.of(
            new RemediatorConfig.Bmc(Optional.of("gpu-a-01"), Optional.empty(), new BmcAddress(
                URI.create("https://10.0.0.11"), Optional.empty(), f + ":15")),
            new RemediatorConfig.Bmc(Optional.empty(), Optional.of("aws:///us-west-2a/i-0123"), new BmcAddress(
                URI.create("https://bmc-7/redfish/v1/Systems/1"), Optional.of(dir.resolve("rack-7")), f + ":16"))),
        Optional.of(Path.of("/etc/remediator/bmcs/bmcs.yaml"))));
    RemediatorConfig defaults = load(Tokens.AUTH + "\n").config().orElseThrow();
    assertThat(defaults.safety().limits().replaceRate()).hasToString("2/24h");
    assertThat(defaults.alertmanager()).isEmpty();
    assertThat(defaults.receivers()).isEmpty();
    assertThat(defaults.aws()).isEmpty();
    assertThat(defaults.redfish()).isEmpty();

    assertThat(load(Tokens.AUTH + "\n"
        + "alertmanager: {url: \"ftp://am\"}\n"
        + "notify:\n  receivers:\n    - {name: OnCall, type: email, url_file: x}\n"
        + "    - {name: a, type: slack, url_file: y}\n    - {name: a, type: slack, url_file: z}\n"
        + "cloud:\n  aws: {region: moon-1, endpoint: \"http://user:pw@127.0.0.1\"}\n"
        + "  redfish: {ca_file: ca.pem, password: hunter2}\n").errors()).containsExactly(
        f + ":2: \"url\" in alertmanager must be an http(s) URL without credentials, not \"ftp://am\"",
        f + ":5: notify receiver name \"OnCall\" must be lower-case letters, digits and -",
        f + ":5: notify receiver \"type\" must be slack or webhook, not \"email\"",
        f + ":7: notify receiver \"a\" is defined twice",
        f + ":9: \"region\" in cloud.aws must be an AWS region such as us-west-2, not \"moon-1\"",
        f + ":9: \"endpoint\" in cloud.aws must be an http(s) URL without credentials, not \"http://user:pw@127.0.0.1\"",
        f + ":10: missing required key \"credentials_file\" in cloud.redfish",
        f + ":10: unknown key \"password\" in cloud.redfish",
        f + ":10: cloud.redfish needs bmcs or bmcs_file (node or provider_id -> url): a node's BMC is no longer read from"
            + " its gpu-remediator.io/bmc-url annotation, which the node's own kubelet can write");
  }

  @Test
  void todaysRedfishConfigIsRefusedSayingWhichKeysReplaceTheAnnotationAndWhyACaIsNeeded() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(Tokens.AUTH + "\ncloud:\n  redfish: {credentials_file: credentials}\n").errors())
        .containsExactly(
            f + ":3: cloud.redfish needs ca_file, the CA bundle that signed the BMCs' certificates: without it any host"
                + " with a publicly trusted certificate would be sent the BMC credentials (plain-http BMCs need"
                + " insecure_http: true)",
            f + ":3: cloud.redfish needs bmcs or bmcs_file (node or provider_id -> url): a node's BMC is no longer read"
                + " from its gpu-remediator.io/bmc-url annotation, which the node's own kubelet can write");
  }

  @Test
  void eachBmcEntryNamesOneNodeAndAnAddressThatKeepsItsCredentialsSafe() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(Tokens.AUTH + "\ncloud:\n  redfish:\n    credentials_file: c\n"
        + "    ca_file: ca.pem\n    bmcs:\n"
        + "      - {node: gpu-a-01, provider_id: \"aws:///x/i-1\", url: \"https://a\"}\n"
        + "      - {node: Gpu_A, url: \"https://a\"}\n"
        + "      - {node: gpu-a-02, url: \"http://10.0.0.12\"}\n"
        + "      - {node: gpu-a-03, url: \"https://root:calvin@10.0.0.13\"}\n"
        + "      - {node: gpu-a-04, url: \"https://10.0.0.14/redfish/v1/Managers/1\"}\n"
        + "      - {node: gpu-a-05, url: \"https://10.0.0.15\"}\n"
        + "      - {node: gpu-a-05, url: \"https://10.0.0.16\"}\n"
        + "      - {url: \"https://10.0.0.17\"}\n").errors()).containsExactly(
        f + ":7: a cloud.redfish.bmcs entry names its node by exactly one of node or provider_id",
        f + ":8: \"node\" in cloud.redfish.bmcs must be a node's name (RFC 1123), not \"Gpu_A\"",
        f + ":9: \"url\" in cloud.redfish.bmcs is plain http, which sends the BMC credentials in clear: https, or"
            + " insecure_http: true in cloud.redfish",
        f + ":10: \"url\" in cloud.redfish.bmcs must be https://<bmc>[/redfish/v1/Systems/<id>] without credentials,"
            + " not \"https://root:calvin@10.0.0.13\"",
        f + ":11: \"url\" in cloud.redfish.bmcs must be https://<bmc>[/redfish/v1/Systems/<id>] without credentials,"
            + " not \"https://10.0.0.14/redfish/v1/Managers/1\"",
        f + ":13: cloud.redfish.bmcs names node gpu-a-05 twice",
        f + ":14: a cloud.redfish.bmcs entry names its node by exactly one of node or provider_id");
  }

  @Test
  void decodesTheLimitsAndRefusesUnsafeOnes() throws IOException {
    RemediatorConfig c = load(Tokens.AUTH + "\n"
        + "limits: {max_connections: 100, idle_timeout: 30s, client_rate: 20/1m, webhook_queue: 4}\n").config().orElseThrow();
    assertThat(c.limits()).isEqualTo(new RemediatorConfig.Limits(100, Duration.ofSeconds(30),
        new Rate(20, Duration.ofMinutes(1)), 4, Duration.ofSeconds(10)));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(Tokens.AUTH + "\nlimits:\n  max_connections: 8\n  idle_timeout: 2h\n"
        + "  client_rate: 0/1s\n  webhook_queue: 99999999999\n  queue: 3\n").errors()).containsExactly(
        f + ":3: \"max_connections\" in limits must be between 16 and 1000000",
        f + ":4: \"idle_timeout\" in limits must be between 1s and 1h",
        f + ":5: \"client_rate\" in limits must allow at least 1 request",
        f + ":6: \"webhook_queue\" in limits must be between 2 and 1024",
        f + ":7: unknown key \"queue\" in limits");
  }

  @Test
  void decodesTheApiBudgetAndRefusesABurstBelowTheRate() throws IOException {
    RemediatorConfig c = load(Tokens.AUTH + "\n"
        + "kubernetes: {kubeconfig: kc, qps: 200, writes_in_flight: 32}\n").config().orElseThrow();
    assertThat(c.kubernetes()).isEqualTo(new RemediatorConfig.Kubernetes(Optional.of(dir.resolve("kc")), 200, 200, 32));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(Tokens.AUTH + "\nkubernetes:\n  qps: 0\n  burst: 0\n  writes_in_flight: 1000\n"
        + "  timeout: 3s\n").errors()).containsExactly(
        f + ":3: \"qps\" in kubernetes must be between 1 and 10000 requests a second",
        f + ":4: \"burst\" in kubernetes must be between 1 (at least \"qps\") and 100000",
        f + ":5: \"writes_in_flight\" in kubernetes must be between 1 and 256",
        f + ":6: unknown key \"timeout\" in kubernetes");
    assertThat(load(Tokens.AUTH + "\nkubernetes: {qps: 100, burst: 50}\n").errors()).containsExactly(
        f + ":2: \"burst\" in kubernetes must be between 100 (at least \"qps\") and 100000");
  }

  @Test
  void leaseDurationDefaultsToClientGosAndIsBounded() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(Tokens.AUTH + "\n").config().orElseThrow().leaderElection().leaseDuration())
        .isEqualTo(Duration.ofSeconds(15));
    assertThat(load(Tokens.AUTH + "\nleader_election: {lease_duration: 8s}\n").config().orElseThrow().leaderElection()
        .leaseDuration()).isEqualTo(Duration.ofSeconds(8));
    assertThat(load(Tokens.AUTH + "\nleader_election:\n  lease_duration: 2s\n").errors()).containsExactly(
        f + ":3: \"lease_duration\" in leader_election must be between 5s and 5m");
  }

  @Test
  void decodesTheDesignExample() throws IOException {
    RemediatorConfig c = load(String.join("\n",
        "listen: 127.0.0.1:9099",
        "auth:",
        "  webhook_token_file: /etc/remediator/webhook-token",
        "  operator_token_file: /etc/remediator/operator-token",
        "  ledger_key_file: /etc/remediator/ledger-key/key",
        "max_body_bytes: 1048576",
        "playbooks: [/etc/remediator/playbooks]",
        "dry_run: true",
        "kubernetes: {kubeconfig: ~}",
        "node_selector: nvidia.com/gpu.present=true",
        "node_from: [node, Hostname, hostname, instance]",
        "safety:",
        "  max_unavailable: 3",
        "  rate_limit: 10/1h",
        "  breaker: {nodes: 5, window: 10m, auto_reset_after: 1h}",
        "  cooldown: 1h",
        "leader_election: {enabled: true, namespace: gpu-remediator, lease: gpu-remediator}", "")).config().orElseThrow();
    assertThat(c.listenPort()).isEqualTo(9099);
    assertThat(c.dryRun()).isTrue();
    assertThat(c.kubernetes()).isEqualTo(RemediatorConfig.Kubernetes.DEFAULTS);
    assertThat(c.safety().limits().maxUnavailable().of(100)).isEqualTo(3);
    assertThat(c.safety().limits().autoResetAfter()).contains(Duration.ofHours(1));
  }

  @Test
  void reportsEveryProblemWithFileAndLine() throws IOException {
    ConfigLoader.Result r = load(String.join("\n",
        "listen: everywhere",
        "auth: {}",
        "dry_run: yes",
        "safety:",
        "  rate_limit: lots",
        "  max_unavailable: 150%",
        "  breakr: {}",
        "node_from: [node, \"bad label\"]",
        "extra: 1", ""));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(r.config()).isEmpty();
    assertThat(r.errors()).containsExactly(
        f + ":1: \"listen\" must be HOST:PORT, not \"everywhere\"",
        f + ":2: auth needs webhook_token_file and operator_token_file (or insecure_no_auth: true)",
        f + ":3: \"dry_run\" in config must be true or false, not \"yes\"",
        f + ":8: \"node_from\" entry \"bad label\" is not a label name",
        f + ":6: \"max_unavailable\" in safety: \"150%\" is not a node count or a percentage from 0% to 100%",
        f + ":5: \"rate_limit\" in safety: \"lots\" is not a rate (like 10/1h)",
        f + ":7: unknown key \"breakr\" in safety",
        f + ":9: unknown key \"extra\" in config");
  }

  @Test
  void decodesADomainsIncidentAndNamesEachMistakeWithItsLine() throws IOException {
    DomainBudget clique = load(String.join("\n", "auth: {insecure_no_auth: true}", "safety:", "  domains:",
        "    - {label: nvidia.com/gpu.clique, max_unavailable: 1, incident: {nodes: 3, window: 15m}}",
        "    - {label: topology.kubernetes.io/zone, max_unavailable: 10%}", "")).config().orElseThrow().safety().limits()
        .domains().get(0);
    assertThat(clique.incident()).contains(new DomainBudget.IncidentRule(3, Duration.ofMinutes(15)));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "safety:", "  domains:",
        "    - label: a.io/rack",
        "      max_unavailable: 1",
        "      incident: {nodes: 0, window: soon, extra: 1}",
        "    - label: b.io/rack",
        "      max_unavailable: 1",
        "      incident: {window: 5m}", "")).errors()).containsExactly(
        f + ":6: \"nodes\" in safety.domains item's incident must be at least 1",
        f + ":6: \"window\" in safety.domains item's incident: \"soon\" is not a duration (like 30s, 10m, 1h30m)",
        f + ":6: unknown key \"extra\" in safety.domains item's incident",
        f + ":9: safety.domains item's incident: missing required key \"nodes\" (a positive integer)");
  }

  @Test
  void decodesDeferToInItsThreeFormsAndNamesEachMistakeWithItsLine() throws IOException {
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "defer_to:",
        "  - condition: {type: AcceleratedHardwareReady, status: \"False\"}",
        "  - taint: {key: remediation.medik8s.io/unhealthy}",
        "  - label: {key: example.com/repair-owner, value: vendor}", "")).config().orElseThrow().deferTo()).containsExactly(
        new DeferRule.Condition("AcceleratedHardwareReady", "False"), new DeferRule.Taint("remediation.medik8s.io/unhealthy"),
        new DeferRule.Label("example.com/repair-owner", "vendor"));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "defer_to:",
        "  - condition: {type: Ready}",
        "  - taint: {key: a}",
        "    label: {key: b, value: c}",
        "  - taint: {key: \"not a key\"}", "")).errors()).containsExactly(
        f + ":3: missing required key \"status\" in defer_to item's condition",
        f + ":4: defer_to item: give exactly one of condition: {type, status}, taint: {key}, label: {key, value}",
        f + ":6: \"key\" in defer_to item: \"not a key\" is not a qualified name (optional DNS prefix and '/', then at most"
            + " 63 of A-Z, a-z, 0-9, '-', '_', '.')");
  }

  @Test
  void decodesADeferralsDeadlineAndWhatThenAndNamesEachMistakeWithItsLine() throws IOException {
    RemediatorConfig c = load(String.join("\n", "auth: {insecure_no_auth: true}", "defer_to:",
        "  - condition: {type: AcceleratedHardwareReady, status: \"False\"}", "    deadline: 30m", "    then: take_over",
        "  - taint: {key: karpenter.sh/disrupted}", "    deadline: 1h", "    then: page", "")).config().orElseThrow();
    assertThat(c.deferTo()).containsExactly(new DeferRule.Condition("AcceleratedHardwareReady", "False",
        Optional.of(new DeferRule.Deadline(Duration.ofMinutes(30), DeferRule.Then.TAKE_OVER))),
        new DeferRule.Taint("karpenter.sh/disrupted", Optional.of(new DeferRule.Deadline(Duration.ofHours(1), DeferRule.Then.PAGE))));
    assertThat(c.warnings()).contains("defer_to taint karpenter.sh/disrupted pages people at its deadline, and safety.page"
        + " names no receiver: the page is only a decision (deferral_paged) and an Event");
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "defer_to:",
        "  - taint: {key: a}", "    deadline: 30m",
        "  - taint: {key: b}", "    deadline: 30s", "    then: page",
        "  - taint: {key: c}", "    deadline: 1h", "    then: reboot", "")).errors()).containsExactly(
        f + ":4: defer_to item: \"deadline\" and \"then\" go together (then: take_over | page, after the deadline)",
        f + ":6: \"deadline\" in defer_to item must be at least 1m",
        f + ":10: \"then\" in defer_to item must be take_over or page, not \"reboot\"");
  }

  @Test
  void decodesTheSparePoolAndNamesEachMistakeWithItsLine() throws IOException {
    RemediatorConfig c = load(String.join("\n", "auth: {insecure_no_auth: true}",
        "spares: {select: \"nvidia.com/gpu.present=true,pool=train\", count: 4}", "")).config().orElseThrow();
    assertThat(c.spares()).hasValueSatisfying(p -> {
      assertThat(p.count()).isEqualTo(4);
      assertThat(p.taintKey()).isEqualTo("gpu-remediator.io/spare");
      assertThat(p.select().matches(Map.of("nvidia.com/gpu.present", "true", "pool", "train"))).isTrue();
    });
    assertThat(load("auth: {insecure_no_auth: true}\n").config().orElseThrow().spares()).isEmpty();
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "spares: {count: 0, taint: \"not a key\", size: 2}",
        "")).errors()).containsExactly(
        f + ":2: missing required key \"select\" in spares (a label selector of the nodes the pool holds)",
        f + ":2: \"count\" in spares must be 1 to 1000, not 0",
        f + ":2: \"taint\" in spares: \"not a key\" is not a qualified name (optional DNS prefix and '/', then at most 63 of"
            + " A-Z, a-z, 0-9, '-', '_', '.')",
        f + ":2: unknown key \"size\" in spares");
  }

  /** The EKS overlay and the chart's AWS values defer to every condition EKS node auto repair and Karpenter act on. */
  @Test
  void theShippedEksConfigDefersToEveryConditionEksAndKarpenterRepairActOn() throws IOException {
    // Karpenter's AWS RepairPolicies as recorded (tests/real/karpenter/repair-policies.go.txt): every condition and status.
    Matcher m = Pattern.compile("ConditionType:\\s+(corev1\\.NodeReady|\"(\\w+)\"),\\s*"
        + "ConditionStatus:\\s+corev1\\.Condition(\\w+)").matcher(Files.readString(Path.of(
            "../tests/real/karpenter/repair-policies.go.txt")));
    List<String> repaired = new ArrayList<>();
    while (m.find()) {
      repaired.add((m.group(2) == null ? "Ready" : m.group(2)) + "=" + m.group(3));
    }
    assertThat(repaired).hasSize(7).contains("Ready=Unknown", "AcceleratedHardwareReady=False");
    RemediatorConfig c = ConfigLoader.load(Path.of("../deploy/aws/remediator.yaml")).config().orElseThrow();
    assertThat(c.deferTo()).extracting(DeferRule::describe).containsExactlyInAnyOrderElementsOf(
        repaired.stream().map(r -> "condition " + r).toList());
    assertThat(c.deferTo()).allSatisfy(r -> assertThat(r.deadline()).hasValueSatisfying(d -> assertThat(d.then())
        .as("never taken over: the other repairer may replace the node at any moment").isEqualTo(DeferRule.Then.PAGE)));
  }

  @Test
  void requiresAuthToBeSaidExplicitly() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load("listen: 127.0.0.1:1\n").errors()).containsExactly(
        f + ":1: missing required key \"auth\" in config (webhook_token_file and operator_token_file, or"
            + " insecure_no_auth: true)");
    assertThat(load("auth: {insecure_no_auth: true}\n").config()).isPresent();
    assertThat(load("auth: {webhook_token_file: token}\n").errors()).containsExactly(
        f + ":1: auth needs webhook_token_file and operator_token_file (or insecure_no_auth: true)");
  }

  @Test
  void theLedgerLimitsDefaultAndAreKeptUnderTheNodesAnnotationLimit() throws IOException {
    String auth = Tokens.AUTH + "\n";
    assertThat(load(auth).config().orElseThrow().ledger()).isEqualTo(new LedgerLimits(65_536, 32));
    assertThat(load(auth + "ledger: {max_bytes: 32768, max_episodes_per_node: 8}\n").config().orElseThrow().ledger())
        .isEqualTo(new LedgerLimits(32_768, 8));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(auth + "ledger: {max_bytes: 300000, max_episodes_per_node: 0}\n").errors()).containsExactly(
        f + ":2: \"max_bytes\" in ledger must be from 4096 to 196608 bytes (the Node's annotations take 262144 in all,"
            + " the kubelet's and others' among them), not 300000",
        f + ":2: \"max_episodes_per_node\" in ledger must be from 1 to 256, not 0");
  }

  @Test
  void todaysSingleTokenIsRefusedNamingTheThreeRolesThatReplaceIt() throws IOException {
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load("auth: {bearer_token_file: /etc/remediator/secret/token}\n").errors()).containsExactly(
        f + ":1: \"bearer_token_file\" in auth is replaced by three roles, each its own token: webhook_token_file (POST"
            + " /api/v1/alerts only: Alertmanager's), operator_token_file (pause, resume, breaker and domain resets,"
            + " release, retry, and reads) and read_token_file (reads only, optional); and ledger_key_file, the key every"
            + " node ledger is signed with");
    assertThat(load("auth: {webhook_token_file: token, operator_token_file: operator-token}\n").errors()).containsExactly(
        f + ":1: auth needs ledger_key_file: the key (32 bytes or more, from a Secret) that every node ledger is signed"
            + " with, so that a ledger a node's kubelet writes is never acted on");
  }

  @Test
  void playbookPathsResolveAgainstTheConfigDirectory() throws IOException {
    assertThat(load("auth: {insecure_no_auth: true}\nplaybooks: [pb, /abs]\n").config().orElseThrow().playbooks())
        .isEqualTo(List.of(dir.resolve("pb"), Path.of("/abs")));
  }

  @Test
  void decodesTheStatusPageOptionsAndRefusesContradictions() throws IOException {
    RemediatorConfig c = load("listen: 0.0.0.0:8080\nstatus_listen: 127.0.0.1:8081\n"
        + "auth: {webhook_token_file: token, operator_token_file: operator-token, read_token_file: read-token, ledger_key_file: ledger-key}\n").config().orElseThrow();
    assertThat(c.statusListen()).contains(new RemediatorConfig.Listen("127.0.0.1", 8081));
    assertThat(c.auth().readTokenFile()).contains(dir.resolve("read-token"));
    assertThat(load(Tokens.AUTH + "\n").config().orElseThrow().statusListen()).isEmpty();
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load("listen: 127.0.0.1:8080\nstatus_listen: 127.0.0.1:8080\nauth: {webhook_token_file: token, operator_token_file: operator-token, ledger_key_file: ledger-key}\n").errors())
        .containsExactly(f + ":2: \"status_listen\" must differ from \"listen\"");
    assertThat(load("status_listen: nowhere\nauth:\n  insecure_no_auth: true\n  read_token_file: read-token\n").errors())
        .containsExactly(f + ":1: \"status_listen\" must be HOST:PORT, not \"nowhere\"",
            f + ":3: auth sets tokens and insecure_no_auth: true; with insecure_no_auth every request is let in, so set one"
                + " or the other");
  }

  /** EC2's scheduled events: read every 5 minutes, fired 2 hours ahead, unless said otherwise within bounds. */
  @Test
  void scheduledEventsAreReadOnlyWhenAskedForAndTheirPaceAndLeadAreBounded() throws IOException {
    assertThat(load("auth: {insecure_no_auth: true}\ncloud: {aws: {region: us-west-2}}\n").config().orElseThrow().aws()
        .orElseThrow().scheduledEvents()).isEmpty();
    assertThat(load("auth: {insecure_no_auth: true}\ncloud: {aws: {region: us-west-2, scheduled_events: {}}}\n").config()
        .orElseThrow().aws().orElseThrow().scheduledEvents()).contains(RemediatorConfig.ScheduledEvents.DEFAULT);
    assertThat(load("auth: {insecure_no_auth: true}\ncloud: {aws: {region: us-west-2, scheduled_events: {every: 1m, lead: 6h}}}\n")
        .config().orElseThrow().aws().orElseThrow().scheduledEvents())
        .contains(new RemediatorConfig.ScheduledEvents(Duration.ofMinutes(1), Duration.ofHours(6)));
    String f = dir.resolve("remediator.yaml").toString();
    assertThat(load(String.join("\n", "auth: {insecure_no_auth: true}", "cloud:", "  aws:", "    region: us-west-2",
        "    scheduled_events: {every: 1s, lead: 30m, ahead: 2h}", "")).errors()).containsExactly(
        f + ":5: \"every\" in cloud.aws.scheduled_events must be between 10s and 1h",
        f + ":5: \"lead\" in cloud.aws.scheduled_events must be between 1h and 7d (the drain must end before the event may"
            + " start)",
        f + ":5: unknown key \"ahead\" in cloud.aws.scheduled_events");
  }
}
