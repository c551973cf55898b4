package io.gpuremediator.http;

import io.gpuremediator.sweep.SweepStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The sweeps as their last look saw them, under {@code sweeps} of GET /api/v1/fleet (where {@code sweeps} are
 * configured): name, playbook, max_concurrent, the Jobs under way (node, job, since), how many idle nodes are due, and
 * what stopped more from starting ({@code blocked_by}, a reason code and its detail; empty when nothing did).
 */
final class SweepsJson {
  private SweepsJson() {}

  static JsonObject with(JsonObject fleet, List<SweepStatus> sweeps) {
    if (sweeps.isEmpty()) {
      return fleet;
    }
    JsonArray out = new JsonArray();
    for (SweepStatus s : sweeps) {
      JsonArray running = new JsonArray();
      s.running().forEach(r -> running.add(new JsonObject().put("node", r.node()).put("job", r.job())
          .put("since", r.since().toString())));
      out.add(new JsonObject().put("name", s.name()).put("playbook", s.playbook()).put("max_concurrent", s.maxConcurrent())
          .put("running", running).put("due", s.due()).put("blocked_by", s.blockedBy()));
    }
    return fleet.put("sweeps", out);
  }
}
