package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ProviderId;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.model.AutoScalingInstanceDetails;

/**
 * {@link InstanceHealth} through EC2 Auto Scaling: {@code DescribeAutoScalingInstances} first (an instance in no
 * group cannot be replaced this way; one already Unhealthy is not marked again), then {@code SetInstanceHealth
 * (HealthStatus=Unhealthy, ShouldRespectGracePeriod=true)}. The SDK does not retry: the loop retries with its own
 * backoff, and looks the instance up again first, so an answer lost after the call was applied is not applied twice.
 * The IAM policy needs exactly {@code autoscaling:DescribeAutoScalingInstances} and {@code autoscaling:SetInstanceHealth}.
 */
public final class AutoScalingInstanceHealth implements InstanceHealth, AutoCloseable {
  private static final String TARGET = "aws_autoscaling";

  private final AutoScalingClient client;
  private final OutboundListener listener;

  /** A client for this region (and endpoint, for tests), with the SDK's default credentials chain. */
  public static AutoScalingInstanceHealth create(String region, Optional<URI> endpoint, OutboundListener listener) {
    return create(region, endpoint, DefaultCredentialsProvider.builder().build(), listener);
  }

  /** A client with these credentials. */
  public static AutoScalingInstanceHealth create(String region, Optional<URI> endpoint, AwsCredentialsProvider credentials,
      OutboundListener listener) {
    return new AutoScalingInstanceHealth(AwsCalls.build(AutoScalingClient.builder(), region, endpoint, credentials), listener);
  }

  private AutoScalingInstanceHealth(AutoScalingClient client, OutboundListener listener) {
    this.client = client;
    this.listener = listener;
  }

  @Override
  public Marked markUnhealthy(ProviderId.Aws instance) throws OutboundException {
    String id = instance.instanceId();
    List<AutoScalingInstanceDetails> found = call(() -> client.describeAutoScalingInstances(r -> r.instanceIds(id))
        .autoScalingInstances());
    if (found.isEmpty()) {
      throw OutboundException.refused("instance " + id + " is in no Auto Scaling group: it cannot be replaced by marking"
          + " it unhealthy");
    }
    AutoScalingInstanceDetails details = found.get(0);
    if ("UNHEALTHY".equals(details.healthStatus().toUpperCase(Locale.ROOT))) {
      return Marked.ALREADY_UNHEALTHY;
    }
    call(() -> client.setInstanceHealth(r -> r.instanceId(id).healthStatus("Unhealthy").shouldRespectGracePeriod(true)));
    return Marked.MARKED;
  }

  /** No answer is retriable here: the instance is looked up again before it is marked again. */
  private <T> T call(Supplier<T> request) throws OutboundException {
    try {
      return AwsCalls.call(listener, TARGET, "Auto Scaling", request);
    } catch (OutboundException e) {
      if (e.maybeApplied()) {
        throw OutboundException.transientFailure(e.getMessage());
      }
      throw e;
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
