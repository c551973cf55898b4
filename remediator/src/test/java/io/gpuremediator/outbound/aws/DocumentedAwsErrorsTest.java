package io.gpuremediator.outbound.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.testing.AutoScalingStub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Every error the Auto Scaling API Reference documents as common to its actions (tests/real/aws, its names, messages
 * and HTTP status codes as published), answered to SetInstanceHealth in the query protocol's error body and read by the
 * SDK's own client: the server's failures, throttling and an expired request are asked again, as the AWS SDKs retry
 * them; a credential, permission or input error is a refusal, and the instance is never marked.
 */
class DocumentedAwsErrorsTest {
  private static final StaticCredentialsProvider KEYS = StaticCredentialsProvider.create(AwsBasicCredentials.create(
      "AKIDEXAMPLE", "secret"));
  private static final ProviderId.Aws INSTANCE = (ProviderId.Aws) ProviderId.parse("aws:///us-west-2a/i-0123456789abcdef0");
  private static final Set<String> ASKED_AGAIN = Set.of("InternalFailure", "ServiceUnavailable", "ThrottlingException",
      "RequestExpired");

  private record Documented(String code, String message, int status) {}

  @Test
  void eachDocumentedCommonErrorIsAskedAgainOrRefusedAsTheSdksTreatIt() throws Exception {
    List<Documented> errors = documented();
    assertThat(errors).extracting(Documented::code).hasSize(11).containsAll(ASKED_AGAIN);
    try (AutoScalingStub groups = new AutoScalingStub();
        AutoScalingInstanceHealth health = AutoScalingInstanceHealth.create("us-west-2", Optional.of(groups.endpoint()),
            KEYS, OutboundListener.NONE)) {
      groups.instance(INSTANCE.instanceId(), "gpu-nodes");
      Map<String, Boolean> askedAgain = new TreeMap<>();
      for (Documented error : errors) {
        groups.nextError(error.status(), error.code(), error.message());
        OutboundException e = catchThrowableOfType(() -> health.markUnhealthy(INSTANCE), OutboundException.class);
        assertThat(e).as(error.code()).isNotNull();
        assertThat(e.getMessage()).as("the message names the code").contains(error.code());
        assertThat(e.maybeApplied()).as(error.code()).isFalse();
        askedAgain.put(error.code(), e.retriable());
      }
      assertThat(askedAgain).allSatisfy((code, again) -> assertThat(again).as(code).isEqualTo(ASKED_AGAIN.contains(code)));
      assertThat(groups.applied()).isEmpty();
    }
  }

  /** The page's entries: a name, its description, "HTTP Status Code: N". */
  private static List<Documented> documented() throws Exception {
    String page = Files.readString(Path.of("../tests/real/aws/autoscaling-common-errors.txt"));
    Matcher m = Pattern.compile("\\n\\n(\\w+)\\n\\n([^\\n]+)\\n\\nHTTP Status Code: (\\d{3})").matcher(page);
    List<Documented> out = new ArrayList<>();
    while (m.find()) {
      out.add(new Documented(m.group(1), m.group(2), Integer.parseInt(m.group(3))));
    }
    return out;
  }
}
