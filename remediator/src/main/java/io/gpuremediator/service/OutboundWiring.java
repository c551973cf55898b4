package io.gpuremediator.service;

import io.gpuremediator.config.ConfiguredBmcs;
import io.gpuremediator.config.RemediatorConfig;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.outbound.BmcResets;
import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.InstanceReboots;
import io.gpuremediator.outbound.Notifier;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.outbound.ScheduledEvents;
import io.gpuremediator.outbound.Silences;
import io.gpuremediator.outbound.aws.AutoScalingInstanceHealth;
import io.gpuremediator.outbound.aws.Ec2InstanceReboots;
import io.gpuremediator.outbound.aws.Ec2ScheduledEvents;
import io.gpuremediator.outbound.aws.S3EvidenceUploads;
import io.gpuremediator.outbound.http.AlertmanagerSilences;
import io.gpuremediator.outbound.http.RedfishResets;
import io.gpuremediator.outbound.http.WebhookNotifier;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Alertmanager, the notification receivers and the cloud, as configured; what is not configured refuses. */
final class OutboundWiring implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(OutboundWiring.class);
  /** Notifications held at most (queued, in flight, waiting to retry); more are dropped and counted. */
  private static final int NOTIFY_QUEUE = 1000;

  private final OutboundPorts ports;
  private final List<AutoCloseable> clients;
  private final Optional<ScheduledEvents> scheduledEvents;

  private OutboundWiring(OutboundPorts ports, List<AutoCloseable> clients, Optional<ScheduledEvents> scheduledEvents) {
    this.scheduledEvents = scheduledEvents;
    this.ports = ports;
    this.clients = clients;
  }

  /** Builds the ports; fails with a one-line reason when a secret cannot be read or a receiver's URL is not http(s). */
  static OutboundWiring create(RemediatorConfig config, Vertx vertx, RemediatorMetrics metrics, Clock clock) throws StartupException {
    OutboundListener counted = new OutboundListener() {
      @Override
      public void request(String target, String outcome) {
        metrics.outboundRequest(target, outcome);
      }

      @Override
      public void dropped(String receiver) {
        metrics.notificationDropped(receiver);
      }
    };
    Silences silences = Silences.NOT_CONFIGURED;
    if (config.alertmanager().isPresent()) {
      RemediatorConfig.Alertmanager am = config.alertmanager().get();
      Optional<String> amToken = am.bearerTokenFile().isEmpty() ? Optional.empty()
          : Optional.of(SecretFiles.token(am.bearerTokenFile().get(), "alertmanager.bearer_token_file"));
      silences = new AlertmanagerSilences(vertx, am.url(), amToken, counted);
    }
    Map<String, WebhookNotifier.Target> targets = new HashMap<>();
    for (RemediatorConfig.Receiver r : config.receivers()) {
      String url = SecretFiles.secret(r.urlFile(), "notify receiver " + r.name() + " url_file");
      try {
        URI u = new URI(url);
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
          throw new URISyntaxException(url, "not an http(s) URL");
        }
        targets.put(r.name(), new WebhookNotifier.Target(r.name(), r.type() == RemediatorConfig.ReceiverType.SLACK, u));
      } catch (URISyntaxException e) {
        throw new StartupException("the URL in notify receiver " + r.name() + " url_file " + r.urlFile()
            + " is not an http(s) URL");
      }
    }
    Notifier notifier = targets.isEmpty() ? Notifier.NONE
        : new WebhookNotifier(vertx, targets, NOTIFY_QUEUE, counted, clock);
    List<AutoCloseable> clients = new ArrayList<>();
    InstanceHealth instances = InstanceHealth.NOT_CONFIGURED;
    InstanceReboots reboots = InstanceReboots.NOT_CONFIGURED;
    if (config.aws().isPresent()) {
      RemediatorConfig.Aws aws = config.aws().get();
      AutoScalingInstanceHealth groups = AutoScalingInstanceHealth.create(aws.region(), aws.endpoint(), counted);
      Ec2InstanceReboots ec2 = Ec2InstanceReboots.create(aws.region(), aws.endpoint(), counted);
      clients.add(groups);
      clients.add(ec2);
      instances = groups;
      reboots = ec2;
    }
    Optional<ScheduledEvents> scheduled = config.aws().filter(a -> a.scheduledEvents().isPresent()).map(a -> {
      Ec2ScheduledEvents events = Ec2ScheduledEvents.create(a.region(), a.endpoint(), counted);
      clients.add(events);
      return events;
    });
    BmcResets bmcs = config.redfish().map(r -> (BmcResets) RedfishResets.create(vertx, new ConfiguredBmcs(r),
        r.credentialsFile(), r.caFile(), r.insecureHttp(), counted)).orElse(BmcResets.NOT_CONFIGURED);
    config.redfish().filter(RemediatorConfig.Redfish::insecureHttp).ifPresent(r -> LOGGER.warn("cloud.redfish allows"
        + " plain-http BMCs (insecure_http: true): their credentials travel in clear"));
    S3EvidenceUploads evidence = S3EvidenceUploads.withDefaultCredentials(
        config.aws().map(RemediatorConfig.Aws::region).orElse("us-east-1"), counted);
    clients.add(evidence);
    return new OutboundWiring(new OutboundPorts(silences, notifier, instances, reboots, bmcs, evidence), clients, scheduled);
  }

  OutboundPorts ports() {
    return ports;
  }

  /** EC2's scheduled events, where {@code cloud.aws.scheduled_events} asks for them. */
  Optional<ScheduledEvents> scheduledEvents() {
    return scheduledEvents;
  }

  @Override
  public void close() {
    for (AutoCloseable c : clients) {
      try {
        c.close();
      } catch (Exception e) {
        // closing at shutdown: nothing more to do
      }
    }
  }
}
