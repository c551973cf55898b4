package io.gpuremediator.outbound.aws;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * How every AWS client of ours is built and called: the URL-connection HTTP client, the SDK's retries off (the loop
 * retries with its own backoff), a 20 s budget per call; and what an answer means for the loop: throttled, busy or 5xx
 * is retriable, another error is a refusal, and no answer after the request went out may have been applied.
 */
final class AwsCalls {
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(20);
  /**
   * Throttled: the AWS SDKs' own throttling codes (software.amazon.awssdk.awscore.internal.AwsErrorCode, which
   * {@code AwsCallsTest} holds this to), and the services' own words for busy.
   */
  static final Set<String> THROTTLING = Set.of("BandwidthLimitExceeded", "EC2ThrottledException",
      "ProvisionedThroughputExceededException", "RequestLimitExceeded", "RequestThrottled", "RequestThrottledException",
      "SlowDown", "ThrottledException", "Throttling", "ThrottlingException", "TooManyRequestsException",
      "TransactionInProgressException", "ResourceContention");
  /**
   * The request was signed with a clock the service does not agree with, or its credentials were being refreshed
   * (EC2's {@code RequestExpired}): the SDKs retry these once their clock is corrected. The codes that may also mean
   * bad credentials ({@code AuthFailure}, {@code SignatureDoesNotMatch}) stay refusals: nothing here can tell them apart.
   */
  static final Set<String> CLOCK_SKEW = Set.of("RequestExpired", "RequestInTheFuture", "RequestTimeTooSkewed");
  /** The service failed or timed out on its side: the SDKs' retryable codes, and the services' server errors. */
  static final Set<String> TRANSIENT = Set.of("InternalError", "PriorRequestNotComplete", "RequestTimeout",
      "RequestTimeoutException", "InternalFailure", "ServiceUnavailable", "Unavailable");
  /**
   * Auto Scaling's answer to SetInstanceHealth with ShouldRespectGracePeriod while the instance is younger than its
   * group's health-check grace period (tests/real/aws): asked again once the grace period has passed.
   */
  private static final Pattern GRACE_PERIOD = Pattern.compile(
      "The age of the instance \\((\\d+) seconds\\) is less than the configured grace period of (\\d+) seconds");

  private AwsCalls() {}

  /** Builds a client with the region, credentials, HTTP client, retries and timeout (and endpoint, for tests). */
  static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder, String region,
      Optional<URI> endpoint, AwsCredentialsProvider credentials) {
    builder.region(Region.of(region))
        .credentialsProvider(credentials)
        .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(5))
            .socketTimeout(Duration.ofSeconds(15)))
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallTimeout(CALL_TIMEOUT));
    endpoint.ifPresent(builder::endpointOverride);
    return builder.build();
  }

  /**
   * Calls once, counting the outcome under {@code target}.
   *
   * @param service how messages name the service ("Auto Scaling")
   */
  static <T> T call(OutboundListener listener, String target, String service, Supplier<T> request)
      throws OutboundException {
    try {
      T answer = request.get();
      listener.request(target, "ok");
      return answer;
    } catch (AwsServiceException e) {
      String code = e.awsErrorDetails() == null || e.awsErrorDetails().errorCode() == null ? "http_" + e.statusCode()
          : e.awsErrorDetails().errorCode();
      listener.request(target, code);
      String message = service + " answered " + e.statusCode() + " " + code
          + (e.awsErrorDetails() == null ? "" : ": " + e.awsErrorDetails().errorMessage());
      throw classified(code, e.statusCode(), e.isThrottlingException(), message);
    } catch (SdkException e) {
      if (notSent(e)) {
        listener.request(target, "error");
        throw OutboundException.transientFailure(service + " not reached: " + e.getMessage());
      }
      listener.request(target, "no_answer");
      throw OutboundException.unanswered(service + " sent no answer: " + e.getMessage());
    }
  }

  /**
   * What an AWS error answer means, as the AWS SDKs read it: throttled, a clock the service disagrees with, or a
   * failure on its side (any 5xx) is asked again later; a grace period is waited out; anything else is a refusal.
   */
  static OutboundException classified(String code, int status, boolean sdkSaysThrottling, String message) {
    if ("ValidationError".equals(code)) {
      Matcher grace = GRACE_PERIOD.matcher(message);
      if (grace.find()) {
        long left = Math.max(1, Long.parseLong(grace.group(2)) - Long.parseLong(grace.group(1)));
        return OutboundException.notYet(message + "; asked again once the grace period ends, in " + left + " s",
            Duration.ofSeconds(left));
      }
    }
    if (THROTTLING.contains(code) || CLOCK_SKEW.contains(code) || TRANSIENT.contains(code) || sdkSaysThrottling
        || status >= 500) {
      return OutboundException.transientFailure(message);
    }
    return OutboundException.refused(message);
  }

  /** Whether the failure surely came before the request reached the service (no connection was made). */
  private static boolean notSent(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException) {
        return true;
      }
    }
    return false;
  }
}
