package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.InstanceHealth;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ProviderId;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.autoscaling.AutoScalingClient;
import software.amazon.awssdk.services.autoscaling.AutoScalingClientBuilder;
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
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
  /** Error codes that say: later. */
  private static final Set<String> BUSY = Set.of("Throttling", "ThrottlingException", "RequestLimitExceeded",
      "ResourceContention", "ServiceUnavailable", "InternalFailure");

  private final AutoScalingClient client;
  private final OutboundListener listener;

  /** A client for this region (and endpoint, for tests), with the SDK's default credentials chain. */
  public static AutoScalingInstanceHealth create(String region, Optional<URI> endpoint, OutboundListener listener) {
    return create(region, endpoint, DefaultCredentialsProvider.builder().build(), listener);
  }

  /** A client with these credentials. */
  public static AutoScalingInstanceHealth create(String region, Optional<URI> endpoint, AwsCredentialsProvider credentials,
      OutboundListener listener) {
    AutoScalingClientBuilder b = AutoScalingClient.builder()
        .region(Region.of(region))
        .credentialsProvider(credentials)
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5))
            .socketTimeout(Duration.ofSeconds(15)))
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT));
    endpoint.ifPresent(b::endpointOverride);
    return new AutoScalingInstanceHealth(b.build(), listener);
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

  private <T> T call(Supplier<T> request) throws OutboundException {
    try {
      T answer = request.get();
      listener.request(TARGET, "ok");
      return answer;
    } catch (AwsServiceException e) {
      String code = e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null ? "http_" + e.statusCode()
          : e.awsErrorDetails().errorCode();
      listener.request(TARGET, code);
      String message = "Auto Scaling answered " + e.statusCode() + " " + code
          + (e.awsErrorDetails() == null ? "" : ": " + e.awsErrorDetails().errorMessage());
      if (BUSY.contains(code) || e.isThrottlingException() || e.statusCode() >= 500) {
        throw OutboundException.transientFailure(message);
      }
      throw OutboundException.refused(message);
    } catch (SdkException e) {
      listener.request(TARGET, "error");
      throw OutboundException.transientFailure("Auto Scaling not reached: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
