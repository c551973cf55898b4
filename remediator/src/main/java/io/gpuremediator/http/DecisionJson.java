package io.gpuremediator.http;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Decision;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The API's JSON form of a decision. */
final class DecisionJson {
  private DecisionJson() {}

  static JsonObject of(Decision d) {
    JsonArray actions = new JsonArray();
    for (ActionRecord a : d.actions()) {
      actions.add(new JsonObject().put("type", a.type()).put("outcome", a.outcome().code()).put("change", a.change()));
    }
    JsonObject o = new JsonObject()
        .put("time", d.time().toString())
        .put("fingerprint", d.fingerprint())
        .put("starts_at", d.startsAt().toString())
        .put("alertname", d.alertname())
        .put("status", d.status())
        .put("node", d.node())
        .put("playbook", d.playbook())
        .put("outcome", d.outcome().code())
        .put("reason", d.reason().code())
        .put("detail", d.detail())
        .put("actions", actions);
    d.wouldBeRefused().ifPresent(r -> o.put("would_be_refused",
        new JsonObject().put("reason", r.reason().code()).put("detail", r.detail())));
    return o;
  }
}
