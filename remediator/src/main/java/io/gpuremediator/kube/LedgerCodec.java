package io.gpuremediator.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.NodeLedger.Claim;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** The JSON form of a node ledger, as stored in the {@code gpu-remediator.io/state} annotation. */
final class LedgerCodec {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int VERSION = 1;

  private LedgerCodec() {}

  /** Encodes a ledger compactly, with sorted keys. */
  static String encode(NodeLedger ledger) {
    ObjectNode root = JSON.createObjectNode();
    root.put("v", VERSION);
    ObjectNode claims = root.putObject("claims");
    ledger.claims().forEach((key, claim) -> {
      ObjectNode c = claims.putObject(key);
      ArrayNode holders = c.putArray("holders");
      claim.holders().forEach(holders::add);
      if (claim.preexisting()) {
        c.put("preexisting", true);
      }
    });
    ObjectNode episodes = root.putObject("episodes");
    ledger.episodes().forEach((fp, e) -> {
      ObjectNode o = episodes.putObject(fp);
      o.put("alertname", e.alertname());
      o.put("playbook", e.playbook());
      if (!e.matched().equals(e.playbook())) {
        o.put("matched", e.matched());
      }
      o.put("starts_at", e.startsAt().toString());
      o.put("since", e.since().toString());
      if (!e.progress().equals(Progress.settled(e.since()))) {
        o.set("progress", encode(e.progress()));
      }
      if (!e.labels().isEmpty()) {
        e.labels().forEach(o.putObject("labels")::put);
      }
      if (!e.annotations().isEmpty()) {
        e.annotations().forEach(o.putObject("annotations")::put);
      }
      if (!e.outbound().isEmpty()) {
        e.outbound().forEach(o.putObject("outbound")::put);
      }
    });
    if (!ledger.expiring().isEmpty()) {
      ledger.expiring().forEach(root.putArray("expiring_silences")::add);
    }
    ArrayNode history = root.putArray("history");
    for (NodeLedger.PastEpisode p : ledger.history()) {
      ObjectNode past = history.addObject().put("fingerprint", p.fingerprint()).put("starts_at", p.startsAt().toString())
          .put("playbook", p.playbook()).put("since", p.since().toString()).put("released_at", p.releasedAt().toString());
      if (!p.matched().equals(p.playbook())) {
        past.put("matched", p.matched());
      }
    }
    return root.toString();
  }

  /** Decodes a ledger; throws {@link IllegalArgumentException} naming what is wrong. */
  static NodeLedger decode(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON");
    }
    if (root == null || !root.isObject() || root.path("v").asInt() != VERSION) {
      throw new IllegalArgumentException("not a version " + VERSION + " ledger");
    }
    Map<String, Claim> claims = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("claims").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      TreeSet<String> holders = new TreeSet<>();
      JsonNode list = e.getValue().path("holders");
      if (!list.isArray() || list.isEmpty()) {
        throw new IllegalArgumentException("claim " + e.getKey() + " has no holders");
      }
      list.forEach(h -> holders.add(h.asText()));
      claims.put(e.getKey(), new Claim(holders, e.getValue().path("preexisting").asBoolean(false)));
    }
    Map<String, Episode> episodes = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("episodes").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode o = e.getValue();
      try {
        Instant since = Instant.parse(o.path("since").asText());
        Progress progress = o.has("progress") ? decodeProgress(e.getKey(), o.path("progress")) : Progress.settled(since);
        episodes.put(e.getKey(), new Episode(e.getKey(), o.path("alertname").asText(), o.path("playbook").asText(),
            Instant.parse(o.path("starts_at").asText()), since, progress, strings(o.path("labels")),
            strings(o.path("annotations")), strings(o.path("outbound")), o.path("matched").asText("")));
      } catch (DateTimeParseException ex) {
        throw new IllegalArgumentException("episode " + e.getKey() + " has a bad time");
      }
    }
    List<NodeLedger.PastEpisode> history = new ArrayList<>();
    for (JsonNode p : root.path("history")) {
      try {
        history.add(new NodeLedger.PastEpisode(p.path("fingerprint").asText(), Instant.parse(p.path("starts_at").asText()),
            p.path("playbook").asText(), Instant.parse(p.path("since").asText()), Instant.parse(p.path("released_at").asText()),
            p.path("matched").asText("")));
      } catch (DateTimeParseException ex) {
        throw new IllegalArgumentException("a past episode has a bad time");
      }
    }
    List<String> expiring = new ArrayList<>();
    root.path("expiring_silences").forEach(id -> expiring.add(id.asText()));
    return NodeLedger.of(claims, episodes, history, expiring);
  }

  private static ObjectNode encode(Progress p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("stage", p.stage().code()).put("stage_since", p.stageSince().toString());
    if (p.resolved()) {
      o.put("resolved", true);
    }
    if (p.releasing()) {
      o.put("releasing", true);
    }
    if (p.next() != Progress.DONE) {
      o.put("next", p.next());
    }
    p.task().ifPresent(t -> {
      ObjectNode task = o.putObject("task");
      task.put("kind", t.kind()).put("step", t.step()).put("started", t.started().toString()).put("attempt", t.attempt());
      if (!t.handle().isEmpty()) {
        task.put("handle", t.handle());
      }
      t.retryAt().ifPresent(at -> task.put("retry_at", at.toString()));
    });
    if (!p.note().isEmpty()) {
      o.put("note", p.note());
    }
    return o;
  }

  private static Progress decodeProgress(String fingerprint, JsonNode o) {
    Stage stage = Stage.fromCode(o.path("stage").asText())
        .orElseThrow(() -> new IllegalArgumentException("episode " + fingerprint + " has an unknown stage"));
    int next = o.has("next") ? o.path("next").asInt(-1) : Progress.DONE;
    if (next < 0) {
      throw new IllegalArgumentException("episode " + fingerprint + " has a bad step index");
    }
    Optional<Progress.Task> task = Optional.empty();
    JsonNode t = o.path("task");
    if (t.isObject()) {
      task = Optional.of(new Progress.Task(t.path("kind").asText(), t.path("step").asInt(), Instant.parse(t.path("started").asText()),
          t.path("attempt").asInt(1), t.path("handle").asText(""),
          t.has("retry_at") ? Optional.of(Instant.parse(t.path("retry_at").asText())) : Optional.empty()));
    }
    return new Progress(stage, Instant.parse(o.path("stage_since").asText()), o.path("resolved").asBoolean(false),
        o.path("releasing").asBoolean(false), next, task, o.path("note").asText(""));
  }

  private static Map<String, String> strings(JsonNode o) {
    Map<String, String> out = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      out.put(e.getKey(), e.getValue().asText());
    }
    return out;
  }
}
