package io.gpuremediator.outbound;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A cloud's scheduled event for one instance, as EC2 {@code DescribeInstanceStatus} describes it
 * ({@code InstanceStatusEvent}: its id, code, description, notBefore and notAfter). EC2 keeps describing an event for up
 * to a week after it ended, its description then starting with {@code [Completed]}; a cancelled one with
 * {@code [Canceled]}.
 *
 * @param code one of {@link #CODES}
 */
public record ScheduledEvent(String instanceId, String eventId, String code, String description, Instant notBefore,
    Optional<Instant> notAfter) {
  /** The event codes of the EC2 API reference (InstanceStatusEvent). */
  public static final List<String> CODES = List.of("instance-reboot", "system-reboot", "system-maintenance",
      "instance-retirement", "instance-stop");

  /** Validates presence. */
  public ScheduledEvent {
    Objects.requireNonNull(instanceId, "instanceId");
    eventId = eventId == null ? "" : eventId;
    Objects.requireNonNull(code, "code");
    description = description == null ? "" : description;
    Objects.requireNonNull(notBefore, "notBefore");
    Objects.requireNonNull(notAfter, "notAfter");
  }

  /** Whether EC2 says it is over: completed or cancelled. */
  public boolean over() {
    return description.startsWith("[Completed]") || description.startsWith("[Canceled]");
  }

  /** Whether it is still to come or under way at {@code now}: not over, and its window not past. */
  public boolean pending(Instant now) {
    return !over() && notAfter.orElse(notBefore).isAfter(now);
  }

  /** The id the event is known by: EC2's, or its instance, code and start where EC2 gave none. */
  public String key() {
    return eventId.isEmpty() ? instanceId + "/" + code + "/" + notBefore : eventId;
  }
}
