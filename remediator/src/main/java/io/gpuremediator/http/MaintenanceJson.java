package io.gpuremediator.http;

import io.gpuremediator.maintenance.MaintenanceWatch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Optional;

/**
 * The cloud's pending scheduled events of the selected nodes, under {@code maintenance} of GET /api/v1/fleet (where
 * {@code cloud.aws.scheduled_events} is set): node, instance, event code and id, its description, its window, and
 * whether CloudMaintenanceScheduled fired for it ({@code due}), the soonest first.
 */
final class MaintenanceJson {
  private MaintenanceJson() {}

  static JsonObject with(JsonObject fleet, Optional<List<MaintenanceWatch.Upcoming>> upcoming) {
    upcoming.ifPresent(list -> {
      JsonArray out = new JsonArray();
      for (MaintenanceWatch.Upcoming u : list) {
        out.add(new JsonObject().put("node", u.node()).put("instance", u.event().instanceId())
            .put("event_code", u.event().code()).put("event_id", u.event().key()).put("description", u.event().description())
            .put("not_before", u.event().notBefore().toString())
            .put("not_after", u.event().notAfter().map(Object::toString).orElse(null)).put("due", u.due()));
      }
      fleet.put("maintenance", out);
    });
    return fleet;
  }
}
