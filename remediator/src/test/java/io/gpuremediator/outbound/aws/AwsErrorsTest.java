package io.gpuremediator.outbound.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.testing.AutoScalingStub;
import io.gpuremediator.testing.AwsQueryStub.Answer;
import io.gpuremediator.testing.Ec2Stub;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.internal.AwsErrorCode;

/**
 * AWS's error answers read as the AWS SDKs read them: throttling, a clock the service disagrees with (EC2's
 * RequestExpired) and the service's own failures are asked again; Auto Scaling's grace-period ValidationError (its
 * words recorded from a real answer, tests/real/aws) is waited out; the rest are refusals.
 */
class AwsErrorsTest {
  private static final StaticCredentialsProvider KEYS = StaticCredentialsProvider.create(AwsBasicCredentials.create(
      "AKIDEXAMPLE", "secret"));
  private static final ProviderId.Aws INSTANCE = (ProviderId.Aws) ProviderId.parse("aws:///us-west-2a/i-0123456789abcdef0");

  @Test
  void theCodesAreTheSdksOwn() {
    assertThat(AwsCalls.THROTTLING).containsAll(AwsErrorCode.THROTTLING_ERROR_CODES);
    assertThat(AwsCalls.TRANSIENT).containsAll(AwsErrorCode.RETRYABLE_ERROR_CODES);
    assertThat(AwsCalls.CLOCK_SKEW).isEqualTo(AwsErrorCode.DEFINITE_CLOCK_SKEW_ERROR_CODES);
    assertThat(AwsErrorCode.POSSIBLE_CLOCK_SKEW_ERROR_CODES).as("bad credentials as often as a clock: refused")
        .allSatisfy(code -> assertThat(AwsCalls.classified(code, 403, false, code).retriable()).isFalse());
    assertThat(AwsCalls.classified("UnauthorizedOperation", 403, false, "").retriable()).isFalse();
    assertThat(AwsCalls.classified("Whatever", 503, false, "").retriable()).as("any 5xx").isTrue();
  }

  @Test
  void anExpiredRequestIsAskedAgainNotRefusedForGood() throws Exception {
    try (Ec2Stub ec2 = new Ec2Stub();
        Ec2InstanceReboots reboots = Ec2InstanceReboots.create("us-west-2", Optional.of(ec2.endpoint()), KEYS,
            OutboundListener.NONE)) {
      ec2.instance(INSTANCE.instanceId());
      ec2.next(Answer.REQUEST_EXPIRED);
      OutboundException e = catchThrowableOfType(() -> reboots.reboot(INSTANCE), OutboundException.class);
      assertThat(e.retriable()).isTrue();
      assertThat(e.maybeApplied()).isFalse();
      assertThat(e.getMessage()).contains("RequestExpired");
      reboots.reboot(INSTANCE);
      assertThat(ec2.rebooted()).containsExactly(INSTANCE.instanceId());
    }
  }

  @Test
  void anInstanceInsideItsGracePeriodIsMarkedOnceTheGracePeriodHasPassed() throws Exception {
    try (AutoScalingStub groups = new AutoScalingStub();
        AutoScalingInstanceHealth health = AutoScalingInstanceHealth.create("us-west-2", Optional.of(groups.endpoint()), KEYS,
            OutboundListener.NONE)) {
      groups.instance(INSTANCE.instanceId(), "gpu-nodes");
      groups.next(Answer.GRACE_PERIOD);
      OutboundException e = catchThrowableOfType(() -> health.markUnhealthy(INSTANCE), OutboundException.class);
      assertThat(e.retriable()).isTrue();
      assertThat(e.notBefore()).as("1500 s of grace, the instance 986 s old").contains(Duration.ofSeconds(514));
      assertThat(groups.applied()).isEmpty();
      health.markUnhealthy(INSTANCE);
      assertThat(groups.applied()).containsExactly(INSTANCE.instanceId());
    }
  }
}
