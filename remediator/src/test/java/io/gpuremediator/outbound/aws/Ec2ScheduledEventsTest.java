package io.gpuremediator.outbound.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.OutboundListener;
import io.gpuremediator.outbound.ScheduledEvent;
import io.gpuremediator.testing.AwsQueryStub.Answer;
import io.gpuremediator.testing.Ec2Stub;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** EC2 DescribeInstanceStatus through the SDK against a local endpoint speaking the query protocol. */
class Ec2ScheduledEventsTest {
  private static final Instant NOT_BEFORE = Instant.parse("2026-12-06T20:00:00Z");
  private static final Instant NOT_AFTER = Instant.parse("2026-12-06T22:00:00Z");
  private Ec2Stub ec2;
  private Ec2ScheduledEvents client;

  @BeforeEach
  void start() throws Exception {
    ec2 = new Ec2Stub();
    client = Ec2ScheduledEvents.create("us-west-2", Optional.of(ec2.endpoint()),
        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEXAMPLE", "secret")), OutboundListener.NONE);
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    ec2.close();
  }

  /** tests/real/aws: the API reference's sample, its placeholder times given values in its own two formats. */
  @Test
  void theApiReferencesSampleResponseReadsAsTheEventsItShows() throws Exception {
    String sample = Files.readString(Path.of("../tests/real/aws/ec2-describe-instance-status-response.xml"))
        .replaceFirst("<notBefore>YYYY-MM-DDTHH:MM:SS\\+0000", "<notBefore>2026-12-06T20:00:00+0000")
        .replaceFirst("<notAfter>YYYY-MM-DDTHH:MM:SS\\+0000", "<notAfter>2026-12-06T22:00:00+0000")
        .replace("YYYY-MM-DDTHH:MM:SS+0000", "2026-12-07T03:00:00.000Z").replace("YYYY-MM-DDTHH:MM:SS.000Z", "2026-12-01T10:00:00.000Z");
    ec2.describeAnswers(sample);

    assertThat(client.scheduled()).containsExactly(
        new ScheduledEvent("i-1a2b3c4d", "", "instance-retirement", "The instance is running on degraded hardware", NOT_BEFORE,
            Optional.of(NOT_AFTER)),
        new ScheduledEvent("i-2a2b3c4d", "", "instance-reboot", "The instance is scheduled for a reboot",
            Instant.parse("2026-12-07T03:00:00Z"), Optional.of(Instant.parse("2026-12-07T03:00:00Z"))));
    assertThat(ec2.calls()).singleElement().satisfies(c -> {
      assertThat(c.params()).containsEntry("Filter.1.Name", "event.code").containsEntry("IncludeAllInstances", "true")
          .containsEntry("MaxResults", "1000");
      assertThat(List.of(c.params().get("Filter.1.Value.1"), c.params().get("Filter.1.Value.5")))
          .containsExactly("instance-reboot", "instance-stop");
    });
  }

  /** Each code of the API reference, with the descriptions EC2's user guide shows (system-maintenance's written here). */
  @Test
  void everyEventCodeIsReadWithItsIdAndAnEventEc2SaysIsOverIsReadAsOver() throws OutboundException {
    ec2.events("i-0000000000000000a", event("i-0000000000000000a", "instance-event-0d59937288b749b32", "system-reboot",
        "The instance is scheduled for a reboot"), event("i-0000000000000000a", "instance-event-0e439355b779n26a",
        "instance-stop", "The instance is running on degraded hardware"));
    ec2.events("i-0000000000000000b", event("i-0000000000000000b", "instance-event-0abcdef1234567890", "system-maintenance",
        "Scheduled system maintenance"), event("i-0000000000000000b", "instance-event-0abcdef1234567891", "instance-reboot",
        "[Canceled] The instance is scheduled for a reboot"));
    ec2.events("i-0000000000000000c", event("i-0000000000000000c", "instance-event-0abcdef1234567892", "instance-retirement",
        "[Completed] The instance is running on degraded hardware"));

    List<ScheduledEvent> read = client.scheduled();

    assertThat(read).extracting(ScheduledEvent::code).containsExactlyInAnyOrderElementsOf(ScheduledEvent.CODES);
    assertThat(read).filteredOn(ScheduledEvent::over).extracting(ScheduledEvent::eventId)
        .containsExactlyInAnyOrder("instance-event-0abcdef1234567891", "instance-event-0abcdef1234567892");
    assertThat(read).filteredOn(e -> e.code().equals("system-reboot")).singleElement()
        .satisfies(e -> assertThat(e.pending(NOT_BEFORE.minusSeconds(3600))).isTrue())
        .satisfies(e -> assertThat(e.pending(NOT_AFTER.plusSeconds(1))).as("its window past").isFalse());
  }

  @Test
  void aThrottledReadIsAnErrorNotAnEmptyAnswer() {
    ec2.next(Answer.THROTTLED);

    assertThatThrownBy(client::scheduled).isInstanceOf(OutboundException.class).hasMessageContaining("RequestLimitExceeded");
  }

  private static ScheduledEvent event(String instance, String id, String code, String description) {
    return new ScheduledEvent(instance, id, code, description, NOT_BEFORE, Optional.of(NOT_AFTER));
  }
}
