package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.config.ConfiguredBmcs;
import io.gpuremediator.config.RemediatorConfig.Bmc;
import io.gpuremediator.config.RemediatorConfig.Redfish;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.http.RedfishResets;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RedfishBmcStub;
import io.gpuremediator.testing.RedfishBmcStub.Answer;
import io.vertx.core.Vertx;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reboot step through a BMC's Redfish API, against the emulated API server and a stub BMC over HTTPS with a test
 * CA serving real BMCs' recorded resources: rejected credentials are not tried again until they change, a 5xx is
 * retried, the reset is applied once, a GB200 tray's host is power-cycled and its HGX baseboard never, and a BMC whose
 * certificate the configured CA did not sign is never sent a request.
 */
class RebootRedfishMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String PLAYBOOKS = String.format(RebootJobMockTest.PLAYBOOKS, "redfish", "");

  @TempDir Path dir;
  private RedfishBmcStub bmc;
  private Vertx vertx;
  private ClosedLoopHarness h;
  private Path credentials;

  @BeforeEach
  void start() throws Exception {
    bmc = new RedfishBmcStub("admin:rotated-secret");
    vertx = Vertx.vertx();
    credentials = dir.resolve("redfish-credentials");
    Files.writeString(credentials, "admin:old-secret\n");
  }

  @AfterEach
  void close() throws Exception {
    if (h != null) {
      h.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    bmc.close();
  }

  private void harness(String ca, String bmcUrl) {
    harness(ca, bmcUrl, PLAYBOOKS);
  }

  /** The service's BMC port with {@code bmcUrl} written for the node (none: no entry), and the node on the BMC's system. */
  private void harness(String ca, String bmcUrl, String playbooks) {
    List<Bmc> written = bmcUrl == null ? List.of() : List.of(new Bmc(Optional.of(NODE), Optional.empty(),
        new BmcAddress(URI.create(bmcUrl), Optional.empty(), "remediator.yaml:12")));
    Optional<Path> trusted = Optional.of(RedfishBmcStub.PEMS.resolve(ca));
    BmcResets resets = RedfishResets.create(vertx, new ConfiguredBmcs(new Redfish(credentials, trusted, false, written,
        Optional.empty())), credentials, trusted, false, OutboundListener.NONE);
    h = new ClosedLoopHarness(dir, playbooks, new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE,
        InstanceHealth.NOT_CONFIGURED, InstanceReboots.NOT_CONFIGURED, resets));
    systemUuid(bmc.systemUuid());
  }

  private void systemUuid(String uuid) {
    h.client.nodes().withName(NODE).editStatus(n -> {
      n.getStatus().getNodeInfo().setSystemUUID(uuid);
      return n;
    });
  }

  @Test
  void rejectedCredentialsAreNotTriedAgainUntilTheyChangeAServerErrorIsRetriedAndTheResetAppliedOnce() throws Exception {
    harness("ca.pem", bmc.url().toString());
    bmc.next(Answer.SERVER_ERROR);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3); // asked: 401
    assertThat(bmc.requests()).singleElement().satisfies(r -> assertThat(r.user()).isEmpty());
    assertThat(h.events("RebootNotAsked")).singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("401").contains("not asked again until"));

    h.clock.advance(Duration.ofSeconds(6));
    h.look(NODE); // the same credentials: nothing sent, a BMC would lock the account out
    assertThat(bmc.requests()).hasSize(1);

    Files.writeString(credentials, "admin:rotated-secret\n"); // the Secret rotated
    h.clock.advance(Duration.ofSeconds(6));
    h.look(NODE); // the reset answered 500: not applied
    assertThat(bmc.resets()).isEmpty();
    assertThat(h.episode(NODE).progress().note()).contains("500");

    h.clock.advance(Duration.ofSeconds(6));
    h.look(NODE);
    assertThat(bmc.resets()).containsExactly("ForceRestart");
    assertThat(bmc.requests()).filteredOn(r -> r.method().equals("POST")).hasSize(2)
        .allSatisfy(r -> assertThat(r.path()).isEqualTo("/redfish/v1/Systems/437XR1138R2/Actions/ComputerSystem.Reset"));
    assertThat(h.decisions(Reason.REPAIR_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("asked to reset /redfish/v1/Systems/437XR1138R2 with ForceRestart"));

    h.clock.advance(Duration.ofMinutes(2));
    h.look(NODE);
    Nodes.booted(h.client, NODE, NODE + "-boot-2", true);
    h.lookUntil(NODE, Stage.DIAGNOSING, 2);
    assertThat(bmc.resets()).containsExactly("ForceRestart");
  }

  @Test
  void aResetAppliedWithItsAnswerLostIsNotSentAgain() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    harness("ca.pem", bmc.url() + "/redfish/v1/Systems/437XR1138R2");
    bmc.next(Answer.APPLIED_ANSWER_LOST);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    h.clock.advance(Duration.ofMinutes(5));
    h.look(NODE);
    assertThat(bmc.resets()).containsExactly("ForceRestart");
    assertThat(bmc.requests()).as("the URL named the system: no listing").noneMatch(r -> r.path().equals("/redfish/v1/Systems"));
    assertThat(h.decisions(Reason.REPAIR_STARTED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("its answer lost"));
  }

  @Test
  void aGb200TraysBmcGetsAPowerCycleOfItsHostSystemNotOfTheHgxBaseboardItAlsoLists() throws Exception {
    gb200();
    harness("ca.pem", bmc.url().toString());
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(bmc.resets()).containsExactly("PowerCycle");
    assertThat(bmc.requests()).filteredOn(r -> r.method().equals("POST")).singleElement()
        .satisfies(r -> assertThat(r.path()).isEqualTo("/redfish/v1/Systems/System_0/Actions/ComputerSystem.Reset"));
    assertThat(h.decisions(Reason.REPAIR_STARTED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("asked to reset /redfish/v1/Systems/System_0 with PowerCycle").contains("it allows [ForceOff, PowerCycle"));
  }

  @Test
  void theHgxBaseboardNamedAsTheNodesSystemIsRebootUnsupportedAndNothingIsPosted() throws Exception {
    gb200();
    harness("ca.pem", bmc.url() + "/redfish/v1/Systems/HGX_Baseboard_0");
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 3);
    assertThat(bmc.requests()).noneMatch(r -> r.method().equals("POST"));
    assertThat(h.decisions(Reason.REBOOT_UNSUPPORTED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("HGX_Baseboard_0 offers no #ComputerSystem.Reset action").contains("nothing was sent"));
    assertThat(h.events("RebootUnsupported")).singleElement()
        .satisfies(e -> assertThat(e.getMessage()).contains("HGX_Baseboard_0"));
  }

  /**
   * Invariant 10 over what a node's kubelet and an alert's labels can write: forged BMC annotations (today's key, look-
   * alikes, the other BMC's address in every form) and hostile labels naming the other BMC never make it the one reset;
   * the node's own BMC, as the operator wrote it, is reset once an episode.
   */
  @Test
  void noForgedAnnotationOrHostileLabelChoosesTheBmcThatIsReset() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (RedfishBmcStub decoy = new RedfishBmcStub("admin:rotated-secret", RedfishBmcStub.RECORDED.resolve("libredfish-lenovo"))) {
      List<String> forms = List.of(decoy.url().toString(), decoy.url() + "/redfish/v1/Systems/1",
          "https://127.0.0.1:" + decoy.url().getPort() + "/", "http://127.0.0.1:" + decoy.url().getPort(),
          "https://admin:rotated-secret@127.0.0.1:" + decoy.url().getPort());
      List<String> keys = List.of("gpu-remediator.io/bmc-url", "gpu-remediator.io/bmc", "gpu-remediator.io/redfish-url",
          "bmc-url", "metal3.io/bmc-address");
      for (int round = 1; round <= 3; round++) {
        harness("ca.pem", bmc.url().toString());
        h.client.nodes().withName(NODE).edit(n -> {
          for (String key : keys) {
            if (random.nextInt(3) > 0) {
              n.getMetadata().getAnnotations().put(key, forms.get(random.nextInt(forms.size())));
            }
          }
          return n;
        });
        String hostile = forms.get(random.nextInt(forms.size()));
        Alert xid = Alerts.xid(NODE, "79");
        Map<String, String> labels = new HashMap<>(xid.labels());
        labels.putAll(Map.of("bmc_url", hostile, "bmc", hostile, "redfish", "<!channel> " + hostile));
        h.fire(Alerts.withLabels(xid, labels));
        h.lookUntil(NODE, Stage.REPAIRING, 3);
        assertThat(decoy.requests()).as("seed %d, round %d", seed, round).isEmpty();
        assertThat(bmc.resets()).as("seed %d, round %d", seed, round).hasSize(round);
        h.close();
        h = null;
      }
    }
  }

  /** A GB200 compute tray's BMC, as recorded: System_0 and HGX_Baseboard_0, the reset types in an ActionInfo. */
  private void gb200() throws Exception {
    bmc.close();
    bmc = new RedfishBmcStub("admin:rotated-secret", RedfishBmcStub.RECORDED.resolve("libredfish-nvidia-gb200"));
    Files.writeString(credentials, "admin:rotated-secret\n");
  }

  @Test
  void aBmcWhoseCertificateTheConfiguredCaDidNotSignIsNeverSentARequest() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    harness("other-ca.pem", bmc.url().toString());
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(bmc.requests()).isEmpty();
    assertThat(h.episode(NODE).progress().task().orElseThrow().handle()).as("surely not applied: asked again later")
        .doesNotContain("asked").doesNotContain("sent");
  }

  @Test
  void aBmcNeverReachedFailsTheStepAtItsTimeoutAndTakesItsOnFail() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    harness("other-ca.pem", bmc.url().toString(),
        String.format(RebootJobMockTest.PLAYBOOKS, "redfish", ", on_fail: gpu-repeat-offender"));
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    for (int minutes = 10; minutes <= 30; minutes += 10) { // asked again each time: the certificate is still untrusted
      h.clock.advance(Duration.ofMinutes(10));
      h.look(NODE);
      assertThat(h.episode(NODE).progress().stage()).as("after %d minutes", minutes).isEqualTo(Stage.REPAIRING);
    }
    h.clock.advance(Duration.ofMinutes(1));
    Episode escalated = h.lookUntil(NODE, Stage.ESCALATED, 1);
    assertThat(escalated.playbook()).isEqualTo("gpu-repeat-offender");
    assertThat(h.decisions(Reason.REBOOT_TIMEOUT)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("no reboot of " + NODE + " by redfish was applied within 30m").contains("then escalated"));
    assertThat(h.events("RebootNotAsked")).singleElement();
    assertThat(bmc.requests()).isEmpty();
  }

  @Test
  void aNodeNoBmcIsWrittenForFailsTheStepAndCallsNothingWhateverItsAnnotationsSay() {
    harness("ca.pem", null);
    h.client.nodes().withName(NODE).edit(n -> { // what today's release read, written by the node's own kubelet
      n.getMetadata().getAnnotations().put("gpu-remediator.io/bmc-url", bmc.url().toString());
      return n;
    });
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 3);
    assertThat(h.decisions(Reason.REPAIR_FAILED)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("no BMC is written for " + NODE + " in cloud.redfish.bmcs"));
    assertThat(bmc.requests()).isEmpty();
  }

  @Test
  void aBmcWhoseSystemIsAnotherMachineIsABmcMismatchAndIsNeverSentAReset() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    harness("ca.pem", bmc.url().toString());
    systemUuid("6173ecec-6ef5-11ee-834a-0a8fc3a58a71"); // another server (Lenovo's recorded system)
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 3);
    assertThat(bmc.requests()).as("read, never reset").noneMatch(r -> r.method().equals("POST"));
    assertThat(h.decisions(Reason.BMC_MISMATCH)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("is not " + NODE + "'s").contains("UUID 38947555-7742-3448-3784-823347823834")
        .contains("systemUUID is 6173ecec-6ef5-11ee-834a-0a8fc3a58a71").contains("nothing was sent"));
    assertThat(h.events("BmcMismatch")).singleElement();
  }

  @Test
  void aNodeThatStatesNoSystemUuidIsNeverReset() throws Exception {
    Files.writeString(credentials, "admin:rotated-secret\n");
    harness("ca.pem", bmc.url().toString());
    systemUuid("");
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.REPAIR_FAILED, 3);
    assertThat(bmc.requests()).noneMatch(r -> r.method().equals("POST"));
    assertThat(h.decisions(Reason.BMC_MISMATCH)).singleElement()
        .satisfies(d -> assertThat(d.detail()).contains("the node states no system UUID"));
  }
}
