package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ScheduledEvent;
import io.gpuremediator.outbound.ScheduledEvents;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceStatusResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.InstanceStatusEvent;

/**
 * {@link ScheduledEvents} through EC2 {@code DescribeInstanceStatus}, filtered by event code (the region's instances
 * with a scheduled event, not every instance: one call a look where few have one), a page of {@value #PAGE} at a time;
 * {@code IncludeAllInstances}, so a stopped instance's event is described too. The IAM policy needs exactly
 * {@code ec2:DescribeInstanceStatus}.
 */
public final class Ec2ScheduledEvents implements ScheduledEvents, AutoCloseable {
  private static final String TARGET = "aws_ec2";
  /** The most instances a page holds (the API's MaxResults). */
  static final int PAGE = 1000;
  /** The most pages one look reads: 100,000 instances with events. */
  private static final int MAX_PAGES = 100;

  private final Ec2Client client;
  private final OutboundListener listener;

  /** A client for this region (and endpoint, for tests), with the SDK's default credentials chain. */
  public static Ec2ScheduledEvents create(String region, Optional<URI> endpoint, OutboundListener listener) {
    return create(region, endpoint, DefaultCredentialsProvider.builder().build(), listener);
  }

  /** A client with these credentials. */
  public static Ec2ScheduledEvents create(String region, Optional<URI> endpoint, AwsCredentialsProvider credentials,
      OutboundListener listener) {
    return new Ec2ScheduledEvents(AwsCalls.build(Ec2Client.builder(), region, endpoint, credentials), listener);
  }

  private Ec2ScheduledEvents(Ec2Client client, OutboundListener listener) {
    this.client = client;
    this.listener = listener;
  }

  @Override
  public List<ScheduledEvent> scheduled() throws OutboundException {
    List<ScheduledEvent> out = new ArrayList<>();
    String token = null;
    for (int page = 0; page < MAX_PAGES; page++) {
      String next = token;
      DescribeInstanceStatusResponse r = AwsCalls.call(listener, TARGET, "EC2", () -> client.describeInstanceStatus(b -> b
          .filters(Filter.builder().name("event.code").values(ScheduledEvent.CODES).build()).includeAllInstances(true)
          .maxResults(PAGE).nextToken(next)));
      for (InstanceStatus s : r.instanceStatuses()) {
        for (InstanceStatusEvent e : s.events()) {
          if (e.codeAsString() != null && e.notBefore() != null) {
            out.add(new ScheduledEvent(s.instanceId(), e.instanceEventId(), e.codeAsString(), e.description(), e.notBefore(),
                Optional.ofNullable(e.notAfter())));
          }
        }
      }
      token = r.nextToken();
      if (token == null || token.isEmpty()) {
        return out;
      }
    }
    throw OutboundException.refused("EC2 described more than " + MAX_PAGES * PAGE + " instances with events: not read");
  }

  @Override
  public void close() {
    client.close();
  }
}
