package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.aws.S3EvidenceUploads;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.LocalS3;
import io.gpuremediator.testing.MutableClock;
import io.gpuremediator.testing.Playbooks;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Evidence that exists and survives, through the closed loop against the emulated API server: the default
 * {@code collect} Job runs its command for real (simapi's {@link JobKubelet}, against fakes of the node's tools built
 * from recorded real outputs), finds nvidia-bug-report.sh where the node's driver put it, and its report is stored off
 * the node before the reboot starts: in a real S3-compatible server (S3Proxy, from Maven Central) signed as S3 wants
 * it, or on a PersistentVolumeClaim the Job writes. A store that cannot take it is {@code evidence_not_stored}, and the
 * reboot waits no longer than the Job's timeout.
 */
class EvidenceStoreMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String BUCKET = "gpu-evidence";
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-reboot", """
            - collect: {timeout: 10m, keep: 7d%s}
            - notify: {receiver: oncall, message: "{{ node }} quarantined"}
            - drain: {mode: evict, timeout: 30m, grace_period: 1m}
            - reboot: {method: job, timeout: 30m}
      """);
  @TempDir Path dir;
  private ClosedLoopHarness h;
  private JobKubelet kubelet;
  /** While set, the kubelet leaves the evidence Job unstarted. */
  private final AtomicBoolean jobHeld = new AtomicBoolean();
  private LocalS3 s3;
  private S3EvidenceUploads uploads;
  private final List<String> sent = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() throws Exception {
    if (kubelet != null) {
      kubelet.close();
    }
    if (h != null) {
      h.close();
    }
    if (uploads != null) {
      uploads.close();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  private ClosedLoopHarness start(String store, URI endpoint) {
    uploads = new S3EvidenceUploads("us-east-1", StaticCredentialsProvider.create(AwsBasicCredentials.create(
        LocalS3.ACCESS_KEY, LocalS3.SECRET)), OutboundListener.NONE);
    Notifier notifier = n -> {
      sent.add(n.text());
      return Notifier.Queued.QUEUED;
    };
    h = new ClosedLoopHarness(dir, String.format(PLAYBOOKS, store.replace("ENDPOINT", endpoint.toString())),
        new OutboundPorts(Silences.NOT_CONFIGURED, notifier, InstanceHealth.NOT_CONFIGURED, InstanceReboots.NOT_CONFIGURED,
            BmcResets.NOT_CONFIGURED, uploads), new MutableClock(Instant.now().truncatedTo(ChronoUnit.SECONDS)));
    kubelet = new JobKubelet(h.server, "gpu-remediator", Path.of("../simapi/node-tools"), Path.of("../tests/real"),
        dir.resolve("kubelet"), j -> !jobHeld.get()
        && "collect".equals(j.getMetadata().getLabels().get("gpu-remediator.io/step"))).start();
    return h;
  }

  private void gpuOperatorNode() {
    h.client.nodes().withName(NODE).edit(n -> {
      n.getMetadata().getLabels().put(JobKubelet.DRIVER_CONTAINER_LABEL, "true");
      return n;
    });
  }

  /**
   * Fires the XID, sees the drain end while the kubelet holds the evidence Job back (the reboot waits for it), then
   * lets the kubelet run it and waits for the Job to end as it ran it.
   */
  private Job collected() {
    jobHeld.set(true);
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINED, 4);
    jobHeld.set(false);
    Job job = h.jobs("collect").get(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> !conditions(job).isEmpty());
    return h.client.batch().v1().jobs().inNamespace("gpu-remediator").withName(job.getMetadata().getName()).get();
  }

  private List<String> conditions(Job job) {
    Job now = h.client.batch().v1().jobs().inNamespace("gpu-remediator").withName(job.getMetadata().getName()).get();
    return now.getStatus() == null || now.getStatus().getConditions() == null ? List.of()
        : now.getStatus().getConditions().stream().map(c -> c.getType()).toList();
  }

  private static String gunzip(byte[] gz) throws IOException {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void theDefaultCollectFindsTheDriverContainersReportAndItIsInS3BeforeTheReboot() throws Exception {
    s3 = new LocalS3(BUCKET);
    start(", store: {s3: {bucket: " + BUCKET + ", prefix: clusters/west, endpoint: \"ENDPOINT\", region: us-west-2}}",
        s3.endpoint());
    gpuOperatorNode();
    Job job = collected();
    String name = job.getMetadata().getName();
    assertThat(conditions(job)).containsExactly("Complete");
    String key = "clusters/west/" + NODE + "/" + name + ".log.gz";
    String where = "s3://" + BUCKET + "/" + key;
    assertThat(s3.object(BUCKET, key)).as("nothing is stored before a reboot or replacement needs it").isEmpty();

    Episode rebooting = h.lookUntil(NODE, Stage.REPAIRING, 2);
    byte[] stored = s3.object(BUCKET, key).orElseThrow();
    assertThat(gunzip(stored)).startsWith("____________________________________________\n\nStart of NVIDIA bug report log"
        + " file.").contains("command line flags: --safe-mode --output-file /tmp/gpu-remediator-evidence-");
    assertThat(h.decisions(Reason.EVIDENCE_STORED)).singleElement().satisfies(d -> assertThat(d.detail())
        .isEqualTo("evidence job gpu-remediator/" + name + " completed, its report stored at " + where));
    assertThat(h.events("EvidenceStored")).singleElement().satisfies(ev -> assertThat(ev.getMessage()).contains(where));
    assertThat(rebooting.evidence()).containsExactly("gpu-remediator/" + name + " -> " + where);
    assertThat(sent).singleElement().isEqualTo(NODE + " quarantined (evidence: job gpu-remediator/" + name
        + ", its report stored at " + where + ")");
    assertThat(h.decisions(Reason.EVIDENCE_NOT_STORED)).isEmpty();
    assertThat(h.jobs("reboot")).hasSize(1);
    assertThat(h.server.requestLog()).anyMatch(r -> r.contains("/pods/" + name) && r.contains("/log?limitBytes="));
  }

  @Test
  void aStoreThatCannotBeReachedHoldsTheRebootUntilTheJobsTimeoutThenItIsEvidenceNotStored() throws Exception {
    URI nowhere;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nowhere = URI.create("http://127.0.0.1:" + free.getLocalPort()); // nothing listens there once it is closed
    }
    start(", store: {s3: {bucket: " + BUCKET + ", endpoint: \"ENDPOINT\"}}", nowhere);
    Job job = collected();
    String name = job.getMetadata().getName();
    h.look(NODE);
    Episode waiting = h.episode(NODE);
    assertThat(waiting.progress().stage()).isEqualTo(Stage.DRAINED);
    assertThat(waiting.progress().note()).contains("the reboot of " + NODE + " waits to store the report of evidence job"
        + " gpu-remediator/" + name + " at s3://" + BUCKET + "/" + NODE + "/" + name + ".log.gz: the object store not"
        + " reached");
    assertThat(h.jobs("reboot")).isEmpty();

    h.clock.advance(Duration.ofMinutes(11)); // past the collect's 10m and the slack
    h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.decisions(Reason.EVIDENCE_NOT_STORED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("its report was not stored at s3://" + BUCKET + "/" + NODE + "/" + name + ".log.gz")
        .contains("until its timeout of 10m"));
    assertThat(h.events("EvidenceNotStored")).hasSize(1);
    assertThat(h.jobs("reboot")).hasSize(1);
  }

  @Test
  void onAClaimTheJobWritesTheHostDriversReportAndTheDecisionNamesIt() throws Exception {
    h = start(", store: {pvc: gpu-evidence}", URI.create("http://unused"));
    h.client.persistentVolumeClaims().inNamespace("gpu-remediator").resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName("gpu-evidence").withNamespace("gpu-remediator").endMetadata().withNewSpec()
        .withAccessModes("ReadWriteMany").withNewResources().addToRequests("storage", new Quantity("50Gi")).endResources()
        .endSpec().build()).create();
    Job job = collected();
    String name = job.getMetadata().getName();
    assertThat(conditions(job)).containsExactly("Complete");
    assertThat(job.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv()).anySatisfy(v -> {
      assertThat(v.getName()).isEqualTo("EVIDENCE_FILE");
      assertThat(v.getValue()).isEqualTo("/evidence/" + NODE + "/" + name + ".log.gz");
    });
    Path file = kubelet.claim("gpu-evidence").resolve(NODE).resolve(name + ".log.gz");
    assertThat(gunzip(Files.readAllBytes(file))).contains("Start of NVIDIA bug report log file.");
    assertThat(kubelet.log(name)).contains("running nvidia-bug-report.sh from /usr/bin");

    h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.decisions(Reason.EVIDENCE_STORED)).singleElement().satisfies(d -> assertThat(d.detail())
        .endsWith("completed, its report stored at pvc/gpu-evidence:" + NODE + "/" + name + ".log.gz"));
    assertThat(h.decisions(Reason.EVIDENCE_NOT_STORED)).isEmpty();
  }

  @Test
  void aClaimThatDoesNotExistLeavesThePodPendingAndTheRebootGoesOnAtTheTimeout() {
    h = start(", store: {pvc: missing-claim}", URI.create("http://unused"));
    h.fire(Alerts.xid(NODE, "79"));
    h.lookUntil(NODE, Stage.DRAINED, 4);
    String name = h.jobs("collect").get(0).getMetadata().getName();
    await().atMost(Duration.ofSeconds(30)).until(() -> h.client.pods().inNamespace("gpu-remediator")
        .withLabel("job-name", name).list().getItems().stream().anyMatch(p -> "Pending".equals(p.getStatus().getPhase())));
    h.look(NODE);
    assertThat(h.jobs("reboot")).isEmpty();
    h.clock.advance(Duration.ofMinutes(11));
    h.lookUntil(NODE, Stage.REPAIRING, 2);
    assertThat(h.decisions(Reason.EVIDENCE_NOT_STORED)).singleElement().satisfies(d -> assertThat(d.detail())
        .contains("did not finish within 10m").contains("its report was not stored at pvc/missing-claim:" + NODE + "/"
            + name + ".log.gz: the Job did not complete, so it wrote none"));
  }

  @Test
  void theOldShippedCommandFindsNoBugReportScriptInTheContainer() {
    h = start(", command: [sh, -c, \"nvidia-bug-report.sh --safe-mode --output-file /tmp/nvidia-bug-report.log"
        + " >/dev/null && base64 /tmp/nvidia-bug-report.log.gz\"]", URI.create("http://unused"));
    gpuOperatorNode();
    h.fire(Alerts.xid(NODE, "79"));
    for (int i = 0; i < 3 && h.jobs("collect").isEmpty(); i++) {
      h.look(NODE);
    }
    Job job = h.jobs("collect").get(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> !conditions(job).isEmpty());
    assertThat(conditions(job)).containsExactly("Failed");
    assertThat(kubelet.log(job.getMetadata().getName())).contains("nvidia-bug-report.sh: not found");
  }
}
