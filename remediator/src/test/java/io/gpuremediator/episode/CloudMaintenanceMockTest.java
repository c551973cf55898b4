package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.maintenance.MaintenanceWatch;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.ScheduledEvent;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.aws.Ec2ScheduledEvents;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.AwsQueryStub.Answer;
import io.gpuremediator.testing.Ec2Stub;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * EC2's scheduled events through the SDK against a local endpoint, the watch firing CloudMaintenanceScheduled to the
 * engine, and the shipped playbook (deploy/playbooks/78-cloud-maintenance.yaml) run by the loop: a reboot scheduled
 * 90 minutes ahead (inside the 2h lead) drains its node before it may start, and the node returns once EC2 says the
 * event completed; a cancelled event, one whose window is past and one days away touch nothing.
 */
class CloudMaintenanceMockTest {
  private static final String REBOOTED = "gpu-node-0";
  private static final String CANCELLED = "gpu-node-1";
  private static final String PAST = "gpu-node-2";
  private static final String LATER = "gpu-node-3";
  private static final Duration LEAD = Duration.ofHours(2);

  @TempDir Path dir;
  private Ec2Stub ec2;
  private Ec2ScheduledEvents events;
  private ClosedLoopHarness h;

  @BeforeEach
  void start() throws Exception {
    ec2 = new Ec2Stub();
    events = Ec2ScheduledEvents.create("us-west-2", Optional.of(ec2.endpoint()),
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")), OutboundListener.NONE);
    h = ClosedLoopHarness.shipped(dir, new OutboundPorts(Silences.NOT_CONFIGURED, Notifier.NONE, InstanceHealth.NOT_CONFIGURED,
        InstanceReboots.NOT_CONFIGURED, BmcResets.NOT_CONFIGURED));
    for (int i = 0; i < 4; i++) {
      h.providerId("gpu-node-" + i, "aws:///us-west-2a/" + instance(i));
    }
  }

  @AfterEach
  void stop() throws Exception {
    h.close();
    events.close();
    ec2.close();
  }

  @Test
  void aRebootInsideTheLeadDrainsItsNodeBeforeItMayStartAndTheNodeReturnsOnceEc2SaysItCompleted() {
    Instant now = h.clock.instant();
    Instant notBefore = now.plus(Duration.ofMinutes(90));
    ec2.events(instance(0), reboot(0, "The instance is scheduled for a reboot", notBefore));
    ec2.events(instance(1), reboot(1, "[Canceled] The instance is scheduled for a reboot", notBefore));
    ec2.events(instance(2), new ScheduledEvent(instance(2), "instance-event-2", "instance-reboot", "The instance is scheduled"
        + " for a reboot", now.minus(Duration.ofHours(3)), Optional.of(now.minus(Duration.ofHours(1)))));
    ec2.events(instance(3), reboot(3, "The instance is running on degraded hardware", now.plus(Duration.ofDays(5))));
    h.pod("ml-training", "llm-pretrain-worker-0", REBOOTED, Map.of("app", "llm-pretrain"));
    MaintenanceWatch watch = watch();

    List<Alert> fired = watch.look();
    watch.look(); // the next look fires it again: the same episode, not a second

    assertThat(fired).singleElement().satisfies(a -> assertThat(a.labels()).containsEntry("node", REBOOTED)
        .containsEntry("event_code", "system-reboot").containsEntry("event_id", "instance-event-0")
        .containsEntry("not_before", notBefore.toString()));
    assertThat(watch.upcoming()).as("what GET /api/v1/fleet shows under maintenance")
        .extracting(u -> u.node() + " " + u.event().code() + " " + u.due())
        .containsExactly(REBOOTED + " system-reboot true", LATER + " system-reboot false");
    h.lookUntil(REBOOTED, Stage.DRAINED, 5);
    assertThat(h.client.pods().inNamespace("ml-training").withName("llm-pretrain-worker-0").get()).as("evicted").isNull();
    assertThat(h.decisions(Reason.DRAINED)).singleElement().satisfies(d -> assertThat(d.time()).isBefore(notBefore));
    assertThat(h.node(REBOOTED).unschedulable()).isTrue();
    for (String untouched : List.of(CANCELLED, PAST, LATER)) {
      assertThat(h.node(untouched).ledger().episodes()).as(untouched).isEmpty();
      assertThat(h.node(untouched).unschedulable()).as(untouched).isFalse();
    }

    ec2.events(instance(0), reboot(0, "[Completed] The instance is scheduled for a reboot", notBefore));
    assertThat(restartedWithoutIdentities().look()).as("a restarted watch that cannot read providerIDs yet concludes nothing")
        .isEmpty();
    ec2.events(instance(0), reboot(0, "The instance is scheduled for a reboot", notBefore));

    ec2.next(Answer.THROTTLED);
    h.clock.advance(Duration.ofHours(2));
    assertThat(watch.look()).as("a read that failed concludes nothing").isEmpty();
    assertThat(h.episode(REBOOTED)).isNotNull();

    ec2.events(instance(0), reboot(0, "[Completed] The instance is scheduled for a reboot", notBefore));
    List<Alert> resolved = watch.look();
    assertThat(resolved).singleElement().satisfies(a -> assertThat(a.isFiring()).isFalse());
    for (int i = 0; i < 5 && h.episode(REBOOTED) != null; i++) {
      h.look(REBOOTED);
    }
    assertThat(h.episode(REBOOTED)).as("the episode is over").isNull();
    assertThat(h.node(REBOOTED).unschedulable()).isFalse();
    assertThat(h.node(REBOOTED).taints()).noneMatch(t -> t.key().equals("gpu-remediator.io/unhealthy"));
  }

  private MaintenanceWatch watch() {
    return new MaintenanceWatch(events, h.cluster, () -> h.cluster.nodes(), h.engine::handle, LEAD, h.clock);
  }

  /** Behind a shared Alertmanager ({@code accept_alerts}), the service's own maintenance alerts are still its own. */
  @Test
  void acceptAlertsDoesNotRefuseTheServicesOwnMaintenanceAlerts() {
    ec2.events(instance(0), reboot(0, "The instance is scheduled for a reboot", h.clock.instant().plus(Duration.ofMinutes(30))));
    RemediationEngine sharedAlertmanager = EngineBuilder.of(() -> h.playbooks, h.cluster,
        new NodeResolver(List.of("node"), LabelSelector.parse("nvidia.com/gpu.present=true").value(), h.cluster), h.clock)
        .accept(List.of(Matcher.parse("cluster=\"prod-a\"").value())).loop(h.loop).build();
    List<Alert> fired = new MaintenanceWatch(events, h.cluster, () -> h.cluster.nodes(), m -> { }, LEAD, h.clock).look();

    assertThat(sharedAlertmanager.handle(new WebhookMessage("", AlertStatus.FIRING, "", 0, Map.of(), fired)).decisions())
        .singleElement().satisfies(d -> assertThat(d.reason()).isEqualTo(Reason.FOREIGN_ALERT));
    assertThat(sharedAlertmanager.handleOwn(new WebhookMessage("", AlertStatus.FIRING, "", 0, Map.of(), fired)).decisions())
        .singleElement().satisfies(d -> assertThat(d.reason()).isEqualTo(Reason.ACTIONS_APPLIED));
  }

  /** A new watch (as after a restart) whose reads of providerIDs all fail. */
  private MaintenanceWatch restartedWithoutIdentities() {
    Cluster failing = (Cluster) Proxy.newProxyInstance(Cluster.class.getClassLoader(), new Class<?>[] {Cluster.class},
        (proxy, method, args) -> {
          if (method.getName().equals("identity")) {
            throw new ClusterException("the API server is not answering", true, null);
          }
          return method.invoke(h.cluster, args);
        });
    return new MaintenanceWatch(events, failing, () -> h.cluster.nodes(), h.engine::handle, LEAD, h.clock);
  }

  private static ScheduledEvent reboot(int i, String description, Instant notBefore) {
    return new ScheduledEvent(instance(i), "instance-event-" + i, "system-reboot", description, notBefore,
        Optional.of(notBefore.plus(Duration.ofHours(2))));
  }

  private static String instance(int i) {
    return "i-0123456789abcdef" + i;
  }
}
