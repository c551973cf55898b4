package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.maintenance.MaintenanceWatch;
import io.gpuremediator.outbound.ScheduledEvent;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MaintenanceJsonTest {

  @Test
  void theFleetShowsEachPendingEventWithItsWindowAndWhetherItFiredOnlyWhereScheduledEventsAreRead() {
    ScheduledEvent reboot = new ScheduledEvent("i-0123456789abcdef0", "instance-event-0d59937288b749b32", "system-reboot",
        "The instance is scheduled for a reboot", Instant.parse("2026-12-04T20:00:00Z"),
        Optional.of(Instant.parse("2026-12-04T22:00:00Z")));

    JsonObject fleet = MaintenanceJson.with(new JsonObject(), Optional.of(List.of(new MaintenanceWatch.Upcoming("gpu-node-0",
        reboot, true))));

    assertThat(fleet.getJsonArray("maintenance").getJsonObject(0).getMap()).containsEntry("node", "gpu-node-0")
        .containsEntry("instance", "i-0123456789abcdef0").containsEntry("event_code", "system-reboot")
        .containsEntry("event_id", "instance-event-0d59937288b749b32").containsEntry("not_before", "2026-12-04T20:00:00Z")
        .containsEntry("not_after", "2026-12-04T22:00:00Z").containsEntry("due", true);
    assertThat(MaintenanceJson.with(new JsonObject(), Optional.empty()).containsKey("maintenance")).isFalse();
  }
}
